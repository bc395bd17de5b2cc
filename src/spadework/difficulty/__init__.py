"""Every environment at the agent's edge: a difficulty each environment reads when it draws an
episode (``TextEnv.difficulty``, the declared worlds' ladder), and the controller that moves it
from the agent's recent no-hint plays (``[difficulty]``)."""

from spadework.difficulty.controller import Standing, moved
from spadework.difficulty.settings import DifficultySettings

__all__ = ["DifficultySettings", "Standing", "moved"]
