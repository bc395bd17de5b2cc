"""Prompt rendering: the design, repair and hint-writing prompts, from the packaged templates."""

from __future__ import annotations

from importlib import resources

import pytest

from spadework.designer import MemoryDigest, render_design, render_hint_request, render_repair
from spadework.designer.prompts import (
    REPAIR_MESSAGE_CHARS,
    DesignForm,
    advice,
    clean_hint,
    default_example,
    prompt_chars,
)
from spadework.policy.base import Message, Role
from spadework.sandbox import InProcessSandbox
from spadework.validate import CHECKS, CheckResult, Outcome, ValidatorConfig, Verdict, validate

DIGEST = MemoryDigest(
    references=(("LanternEnv", "Light the lanterns in the order the riddle gives.", 0.61),),
    recent=(("LanternEnv", "Light the lanterns."), ("TideEnv", "Predict the tide.")),
    too_easy=("TideEnv",),
    too_hard=("OrbitEnv",),
)
DOCUMENT = "The harbour master logs every ship that enters, with its cargo and its weight."


def failed_verdict(name: str, message: str) -> Verdict:
    results = []
    for check in CHECKS:
        if results and not results[-1].passed:
            results.append(CheckResult(check.name, Outcome.SKIPPED, "skipped"))
        elif check.name == name:
            results.append(CheckResult(name, Outcome.FAILED, message))
        else:
            results.append(CheckResult(check.name, Outcome.PASSED))
    return Verdict(tuple(results), isolation="none")


def test_design_prompt_shows_the_example_as_an_earlier_answer():
    messages = render_design(DOCUMENT, DIGEST)
    assert [m.role for m in messages] == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    assert "environment designer" in messages[0].content
    assert "A bread recipe is a ratio" in messages[1].content  # the example's own document
    assert messages[2].content == f"```python\n{default_example().strip()}\n```"
    game = render_design(DOCUMENT, DIGEST, form=DesignForm.GAME)
    assert "Locksmiths open combination locks" in game[1].content
    assert game[2].content == f"```python\n{default_example(DesignForm.GAME).strip()}\n```"
    assert "class CodeLockEnv(TextEnv)" in game[2].content and "DoughRatioEnv" not in game[2].content


def test_with_the_second_solver_the_answer_form_asks_for_solve_and_its_example_has_one_that_passes():
    plain, asked = render_design(DOCUMENT, DIGEST), render_design(DOCUMENT, DIGEST, solver=True)
    assert "solve(observation)" not in plain[1].content + plain[2].content
    contract, example = asked[1].content, asked[2].content
    assert contract.index("Also write `solve(observation)`") < contract.index("Reply with exactly one")
    assert example.startswith(plain[2].content.removesuffix("\n```"))
    assert "\ndef solve(observation):" in example
    verdict = validate(example, InProcessSandbox(), ValidatorConfig(second_solver=True), is_reply=True)
    assert verdict.valid, verdict.reason
    game = render_design(DOCUMENT, DIGEST, form=DesignForm.GAME, solver=True)  # answer puzzles only
    assert game == render_design(DOCUMENT, DIGEST, form=DesignForm.GAME)


def test_the_tool_form_renders_its_request_document_and_example():
    messages = render_design(DOCUMENT, DIGEST, form=DesignForm.TOOL)
    assert [m.role for m in messages] == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    contract, example, request = messages[1].content, messages[2].content, messages[3].content
    assert "A clinic's front desk" in contract and DOCUMENT not in contract  # the example's own document
    for phrase in ("subclasses `ToolWorld`", "from spadework.envs import ToolWorld, call", "`@tool`",
                   "self.records", "new_episode()", "solution()", "hint()", "max_turns", "find(collection",
                   "update(collection", "several dependent calls", "calls that change records", "distractors",
                   "realistic fields drawn from the document", "`call(tool_name, argument=value, ...)`",
                   "randomness from `self.rng`", "exactly one ```python code block"):
        assert phrase in contract, phrase
    assert "AnswerEnv" not in contract and "TextEnv" not in contract  # one form only
    assert example == f"```python\n{default_example(DesignForm.TOOL).strip()}\n```"
    assert "class ClinicBookingEnv(ToolWorld)" in example and 'call("create", collection="visits"' in example
    assert DOCUMENT in request and DIGEST.render() in request and "ClinicBookingEnv" not in request
    assert all("$" not in m.content for m in messages)


def test_the_tool_prompt_fits_a_small_context_without_the_document():
    full = MemoryDigest(
        references=tuple((f"Ref{i}Env", "x" * 200, 0.5) for i in range(2)),
        recent=tuple((f"Recent{i}Env", "y" * 200) for i in range(5)),
        too_easy=tuple(f"Easy{i}Env" for i in range(5)),
        too_hard=tuple(f"Hard{i}Env" for i in range(5)),
    )
    chars = prompt_chars(render_design("", full, form=DesignForm.TOOL))
    assert chars <= 1_800 * 3.5, f"{chars} characters is more than about 1,800 tokens"


def test_design_request_holds_document_and_digest_but_not_the_example():
    messages = render_design(DOCUMENT, DIGEST)
    request = messages[-1].content
    assert DOCUMENT in request and DOCUMENT not in messages[1].content
    assert DIGEST.render() in request
    assert "LanternEnv (regret 0.61)" in request and "OrbitEnv" in request
    assert "DoughRatioEnv" not in request and "do not copy it" in request
    assert all("$" not in m.content for m in messages)


def test_design_prompt_states_the_contract_and_reply_format():
    messages = render_design(DOCUMENT, MemoryDigest())
    contract = messages[1].content
    for phrase in ("ends in `Env`", "from spadework.envs import AnswerEnv", "new_episode()",
                   "self.answer", "feedback(guess)", "hint()", "max_turns", "random, math, re, collections",
                   "randomness from `self.rng`", "exactly one ```python code block"):
        assert phrase in contract, phrase
    assert "TextEnv" not in contract  # one form only: small models take the last one offered
    game = render_design(DOCUMENT, MemoryDigest(), form=DesignForm.GAME)[1].content
    for phrase in ("from spadework.envs import AnswerEnv", "from spadework.envs import TextEnv",
                   "apply(action)", "reset(seed=None)", "solution()", "randomness from the seed"):
        assert phrase in game, phrase
    assert "There is no history yet" in messages[-1].content
    assert "exactly one ```python code block" in messages[-1].content


def test_design_prompt_takes_another_example():
    example = "class TinyEnv:\n    max_turns = 3\n"
    messages = render_design(DOCUMENT, DIGEST, example=example)
    assert "class TinyEnv:" in messages[2].content
    assert not any("DoughRatioEnv" in m.content or "bread recipe" in m.content for m in messages)


def test_design_prompt_fits_a_small_context_without_the_document():
    full = MemoryDigest(
        references=tuple((f"Ref{i}Env", "x" * 200, 0.5) for i in range(2)),
        recent=tuple((f"Recent{i}Env", "y" * 200) for i in range(5)),
        too_easy=tuple(f"Easy{i}Env" for i in range(5)),
        too_hard=tuple(f"Hard{i}Env" for i in range(5)),
    )
    chars = prompt_chars(render_design("", full))
    assert chars <= 1_800 * 3.5, f"{chars} characters is more than about 1,800 tokens"


def test_repair_prompt_appends_the_reply_and_the_failed_check():
    first = render_design(DOCUMENT, DIGEST)
    verdict = failed_verdict("solvable", "seed 1: replaying solution() (2 actions) scored 0, not 1")
    messages = render_repair(first, "```python\nclass AEnv: pass\n```", verdict)
    assert messages[:4] == first
    assert messages[4] == Message(Role.ASSISTANT, "```python\nclass AEnv: pass\n```")
    repair = messages[5]
    assert repair.role is Role.USER
    assert 'failed the check "solvable"' in repair.content
    assert "seed 1: replaying solution() (2 actions) scored 0, not 1" in repair.content
    assert advice()["solvable"] in repair.content
    assert "whole corrected module" in repair.content and "```python" in repair.content


def test_repair_prompt_advises_on_unknown_checks_and_cuts_long_messages():
    results = (CheckResult("static", Outcome.PASSED), CheckResult("novel", Outcome.FAILED, "z" * 2_000))
    verdict = Verdict(results, isolation="none")
    text = render_repair([], "reply", verdict)[-1].content
    assert "z" * (REPAIR_MESSAGE_CHARS - 1) + "…" in text and "z" * REPAIR_MESSAGE_CHARS not in text
    assert advice()["novel"] in text
    odd = Verdict((CheckResult("custom", Outcome.FAILED, "bad"),), isolation="none")
    assert advice()["*"] in render_repair([], "reply", odd)[-1].content


def test_repair_prompt_needs_a_failed_check():
    valid = Verdict((CheckResult("parse", Outcome.PASSED),), isolation="none")
    with pytest.raises(ValueError, match="no failed check"):
        render_repair([], "reply", valid)


def test_every_check_has_advice():
    assert {c.name for c in CHECKS} | {"novel", "*"} <= set(advice())


def test_hint_request_shows_the_code():
    messages = render_hint_request("class AEnv:\n    pass\n")
    assert [m.role for m in messages] == [Role.SYSTEM, Role.USER]
    assert "```python\nclass AEnv:\n    pass\n```" in messages[1].content
    assert "1 to 3 sentences" in messages[1].content


def test_clean_hint_keeps_three_sentences_and_drops_code():
    assert clean_hint("One. Two! Three? Four.") == "One. Two! Three?"
    assert clean_hint("Look first.\n```python\nx = 1\n```\n") == "Look first."
    assert clean_hint("   ") is None


def test_templates_are_package_files():
    folder = resources.files("spadework.designer").joinpath("prompts")
    names = {p.name for p in folder.iterdir()}
    assert {"system.txt", "design_next.txt", "repair.txt", "hint_writer.txt"} <= names
    for form in DesignForm:
        assert {f"design_{form}.txt", f"example_{form}.txt", f"example_document_{form}.txt"} <= names


@pytest.mark.parametrize(("form", "imported", "declared"), [
    (DesignForm.ANSWER, "AnswerEnv, WholeNumber", "DoughRatioEnv(AnswerEnv)"),
    (DesignForm.GAME, "TextEnv", "CodeLockEnv(TextEnv)"),
    (DesignForm.TOOL, "ToolWorld, call", "ClinicBookingEnv(ToolWorld)"),
    (DesignForm.RECORDS, "DeclaredWorld", "ClinicBookingEnv(DeclaredWorld)"),
])
def test_each_prompt_example_is_valid_and_keeps_everything_in_its_class(form, imported, declared):
    from spadework.sandbox import InProcessSandbox
    from spadework.validate import validate

    code = default_example(form)
    verdict = validate(code, InProcessSandbox())
    assert verdict.valid, verdict.reason
    top_level = [line for line in code.splitlines() if line and not line[0].isspace()]
    assert top_level == [f"from spadework.envs import {imported}", f"class {declared}:"]


def test_the_answer_example_shows_the_difficulty_knob_and_each_of_its_levels_is_kept():
    from spadework.sandbox import InProcessSandbox
    from spadework.validate import validate
    from spadework.validate.checks import ValidatorConfig

    code = default_example(DesignForm.ANSWER)
    assert "difficulties = 3" in code and "self.difficulty" in code
    verdict = validate(code, InProcessSandbox(), ValidatorConfig(levels=True))
    assert verdict.valid and verdict.difficulties == 3, verdict.ladder
