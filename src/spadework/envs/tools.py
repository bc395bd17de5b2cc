"""Tool-use environments: the agent reads a task and calls tools (``ToolEnv``), most simply on a
world of records with generic record tools built in (``ToolWorld``).

Standard library only: this module is copied into the sandbox, where environment code imports
it as ``from spadework.envs import ToolEnv, ToolWorld, tool``. The goal is found by replay: at
reset the base class plays ``solution()`` on a copy of the world and the episode is solved when
the world's ``state()`` equals the copy's (and the final answer, when the task asks for one,
was given).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from spadework.envs import tool_records
from spadework.envs.base import TextEnv, answers_match
from spadework.envs.tool_calls import ToolCall, ToolCallError, parse_calls
from spadework.envs.tool_schema import ToolSpec, hidden_tool, nearest_tools, tool, tool_specs

__all__ = ["ToolCall", "ToolCallError", "ToolEnv", "ToolWorld", "parse_calls", "tool"]

NO_CALL = "No tool call found."
"""How the world's answer to a reply with no call (and no answer to give) begins; the rest says how
to write one, with this world's own tools (``ToolEnv.no_call_message``)."""
WRONG_ANSWER = "Not the answer the task asks for."
CALL_ERROR = " -> error: "
"""What separates a call from its error in a tool world's observation."""
RIGHT_ANSWER = "Correct."
ANSWER_EARLY = "That answer is right, but the task is not done yet."
NOTHING_CHANGES = ("solution() changes nothing in the world: the task must need state-changing calls "
                   "(or set self.answer)")
NOT_STATE = frozenset({"rng", "seed", "turn", "over", "answer", "max_turns", "goal_problem", "difficulty",
                       "difficulties"})
"""Instance attributes that are bookkeeping, not the world (``state()`` leaves them out)."""
RESERVED = frozenset({"reset", "step", "apply", "state", "solution", "hint", "new_episode", "goal_reached",
                      "tool_schemas", "prepare_episode", "check_world", "records", *NOT_STATE})
"""Names ToolEnv and ToolWorld use themselves: no tool may take them."""
MAX_CALLS = 6
"""The most calls one action may make; more are not run."""
MAX_RESULT_CHARS = 1_000
"""The most characters of one call's result the agent reads."""
MAX_CALL_CHARS = 200


class ToolEnv(TextEnv):
    """An episode is a task the agent does by calling tools: methods marked ``@tool``.

    Subclass it and write:

    - ``new_episode() -> str``: set up the world from ``self.rng`` and return the user's task;
      optionally store in ``self.answer`` a final answer the task asks for;
    - tools: methods marked ``@tool``, with a type on every argument and a docstring (first
      paragraph: what it does; ``Args:``: a line per argument); a tool refuses a call by raising
      ``ValueError`` (or ``KeyError``/``LookupError``), whose message the agent reads;
    - ``solution() -> list[str]``: the calls that do the task, one per action (or a list of calls
      in one action), then the answer when ``self.answer`` is set;
    - ``hint() -> str``: privileged help that does not spell out the calls.

    ``reset(seed)`` returns ``(task, {"tools": [schema, ...]})`` and replays ``solution()`` on a
    deep copy of the world: the episode is solved when ``state()`` equals the copy's state after
    the replay (override ``goal_reached()`` to decide it yourself) and, with ``self.answer`` set,
    the agent's final answer (an action with no call) matches it. When the replay cannot give a
    goal, ``self.goal_problem`` says why (and the episode cannot be solved).
    """

    max_turns: int = 8
    answer: Any = None
    goal_problem: str | None = None

    def reset(self, seed: int | None = None) -> tuple[str, dict]:
        """Start the episode as ``TextEnv`` does; the info holds the tools (``prepare_episode``)."""
        observation, _ = super().reset(seed)
        return observation, self.prepare_episode()

    @classmethod
    def tool_schemas(cls) -> list[dict[str, Any]]:
        """The OpenAI function schemas of the class's tools.

        Raises:
            ValueError: a tool's schema cannot be derived; the message says what to write.
        """
        return [spec.schema() for spec in cls._checked_specs()]

    @classmethod
    def _checked_specs(cls) -> list[ToolSpec]:
        specs = tool_specs(cls)
        for spec in specs:
            if spec.name in RESERVED:
                raise ValueError(f"tool {spec.name}() has a name ToolEnv uses itself; rename it")
        if not specs:
            raise ValueError(f"{cls.__name__} has no tools; mark the methods the agent may call with @tool")
        return specs

    def prepare_episode(self) -> dict[str, Any]:
        """Read the tools and replay ``solution()`` for the goal; ``reset`` calls it after
        ``new_episode()``. Returns the info ``reset`` gives: ``{"tools": [...]}``, and the goal's
        problem under ``"goal_problem"`` when there is one."""
        specs = self._checked_specs()
        self.check_world()
        self._tools = {spec.name: spec for spec in specs}
        self._answered = False
        self.goal_problem = None
        self._target: Any = None
        self._state_matters = True
        if type(self).goal_reached is ToolEnv.goal_reached:
            self._replay_solution()
        info: dict[str, Any] = {"tools": [spec.schema() for spec in specs]}
        if self.goal_problem:
            info["goal_problem"] = self.goal_problem
        return info

    def check_world(self) -> None:
        """Raise ``ValueError`` when the world ``new_episode()`` made is not usable (ToolWorld
        checks its records)."""

    def state(self) -> Any:
        """The world as plain data: the public attributes of the instance (not ``rng``, ``seed``,
        ``turn``, ``over``, ``answer``, ``max_turns``, names starting with ``_``)."""
        return _plain({name: value for name, value in vars(self).items()
                       if not name.startswith("_") and name not in NOT_STATE})

    def goal_reached(self) -> bool:
        """Whether the world is as the task wants it; by default, as replaying ``solution()`` left it."""
        return self._target is not None and self.state() == self._target

    def apply(self, action: str) -> tuple[str, float, bool]:
        """Run the tool calls in ``action`` (the first ``MAX_CALLS``); none: it is the answer."""
        if getattr(self, "_tools", None) is None:  # a reset() of its own that skipped ours
            self.prepare_episode()
        calls = parse_calls(action)  # a ToolCallError is a ValueError: the player reads why
        if not calls:
            return self._answer_turn(action)
        lines = [self._call_line(call) for call in calls[:MAX_CALLS]]
        if len(calls) > MAX_CALLS:
            lines.append(f"Only the first {MAX_CALLS} calls ran; make at most {MAX_CALLS} calls at a time.")
        solved = self._solved()
        return "\n".join(lines), 1.0 if solved else 0.0, solved

    def _answer_turn(self, action: str) -> tuple[str, float, bool]:
        if not _has_answer(self.answer):
            return self.no_call_message(), 0.0, False
        if not any(answers_match(text, self.answer) for text in _answer_texts(action)):
            return WRONG_ANSWER, 0.0, False
        self._answered = True
        solved = self._solved()
        return (RIGHT_ANSWER if solved else ANSWER_EARLY), 1.0 if solved else 0.0, solved

    def no_call_message(self) -> str:
        """What the agent reads after a reply with no call: how to write one, shown with this world's
        first tool that takes arguments, and every tool's name.

        >>> class Shop(ToolEnv):
        ...     @tool
        ...     def sell(self, item_id: int, customer_id: int) -> dict:
        ...         \"\"\"Sell an item.\"\"\"
        >>> print(Shop().no_call_message())
        No tool call found. Write one call on a line of its own, as sell(item_id=..., customer_id=...) with \
the values filled in; the tools are sell.
        """
        specs = self._checked_specs()
        shown = next((spec for spec in specs if spec.params), specs[0])
        example = f"{shown.name}({', '.join(f'{p.name}=...' for p in shown.params if not p.optional)})"
        return (f"{NO_CALL} Write one call on a line of its own, as {example} with the values filled in; "
                f"the tools are {', '.join(spec.name for spec in specs)}.")

    def _solved(self) -> bool:
        if self.goal_problem:
            return False
        state_holds = self.goal_reached() if self._state_matters else True
        return state_holds and (self._answered or not _has_answer(self.answer))

    def _call_line(self, call: ToolCall) -> str:
        shown = str(call)
        if len(shown) > MAX_CALL_CHARS:
            shown = shown[:MAX_CALL_CHARS - 4] + "...)"
        try:
            result = self._run(call)
        except _CallFailed as failed:
            return f"{shown}{CALL_ERROR}{failed.shown}"
        try:
            text = json.dumps(result, default=str, ensure_ascii=False)
        except (TypeError, ValueError):  # keys JSON cannot take, or a cycle
            text = repr(result)
        if len(text) > MAX_RESULT_CHARS:
            text = f"{text[:MAX_RESULT_CHARS]}... ({len(text) - MAX_RESULT_CHARS} more characters)"
        return f"{shown} -> {text}"

    def _run(self, call: ToolCall) -> Any:
        """Run one call and return its result; raise ``_CallFailed`` with what went wrong."""
        spec = self._tools.get(call.name)
        if spec is None:
            hidden = hidden_tool(type(self), call.name)
            raise _CallFailed(f"no tool named '{call.name}': {hidden}" if hidden
                              else nearest_tools(call.name, list(self._tools)))
        try:
            arguments = spec.bind(call)
        except ValueError as exc:
            raise _CallFailed(str(exc)) from None
        try:
            return getattr(self, call.name)(**arguments)
        except (ValueError, LookupError) as exc:
            message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
            raise _CallFailed(message, f"{call.name}() failed: {message}") from None
        except Exception as exc:  # noqa: BLE001 - a slip in a tool is an answer the agent reads
            message = f"{type(exc).__name__}: {exc}"
            raise _CallFailed(message, f"{call.name}() failed: {message}") from None

    def _replay_solution(self) -> None:
        """Keep as the goal the state ``solution()`` leaves a deep copy of the world in."""
        saved = random.getstate()
        try:
            start = self.state()
            try:
                world = copy.deepcopy(self)
            except Exception as exc:  # noqa: BLE001 - e.g. a module or a generator kept on self
                self.goal_problem = (f"the world cannot be copied to replay solution() "
                                     f"({type(exc).__name__}: {exc}); keep the world in plain data: "
                                     "dicts, lists, numbers, text")
                return
            self.goal_problem = world._replayed(self.solution if isinstance(self.solution, (list, tuple))
                                                else self.solution())
            self._target = world.state()
        finally:
            random.setstate(saved)  # the real episode draws what it would have without the replay
        if self.goal_problem is None and self._target == start:
            if _has_answer(self.answer):
                self._state_matters = False  # only the answer counts
            else:
                self.goal_problem = NOTHING_CHANGES

    def _replayed(self, actions: Any) -> str | None:
        """Play the solution's calls on this copy; what went wrong, or None."""
        actions = [actions] if isinstance(actions, str) else list(actions)
        number = 0
        for position, action in enumerate(actions, start=1):
            try:
                calls = parse_calls(str(action))
            except ToolCallError as exc:
                return f"solution() action {position} cannot be read: {exc}"
            if not calls and not _has_answer(self.answer):
                return (f"solution() action {position} ({str(action)[:60]!r}) is no tool call, and the "
                        "task sets no answer (self.answer)")
            for call in calls:
                number += 1
                try:
                    self._run(call)
                except _CallFailed as failed:
                    return f"solution() call {number} {call} failed: {failed.message}"
        return None


class _CallFailed(Exception):
    """A call that did not run: ``message`` says why, ``shown`` is what the agent reads."""

    def __init__(self, message: str, shown: str | None = None):
        super().__init__(message)
        self.message = message
        self.shown = shown or message


def _has_answer(answer: Any) -> bool:
    return answer is not None and not (isinstance(answer, (str, list, tuple)) and len(answer) == 0)


def _answer_texts(action: str) -> list[str]:
    r"""The texts an answer may be: the last ``\boxed{}``'s, else the action, its last line and what
    follows "answer:" or "answer is".

    >>> _answer_texts("It is due on Monday.\nAnswer: Monday")
    ['It is due on Monday.\nAnswer: Monday', 'Answer: Monday', 'Monday']
    """
    start = action.rfind("\\boxed{")
    if start != -1:
        end = action.find("}", start)
        return [action[start + len("\\boxed{"):end if end != -1 else len(action)]]
    lines = [line for line in action.strip().splitlines() if line.strip()]
    texts = [action] + ([lines[-1]] if len(lines) > 1 else [])
    lowered = action.lower()
    for marker in ("answer:", "answer is"):
        at = lowered.rfind(marker)
        if at != -1:
            texts.append(action[at + len(marker):].strip())
    return texts


def _plain(value: Any, path: frozenset[int] = frozenset()) -> Any:
    """A deep copy of ``value`` as plain data: tuples and sets as lists, objects as dicts of their
    attributes, so that two equal worlds compare equal.

    >>> class Book:
    ...     def __init__(self, title): self.title = title
    >>> _plain({"shelf": (Book("Dune"), {2, 1})})
    {'shelf': [{'__class__': 'Book', 'title': 'Dune'}, [1, 2]]}
    """
    if id(value) in path:
        return "<cycle>"
    inner = path | {id(value)}
    if isinstance(value, dict):
        return {key: _plain(item, inner) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item, inner) for item in value]
    if isinstance(value, (set, frozenset)):
        return [_plain(item, inner) for item in sorted(value, key=repr)]
    if isinstance(value, random.Random):
        return value.getstate()
    if hasattr(value, "__dict__") and not isinstance(value, type) and not callable(value):
        return {"__class__": type(value).__name__, **_plain(vars(value), inner)}
    return copy.deepcopy(value)


class ToolWorld(ToolEnv):
    """A ``ToolEnv`` whose world is ``self.records``: a dict of collections, each a list of dicts
    with an int ``id``, e.g. ``{"books": [{"id": 1, "title": "Dune", "copies": 2}]}``.

    It has generic tools: ``list_records``, ``find``, ``get``, ``create``, ``update``, ``delete`` and
    ``move``, which the designer's own tools may call too; ``state()`` is the records. To take a
    generic tool away, set its name to None in the subclass (``delete = None``).
    """

    records: dict[str, list[dict[str, Any]]] | None = None

    def keeps_own_world(self) -> bool:
        """Whether ``new_episode()`` set no ``self.records`` but a world of its own in other
        attributes (``self.queue = []``), as small models write: the world is then those attributes,
        as in a plain ``ToolEnv``, and the record tools answer that there are no records (the
        loader records the tolerance)."""
        return self.records is None and bool(self._own_world())

    def _own_world(self) -> dict[str, Any]:
        return {name: value for name, value in ToolEnv.state(self).items() if name != "records"}

    def check_world(self) -> None:
        """Raise ``ValueError`` when the records are not usable (a world of its own is not checked)."""
        if self.keeps_own_world():
            return
        problem = tool_records.records_problem(self.records)
        if problem:
            raise ValueError(problem)

    def state(self) -> Any:
        """The world as plain data: the records, or the attributes of a world of its own."""
        return self._own_world() if self.keeps_own_world() else _plain(self.records)

    @property
    def _world(self) -> dict[str, list[dict[str, Any]]]:
        if self.records is None:
            raise ValueError("this world keeps no records; use its other tools")
        return self.records

    @tool
    def list_records(self, collection: str) -> list:
        """List every record of a collection.

        Args:
            collection: the collection's name.
        """
        return tool_records.collection(self._world, collection)

    @tool
    def find(self, collection: str, field: str, value: str) -> list:
        """Find the records of a collection whose field has a value (text matches whatever its case).

        Args:
            collection: the collection's name.
            field: the field to compare.
            value: the value it must have.
        """
        return tool_records.find(self._world, collection, field, value)

    @tool
    def get(self, collection: str, id: int) -> dict:
        """Get one record of a collection by its id.

        Args:
            collection: the collection's name.
            id: the record's id.
        """
        return tool_records.record(self._world, collection, id)

    @tool
    def create(self, collection: str, fields: dict) -> dict:
        """Add a record to a collection; it gets the next free id.

        Args:
            collection: the collection's name.
            fields: the new record's fields and their values, without an id.
        """
        return tool_records.create(self._world, collection, fields)

    @tool
    def update(self, collection: str, id: int, field: str, value: str) -> dict:
        """Change one field of a record; the value is read as the type the field holds.

        Args:
            collection: the collection's name.
            id: the record's id.
            field: the field to change.
            value: its new value.
        """
        return tool_records.update(self._world, collection, id, field, value)

    @tool
    def delete(self, collection: str, id: int) -> dict:
        """Remove a record from a collection.

        Args:
            collection: the collection's name.
            id: the record's id.
        """
        return tool_records.delete(self._world, collection, id)

    @tool
    def move(self, collection: str, id: int, to: str) -> dict:
        """Move a record to another collection.

        Args:
            collection: the collection it is in.
            id: the record's id.
            to: the collection to move it to.
        """
        return tool_records.move(self._world, collection, id, to)
