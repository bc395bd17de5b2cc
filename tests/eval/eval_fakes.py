"""Fakes and helpers for the held-out evaluation tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from spadework.config import CONFIG_FILE, load_config
from spadework.learn.checkpoint import write_checkpoint
from spadework.policy.base import Completion, Conversation, Role, Sampling

HANOI_MOVES = ("A C", "A B", "C B", "A C", "B A", "B C", "A C")
"""The seven moves that solve three-disk Tower of Hanoi from A to C."""


def first_user(conversation: Conversation) -> str:
    return next(m.content for m in conversation if m.role is Role.USER)


def replies(conversation: Conversation) -> int:
    return sum(m.role is Role.ASSISTANT for m in conversation)


def spelled_backward(question: str) -> str:
    """The answer to reasoning-gym's spell_backward question (the word after the colon, reversed)."""
    line = next(line for line in question.splitlines() if line.startswith("Spell this word backward"))
    return line.rsplit(":", 1)[1].strip()[::-1]


class FakeAgent:
    """FAKE policy: solves Tower of Hanoi by rote, optionally spells backward, answers 0 to the rest.

    Args:
        spells: answer spell_backward questions correctly (else write the word as it is).
        name: the policy's name.
    """

    def __init__(self, spells: bool, name: str = "fake"):
        self.spells = spells
        self.name = name
        self.calls = 0
        self.closed = False

    def reply(self, conversation: Conversation) -> str:
        question = first_user(conversation)
        if "Tower of Hanoi" in question:
            return f"Next move. \\boxed{{{HANOI_MOVES[replies(conversation) % len(HANOI_MOVES)]}}}"
        if "Spell this word backward" in question:
            answer = spelled_backward(question)
            return f"\\boxed{{{answer if self.spells else answer[::-1]}}}"
        return "\\boxed{0}"

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling, tools=None
    ) -> list[Completion]:
        self.calls += 1
        return [Completion(self.reply(c), completion_tokens=5) for c in conversations]

    def close(self) -> None:
        self.closed = True


def scripted_config_file(folder: Path) -> Path:
    """A config file whose policy is the scripted fake."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "scripted.toml"
    path.write_text('[policy]\nkind = "scripted"\n', encoding="utf-8")
    return path


def make_run(run_dir: Path, iterations: Sequence[int], kind: str = "scripted") -> Path:
    """A run directory with a config of policy ``kind`` and empty checkpoints of ``iterations``."""
    run_dir.mkdir(parents=True)
    (run_dir / CONFIG_FILE).write_text(load_config(None, {"policy.kind": kind}).to_toml(), encoding="utf-8")
    for iteration in iterations:
        write_checkpoint(run_dir, iteration, lambda folder: None, {"iteration": iteration}, keep=10)
    return run_dir
