"""Arithmetic in a text: its numbers and operators (symbols or words), parsed with ``ast`` and worked
out by a small interpreter of ``+ - * / **`` (never ``eval``)."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Sequence

from spadework import pysyntax
from spadework.validate.wording import is_number, shown, words

OPERATORS = {"plus": "+", "minus": "-", "times": "*", "x": "*", "×": "*", "÷": "/", "−": "-", "–": "-",
             "^": "**", "+": "+", "-": "-", "*": "*", "/": "/", "**": "**", "(": "(", ")": ")"}
"""Operators as hints write them, and as Python writes them ("x" only between two numbers)."""

NUMBER = object()
"""A number's place in a phrase pattern."""

PHRASES: tuple[tuple[tuple[object, ...], tuple[object, ...]], ...] = (
    (("sum", "of", NUMBER, "and", NUMBER), ("(", 0, "+", 1, ")")),
    (("product", "of", NUMBER, "and", NUMBER), ("(", 0, "*", 1, ")")),
    (("difference", "between", NUMBER, "and", NUMBER), ("(", 0, "-", 1, ")")),
    (("difference", "of", NUMBER, "and", NUMBER), ("(", 0, "-", 1, ")")),
    ((NUMBER, "more", "than", NUMBER), ("(", 1, "+", 0, ")")),
    ((NUMBER, "less", "than", NUMBER), ("(", 1, "-", 0, ")")),
    (("half", "of", NUMBER), ("(", 0, "/", "2", ")")),
    (("twice", NUMBER), ("(", "2", "*", 0, ")")),
    (("double", NUMBER), ("(", "2", "*", 0, ")")),
    ((NUMBER, "squared"), ("(", 0, "**", "2", ")")),
    (("multiplied", "by"), ("*",)),
    (("divided", "by"), ("/",)),
)
"""Arithmetic in words, and how Python writes it (``0`` and ``1``: the phrase's numbers in order)."""

LEXEME = re.compile(r"\d+(?:\.\d+)?|\*\*|[-+*/()×÷−–^]|[^\W\d_]+")
BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
          ast.Pow: operator.pow}
MAX_TERMS = 80


def arithmetic_tokens(text: str) -> list[str]:
    """The text's numbers and arithmetic operators, in order, with operator words as symbols and
    number words as numbers; any other word becomes a break ``|``.

    >>> arithmetic_tokens("It is 412 plus one hundred thirty-seven, or (825 - 66) / 9.")
    ['|', '412', '+', '137', '|', '(', '825', '-', '66', ')', '/', '9']
    >>> arithmetic_tokens("a 3 x 4 grid, divided by two")
    ['|', '3', '*', '4', '|', '/', '2']
    """
    joined = re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", " ", text.lower())  # forty-two
    spoken = words(joined, keep=LEXEME)
    tokens: list[str] = []
    index = 0
    while index < len(spoken):
        phrase = _phrase_at([w.text for w in spoken], index)
        if phrase is not None:
            written, used = phrase
            tokens.extend(written)
            index += used
            continue
        word = spoken[index].text
        between_numbers = 0 < index < len(spoken) - 1 and is_number(spoken[index - 1].text) \
            and is_number(spoken[index + 1].text)
        if is_number(word) or (word in OPERATORS and (word != "x" or between_numbers)):
            tokens.append(OPERATORS.get(word, word))
        elif not tokens or tokens[-1] != "|":
            tokens.append("|")
        index += 1
    return tokens


def _phrase_at(texts: Sequence[str], index: int) -> tuple[list[str], int] | None:
    """The arithmetic phrase (``PHRASES``) that starts at ``index``, as symbols, and its length.

    >>> _phrase_at(["the", "sum", "of", "400", "and", "149"], 1)
    (['(', '400', '+', '149', ')'], 5)
    >>> _phrase_at(["137", "more", "than", "412"], 0), _phrase_at(["137", "apples"], 0)
    ((['(', '412', '+', '137', ')'], 4), None)
    """
    for pattern, written in PHRASES:
        found = texts[index:index + len(pattern)]
        if len(found) < len(pattern):
            continue
        pairs = list(zip(pattern, found, strict=True))
        if all(is_number(text) if part is NUMBER else text == part for part, text in pairs):
            numbers = [text for part, text in pairs if part is NUMBER]
            return [numbers[item] if isinstance(item, int) else str(item) for item in written], len(pattern)
    return None


def evaluate(expression: str) -> float | None:
    """The value of a simple arithmetic expression, parsed with ``ast`` (never ``eval``); None if it
    is not one.

    >>> evaluate("(825 - 66) / 9"), evaluate("2 ** 3"), evaluate("1 / 0"), evaluate("__import__('os')")
    (84.33333333333333, 8, None, None)
    """
    try:
        return _value(pysyntax.parse(expression, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None


def _value(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):  # a number, not True or False
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _value(node.left), _value(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Pow) and (abs(right) > 10 or abs(left) > 10_000):
            return None
        return BINARY[type(node.op)](left, right)
    return None


def expression_for(answer: str, text: str, observation: str = "") -> str | None:
    """An arithmetic expression in ``text`` that comes to the numeric ``answer`` (a difference in
    either order counts), as a person writes it; None if there is none, or only ones the
    ``observation`` shows too.

    >>> expression_for("549", "It is 412 plus 137."), expression_for("549", "412 + 137", "What is 412 + 137?")
    ('412 + 137', None)
    """
    if not is_number(answer):
        return None
    given = arithmetic_tokens(observation)
    tokens = arithmetic_tokens(text)[:MAX_TERMS]
    for start in range(len(tokens)):
        for end in range(start + 3, len(tokens) + 1):
            piece = tokens[start:end]
            if "|" in piece:
                break
            if not (set(piece) & {"+", "-", "*", "/", "**"}) or shown(piece, given):
                continue
            value = evaluate(" ".join(piece))
            if value is not None and _same_number(abs(value), answer):
                return _written(piece)
    return None


def _written(tokens: Sequence[str]) -> str:
    """Arithmetic tokens as a person writes them.

    >>> _written(["(", "825", "-", "66", ")", "/", "9"])
    '(825 - 66) / 9'
    """
    return " ".join(tokens).replace("( ", "(").replace(" )", ")")


def _same_number(value: float, answer: str) -> bool:
    """Whether a value is the answer, allowing for the answer's rounding.

    >>> _same_number(84.3333, "84.33"), _same_number(549.0, "549"), _same_number(84.3, "84")
    (True, True, False)
    """
    wanted = float(answer)
    if not math.isfinite(value):
        return False
    decimals = len(answer.partition(".")[2])
    return abs(value - wanted) <= max(1e-9 * max(1.0, abs(wanted)), 0.5 * 10 ** -decimals if decimals else 0)
