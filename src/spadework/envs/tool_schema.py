"""Tools as the agent sees them: the ``@tool`` mark, the schema read from a method's signature and
docstring, and the checking of a call's arguments against it.

Standard library only: this module is copied into the sandbox. Annotations are read as text
(``from __future__ import annotations`` or not), never evaluated.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from spadework import pysyntax
from spadework.envs.tool_calls import ToolCall

TOOL_MARK = "__spadework_tool__"
JSON_TYPES = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "list": "array",
              "List": "array", "tuple": "array", "Tuple": "array", "set": "array", "Set": "array",
              "Sequence": "array", "dict": "object", "Dict": "object", "Mapping": "object"}
"""Python annotations (by name) and the JSON type of the values they take."""
ANY_TYPES = frozenset({"Any", "object"})
OPTIONAL_WRAPPERS = frozenset({"Optional"})
ARTICLES = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "a boolean",
            "array": "an array", "object": "an object"}
ARGS_HEADING = re.compile(r"^(Args|Arguments|Parameters):\s*$")
ARG_LINE = re.compile(r"^\s+\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")

F = TypeVar("F", bound=Callable[..., Any])


def tool(function: F | None = None) -> Any:
    """Mark a method of a ``ToolEnv`` as a tool the agent may call (``@tool``; ``@tool()`` works too).

    The tool's schema comes from the method: a type on every argument (``int``, ``float``,
    ``str``, ``bool``, ``list``, ``dict``; a default or ``X | None`` makes it optional) and a
    docstring whose first paragraph says what it does, with an ``Args:`` line per argument.
    """
    if function is None:
        return tool
    setattr(function, TOOL_MARK, True)
    return function


@dataclass(frozen=True)
class Param:
    """One argument of a tool.

    Attributes:
        name: the argument's name.
        kind: its JSON type ("integer", "string", ...), or None when any value goes.
        items: the JSON type of an array's items, when the annotation says (``list[int]``).
        optional: whether the call may leave it out.
        description: its line under ``Args:``, or "".
    """

    name: str
    kind: str | None
    items: str | None = None
    optional: bool = False
    description: str = ""

    def schema(self) -> dict[str, Any]:
        """The parameter's JSON schema: its type, item type and description when known."""
        schema: dict[str, Any] = {} if self.kind is None else {"type": self.kind}
        if self.items is not None:
            schema["items"] = {"type": self.items}
        if self.description:
            schema["description"] = self.description
        return schema

    def kind_words(self) -> str:
        """What the argument takes, for messages: ``integer``, ``array of integers``, ``any value``."""
        if self.kind is None:
            return "any value"
        return f"array of {self.items}s" if self.items else self.kind


@dataclass(frozen=True)
class ToolSpec:
    """A tool: its name, what it does and its arguments, in order."""

    name: str
    description: str
    params: tuple[Param, ...]

    def schema(self) -> dict[str, Any]:
        """The OpenAI function schema of the tool."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": {"type": "object",
                           "properties": {p.name: p.schema() for p in self.params},
                           "required": [p.name for p in self.params if not p.optional]}}}

    def bind(self, call: ToolCall) -> dict[str, Any]:
        """The call's arguments by name, checked and converted to the declared types.

        Raises:
            ValueError: what is wrong with the arguments, in words the agent can act on.
        """
        names = [p.name for p in self.params]
        if len(call.positional) > len(names):
            raise ValueError(f"{self.name}() takes {len(names)} arguments ({', '.join(names) or 'none'}), "
                             f"got {len(call.positional) + len(call.arguments)}")
        given = dict(zip(names, call.positional, strict=False))
        for name, value in call.arguments.items():
            if name not in names:
                known = f"its arguments are {', '.join(names)}" if names else "it takes no arguments"
                raise ValueError(f"{self.name}() has no argument '{name}'; {known}")
            if name in given:
                raise ValueError(f"{self.name}() got two values for '{name}'")
            given[name] = value
        bound = {}
        for param in self.params:
            if param.name in given:
                bound[param.name] = self._converted(param, given[param.name])
            elif not param.optional:
                kind = f" ({param.kind_words()})" if param.kind else ""
                raise ValueError(f"{self.name}() is missing the argument '{param.name}'{kind}")
        return bound

    def _converted(self, param: Param, value: Any) -> Any:
        if value is None and param.optional:
            return None
        try:
            converted = convert(value, param.kind)
            if param.items is not None:
                converted = [convert(item, param.items) for item in converted]
        except ValueError:
            wanted = f"an array of {param.items}s" if param.items else ARTICLES[param.kind or "object"]
            raise ValueError(f"{self.name}() argument '{param.name}' must be {wanted}, "
                             f"got {_json(value)}") from None
        return converted


def convert(value: Any, kind: str | None) -> Any:
    """``value`` as the JSON type ``kind`` asks for, converting only what is unambiguous: a whole
    number to an integer, an integer to a number, a numeric string to either, a number to a string.

    Raises:
        ValueError: the value is not of that type.

    >>> convert("3", "integer"), convert(2, "number"), convert(4.0, "integer"), convert(5, "string")
    (3, 2.0, 4, '5')
    >>> convert("one", "integer")
    Traceback (most recent call last):
    ...
    ValueError: not an integer
    """
    if kind is None:
        return value
    if kind in ("integer", "number") and isinstance(value, str):
        value = _number_text(value)
    if isinstance(value, bool):
        if kind == "boolean":
            return value
    elif kind == "integer" and isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    elif kind == "number" and isinstance(value, (int, float)):
        return float(value)
    elif kind == "string" and isinstance(value, (str, int, float)):
        return str(value)
    elif kind == "array" and isinstance(value, list):
        return value
    elif kind == "object" and isinstance(value, dict):
        return value
    raise ValueError(f"not {ARTICLES[kind]}")


def _number_text(text: str) -> Any:
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number


def _json(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def tool_specs(cls: type) -> list[ToolSpec]:
    """The tools of a class: its methods marked ``@tool``, base classes' tools first.

    Raises:
        ValueError: a tool's schema cannot be derived (a parameter without a type, no
            docstring, ``*args``); the message says what to write.
    """
    specs, seen = [], set()
    for klass in reversed(cls.__mro__):
        for name in vars(klass):
            if name in seen:
                continue
            seen.add(name)
            raw = inspect.getattr_static(cls, name, None)
            function = _unwrapped(raw)
            if callable(function) and getattr(function, TOOL_MARK, False):
                specs.append(tool_spec(name, function, skip_first=not isinstance(raw, staticmethod)))
    return specs


def hidden_tool(cls: type, name: str) -> str | None:
    """What to say when ``name`` is a tool of one of ``cls``'s base classes that a method of the
    same name, not marked ``@tool``, hides (the agent cannot call it); None when it is not.

    >>> class Shelf:
    ...     @tool
    ...     def update(self, book_id: int) -> dict:
    ...         \"\"\"Change a book.\"\"\"
    >>> class Library(Shelf):
    ...     def update(self):
    ...         pass
    >>> hidden_tool(Library, "update")
    "Library.update() is not a @tool and hides Shelf's tool update: rename that method"
    >>> hidden_tool(Shelf, "update") is None, hidden_tool(Library, "find") is None
    (True, True)
    """
    raw = inspect.getattr_static(cls, name, None)
    if raw is None or getattr(_unwrapped(raw), TOOL_MARK, False):
        return None
    for klass in cls.__mro__[1:]:
        if getattr(_unwrapped(vars(klass).get(name)), TOOL_MARK, False):
            return (f"{cls.__name__}.{name}() is not a @tool and hides {klass.__name__}'s tool {name}: "
                    "rename that method")
    return None


def _unwrapped(raw: Any) -> Any:
    """The function of a class attribute: a static or class method's own, else the attribute."""
    return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw


def tool_spec(name: str, function: Callable[..., Any], skip_first: bool = True) -> ToolSpec:
    """The spec of one tool from its signature and docstring.

    >>> def lend(self, book_id: int, due: "str | None" = None) -> dict:
    ...     '''Lend a book.
    ...
    ...     Args:
    ...         book_id: the book's id.
    ...     '''
    >>> parameters = tool_spec("lend", lend).schema()["function"]["parameters"]
    >>> parameters["properties"]["book_id"], parameters["properties"]["due"], parameters["required"]
    ({'type': 'integer', 'description': "the book's id."}, {'type': 'string'}, ['book_id'])
    """
    description, documented = read_docstring(inspect.getdoc(function) or "")
    if not description:
        raise ValueError(f"tool {name}() has no docstring; say in one line what it does")
    parameters = list(inspect.signature(function).parameters.values())[1 if skip_first else 0:]
    params = []
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            raise ValueError(f"tool {name}(): parameter '{parameter.name}' must be a plain named "
                             f"parameter, not *args, **kwargs or positional-only")
        if parameter.annotation is parameter.empty:
            raise ValueError(f"tool {name}(): parameter '{parameter.name}' has no type; annotate it, "
                             f"e.g. {parameter.name}: int")
        kind, items, optional = json_type(parameter.annotation, name, parameter.name)
        params.append(Param(parameter.name, kind, items, optional or parameter.default is not parameter.empty,
                            documented.get(parameter.name, "")))
    return ToolSpec(name, description, tuple(params))


def read_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """A docstring's first paragraph (on one line), and its ``Args:`` descriptions by name.

    >>> read_docstring("Find records.\\n\\nArgs:\\n    field: the field,\\n        compared loosely.\\n")
    ('Find records.', {'field': 'the field, compared loosely.'})
    """
    lines = doc.strip().splitlines()
    first = []
    for line in lines:
        if not line.strip() or ARGS_HEADING.match(line.strip()):
            break
        first.append(line.strip())
    documented: dict[str, str] = {}
    current, inside, documented_indent = None, False, 0
    for line in lines:
        if ARGS_HEADING.match(line.strip()):
            inside, current = True, None
            continue
        if inside and line.strip() and not line[0].isspace():
            inside = False
        if not inside or not line.strip():
            continue
        match = ARG_LINE.match(line)
        indent = len(line) - len(line.lstrip())
        if match and (current is None or indent <= documented_indent):
            current, documented_indent = match.group(1), indent
            documented[current] = match.group(2).strip()
        elif current is not None:
            documented[current] = f"{documented[current]} {line.strip()}".strip()
    return " ".join(first), documented


def json_type(annotation: Any, tool_name: str, param: str) -> tuple[str | None, str | None, bool]:
    """The JSON type an annotation asks for, the type of its items, and whether it allows None.

    >>> json_type("list[int] | None", "t", "p"), json_type(dict, "t", "p"), json_type("Any", "t", "p")
    (('array', 'integer', True), ('object', None, False), (None, None, False))
    """
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None) \
        if isinstance(annotation, type) else repr(annotation)
    try:
        node = pysyntax.parse(str(text), mode="eval").body
        return _node_type(node)
    except (SyntaxError, ValueError):
        shown = text if isinstance(text, str) else repr(annotation)
        raise ValueError(f"tool {tool_name}(): parameter '{param}' has type {shown}; use int, float, str, "
                         "bool, list or dict") from None


def _node_type(node: ast.expr) -> tuple[str | None, str | None, bool]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _node_type(pysyntax.parse(node.value, mode="eval").body)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([node.left, node.right])
    name = _name_of(node.value if isinstance(node, ast.Subscript) else node)
    if isinstance(node, ast.Subscript):
        arguments = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "Union":
            return _union(arguments)
        if name in OPTIONAL_WRAPPERS:
            kind, items, _ = _node_type(arguments[0])
            return kind, items, True
    if name in ANY_TYPES:
        return None, None, False
    if name not in JSON_TYPES:
        raise ValueError(name)
    kind = JSON_TYPES[name]
    items = None
    if kind == "array" and isinstance(node, ast.Subscript):
        inner = _name_of(node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice)
        items = JSON_TYPES.get(inner) if JSON_TYPES.get(inner) not in ("array", "object") else None
    return kind, items, False


def _union(members: list[ast.expr]) -> tuple[str | None, str | None, bool]:
    kinds = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)
             and _name_of(m) != "None"]
    if len(kinds) != 1:
        raise ValueError("a union")
    kind, items, _ = _node_type(kinds[0])
    return kind, items, len(kinds) < len(members)


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ast.unparse(node)


def nearest_tools(name: str, names: list[str]) -> str:
    """What to say about a tool name that does not exist: the nearest one, else all of them.

    >>> nearest_tools("lent", ["find", "lend"]), nearest_tools("zz", ["find", "lend"])
    ("no tool named 'lent'; did you mean lend?", "no tool named 'zz'; the tools are find, lend")
    """
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        return f"no tool named '{name}'; did you mean {close[0]}?"
    return f"no tool named '{name}'; the tools are {', '.join(names)}"


def signature_lines(tools: object) -> list[str]:
    """Function schemas as a reader sees them: one ``name(arg: type, ...) - description`` line each
    (what is not a schema is skipped).

    >>> signature_lines([{"type": "function", "function": {"name": "lend", "description": "Lend a book.",
    ...     "parameters": {"properties": {"book_id": {"type": "integer"}}, "required": ["book_id"]}}}])
    ['lend(book_id: integer) - Lend a book.']
    """
    lines = []
    for schema in tools if isinstance(tools, list) else ():
        function = schema.get("function") if isinstance(schema, dict) else None
        if not isinstance(function, dict):
            continue
        parameters = function.get("parameters")
        properties = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
        arguments = ", ".join(f"{name}: {spec.get('type', '?') if isinstance(spec, dict) else '?'}"
                              for name, spec in properties.items())
        lines.append(f"{function.get('name', '?')}({arguments}) - {function.get('description', '')}")
    return lines

