"""Pure detection of a tool world's hint that spells out the solution's calls.

In a tool world the agent's work is to find the right calls: which tool, with which arguments.
A hint gives that work away when it names a call's tool together with every one of the call's
argument values ("lend book 1 to member seven" for ``lend(book_id=1, member_id=7)``), or when it
holds the call's text itself. Values are compared as the answer-leak check reads words
(``spadework.validate.wording``): case does not matter and number words count as numbers; a lone
"one" counts for the value 1 here, since an argument value is exactly what the hint would name.

Only what is specific to the episode counts: a call that every other validation seed's solution
makes too (say ``list_records(collection='books')``) is no secret.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from spadework.envs.tool_calls import ToolCall, ToolCallError, parse_calls
from spadework.validate.wording import shown, words


@dataclass(frozen=True)
class CallLeak:
    """A solution call that a hint spells out.

    Attributes:
        call: the call, as its text (``lend(book_id=1, member_id=7)``).
        found: what in the hint gives it away: the call's text, or its tool and values.
    """

    call: str
    found: str

    def describe(self) -> str:
        """The leak in words, for the validator's message.

        >>> CallLeak("lend(book_id=1, member_id=7)", "lend, 1, 7").describe()
        'the hint spells out the call lend(book_id=1, member_id=7)'
        """
        return f"the hint spells out the call {self.call}"


def solution_calls(actions: Sequence[str]) -> list[ToolCall]:
    """The tool calls of a solution, in order (an action may hold several; the answer holds none).

    >>> [c.name for c in solution_calls(["find(collection='books', field='title', value='Dune')",
    ...                                  "lend(book_id=1, member_id=7)", "42"])]
    ['find', 'lend']
    """
    return [call for action in actions for call in _calls(action)]


def answer_actions(actions: Sequence[str]) -> list[str]:
    """The actions of a solution that hold no call: its final answer, when the task asks for one.

    >>> answer_actions(["get(collection='books', id=1)", "Dune"]), answer_actions(["lend(book_id=1)"])
    (['Dune'], [])
    """
    return [action for action in actions if not _calls(action)]


def _calls(text: str) -> list[ToolCall]:
    """The calls a text holds; none when it cannot be read as calls."""
    try:
        return parse_calls(text)
    except ToolCallError:
        return []


def call_leaks(hint: str, calls: Sequence[ToolCall], others: Sequence[Sequence[ToolCall]]) -> list[CallLeak]:
    """Every call of ``calls`` that ``hint`` spells out, leaving out calls every other seed makes.

    Args:
        hint: the episode's hint.
        calls: the calls of the episode's solution.
        others: the calls of the other validation seeds' solutions.

    >>> lend = ToolCall("lend", {"book_id": 1, "member_id": 7})
    >>> [leak.describe() for leak in call_leaks("Lend book one to member seven.", [lend], [])]
    ['the hint spells out the call lend(book_id=1, member_id=7)']
    >>> call_leaks("Find the book's id first, then lend it to member 7.", [lend], [])
    []
    >>> [leak.found for leak in call_leaks("Send lend(book_id=1,member_id=7) then stop.", [lend], [])]
    ['lend(book_id=1,member_id=7)']
    >>> listing = ToolCall("list_records", {"collection": "books"})
    >>> call_leaks("Start with list_records on books.", [listing], [[listing]])
    []
    """
    hint_words = [w.text for w in words(hint)]
    shared = [{_key(c) for c in other} for other in others]
    seen: set[str] = set()
    found: list[CallLeak] = []
    for call in calls:
        key = _key(call)
        if key in seen or (shared and all(key in keys for keys in shared)):
            continue
        seen.add(key)
        in_text = _call_in_text(call, hint)
        if in_text is not None:
            found.append(CallLeak(str(call), in_text))
        elif _named_with_values(call, hint_words):
            found.append(CallLeak(str(call), ", ".join([call.name, *_value_texts(call)])))
    return found


def _key(call: ToolCall) -> str:
    """What makes two calls the same call (their canonical text)."""
    return json.dumps([call.name, list(call.positional), call.arguments], sort_keys=True, default=str)


def _call_in_text(call: ToolCall, hint: str) -> str | None:
    """The call as the hint writes it out: a call in the hint's text with the same tool and values.

    >>> _call_in_text(ToolCall("inventory"), "First run inventory() to see it.")
    'inventory()'
    """
    for snippet in _call_snippets(hint, call.name):
        if any(_key(parsed) == _key(call) for parsed in _calls(snippet)):
            return snippet
    return None


def _call_snippets(hint: str, name: str) -> Iterator[str]:
    """Each place the hint writes ``name(...)``, up to its closing bracket.

    >>> list(_call_snippets("blend(x) or lend(a=(1, 2)) and lend(", "lend"))
    ['lend(a=(1, 2))', 'lend(']
    """
    for match in re.finditer(rf"(?<![\w.]){re.escape(name)}\(", hint):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(hint)):
            depth += {"(": 1, ")": -1}.get(hint[end], 0)
            if depth == 0:
                break
        yield hint[match.start():end + 1]


def _named_with_values(call: ToolCall, hint_words: Sequence[str]) -> bool:
    """Whether the hint names the call's tool and every one of its argument values (a call without
    argument values is only spelled out as its text)."""
    values = [_value_words(text) for text in _value_texts(call)]
    values = [v for v in values if v]
    if not values or not shown([w.text for w in words(call.name)], hint_words):
        return False
    return all(any(shown(form, hint_words) for form in _forms(value)) for value in values)


def _value_texts(call: ToolCall) -> list[str]:
    """The texts of a call's argument values; lists and dicts give their items' values."""
    return [text for value in (*call.positional, *call.arguments.values()) for text in _leaves(value)]


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    elif value is not None:
        yield str(value).lower() if isinstance(value, bool) else str(value)


def _value_words(text: str) -> list[str]:
    return [w.text for w in words(text)]


def _forms(value: list[str]) -> list[list[str]]:
    """The value's words, and with the number 1 also as the word "one".

    >>> _forms(["1"]), _forms(["dune"])
    ([['1'], ['one']], [['dune']])
    """
    if value == ["1"]:
        return [value, ["one"]]
    return [value]
