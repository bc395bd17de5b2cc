"""What the learner trains on: one token sequence per designer reply and per agent episode.

Pure: no model, no I/O. The designer's samples are its replies (prompt → environment), each
with its design's centred advantage; the agent's samples are its no-hint episodes (the agent
earns its no-hint score), each with its group-relative advantage within the environment's
paired seeds. A sample with advantage 0.0 teaches nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from spadework.designer import Design
from spadework.learn.settings import AttemptChoice
from spadework.outcomes import DesignOutcome
from spadework.policy.base import Message, Role, Tools
from spadework.rollout import Arm, Episode
from spadework.rollout.tokens import Tokenizer, render_tokens


class TrainRole(StrEnum):
    """Which role of the shared model a sample trains."""

    DESIGNER = "designer"
    AGENT = "agent"


@dataclass(frozen=True)
class TrainSample:
    """One sequence to train on.

    Attributes:
        role: the role it trains.
        ids: token ids of the whole rendered conversation.
        mask: 1 on the tokens the loss counts (the trained role's replies), else 0.
        advantage: the same for every trained token of the sequence.
        source: where it came from (a design id and attempt, or an episode), for logs.
    """

    role: TrainRole
    ids: tuple[int, ...]
    mask: tuple[int, ...]
    advantage: float
    source: str

    @property
    def trained_tokens(self) -> int:
        return sum(self.mask)

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role.value, "ids": list(self.ids), "mask": list(self.mask),
                "advantage": self.advantage, "source": self.source}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainSample:
        return cls(TrainRole(data["role"]), tuple(data["ids"]), tuple(data["mask"]),
                   float(data["advantage"]), data["source"])


def chosen_attempts(design: Design, choice: AttemptChoice) -> list[tuple[tuple[Message, ...], str]]:
    """The (conversation including the reply, label) pairs of a design that ``choice`` trains.

    >>> from spadework.designer.design import DesignAttempt
    >>> from spadework.validate.verdict import Verdict
    >>> v = Verdict((), "none")
    >>> tries = tuple(DesignAttempt(n, (Message(Role.USER, "go"),), f"r{n}", None, v) for n in (1, 2))
    >>> [label for _, label in chosen_attempts(Design("d", "doc", None, tries), AttemptChoice.FINAL)]
    ['d/attempt-2']
    """
    picked = {AttemptChoice.FIRST: design.attempts[:1], AttemptChoice.FINAL: design.attempts[-1:],
              AttemptChoice.ALL: design.attempts}[choice]
    return [(attempt.conversation + (Message(Role.ASSISTANT, attempt.reply),),
             f"{design.design_id}/attempt-{attempt.attempt}") for attempt in picked]


def truncate(
    ids: Sequence[int], mask: Sequence[int], max_tokens: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The first ``max_tokens`` ids and mask entries (the prompt is kept; a long reply is cut).

    >>> truncate([1, 2, 3], [0, 1, 1], 2)
    ((1, 2), (0, 1))
    """
    return tuple(ids[:max_tokens]), tuple(mask[:max_tokens])


def _sample(
    role: TrainRole, messages: Sequence[Message], advantage: float, source: str,
    tokenizer: Tokenizer, max_tokens: int, last_only: bool, tools: Tools | None = None,
) -> TrainSample | None:
    rendered = render_tokens(messages, tokenizer, last_only=last_only, tools=tools)
    ids, mask = truncate(rendered.ids, rendered.mask, max_tokens)
    return TrainSample(role, ids, mask, advantage, source) if any(mask) else None


def designer_samples(
    designs: Sequence[Design], outcomes: Sequence[DesignOutcome], tokenizer: Tokenizer, *,
    choice: AttemptChoice = AttemptChoice.FIRST, max_tokens: int = 4096,
) -> list[TrainSample]:
    """The designer's samples: the chosen replies of every design with a non-zero advantage.

    Each is rendered with the tokenizer's own chat template (``rollout.tokens.render_tokens``),
    trained on its last reply only.
    """
    samples = []
    for design, outcome in zip(designs, outcomes, strict=True):
        if outcome.advantage == 0.0:
            continue
        for messages, label in chosen_attempts(design, choice):
            sample = _sample(TrainRole.DESIGNER, messages, outcome.advantage, label, tokenizer, max_tokens,
                             last_only=True)
            if sample is not None:
                samples.append(sample)
    return samples


def agent_samples(
    outcomes: Sequence[DesignOutcome], episodes: Sequence[Episode], tokenizer: Tokenizer, *,
    max_tokens: int = 4096,
) -> list[TrainSample]:
    """The agent's samples: its no-hint episodes, each with its group-relative advantage.

    Each episode is rendered with the tokenizer's own chat template and trained on every reply.

    ``DesignOutcome.agent_advantages`` follow the no-hint episodes of the design sorted by seed.
    """
    samples = []
    for outcome in outcomes:
        own = sorted((e for e in episodes if e.env_id == outcome.design_id and e.arm is Arm.NOHINT),
                     key=lambda e: e.seed)
        for episode, advantage in zip(own, outcome.agent_advantages, strict=True):
            if advantage == 0.0:
                continue
            label = f"{episode.env_id}/seed-{episode.seed}"
            sample = _sample(TrainRole.AGENT, episode.messages, advantage, label, tokenizer, max_tokens,
                             last_only=False, tools=episode.tools or None)  # as the agent was prompted
            if sample is not None:
                samples.append(sample)
    return samples
