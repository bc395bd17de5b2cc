"""Playing BFCL v4 multi-turn entries as the leaderboard plays them, with any spadework policy.

An entry's user turns arrive one after another (a miss_func entry's held-out functions arrive
with the turn the data names). Within a turn the model replies; each reply's calls run in the
entry's backends and their results go back to it, until it replies without calls; a turn with
more steps than the leaderboard's limit forces the entry to quit. Then the leaderboard's checker
scores the whole entry.

Two ways to show the functions (``CallFormat``): ``prompting``, the leaderboard's prompting format
(function docs in the system prompt, calls as a Python list), the default because it is how the
leaderboard scores prompting models; ``native``, the model's own tool calling (the chat
template's tools, or a server's ``tools`` field), its calls read like a tool world's and
results sent as tool messages.

Entries are played one at a time, each conversation growing call by call, so an engine that
keeps its prompt cache (the embedded llama.cpp one does, a vLLM server with prefix caching too)
reads an entry's long function docs once: ``EntryPlay`` counts the prompt tokens processed
against the entry's own.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TypeVar

from spadework.envs.tool_calls import ToolCallError, parse_calls
from spadework.errors import ContextOverflow
from spadework.eval.bfcl import DecodedCalls, EntryScore, EntryWorld, ReplyKind, decode_calls, score_entry
from spadework.eval.bfcl_data import (
    BfclEntry,
    bfcl_module,
    load_entries,
    results_message,
    step_limit,
    system_prompt,
)
from spadework.policy.base import CONTEXT_OVERFLOW, Message, Policy, Role, Sampling, ToolSchema
from spadework.policy.toolcalls import CallFormat

KEYWORD_NOTE = ("Write every argument as name=value, e.g. [cd(folder='docs')]: an argument given without "
                "its name is dropped.")
"""Added under the leaderboard's system prompt: its decoder drops positional arguments silently."""
ORDER_SEED = 0
"""The seed of the fixed order in which items are drawn from a category (item k: the k-th entry)."""
Drawn = TypeVar("Drawn")


class End(StrEnum):
    """Why an entry stopped."""

    DONE = "done"
    STEP_LIMIT = "step_limit"
    CONTEXT = "context"


@dataclass(frozen=True)
class BfclSettings:
    """How an evaluation plays BFCL entries (the config's ``[eval] bfcl_*``).

    Attributes:
        call_format: how the functions are shown and calls read.
        max_steps: replies with calls per turn before the entry is forced to quit (None: the
            leaderboard's limit).
    """

    call_format: CallFormat = CallFormat.PROMPTING
    max_steps: int | None = None


@dataclass(frozen=True)
class EntryPlay:
    """One played entry.

    Attributes:
        entry_id: the entry's id.
        category: its category.
        score: the checker's verdict.
        end: ``done``, ``step_limit`` (a turn ran past the leaderboard's step limit) or
            ``context`` (the conversation outgrew the context window); both of the latter score 0.
        turns: turns played.
        steps: replies with calls, over all turns.
        positional_calls: calls written with positional arguments (the leaderboard's decoder
            drops those arguments).
        undecodable: replies that were neither calls nor empty (they end their turn).
        prompt_tokens: prompt tokens of every policy call, summed.
        processed_tokens: the part of them the engine computed (the rest came from its cache).
        entry_tokens: the tokens of the entry's longest prompt: what a perfect cache reads once.
        seconds: wall time of the entry.
    """

    entry_id: str
    category: str
    score: EntryScore
    end: str
    turns: int
    steps: int
    positional_calls: int
    undecodable: int
    prompt_tokens: int
    processed_tokens: int
    entry_tokens: int
    seconds: float

    @property
    def figures(self) -> dict[str, float]:
        """The per-entry numbers a report adds up."""
        return {"steps": self.steps, "positional_calls": self.positional_calls,
                "undecodable": self.undecodable, "prompt_tokens": self.prompt_tokens,
                "processed_tokens": self.processed_tokens,
                "entry_tokens": self.entry_tokens, "seconds": round(self.seconds, 2)}


def drawn(category: str, seeds: Sequence[int]) -> list[tuple[int, BfclEntry]]:
    """The entries of ``category`` that ``seeds`` name (see ``in_fixed_order``)."""
    return in_fixed_order(load_entries(category), seeds)


def in_fixed_order(entries: Sequence[Drawn], seeds: Sequence[int]) -> list[tuple[int, Drawn]]:
    """The entries that ``seeds`` name, with their seeds: item k is the k-th entry in a fixed shuffled
    order, so every policy meets the same entries for the same seeds and a larger ``--seeds`` extends
    a smaller one. Seeds past the last entry name none: a category smaller than ``--seeds`` is
    played whole, each entry once.

    >>> in_fixed_order("abc", [0, 1, 2, 3, 7])
    [(0, 'a'), (1, 'c'), (2, 'b')]
    """
    order = list(range(len(entries)))
    random.Random(ORDER_SEED).shuffle(order)
    return [(seed, entries[order[seed]]) for seed in seeds if 0 <= seed < len(entries)]


def native_tools(entry_functions: Sequence[dict]) -> list[ToolSchema]:
    """The entry's function docs as OpenAI function schemas, converted by the leaderboard's own code."""
    utils = bfcl_module("model_handler.utils")
    enums = bfcl_module("constants.enums")
    mapping = bfcl_module("constants.type_mappings").GORILLA_TO_OPENAPI
    converted = utils.convert_to_tool([dict(f) for f in entry_functions], mapping, enums.ModelStyle.OSSMODEL)
    return [{"type": "function", "function": function} for function in converted]


def available_functions(entry: BfclEntry, turn: int) -> list[dict]:
    """The functions the model may call at ``turn``: the entry's, plus those held out until then."""
    added = [doc for held_at in sorted(entry.missed) if held_at <= turn for doc in entry.missed[held_at]]
    return [*map(dict, entry.functions), *map(dict, added)]


def _additional_function_prompt() -> str:
    return str(bfcl_module("constants.default_prompts").DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)


def _native_calls(text: str) -> DecodedCalls:
    """A native reply's calls (``<tool_call>`` JSON or Python calls), written for the executor."""
    if not text.strip():
        return DecodedCalls(ReplyKind.EMPTY)
    try:
        calls = parse_calls(text)
    except ToolCallError as exc:
        return DecodedCalls(ReplyKind.UNDECODABLE, error=str(exc))
    if not calls:
        return DecodedCalls(ReplyKind.EMPTY)
    positional = sum(1 for call in calls if call.positional)
    keyword_only = [replace(call, positional=()) for call in calls]  # as the leaderboard's decoder
    return DecodedCalls(ReplyKind.CALLS, tuple(str(call) for call in keyword_only), positional)


@dataclass
class _Tally:
    steps: int = 0
    positional: int = 0
    undecodable: int = 0
    prompt: int = 0
    processed: int = 0
    longest: int = 0
    calls_per_turn: list[list[list[str]]] = field(default_factory=list)

    def count(self, prompt_tokens: int, cached_tokens: int, reply_tokens: int) -> None:
        self.prompt += prompt_tokens
        self.processed += prompt_tokens - cached_tokens
        self.longest = max(self.longest, prompt_tokens + reply_tokens)


def play_entry(policy: Policy, entry: BfclEntry, sampling: Sampling,
               call_format: CallFormat = CallFormat.PROMPTING, max_steps: int | None = None) -> EntryPlay:
    """Play ``entry`` once with ``policy`` and score it.

    Args:
        max_steps: steps with calls allowed in one turn (default: the leaderboard's limit).

    Raises:
        PolicyError: the policy failed (a context overflow only ends this entry).
    """
    start = time.perf_counter()
    limit = step_limit() if max_steps is None else max_steps
    native = call_format is CallFormat.NATIVE
    tools = native_tools(entry.functions) if native else None
    opening = f"{system_prompt(entry.functions)}\n\n{KEYWORD_NOTE}"
    conversation = [] if native else [Message(Role.SYSTEM, opening)]
    tally, end = _Tally(), End.DONE
    with EntryWorld(entry) as world:
        for turn in range(len(entry.turns)):
            if native and turn in entry.missed:  # as the leaderboard's tool-calling path does
                tools = native_tools(available_functions(entry, turn))
                conversation.append(Message(Role.USER, _additional_function_prompt()))
            else:
                conversation.extend(entry.messages(turn))
            end = _play_turn(policy, world, conversation, sampling, tools, limit, tally)
            if end is not End.DONE:
                break
    score = score_entry(entry, tally.calls_per_turn)
    return EntryPlay(entry.id, entry.category, score, end, len(tally.calls_per_turn), tally.steps,
                     tally.positional, tally.undecodable, tally.prompt, tally.processed, tally.longest,
                     time.perf_counter() - start)


def _play_turn(policy: Policy, world: EntryWorld, conversation: list[Message], sampling: Sampling,
               tools: list[ToolSchema] | None, limit: int, tally: _Tally) -> End:
    """One user turn: replies and executions until a reply without calls; how the turn ended."""
    steps: list[list[str]] = []
    while True:
        try:
            completion = policy.generate([conversation], sampling, [tools] if tools else None)[0]
        except ContextOverflow:
            return End.CONTEXT
        if completion.finish_reason == CONTEXT_OVERFLOW:
            return End.CONTEXT
        tally.count(completion.prompt_tokens, completion.cached_tokens, completion.completion_tokens)
        conversation.append(Message(Role.ASSISTANT, completion.text))
        decoded = _native_calls(completion.text) if tools else decode_calls(completion.text)
        tally.positional += decoded.positional
        tally.undecodable += decoded.kind is ReplyKind.UNDECODABLE
        if decoded.ends_turn:
            tally.calls_per_turn.append(steps)
            return End.DONE
        if len(steps) >= limit:  # the leaderboard forces the model to quit: the entry ends here
            return End.STEP_LIMIT
        results = world.execute(decoded.calls)
        steps.append(list(decoded.calls))
        tally.steps += 1
        if tools:
            conversation.extend(Message(Role.TOOL, result) for result in results)
        else:
            conversation.append(Message(Role.USER, results_message(decoded.calls, results)))
