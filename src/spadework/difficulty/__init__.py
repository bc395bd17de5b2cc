"""Every environment at the agent's edge: a difficulty each environment reads when it draws an
episode (``TextEnv.difficulty``, the declared worlds' ladder), and the controller that moves it
from the agent's recent no-hint plays (``[difficulty]``).

The names below are loaded on first use, so importing ``difficulty.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.difficulty.controller": ("Standing", "moved"),
    "spadework.difficulty.settings": ("DifficultySettings",),
})

if TYPE_CHECKING:
    from spadework.difficulty.controller import Standing, moved
    from spadework.difficulty.settings import DifficultySettings

__all__ = ["DifficultySettings", "Standing", "moved"]
