"""How each environment's difficulty is held at the agent's edge: the ``[difficulty]`` section.
Light: reading a configuration loads no controller."""

from __future__ import annotations

from pydantic import Field, model_validator

from spadework.kinds import Controller
from spadework.settings_base import Section


class DifficultySettings(Section):
    """The difficulty controller (``[difficulty]``). The defaults of the rule are the reference's
    sliding window: up a level once 90% of the last 8 plays at a level were won."""

    controller: Controller = Field(Controller.NONE, description="none: every environment plays at its own "
                                   "difficulty; sliding: the sliding-window rule moves each one's level")
    window: int = Field(8, ge=1, le=64, description="the last no-hint plays at a level the rule reads")
    raise_at: float = Field(0.9, gt=0.0, le=1.0, description="up a level when at least this share of the "
                            "window was won")
    lower_at: float = Field(0.1, ge=0.0, lt=1.0, description="down a level when at most this share of the "
                            "window was won")
    start: int = Field(1, ge=1, le=10, description="the level a new environment starts at (its highest when "
                       "it declares fewer)")

    @model_validator(mode="after")
    def _marks(self) -> DifficultySettings:
        if self.lower_at >= self.raise_at:
            raise ValueError(f"difficulty.lower_at ({self.lower_at}) must be below difficulty.raise_at "
                             f"({self.raise_at})")
        return self

    @property
    def on(self) -> bool:
        """Whether a controller moves the levels."""
        return self.controller is not Controller.NONE
