r"""Single-player textarena games as multi-turn spadework environments (held-out evaluation).

The agent writes ``\boxed{move}``; textarena games read moves in square brackets, so the
box's content becomes one bracketed move (``game_action``): ``\boxed{A C}`` plays ``[A C]``.
Observations are the game's messages since the last move (the prompt and board first),
without the echo of the move itself; the last one ends with the game's reason.

Reward: 0 on every move until the game ends, then textarena's outcome for the player as
``graded_score`` maps it: 1 (a win) is 1.0; a loss (falling into a hole, a second invalid
move in a row) earns the share of the puzzle textarena reports as done, as partial credit
below 1. textarena forgives one invalid move (it explains and asks again; Minesweeper counts
hitting a mine as one) and ends the game at the second in a row. An episode still going
after ``max_turns`` moves is truncated with reward 0 (textarena checks its own turn limit one
move late, so the episode's limit always comes first).

Games are built without textarena's wrappers (its ``-raw`` ids) and with their own
``random`` state (``PrivateRandom``), so one seed is one episode however many are played
at once. textarena is imported when the first adapter is built (``pip install 'spadework[eval]'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from spadework.envs.heldout import HeldOutEnv, PrivateRandom, graded_score, import_package
from spadework.errors import EnvError, EnvRaised

PACKAGE = "textarena"
MOVE_NOTE = ("Write each move inside \\boxed{...} instead of square brackets: the content of the box is "
             "played as one bracketed move, so \\boxed{X} plays [X].")
OUT_OF_TURNS = "Out of turns: the episode is over."
ECHO = "PLAYER_ACTION"
"""textarena's message type for the echo of the move just played (not shown again)."""

GAMES: Mapping[str, int] = MappingProxyType({
    "GuessTheNumber-v0": 10,
    "TowerOfHanoi-v0": 14,
    "FrozenLake-v0": 12,
    "Mastermind-v0": 12,
    "LightsOut-v0": 20,
    "Minesweeper-v0-small": 20,
})
"""Games checked to run offline here, with the moves an episode gets (``max_turns``).

GuessTheNumber (1-20, 10 guesses) and TowerOfHanoi (3 disks, 14 moves) keep their own turn
limits; FrozenLake (4x4, 3 holes; shortest path 6; no limit of its own below 100) and
Mastermind (4 of 6 digits; 20 guesses) get 12 moves, so an evaluation stays affordable. A game
with a ``max_turns`` option is built with the episode's, so the limit it states is the one
that holds (an invalid move uses an episode's move but not the game's). The first four
are the defaults; LightsOut (5x5) and Minesweeper (5x5, 5 mines) are opt-in.

Left out: Hangman, Wordle and WordLadder need NLTK word lists that textarena downloads on
first use (not available offline); TwentyQuestions and GuessWho need an OpenRouter API key
(an LLM plays the other side); Klondike does not import (a syntax error in textarena 0.7.4);
the many two-player games need an opponent."""

DEFAULT_GAMES = ("GuessTheNumber-v0", "TowerOfHanoi-v0", "FrozenLake-v0", "Mastermind-v0")


def game_action(command: str) -> str:
    """The textarena move for the content of the agent's box: one pair of square brackets.

    Brackets the agent wrote are dropped and whitespace is collapsed, so one action is
    always one move (a box holding several bracketed moves is not played as several).

    >>> game_action("A C"), game_action("[5]"), game_action("  up "), game_action("[A C] [A B]")
    ('[A C]', '[5]', '[up]', '[A C A B]')
    >>> game_action("")
    '[]'
    """
    return "[" + " ".join(command.replace("[", " ").replace("]", " ").split()) + "]"


class TextArenaEnv(HeldOutEnv):
    """One single-player textarena game, played move by move.

    Args:
        game: a textarena id, e.g. ``TowerOfHanoi-v0`` (see ``GAMES``).
        max_turns: moves an episode gets; default ``GAMES[game]``, else 20.

    Raises:
        UsageError: textarena is not installed.
    """

    def __init__(self, game: str, max_turns: int | None = None):
        self._library = import_package("textarena", PACKAGE)
        self.game = game
        self.max_turns = int(max_turns if max_turns is not None else GAMES.get(game, 20))
        self._env: Any = None
        self._moves = 0
        self._over = False
        self._random = PrivateRandom()

    def _call(self, what: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a textarena call with the episode's ``random`` state; its failure ends the episode."""
        try:
            with self._random.active():
                return function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a library failure ends this episode only
            raise EnvRaised(f"textarena {self.game} failed in {what}: {type(exc).__name__}: {exc}") from None

    def _news(self) -> str:
        """The game's messages since the last call, without the echo of the move."""
        _player, messages = self._call("get_observation", self._env.get_observation)
        return "\n".join(str(text).strip() for _sender, text, kind in messages
                         if getattr(kind, "name", "") != ECHO and str(text).strip())

    def _options(self) -> dict[str, int]:
        """``max_turns`` for a game whose registration has that option, so what it says is true."""
        spec = self._library.envs.registration.ENV_REGISTRY.get(f"{self.game}-raw")
        return {"max_turns": self.max_turns} if spec is not None and "max_turns" in spec.kwargs else {}

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """Start the game of ``seed`` (0 when None); the observation is its prompt and board."""
        seed = 0 if seed is None else int(seed)
        self._env = self._call("make", self._library.make, f"{self.game}-raw", **self._options())
        self._call("reset", self._env.reset, num_players=1, seed=seed)
        self._moves, self._over = 0, False
        return f"{self._news()}\n\n{MOVE_NOTE}", {"game": self.game, "seed": seed}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Play the move; the reward is the outcome when the game ends, else 0.

        Raises:
            EnvError: called before ``reset`` or after the episode ended.
        """
        if self._env is None or self._over:
            raise EnvError(f"textarena {self.game}: call reset() before step(), and not step() after the end")
        move = game_action(str(action))
        done, _info = self._call("step", self._env.step, move)
        self._moves += 1
        observation = self._news()
        if done:
            self._over = True
            rewards, game_info = self._call("close", self._env.close)
            raw = (rewards or {}).get(0, 0.0)
            reason = str((game_info or {}).get(0, {}).get("reason", "The game is over."))
            return f"{observation}\n{reason}".strip(), graded_score(raw), True, False, {"outcome": raw}
        if self._moves >= self.max_turns:
            self._over = True
            return f"{observation}\n{OUT_OF_TURNS}".strip(), 0.0, False, True, {}
        return observation or "(no change)", 0.0, False, False, {}

    def solution(self) -> list[str]:
        """Not known for textarena games.

        Raises:
            EnvError: always.
        """
        raise EnvError(f"textarena {self.game} has no known solution to replay; held-out games are "
                       "only played, never validated")
