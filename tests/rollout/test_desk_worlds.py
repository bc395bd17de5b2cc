"""The tool-learning pool's desk worlds (``configs/experiments/tool-worlds/pool/desk``): many unrelated
functions, a task asking for one or two of them; solved by exactly those calls, in any order, a reply
each or together, and never by a call with a wrong value or one too many."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.designer.pool import pool_sources
from spadework.envs.tool_calls import parse_calls
from spadework.kinds import ToolPrompt
from spadework.policy.base import Role
from spadework.rollout import RolloutConfig
from spadework.rollout.demonstrate import Demonstrator, demonstrations, solution_of
from spadework.rollout.play import run_plays
from spadework.rollout.records import Arm, PlayJob

POOL = Path(__file__).resolve().parents[2] / "configs" / "experiments" / "tool-worlds" / "pool"
DESKS = sorted((POOL / "desk").glob("*.py"))
SEEDS = tuple(range(8))
CONFIG = RolloutConfig(max_turns_cap=3, tool_prompt=ToolPrompt.NATIVE, concurrency=2)


def _desk(path: Path) -> tuple[str, str]:
    return path.stem, path.read_text(encoding="utf-8")


def _played(sandbox, world: tuple[str, str], seed: int, actions: list[str]):
    job = PlayJob(world[0], world[1], seed, Arm.NOHINT)
    return run_plays(Demonstrator(actions, ToolPrompt.NATIVE), sandbox, [job], CONFIG)[0]


def test_the_pool_folder_takes_its_subfolders_worlds():
    names = [name for name, _ in pool_sources(str(POOL))]
    assert len(DESKS) >= 4 and {p.stem for p in DESKS} <= set(names)
    assert "bank_accounts" in names and len(names) == len(set(names))


@pytest.mark.parametrize("path", DESKS, ids=lambda p: p.stem)
def test_a_desk_is_solved_by_its_demonstration_one_call_a_reply(sandbox, path):
    episodes = demonstrations(sandbox, [_desk(path)], SEEDS, CONFIG)
    assert all(e.solved and e.turns == e.valid_calls for e in episodes)
    replies = [m.content for e in episodes for m in e.messages if m.role is Role.ASSISTANT]
    assert all(r.startswith('{"name": ') and len(r.splitlines()) == 1 for r in replies)
    assert {e.turns for e in episodes} == {1, 2}  # tasks of one request and of two both drawn


@pytest.mark.parametrize("path", DESKS[:2], ids=lambda p: p.stem)
def test_a_desk_takes_its_calls_in_any_order_or_turn_but_not_a_wrong_value_or_an_extra_call(sandbox, path):
    world = _desk(path)
    seed = next(s for s in SEEDS if len(solution_of(sandbox, PlayJob(*world, s, Arm.NOHINT))) == 2)
    first, second = solution_of(sandbox, PlayJob(*world, seed, Arm.NOHINT))
    assert _played(sandbox, world, seed, [f"{second}\n{first}"]).solved
    assert _played(sandbox, world, seed, [second, first]).solved
    assert not _played(sandbox, world, seed, [first]).solved  # half the task
    call = parse_calls(first)[0]
    value = next(iter(call.arguments.values()))
    wrong = str(call).replace(repr(value), repr("Atlantis" if isinstance(value, str) else 7_777), 1)
    assert wrong != str(call) and not _played(sandbox, world, seed, [f"{wrong}\n{second}", first]).solved
    assert not _played(sandbox, world, seed, [f"{first}\n{second}\n{wrong}"]).solved  # one call too many
