"""Designing environments in batches: prompt, generate, validate, retry what failed.

Each round sends every design still in need of an answer to the policy in one
``generate`` call: the first round all of them, later rounds the ones whose last reply
failed validation, each with its first request again (``Retry.FRESH``) or with a repair
prompt built from its verdict (``Retry.REPAIR``). Every attempt is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from spadework.corpus.records import Document
from spadework.designer.memory import MemoryDigest
from spadework.designer.novelty import NoveltyIndex, checks_with_novelty
from spadework.designer.prompts import (
    DesignForm,
    clean_hint,
    render_design,
    render_hint_request,
    render_repair,
)
from spadework.errors import PolicyError
from spadework.kinds import Retry as Retry
from spadework.policy.base import Completion, Conversation, Message, Policy, Sampling
from spadework.sandbox import SandboxProtocol
from spadework.validate.checks import CHECKS, Check, ValidatorConfig
from spadework.validate.parse import ReplyCode
from spadework.validate.validator import validate
from spadework.validate.verdict import Verdict

HINT_MAX_TOKENS = 160
"""The most new tokens of a hint-writing call."""


@dataclass(frozen=True)
class DesignAttempt:
    """One reply of the designer and what the validator found.

    Attributes:
        attempt: 1 for the first reply, 2 for the first repair, and so on.
        conversation: the messages the reply answers.
        reply: the designer's reply, as generated.
        code: the reply's Python code block, or ``None`` when it has none to take.
        verdict: the validator's verdict on the reply.
        completion_tokens: tokens the reply took.
    """

    attempt: int
    conversation: tuple[Message, ...]
    reply: str
    code: str | None
    verdict: Verdict
    completion_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        """The attempt as JSON (``from_json`` reads it back)."""
        return {
            "attempt": self.attempt,
            "conversation": [m.to_json() for m in self.conversation],
            "reply": self.reply,
            "code": self.code,
            "verdict": self.verdict.to_json(),
            "completion_tokens": self.completion_tokens,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DesignAttempt:
        """The attempt written by ``to_json``."""
        return cls(
            attempt=int(data["attempt"]),
            conversation=tuple(Message.from_json(m) for m in data["conversation"]),
            reply=data["reply"],
            code=data.get("code"),
            verdict=Verdict.from_json(data["verdict"]),
            completion_tokens=int(data.get("completion_tokens", 0)),
        )


@dataclass(frozen=True)
class Design:
    """One environment design: the document it grounds on and every attempt at it.

    Attributes:
        design_id: the caller's id of this design (e.g. ``iter3:design5``).
        document_id: the corpus document the design reads.
        domain: the document's domain, when the corpus says.
        attempts: every attempt, in order; at least one.
        written_hint: the hint of the optional hint-writing call, when it was made.
        form: the form the designer was asked for; None when it was not asked (a fixed pool's
            environment, or a design stored before forms were kept).
        skill: the skill the request named (``[designer] skills``); None when it named none.
    """

    design_id: str
    document_id: str
    domain: str | None
    attempts: tuple[DesignAttempt, ...]
    written_hint: str | None = None
    form: DesignForm | None = None
    skill: str | None = None

    @property
    def final(self) -> DesignAttempt:
        """The last attempt."""
        return self.attempts[-1]

    @property
    def valid(self) -> bool:
        """Whether the final attempt is valid."""
        return self.final.verdict.valid

    @property
    def repaired(self) -> bool:
        """Valid, after more than one attempt."""
        return self.valid and len(self.attempts) > 1

    @property
    def completion_tokens(self) -> int:
        """Tokens of every attempt together."""
        return sum(a.completion_tokens for a in self.attempts)

    def to_json(self) -> dict[str, Any]:
        """The design as JSON (``from_json`` reads it back; the skill is not kept)."""
        return {
            "design_id": self.design_id,
            "document_id": self.document_id,
            "domain": self.domain,
            "valid": self.valid,
            "attempts": [a.to_json() for a in self.attempts],
            "written_hint": self.written_hint,
            "form": None if self.form is None else self.form.value,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Design:
        """The design written by ``to_json``."""
        return cls(
            design_id=data["design_id"],
            document_id=data["document_id"],
            domain=data.get("domain"),
            attempts=tuple(DesignAttempt.from_json(a) for a in data["attempts"]),
            written_hint=data.get("written_hint"),
            form=DesignForm(data["form"]) if data.get("form") is not None else None,
        )


@dataclass(frozen=True)
class Judged:
    """What the validator made of one reply: its code block, extracted once, and the verdict.

    Attributes:
        code: the reply's Python code block; None when it has none to take.
        verdict: the validator's verdict on the reply.
    """

    code: str | None
    verdict: Verdict


def generate_all(
    policy: Policy, conversations: Sequence[Conversation], sampling: Sampling
) -> list[Completion]:
    """One ``generate`` call; a backend that answers with the wrong count is a ``PolicyError``."""
    completions = list(policy.generate(list(conversations), sampling))
    if len(completions) != len(conversations):
        raise PolicyError(f"policy {getattr(policy, 'name', '?')!r} returned {len(completions)} "
                          f"completions for {len(conversations)} conversations; it must return one each")
    return completions


def _map(function: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    if workers <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        return list(pool.map(function, items))


@dataclass(frozen=True)
class DesignRequest:
    """One environment to design.

    Attributes:
        design_id: the design's id (``i3-d1``).
        document: what it is grounded on, its text already cut to the prompt's budget.
        form: what the designer is asked to write (an answer puzzle, a game, a tool world, ...).
        skill: the skill the environment should exercise (``[designer] skills``); None: any.
    """

    design_id: str
    document: Document
    form: DesignForm = DesignForm.ANSWER
    skill: str | None = None


@dataclass(frozen=True)
class DesignSettings:
    """How a batch of designs is asked for, retried and judged.

    Attributes:
        sampling: the designer's sampling settings.
        max_attempts: the most replies per design (1: no retry).
        validator: the validator's settings; its default when None.
        novelty: the run's near-duplicate index: the validator then checks ``novel`` too, and each
            valid design is added to it at once, so a later design of the same batch cannot be
            its twin.
        checks: the validator's checks when not the usual ones (tests); None: ``CHECKS``, with
            ``novel`` when there is a ``novelty`` index.
        example: the example environment's source; the form's bundled one when None.
        hint_call: after the rounds, ask for a written hint of every valid design (one call).
        hint_temperature: that call's temperature; None: the designer's.
        workers: replies validated at once (threads; useful with the process sandbox).
        temperature_step: how much each retry round raises the temperature.
        retry: what a failed design is asked in the next round.
    """

    sampling: Sampling
    max_attempts: int = 3
    validator: ValidatorConfig | None = None
    novelty: NoveltyIndex | None = None
    checks: tuple[Check, ...] | None = None
    example: str | None = None
    hint_call: bool = False
    hint_temperature: float | None = None
    workers: int = 1
    temperature_step: float = 0.0
    retry: Retry = Retry.FRESH

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"DesignSettings.max_attempts must be at least 1, got {self.max_attempts}")

    def validator_checks(self) -> tuple[Check, ...]:
        """The checks each reply meets."""
        if self.checks is not None:
            return self.checks
        return checks_with_novelty(self.novelty) if self.novelty is not None else CHECKS


def design_batch(policy: Policy, sandbox: SandboxProtocol, requests: Sequence[DesignRequest],
                 digest: MemoryDigest, settings: DesignSettings) -> list[Design]:
    """Design one environment per request, retrying failed ones, in batched rounds.

    Round 1 sends all first prompts in one ``generate`` call; each later round sends, in
    one call, a prompt for every design whose last reply failed (its first prompt again, or
    with ``Retry.REPAIR`` the first prompt, the failed reply and what to fix), until all are
    valid or ``settings.max_attempts`` is reached.

    Args:
        policy: the shared model, in its designer role.
        sandbox: where replies are validated (``Sandbox``, or ``InProcessSandbox`` in tests).
        requests: what to design.
        digest: the memory digest shown in every first prompt.
        settings: sampling, retries and what judges the replies.

    Returns:
        One ``Design`` per request, in order.

    Raises:
        PolicyError: the backend failed or answered with the wrong number of completions.
    """
    solver = settings.validator is not None and settings.validator.second_solver
    firsts = [tuple(render_design(r.document.text, digest, settings.example, r.form, r.skill, solver))
              for r in requests]
    checks, novelty = settings.validator_checks(), settings.novelty

    def judge(item: tuple[int, Completion]) -> Judged:
        index, completion = item
        found = ReplyCode.of(completion.text)
        verdict = validate(completion.text, sandbox, settings.validator, is_reply=True, checks=checks,
                           extracted=found)
        if verdict.valid and novelty is not None:  # later designs of this batch must differ too
            novelty.add(requests[index].design_id, found.code or "", verdict.class_name)
        return Judged(found.code, verdict)

    attempts = run_rounds(policy, firsts, settings.sampling, settings.max_attempts,
                          lambda order, cs: _map(judge, list(zip(order, cs, strict=True)), settings.workers),
                          settings.temperature_step, settings.retry)
    designs = [Design(r.design_id, r.document.id, r.document.domain, tuple(tries), form=r.form, skill=r.skill)
               for r, tries in zip(requests, attempts, strict=True)]
    if not settings.hint_call:
        return designs
    hinting = settings.sampling if settings.hint_temperature is None else \
        replace(settings.sampling, temperature=settings.hint_temperature)
    return write_hints(policy, designs, hinting)


ROUND_SEED_STRIDE = 7919
"""How far apart the sampling seeds of two repair rounds are (a batch never gets this large)."""

MAX_REPAIR_TEMPERATURE = 1.2


def round_sampling(sampling: Sampling, number: int, temperature_step: float = 0.0) -> Sampling:
    """The sampling of round ``number`` (1 = first replies): a new seed, and a temperature raised
    by ``temperature_step`` per repair round (capped), because a small model asked to repair
    often repeats its failed reply word for word.

    >>> s = round_sampling(Sampling(temperature=0.7, seed=1), 3, 0.15)
    >>> s.seed, round(s.temperature, 2)
    (15839, 1.0)
    """
    raised = min(sampling.temperature + temperature_step * (number - 1), MAX_REPAIR_TEMPERATURE)
    return replace(sampling.for_item(ROUND_SEED_STRIDE * (number - 1)),
                   temperature=max(raised, sampling.temperature))


def run_rounds(
    policy: Policy,
    firsts: Sequence[tuple[Message, ...]],
    sampling: Sampling,
    max_attempts: int,
    judge: Callable[[list[int], list[Completion]], list[Judged]],
    temperature_step: float = 0.0,
    retry: Retry = Retry.FRESH,
) -> list[list[DesignAttempt]]:
    """Every design's attempts: one ``generate`` call per round for the designs still failing.

    Args:
        policy: the designer.
        firsts: each design's first prompt.
        sampling: the designer's sampling settings.
        max_attempts: the most replies per design.
        judge: the code blocks and verdicts of a round's completions (given with their design
            indices), in order.
        temperature_step: how much each repair round raises the temperature (``round_sampling``).
        retry: whether a failed design is asked to repair its reply or to answer its first request anew.
    """
    attempts: list[list[DesignAttempt]] = [[] for _ in firsts]
    pending = dict(enumerate(firsts))
    for number in range(1, max_attempts + 1):
        if not pending:
            break
        order = list(pending)
        completions = generate_all(policy, [pending[i] for i in order],
                                   round_sampling(sampling, number, temperature_step))
        for i, completion, judged in zip(order, completions, judge(order, completions), strict=True):
            attempts[i].append(DesignAttempt(number, pending[i], completion.text, judged.code, judged.verdict,
                                             completion.completion_tokens))
        pending = {i: firsts[i] if retry is Retry.FRESH else
                   tuple(render_repair(firsts[i], attempts[i][-1].reply, attempts[i][-1].verdict))
                   for i in order if not attempts[i][-1].verdict.valid}
    return attempts


def write_hints(policy: Policy, designs: Sequence[Design], sampling: Sampling) -> list[Design]:
    """Ask, in one ``generate`` call, for a written hint of every valid design; store each."""
    chosen = [i for i, d in enumerate(designs) if d.valid and d.final.code is not None]
    out = list(designs)
    if not chosen:
        return out
    short = dataclasses.replace(sampling, max_tokens=min(sampling.max_tokens, HINT_MAX_TOKENS))
    requests = [render_hint_request(designs[i].final.code or "") for i in chosen]
    for i, completion in zip(chosen, generate_all(policy, requests, short), strict=True):
        out[i] = dataclasses.replace(out[i], written_hint=clean_hint(completion.text))
    return out
