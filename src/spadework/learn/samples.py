"""What the learner trains on: one token sequence per designer reply and per agent episode.

Pure: no model, no I/O. The designer's samples are its replies (prompt → environment), each
with its design's centred advantage; the agent's samples are its no-hint episodes (the agent
earns its no-hint score), each with its group-relative advantage within the environment's
paired seeds. A sample with advantage 0.0 teaches nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
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
        source: where it came from (``<design id>/attempt-<n>``, or ``<env id>/seed-<seed>``).
        behaviour: the log-probability of each next token (``len(ids) - 1``) under the policy that
            wrote it, when it is trained later than it was written (a designer's window); the
            update then weighs it by truncated importance sampling. Empty: written by the policy
            being updated.
    """

    role: TrainRole
    ids: tuple[int, ...]
    mask: tuple[int, ...]
    advantage: float
    source: str
    behaviour: tuple[float, ...] = ()

    @property
    def trained_tokens(self) -> int:
        """How many tokens the sample trains on (its mask's ones)."""
        return sum(self.mask)

    @property
    def design_id(self) -> str:
        """The design or environment id its ``source`` starts with.

        >>> TrainSample(TrainRole.DESIGNER, (), (), 1.0, "i4-d2/attempt-1").design_id
        'i4-d2'
        """
        return self.source.partition("/")[0]

    def to_json(self) -> dict[str, Any]:
        """The sample as JSON (the behaviour log-probs only when kept)."""
        data = {"role": self.role.value, "ids": list(self.ids), "mask": list(self.mask),
                "advantage": self.advantage, "source": self.source}
        return {**data, "behaviour": list(self.behaviour)} if self.behaviour else data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainSample:
        """The sample written by ``to_json``."""
        return cls(TrainRole(data["role"]), tuple(data["ids"]), tuple(data["mask"]),
                   float(data["advantage"]), data["source"], tuple(data.get("behaviour", ())))


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
    if not any(m.role is Role.ASSISTANT for m in messages):  # e.g. an environment that failed at reset
        return None  # nothing to train, and a chat template refuses an empty conversation
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
    rendered = rendered_designs(designs, tokenizer, choice=choice, max_tokens=max_tokens)
    return with_advantages(rendered, outcomes)


def rendered_designs(
    designs: Sequence[Design], tokenizer: Tokenizer, *, choice: AttemptChoice = AttemptChoice.FIRST,
    max_tokens: int = 4096,
) -> list[TrainSample]:
    """The chosen replies of every design as samples, before they are paid (advantage 0.0): what a
    window keeps until it closes (``with_advantages``)."""
    samples = []
    for design in designs:
        for messages, label in chosen_attempts(design, choice):
            sample = _sample(TrainRole.DESIGNER, messages, 0.0, label, tokenizer, max_tokens, last_only=True)
            if sample is not None:
                samples.append(sample)
    return samples


def with_advantages(samples: Sequence[TrainSample], outcomes: Sequence[DesignOutcome]) -> list[TrainSample]:
    """The samples with the advantage of their design's outcome, those of a zero advantage (or of
    no outcome) left out.

    >>> from spadework.outcomes import DesignOutcome
    >>> s = [TrainSample(TrainRole.DESIGNER, (1, 2), (0, 1), 0.0, f"d{i}/attempt-1") for i in range(3)]
    >>> paid = [DesignOutcome("d0", True, (), (), 0.0, 1.0, advantage=0.5),
    ...         DesignOutcome("d1", True, (), (), 0.0, 0.0, advantage=0.0)]
    >>> [(x.source, x.advantage) for x in with_advantages(s, paid)]
    [('d0/attempt-1', 0.5)]
    """
    advantage = {o.design_id: o.advantage for o in outcomes}
    return [replace(s, advantage=advantage[s.design_id]) for s in samples if advantage.get(s.design_id, 0.0)]


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


def demonstration_samples(episodes: Sequence[Episode], tokenizer: Tokenizer, *,
                          max_tokens: int = 4096) -> list[TrainSample]:
    """The agent's samples of demonstrations (``rollout.demonstrate``): every solved episode, with
    advantage 1.0, trained on every reply. With the update's ratio at 1 (fresh samples, first
    pass) the policy-gradient step on them is the supervised step: it raises the likelihood of
    the solution's calls. Unsolved episodes teach no solution and are left out.
    """
    samples = []
    for episode in episodes:
        if not episode.solved:
            continue
        label = f"{episode.env_id}/seed-{episode.seed}/demo"
        sample = _sample(TrainRole.AGENT, episode.messages, 1.0, label, tokenizer, max_tokens,
                         last_only=False, tools=episode.tools or None)
        if sample is not None:
            samples.append(sample)
    return samples
