"""The textarena adapter against the real package: known-good play solves, bad play does not."""

from __future__ import annotations

import random
from collections import deque

import pytest

pytest.importorskip("textarena")

from eval_fakes import HANOI_MOVES  # noqa: E402

from spadework.envs.textarena_env import GAMES, MOVE_NOTE, OUT_OF_TURNS, TextArenaEnv, game_action  # noqa: E402
from spadework.errors import EnvError  # noqa: E402


def play(env: TextArenaEnv, moves) -> list[tuple]:
    """Step through ``moves`` until the episode ends; every step's result."""
    results = []
    for move in moves:
        results.append(env.step(move))
        if results[-1][2] or results[-1][3]:
            break
    return results


def test_game_action_makes_one_bracketed_move():
    assert game_action("A C") == "[A C]"
    assert game_action(" [ 7 ] ") == "[7]"
    assert game_action("[A C] [A B]") == "[A C A B]"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_listed_game_starts_offline_with_the_move_note(game):
    env = TextArenaEnv(game)
    observation, info = env.reset(seed=2)
    assert observation.endswith(MOVE_NOTE) and len(observation) > len(MOVE_NOTE) + 50
    assert info == {"game": game, "seed": 2} and env.max_turns == GAMES[game]


@pytest.mark.parametrize("seed", [0, 5])
def test_tower_of_hanoi_is_solved_by_the_seven_moves(seed):
    env = TextArenaEnv("TowerOfHanoi-v0")
    env.reset(seed)
    results = play(env, HANOI_MOVES)
    assert len(results) == 7
    assert [r[1] for r in results] == [0.0] * 6 + [1.0]
    assert results[-1][2:4] == (True, False)
    assert "Congratulations" in results[-1][0] and "[A C]" not in results[-1][0]  # the echo is dropped


def test_an_invalid_move_is_forgiven_once_then_ends_the_game_with_zero():
    env = TextArenaEnv("TowerOfHanoi-v0")
    env.reset(0)
    first = env.step("A B")
    second = env.step("A B")  # disk 2 onto disk 1: invalid
    third = env.step("jump")  # invalid again: the game is lost
    assert first[1:4] == (0.0, False, False)
    assert "invalid move" in second[0].lower() and second[1:4] == (0.0, False, False)
    assert third[1:4] == (0.0, True, False) and "Invalid Move" in third[0]
    with pytest.raises(EnvError, match="not step\\(\\) after the end"):
        env.step("A C")


def test_guess_the_number_is_solved_by_binary_search_on_the_feedback():
    env = TextArenaEnv("GuessTheNumber-v0")
    for seed in range(3):
        env.reset(seed)
        low, high, results = 1, 20, []
        while not results or not results[-1][2]:
            guess = (low + high) // 2
            results.append(env.step(str(guess)))
            if "higher" in results[-1][0]:
                low = guess + 1
            elif "lower" in results[-1][0]:
                high = guess - 1
        assert results[-1][1] == 1.0 and len(results) <= 5


def frozen_lake_path(observation: str) -> list[str]:
    """The shortest safe path on the board in ``observation`` (BFS over the drawn grid)."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in observation.splitlines() if line.startswith("|")]
    start = next((r, c) for r, row in enumerate(rows) for c, cell in enumerate(row) if cell == "P")
    steps = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
    queue, seen = deque([(start, [])]), {start}
    while queue:
        (r, c), path = queue.popleft()
        if rows[r][c] == "G":
            return path
        for name, (dr, dc) in steps.items():
            nr, nc = r + dr, c + dc
            inside = 0 <= nr < len(rows) and 0 <= nc < len(rows[0])
            if inside and (nr, nc) not in seen and rows[nr][nc] != "H":
                seen.add((nr, nc))
                queue.append(((nr, nc), [*path, name]))
    raise AssertionError("no path on the board")


def test_frozen_lake_is_solved_by_the_shortest_path_and_lost_in_a_hole():
    env = TextArenaEnv("FrozenLake-v0")
    observation, _ = env.reset(3)
    path = frozen_lake_path(observation)
    results = play(env, path)
    assert len(results) == len(path) and results[-1][1:4] == (1.0, True, False)
    env.reset(3)  # seed 3's board has a hole right below the start, one sixth of the way
    result = env.step("down")
    assert result[1:4] == (pytest.approx(1 / 6), True, False) and "fell into a hole" in result[0]


def test_an_episode_still_going_at_max_turns_is_truncated_with_zero():
    env = TextArenaEnv("FrozenLake-v0", max_turns=2)
    env.reset(3)
    results = play(env, ["right", "left", "right"])
    assert len(results) == 2 and results[-1][1:4] == (0.0, False, True)
    assert results[-1][0].endswith(OUT_OF_TURNS)


def test_a_game_with_a_turn_limit_states_the_episodes_and_is_cut_there():
    env = TextArenaEnv("Mastermind-v0", max_turns=2)
    observation, _ = env.reset(0)
    assert "You have 2 turns" in observation
    results = play(env, ["1 2 3 4", "2 1 4 3", "3 4 1 2"])
    assert len(results) == 2 and results[-1][1:4] == (0.0, False, True)


def test_one_seed_is_one_episode_however_episodes_interleave_and_global_random_is_untouched():
    first, second = TextArenaEnv("Minesweeper-v0-small"), TextArenaEnv("Minesweeper-v0-small")
    random.seed(7)
    state = random.getstate()
    assert first.reset(4) == second.reset(4)
    random.random()  # other code drawing in between must not change the episodes
    opened_second = second.step("2 2")  # mines are placed on the first move, from the episode's random
    other = TextArenaEnv("Minesweeper-v0-small")
    other.reset(9)
    other.step("0 0")
    assert first.step("2 2") == opened_second
    random.setstate(state)
    TextArenaEnv("LightsOut-v0").reset(1)
    assert random.getstate() == state


def test_hint_and_solution_raise_clearly():
    env = TextArenaEnv("GuessTheNumber-v0")
    env.reset(0)
    with pytest.raises(EnvError, match="has no hint"):
        env.hint()
    with pytest.raises(EnvError, match="no known solution"):
        env.solution()
