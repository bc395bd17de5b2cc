r"""Finding the agent's action in a reply: the content of its last ``\boxed{...}``."""

from __future__ import annotations

BOX_OPEN = "\\boxed{"
TEXT_WRAPPERS = ("\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{")
"""LaTeX wrappers a model may put a boxed command in; the command inside is played."""


def _closing_brace(text: str, start: int) -> int | None:
    """Index of the brace that closes the one opened just before ``start``, or None.

    >>> _closing_brace("a{b{c}d}e", 2)
    7
    >>> _closing_brace("a{b{c}d", 2) is None
    True
    """
    depth = 1
    for index in range(start, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def extract_command(reply: str) -> str | None:
    r"""The stripped content of the last complete ``\boxed{...}`` in ``reply``.

    Braces inside the box nest. A box that never closes (a reply cut off mid-box) does not
    count, but boxes before it still do.

    Args:
        reply: the agent's whole reply.

    Returns:
        The command, stripped of surrounding whitespace, or None when the reply has no
        complete box.

    >>> extract_command(r"I think north. \boxed{ go north }")
    'go north'
    >>> extract_command(r"\boxed{a} then \boxed{b}")
    'b'
    >>> extract_command(r"\boxed{f(x){1}}")
    'f(x){1}'
    >>> extract_command(r"\boxed{a} and then \boxed{b")
    'a'
    >>> extract_command("no box here") is None
    True
    >>> extract_command(r"\boxed{}")
    ''
    >>> extract_command(r"The answer is \boxed{\text{Cherry}}."), extract_command(r"\boxed{\mathrm{north}}")
    ('Cherry', 'north')
    """
    found = None
    position = reply.find(BOX_OPEN)
    while position != -1:
        start = position + len(BOX_OPEN)
        end = _closing_brace(reply, start)
        if end is None:
            position = reply.find(BOX_OPEN, start)
            continue
        found = reply[start:end].strip()
        position = reply.find(BOX_OPEN, end + 1)
    return None if found is None else _unwrapped(found)


def _unwrapped(command: str) -> str:
    r"""A command without the text wrapper a model may put it in (``\text{north}``: ``north``).

    >>> _unwrapped(r"\text{go north}"), _unwrapped(r"\text{a} and \text{b}"), _unwrapped("42")
    ('go north', '\\text{a} and \\text{b}', '42')
    """
    for wrapper in TEXT_WRAPPERS:
        if command.startswith(wrapper) and _closing_brace(command, len(wrapper)) == len(command) - 1:
            return command[len(wrapper):-1].strip()
    return command
