"""Turning a designer's reply into environment source: exactly one Python code block."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spadework.errors import ParseError

FENCE = re.compile(r"^```[ \t]*([A-Za-z0-9_+-]*)[ \t]*$", re.MULTILINE)
PYTHON_TAGS = frozenset({"python", "py", "python3"})


def code_blocks(reply: str) -> tuple[list[tuple[str, str]], bool]:
    """The fenced blocks of a reply as ``(tag, code)``, and whether a block was left open.

    >>> code_blocks("Here:\\n```python\\nx = 1\\n```\\n")
    ([('python', 'x = 1\\n')], False)
    >>> code_blocks("```py\\nx = 1\\n")
    ([], True)
    """
    blocks: list[tuple[str, str]] = []
    fences = list(FENCE.finditer(reply))
    i = 0
    while i < len(fences):
        opening = fences[i]
        closing = next((f for f in fences[i + 1:] if not f.group(1)), None)
        if closing is None:
            return blocks, True
        body = reply[opening.end() + 1:closing.start()]
        blocks.append((opening.group(1).lower(), body))
        i = fences.index(closing) + 1
    return blocks, False


def extract_code(reply: str) -> str:
    """The environment source in a reply: its one Python code block.

    An untagged block counts as Python when it is the only block.

    Raises:
        ParseError: no block, several Python blocks, or a block left open.

    >>> extract_code("```python\\nclass AEnv: pass\\n```")
    'class AEnv: pass\\n'
    >>> extract_code("no code here")
    Traceback (most recent call last):
    ...
    spadework.errors.ParseError: the reply has no ```python code block; put the whole environment in one
    """
    blocks, unclosed = code_blocks(reply)
    python = [code for tag, code in blocks if tag in PYTHON_TAGS]
    if not python and len(blocks) == 1 and not blocks[0][0]:
        python = [blocks[0][1]]
    if len(python) > 1:
        raise ParseError(
            f"the reply has {len(python)} Python code blocks; put the whole environment in exactly one"
        )
    if python:
        if not python[0].strip():
            raise ParseError("the reply's ```python code block is empty")
        return python[0]
    if unclosed:
        raise ParseError("the reply's ```python code block is never closed; was the reply cut off?")
    raise ParseError("the reply has no ```python code block; put the whole environment in one")


@dataclass(frozen=True)
class ReplyCode:
    """A designer reply's code block, extracted once: the code, or why the reply has none to take.

    Attributes:
        code: the reply's one Python code block (``extract_code``); None when it has none to take.
        problem: why it has none (the ``ParseError``'s message, what the parse check fails with);
            None when ``code`` is there.
    """

    code: str | None
    problem: str | None = None

    @classmethod
    def of(cls, reply: str) -> ReplyCode:
        """The reply's code block, or the reason it has none.

        >>> ReplyCode.of("```python\\nx = 1\\n```")
        ReplyCode(code='x = 1\\n', problem=None)
        >>> ReplyCode.of("no code").problem
        'the reply has no ```python code block; put the whole environment in one'
        """
        try:
            return cls(extract_code(reply))
        except ParseError as exc:
            return cls(None, str(exc))
