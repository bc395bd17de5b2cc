"""extract_command: the last complete box, nested braces, no box."""

from __future__ import annotations

import pytest

from spadework.rollout import extract_command


@pytest.mark.parametrize("reply, command", [
    ("Go. \\boxed{north}", "north"),
    ("\\boxed{  take lamp \n}", "take lamp"),
    ("\\boxed{f(x){1}}", "f(x){1}"),
    ("\\boxed{{a}{b}} then", "{a}{b}"),
    ("first \\boxed{a}, finally \\boxed{b}", "b"),
    ("\\boxed{a} and a cut-off \\boxed{b {c}", "a"),
    ("multi\nline \\boxed{x = 1\ny = 2}", "x = 1\ny = 2"),
    ("\\boxed{}", ""),
])
def test_extracts_the_last_complete_box(reply, command):
    assert extract_command(reply) == command


@pytest.mark.parametrize("reply", ["", "just text", "\\boxed{never closed", "boxed{x}", "\\box{x}"])
def test_no_complete_box_is_none(reply):
    assert extract_command(reply) is None
