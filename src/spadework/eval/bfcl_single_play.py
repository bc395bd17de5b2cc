"""Playing BFCL v4 single-turn entries with any spadework policy: one reply each, then the verdict.

The model sees the entry's question and its functions, shown as the leaderboard shows them:

- ``prompting``: the leaderboard's prompting system prompt (function docs as JSON, calls asked for
  as a Python list) with the note asking for named arguments that the multi-turn suite adds
  (``bfcl_play.KEYWORD_NOTE``), before the entry's own system message when it has one (as the
  leaderboard's ``system_prompt_pre_processing_chat_model`` joins them);
- ``native``: the entry's messages as they are, the functions as tools (converted by the
  leaderboard's own code, ``bfcl_play.native_tools``).

Entries are independent, so they go to the policy in batches (``batch`` conversations a call) and
an engine that batches plays them together. ``bfcl_single`` decodes and scores each reply.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from spadework.errors import ContextOverflow
from spadework.eval.bfcl import EntryScore, ReplyKind
from spadework.eval.bfcl_data import system_prompt
from spadework.eval.bfcl_play import KEYWORD_NOTE, End, in_fixed_order, native_tools
from spadework.eval.bfcl_single import SingleEntry, decode_reply, load_single_entries, score_reply
from spadework.policy.base import CONTEXT_OVERFLOW, Completion, Message, Policy, Role, Sampling, ToolSchema
from spadework.policy.toolcalls import CallFormat

OVERFLOW = EntryScore(False, "context", "the prompt does not fit the context window")
"""The verdict on an entry whose prompt outgrew the context (any category: a reply never came)."""


@dataclass(frozen=True)
class SinglePlay:
    """One played single-turn entry.

    Attributes:
        entry_id: the entry's id.
        category: its category.
        score: the leaderboard's verdict.
        end: ``done``, or ``context`` when the prompt did not fit (scored invalid).
        called: the reply held a parseable call.
        valid_call: it held calls, each of a function the entry lists.
        positional_calls: calls written with positional arguments (the decoders drop those arguments).
        undecodable: 1 when the reply was not empty and could not be decoded.
        prompt_tokens: the prompt's tokens.
        processed_tokens: the part of them the engine computed (the rest came from its cache).
        seconds: wall time of the entry (its batch's, shared out).
    """

    entry_id: str
    category: str
    score: EntryScore
    end: End
    called: bool
    valid_call: bool
    positional_calls: int
    undecodable: int
    prompt_tokens: int
    processed_tokens: int
    seconds: float

    @property
    def turns(self) -> int:
        """User turns played: one, or none when the prompt did not fit."""
        return int(self.end is End.DONE)

    @property
    def figures(self) -> dict[str, float]:
        """The per-entry numbers a report adds up."""
        return {"called": int(self.called), "valid_call": int(self.valid_call),
                "positional_calls": self.positional_calls, "undecodable": self.undecodable,
                "prompt_tokens": self.prompt_tokens, "processed_tokens": self.processed_tokens,
                "seconds": round(self.seconds, 2)}


def drawn_single(category: str, seeds: Sequence[int]) -> list[tuple[int, SingleEntry]]:
    """The entries of a single-turn ``category`` that ``seeds`` name (``bfcl_play.in_fixed_order``)."""
    return in_fixed_order(load_single_entries(category), seeds)


def single_prompt(entry: SingleEntry,
                  call_format: CallFormat) -> tuple[list[Message], list[ToolSchema] | None]:
    """The conversation the model answers, and the tools it is given (None: prompting)."""
    if call_format is CallFormat.NATIVE:
        return list(entry.messages), native_tools(entry.functions)
    opening = f"{system_prompt(entry.functions)}\n\n{KEYWORD_NOTE}"
    first, *rest = entry.messages
    if first.role is Role.SYSTEM:
        return [Message(Role.SYSTEM, f"{opening}\n\n{first.content}"), *rest], None
    return [Message(Role.SYSTEM, opening), first, *rest], None


def play_singles(policy: Policy, drawn: Sequence[tuple[int, SingleEntry]], sampling: Sampling,
                 call_format: CallFormat = CallFormat.PROMPTING,
                 batch: int = 8) -> Iterator[tuple[int, SinglePlay]]:
    """Play every drawn (seed, entry) once, ``batch`` entries a policy call; yields each as its batch ends.

    A batch whose prompts do not fit is played again one entry at a time, so only the entries
    that overflow end with ``context``.

    Raises:
        PolicyError: the policy failed.
    """
    for start in range(0, len(drawn), max(1, batch)):
        yield from _play_batch(policy, drawn[start:start + max(1, batch)], sampling, call_format)


def _play_batch(policy: Policy, chunk: Sequence[tuple[int, SingleEntry]], sampling: Sampling,
                call_format: CallFormat) -> Iterator[tuple[int, SinglePlay]]:
    begun = time.perf_counter()
    prompts = [single_prompt(entry, call_format) for _, entry in chunk]
    tools = [shown for _, shown in prompts] if call_format is CallFormat.NATIVE else None
    try:
        completions = policy.generate([conversation for conversation, _ in prompts], sampling, tools)
    except ContextOverflow:
        if len(chunk) > 1:
            for one in chunk:
                yield from _play_batch(policy, [one], sampling, call_format)
            return
        completions = [Completion("", finish_reason=CONTEXT_OVERFLOW)]
    seconds = (time.perf_counter() - begun) / len(chunk)
    for (seed, entry), completion in zip(chunk, completions, strict=True):
        yield seed, judged(entry, completion, call_format, seconds)


def judged(entry: SingleEntry, completion: Completion, call_format: CallFormat,
           seconds: float = 0.0) -> SinglePlay:
    """The play of ``entry`` whose reply is ``completion``: decoded, counted and scored."""
    tokens = (completion.prompt_tokens, completion.prompt_tokens - completion.cached_tokens)
    if completion.finish_reason == CONTEXT_OVERFLOW:
        return SinglePlay(entry.id, entry.category, OVERFLOW, End.CONTEXT, False, False, 0, 0, *tokens,
                          seconds)
    reply = decode_reply(completion.text, entry, call_format)
    return SinglePlay(entry.id, entry.category, score_reply(entry, reply, call_format), End.DONE,
                      reply.called, reply.known(entry.names(call_format)), reply.positional,
                      int(reply.kind is ReplyKind.UNDECODABLE), *tokens, seconds)
