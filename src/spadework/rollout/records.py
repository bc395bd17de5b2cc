"""Records of the rollout: what to play, how it went, and the settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from spadework.errors import ConfigError
from spadework.kinds import Arm as Arm
from spadework.kinds import Arms as Arms
from spadework.policy.base import Message, Sampling
from spadework.rollout.audit import PlayCheck
from spadework.rollout.prompt import AgentForm, HintStyle, ToolPrompt


class EndReason(StrEnum):
    """Why an episode ended.

    TERMINATED: the environment reached an end of its own (solved, or lost for good).
    TRUNCATED: the environment cut the episode short (its own turn limit).
    MAX_TURNS: the rollout's turn cap (``min(max_turns_cap, env.max_turns)``) was reached.
    CONTEXT: the transcript plus one more reply would not fit in ``context_tokens``.
    ENV_ERROR: the environment failed to open, reset, give its hint or step; see ``error``.
    """

    TERMINATED = "terminated"
    TRUNCATED = "truncated"
    MAX_TURNS = "max_turns"
    CONTEXT = "context"
    ENV_ERROR = "env_error"


@dataclass(frozen=True)
class PlayJob:
    """One episode to play: an environment's source, a seed and an arm.

    Attributes:
        env_id: the caller's name for the environment (e.g. its content hash); copied to the episode.
        source: the environment's Python source.
        seed: passed to ``reset``; the two arms of one environment use the same seeds.
        arm: with or without the hint.
        form: the agent's instructions; None: read from the source (``form_of_source``).
        difficulty: the difficulty the environment is opened at (``spadework.difficulty``); None:
            its own.
    """

    env_id: str
    source: str
    seed: int
    arm: Arm
    form: AgentForm | None = None
    difficulty: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The job as JSON (``from_json`` reads it back)."""
        return {"env_id": self.env_id, "source": self.source, "seed": self.seed, "arm": self.arm.value,
                "form": None if self.form is None else self.form.value, "difficulty": self.difficulty}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayJob:
        """The job written by ``to_json``."""
        form = data.get("form")
        return cls(data["env_id"], data["source"], int(data["seed"]), Arm(data["arm"]),
                   None if form is None else AgentForm(form), data.get("difficulty"))


@dataclass(frozen=True)
class Episode:
    """One played episode: its transcript and what it earned.

    Attributes:
        env_id: from the job.
        seed: from the job.
        arm: from the job.
        messages: system prompt, first observation (with the hint line in the hinted arm),
            then alternating replies and observations (``Role.TOOL`` messages in a tool world,
            user messages otherwise). Empty when the environment failed before its first
            observation.
        rewards: one per completed step, in order (a non-finite reward is kept as 0.0).
        score: ``episode_score(rewards)``: their sum clipped to [0, 1].
        solved: whether ``score`` counts as solved.
        turns: completed steps (``len(rewards)``).
        unboxed: replies without a ``\\boxed{...}`` (played as their whole stripped text); in a
            tool world, replies with neither a tool call nor a ``\\boxed{...}``.
        hint: the hint shown, or None in the arm without it.
        error: the environment's error message when ``end`` is ENV_ERROR, else None.
        completion_tokens: tokens the policy generated for this episode, as it reported them.
        seconds: wall-clock time from opening the environment to the episode's end.
        end: why the episode ended.
        tools: the tool schemas the agent was given (a tool world's ``reset`` info), else empty;
            the learner renders them as the policy did (``render_tokens(..., tools=...)``).
        check: what the audit of a designed environment's episode read and found
            (``rollout.audit``); None when the play was not audited or the environment failed.
        tool_replies: replies written in a tool world (the call rates' denominator).
        calls: in a tool world, replies that held a call that reads (``rollout.calls.ReplyShape``).
        valid_calls: of those, replies whose every call names a listed tool with the arguments it
            takes.
        difficulty: from the job (None: the environment's own).
    """

    env_id: str
    seed: int
    arm: Arm
    messages: tuple[Message, ...]
    rewards: tuple[float, ...]
    score: float
    solved: bool
    turns: int
    unboxed: int
    hint: str | None
    error: str | None
    completion_tokens: int
    seconds: float
    end: EndReason
    tools: tuple[dict[str, Any], ...] = ()
    check: PlayCheck | None = None
    tool_replies: int = 0
    calls: int = 0
    valid_calls: int = 0
    difficulty: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The episode as JSON (``from_json`` reads it back)."""
        data = asdict(self)
        data["check"] = None if self.check is None else self.check.to_json()
        data["arm"] = self.arm.value
        data["end"] = self.end.value
        data["messages"] = [message.to_json() for message in self.messages]
        data["rewards"] = list(self.rewards)
        data["tools"] = list(data["tools"])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Episode:
        """The episode written by ``to_json``."""
        fields = dict(data)
        fields["arm"] = Arm(data["arm"])
        fields["end"] = EndReason(data["end"])
        fields["messages"] = tuple(Message.from_json(m) for m in data["messages"])
        fields["rewards"] = tuple(float(r) for r in data["rewards"])
        fields["tools"] = tuple(data.get("tools") or ())
        fields["check"] = None if data.get("check") is None else PlayCheck.from_json(data["check"])
        return cls(**fields)


def estimate_tokens(text: str) -> int:
    """A rough token count when no tokenizer is at hand: four characters a token.

    >>> estimate_tokens("twelve chars")
    3
    """
    return len(text) // 4


TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class RolloutConfig:
    """Settings of the agent's rollouts.

    Attributes:
        max_turns_cap: most steps per episode; an environment's own ``max_turns`` lowers it.
        context_tokens: budget of the whole transcript. Before each reply the rollout checks
            that the transcript so far plus ``sampling.max_tokens`` fits; else the episode ends
            with ``EndReason.CONTEXT``.
        concurrency: environment calls (open, reset, step) in flight at once.
        sampling: sampling settings of the agent's replies.
        hint_style: how the hinted arm shows the hint.
        audit: check every played episode (designed environments: ``rollout.audit``); off for
            held-out tasks, which have no hint or solution of their own to check.
        tool_prompt: how a tool world's tools and the way to call them are shown.
    """

    max_turns_cap: int = 10
    context_tokens: int = 3072
    concurrency: int = 8
    sampling: Sampling = field(default_factory=Sampling)
    hint_style: HintStyle = HintStyle.LINE
    audit: bool = False
    tool_prompt: ToolPrompt = ToolPrompt.NATIVE

    def __post_init__(self) -> None:
        for name in ("max_turns_cap", "context_tokens", "concurrency"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"RolloutConfig.{name} must be a whole number >= 1, got {value!r}")

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON (``from_json`` reads them back)."""
        data = asdict(self)
        data["sampling"]["stop"] = list(self.sampling.stop)
        data["hint_style"] = self.hint_style.value
        data["tool_prompt"] = self.tool_prompt.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RolloutConfig:
        """The settings written by ``to_json``; missing fields take their defaults."""
        fields = dict(data)
        if "sampling" in fields:
            sampling = dict(fields["sampling"])
            sampling["stop"] = tuple(sampling.get("stop", ()))
            fields["sampling"] = Sampling(**sampling)
        if "hint_style" in fields:
            fields["hint_style"] = HintStyle(fields["hint_style"])
        if "tool_prompt" in fields:
            fields["tool_prompt"] = ToolPrompt(fields["tool_prompt"])
        return cls(**fields)
