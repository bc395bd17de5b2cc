"""The validator's checks, against broken fixture environments, with their exact messages."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest

from spadework.envs.contract import is_answer_puzzle
from spadework.errors import CheckFailed, CheckOff, UsageError
from spadework.sandbox import InProcessSandbox
from spadework.validate import (
    CHECKS,
    CheckContext,
    Outcome,
    ValidatorConfig,
    Verdict,
    read_source,
    validate,
)
from spadework.validate.checks import (
    check_contract,
    check_determined,
    check_determinism,
    check_load,
    check_no_hint_leak,
    check_not_guessable,
    check_parse,
    check_solvable,
    check_static,
    check_tool_effort,
)
from spadework.validate.parse import ReplyCode

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "envs"
BROKEN = FIXTURES / "broken"
GOOD = sorted((FIXTURES / "good").glob("*.py"))
CHECK_NAMES = [check.name for check in CHECKS]
TAKE_RANDOMNESS = "take all randomness from the seed given to reset()"
SET_STATE = "take all randomness from the seed and set all state in reset()"
READ_THE_TEXT = "put what decides the answer into the text the agent reads"
METHOD = "hint at the method instead"
SOLVE_IT = "make solution() return actions that solve the episode, with rewards summing to 1"
SOLVE_WITH_CALLS = "make solution() return calls that succeed and reach the goal"
NEED_THE_CALLS = "make the goal need the calls of solution()"
SHOW_IT = "show it in the text, or leave it out of the answer"
OFF_BY_FORM = {("tool_effort", Outcome.OFF), ("key_from_text", Outcome.OFF), ("stated_answer", Outcome.OFF),
               ("answer_form", Outcome.OFF)}
NOT_AN_ANSWER = "not an answer puzzle: the key is not one answer to a text"

EXPECTED: dict[str, tuple[str, str]] = {
    "parse_no_block.md": (
        "parse", "the reply has no ```python code block; put the whole environment in one"),
    "parse_two_blocks.md": (
        "parse", "the reply has 2 Python code blocks; put the whole environment in exactly one"),
    "parse_unclosed.md": (
        "parse", "the reply's ```python code block is never closed; was the reply cut off?"),
    "parse_empty_block.md": ("parse", "the reply's ```python code block is empty"),
    "second_solver_wrong_method.py": (
        "second_solver", "seed 0: solve(observation), reading the text alone, answers '8187' but the "
        "episode's answer is '6435': the answer does not follow from the text; compute self.answer from "
        "exactly what the puzzle says"),
    "key_from_text_tool_hidden.py": (
        "key_from_text", "the outcome reads a value the player can never find: the value drawn at line 17 "
        "(`self.on_loan = self.rng.randint(1, 15)  # kept out of the records: no tool shows it`), changed "
        "from 8 to 9 leaves every observation as it was under the same moves, yet the solution no longer "
        f"wins (8 of 16 such changes); {SHOW_IT}, or answer the player's moves with what it needs to find "
        "out"),
    "stated_answer_quoted.py": (
        "stated_answer", "the text states its own answer on every seed (seed 0: 'olive' is the only phrase "
        "it quotes); make the player compute or choose the answer"),
    "answer_form_whole.py": (
        "answer_form", "seed 0: the text asks for a whole number, but the answer is '120.5'; round the "
        "answer as the text asks (round() in new_episode), or ask for the decimals it has"),
    "key_from_text_unrounded.py": (
        "key_from_text", "seed 0: the answer reads a value the text never shows: the value drawn at line 15 "
        "(`self.first = self.rng.randint(1000, 9999) / 1000`), changed from 7311 to 7312 leaves the text as "
        f"it was, yet the answer '15201' no longer wins; {SHOW_IT}"),
    "key_from_text_hidden_rate.py": (
        "key_from_text", "seed 0: the answer reads a value the text never shows: the value drawn at line 12 "
        "(`self.rate = self.rng.choice([5, 10, 15])`), its choice changed (item 2 of 3 to 3) leaves the text "
        f"as it was, yet the answer '653' no longer wins; {SHOW_IT}"),
    "key_from_text_game_door.py": (
        "key_from_text", "the outcome reads a value the player can never find: the value drawn at line 12 "
        "(`self.prize = self.rng.randint(1, 3)`), changed from 2 to 3 leaves every observation as it was "
        f"under the same moves, yet the solution no longer wins (4 of 4 such changes); {SHOW_IT}, or answer "
        "the player's moves with what it needs to find out"),
    "static_syntax_error.md": ("static", "syntax error at line 11: expected ':'"),
    "static_no_env_class.py": (
        "static", "no class whose name ends in 'Env'; name the environment class like MazeEnv"),
    "static_two_env_classes.py": (
        "static", "found 2 classes whose names end in 'Env' (BaseEnv, CodeEnv); keep exactly one"),
    "static_missing_method.py": (
        "static", "CodeEnv has no hint(); the contract needs reset(), step(), solution(), hint()"),
    "static_textenv_missing_apply.py": (
        "static", "CodeEnv has no apply(); a subclass of TextEnv needs new_episode(), apply(), "
                  "solution(), hint()"),
    "static_answerenv_missing_hint.py": (
        "static", "SquareEnv has no hint(); a subclass of AnswerEnv needs new_episode(), hint()"),
    "static_forbidden_import.py": (
        "static", "line 3: imports 'os', which environments may not use; use pure standard "
                  "modules such as random, math, re, collections"),
    "static_eval.py": (
        "static", "line 14: uses eval(), which environments may not use; write the logic as "
                  "plain Python"),
    "static_open.py": (
        "static", "line 14: uses open(), which environments may not use; keep data in the "
                  "module (a list or a dict), not in files"),
    "static_subclasses.py": (
        "static", "line 25: uses .__subclasses__, which environments may not use; keep to the "
                  "game's own objects"),
    "load_module_raises.py": (
        "load", "loading failed: load() raised KeyError: 'low' "
                "(line 6, in <module>: LOWEST = DIGITS[\"low\"])"),
    "load_constructor_args.py": (
        "load", "loading failed: CodeEnv() must be constructible without arguments"),
    "contract_max_turns_zero.py": ("contract", "CodeEnv: max_turns is 0; use an int from 1 to 100"),
    "contract_max_turns_float.py": (
        "contract", "CodeEnv: max_turns is a float; use an int from 1 to 100"),
    "contract_reset_shape.py": (
        "contract", "seed 0: reset() must return (observation, info); it returned a list of 3"),
    "contract_empty_observation.py": (
        "contract", "seed 0: reset() returned an empty observation; describe the situation to "
                    "the agent"),
    "contract_nan_reward.py": (
        "contract", "seed 0, action '964': step() returned a reward of nan; rewards must be "
                    "finite numbers"),
    "contract_terminated_not_bool.py": (
        "contract", "seed 0, action '964': step() returned terminated of type int; return a bool"),
    "contract_info_not_dict.py": (
        "contract", "seed 0, action '964': step() returned info of type None; return a dict"),
    "contract_hint_not_str.py": ("contract", "seed 0: hint() returned a list; return a str"),
    "contract_solution_not_str.py": (
        "contract", "seed 0: solution() returned an action of type list; actions are str"),
    "contract_step_raises.py": (
        "contract", "step() raised ZeroDivisionError: float division by zero (line 16, in step: "
                    "return \"Correct.\", 1.0 / self.wrong, True, False, {})"),
    "contract_tool_no_type.py": (
        "contract", "reset() raised ValueError: tool lend(): parameter 'book_id' has no type; annotate it, "
                    "e.g. book_id: int"),
    "contract_tool_no_docstring.py": (
        "contract", "reset() raised ValueError: tool lend() has no docstring; say in one line what it does"),
    "contract_tool_none.py": (
        "contract", "reset() raised ValueError: CounterEnv has no tools; mark the methods the agent may "
                    "call with @tool"),
    "determinism_system_random.py": (
        "determinism", f"seed 0 reset twice gave different observations, solutions or hints; "
                       f"{TAKE_RANDOMNESS}"),
    "determinism_clock.py": (
        "determinism", f"seed 0 reset twice gave different observations, solutions or hints; "
                       f"{TAKE_RANDOMNESS}"),
    "determinism_same_every_seed.py": (
        "determinism", "seeds 0, 1, 2 all give the same episode; draw it from the seed: "
                       "self.rng in new_episode() (TextEnv, AnswerEnv), or random.Random(seed) "
                       "made in reset()"),
    "determinism_state_kept.py": (
        "determinism", "seed 0 played twice differs at turn 1 in observation 'Correct, after 2 "
                       f"guesses.' then 'Correct, after 3 guesses.'; {SET_STATE}"),
    "determinism_info_kept.py": (
        "determinism", "seed 0 played twice differs at turn 1 in info {'round': 3} then "
                       f"{{'round': 4}}; {SET_STATE}"),
    "solvable_wrong_solution.py": (
        "solvable", f"seed 0: replaying solution() (1 actions) scored 0, not 1; {SOLVE_IT}"),
    "solvable_half_reward.py": (
        "solvable", f"seed 0: replaying solution() (1 actions) scored 0.5, not 1; {SOLVE_IT}"),
    "solvable_too_long.py": (
        "solvable", "seed 0: solution() has 4 actions but max_turns is 3; raise max_turns or "
                    "shorten the solution"),
    "solvable_tool_failed_call.py": (
        "solvable", "solution() did not solve seed 0: lend(book_id=3, member_id=161) -> error: lend() "
                    "failed: no record with id 3 in books; its ids are 43, 75, 72, 61; "
                    f"{SOLVE_WITH_CALLS}"),
    "solvable_tool_no_call.py": (
        "solvable", "solution() did not solve seed 0: action 2 'lend book 72 to member 161' is no tool "
                    f"call; {SOLVE_WITH_CALLS}"),
    "tool_effort_goal_at_start.py": (
        "tool_effort", "seed 0: the task is solved before any tool call: a call that changes nothing "
                       f"('no_such_tool()') solves a fresh episode; {NEED_THE_CALLS}"),
    "tool_effort_repeat_first_call.py": (
        "tool_effort", "seed 0: repeating lend(book_id=75, member_id=117) 2 times solves the task: make "
                       "it need every call of the solution"),
    "determined_secret_code.py": (
        "determined", "seeds 0 and 1 show the same text but need different answers ('7311' and '3201'), "
                      f"so no player can tell which; {READ_THE_TEXT}"),
    "determined_same_question.py": (
        "determined", "seeds 0 and 1 show the same text but need different answers ('69' and '37'), "
                      f"so no player can tell which; {READ_THE_TEXT}"),
    "determined_silent_lock.py": (
        "determined", "seeds 0 and 1 show the same observations under the same actions but need "
                      "different solutions (['white', 'green', 'red'] and ['green', 'blue', 'red']), "
                      f"as do 27 of 27 such pairs; {READ_THE_TEXT}, or answer the agent's moves with "
                      "what it needs to find out"),
    "not_guessable_yes_wins.py": (
        "not_guessable", "seed 0: repeating the trivial action 'yes' solves the episode; make "
                         "success depend on what the agent reads"),
    "not_guessable_answer_yes.py": (
        "not_guessable", "seed 0: repeating the trivial action 'no' solves the episode; make "
                         "success depend on what the agent reads"),
    "not_guessable_same_answer.py": (
        "not_guessable", "the solution of seed 0 (['they differ']) solves seeds 1, 2 too: the same "
                         "actions win every episode; make the answer depend on what each episode shows"),
    "no_hint_leak_secret.py": (
        "no_hint_leak", "seed 0: the hint gives away the answer ('964'); hint at the method "
                        "instead"),
    "no_hint_leak_moves.py": (
        "no_hint_leak", "seed 0: the hint gives away the answer ('right down up left' actions in order: "
                        f"'right down up left'); {METHOD}"),
    "no_hint_leak_reversed.py": (
        "no_hint_leak", f"seed 0: the hint gives away the answer ('785' reversed: '587'); {METHOD}"),
    "no_hint_leak_spaced.py": (
        "no_hint_leak", f"seed 0: the hint gives away the answer ('bee' spaced out: 'b e e'); {METHOD}"),
    "no_hint_leak_number_words.py": (
        "no_hint_leak", "seed 0: the hint gives away the answer ('936' in number words: 'nine three six'); "
                        f"{METHOD}"),
    "no_hint_leak_arithmetic.py": (
        "no_hint_leak", "seed 0: the hint gives away the answer ('547' as arithmetic: '273 + 274'); "
                        f"{METHOD}"),
    "no_hint_leak_repeats.py": (
        "no_hint_leak", "seed 0: the hint gives away the answer ('right right right down down' actions in "
                        f"order: 'right 3 times then down 2 times'); {METHOD}"),
    "no_hint_leak_tool_call.py": (
        "no_hint_leak", "seed 0: the hint spells out the call lend(book_id=75, member_id=164); say what to "
                        "look for, not the calls"),
    "no_hint_leak_tool_answer.py": (
        "no_hint_leak", f"seed 0: the hint gives away the answer ('35'); {METHOD}"),
}
"""Every broken fixture: the check that must fail on it, and that check's exact message."""

TOOL_WORLDS = sorted(name for name in EXPECTED if "_tool_" in name or name.startswith("tool_"))
"""The broken tool worlds (``ToolEnv``/``ToolWorld`` subclasses): all of them run in the real sandbox."""

ON_THE_REAL_SANDBOX = [
    "parse_two_blocks.md", "static_forbidden_import.py", "load_constructor_args.py",
    "contract_reset_shape.py", "contract_nan_reward.py", "contract_hint_not_str.py",
    "determinism_system_random.py", "determinism_clock.py", "determinism_state_kept.py",
    "solvable_too_long.py", "determined_secret_code.py", "determined_silent_lock.py",
    "not_guessable_yes_wins.py", "not_guessable_answer_yes.py",
    "no_hint_leak_moves.py", "no_hint_leak_number_words.py", "second_solver_wrong_method.py",
    "key_from_text_unrounded.py", "key_from_text_game_door.py", "stated_answer_quoted.py",
    "answer_form_whole.py", *TOOL_WORLDS,
]
"""A representative handful, at least one per check, run through the real sandbox too."""


def source_of(name: str) -> tuple[str, bool]:
    return read_source(BROKEN / name)


def verdict_of(path: Path, sandbox) -> Verdict:
    """The verdict on a fixture; ``second_solver_*`` ones with the check they are for turned on."""
    text, is_reply = read_source(path)
    config = ValidatorConfig(second_solver=path.name.startswith("second_solver_"))
    return validate(text, sandbox, config, is_reply=is_reply)


def assert_fails_at(verdict: Verdict, check: str, message: str) -> None:
    """Invalid at ``check`` with ``message``; every check before passed (``tool_effort`` may be off:
    not a tool world; ``key_from_text`` may be off: a tool world), every one after skipped."""
    assert not verdict.valid
    assert [c.name for c in verdict.checks] == CHECK_NAMES
    at = CHECK_NAMES.index(check)
    failed = verdict.checks[at]
    assert (failed.outcome, failed.message) == (Outcome.FAILED, message)
    assert verdict.failure == failed
    assert verdict.reason == f"{check}: {message}"
    assert all(c.outcome is Outcome.PASSED or (c.name, c.outcome) in OFF_BY_FORM for c in verdict.checks[:at])
    for later in verdict.checks[at + 1:]:
        skipped = f"skipped: '{check}' did not pass"
        assert (later.outcome, later.message) == (Outcome.SKIPPED, skipped)


@pytest.fixture(params=["in_process", "sandboxed"])
def any_sandbox(request):
    """Both sandboxes: the in-process fake and the session's real one."""
    if request.param == "in_process":
        return InProcessSandbox()
    return request.getfixturevalue("sandbox")


# --- the whole validator, fixture by fixture ---------------------------------------------------


def test_every_broken_fixture_has_an_expected_message_and_every_check_a_fixture():
    on_disk = sorted(p.name for p in BROKEN.iterdir() if p.suffix in (".py", ".md"))
    assert on_disk == sorted(EXPECTED)
    assert all(name.startswith(f"{check}_") for name, (check, _) in EXPECTED.items())
    assert {check for check, _ in EXPECTED.values()} == set(CHECK_NAMES)
    assert {EXPECTED[name][0] for name in ON_THE_REAL_SANDBOX} == set(CHECK_NAMES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_fixture_fails_its_check_in_process(name):
    check, message = EXPECTED[name]
    verdict = verdict_of(BROKEN / name, InProcessSandbox())
    assert_fails_at(verdict, check, message)
    assert verdict.isolation == "none"


@pytest.mark.parametrize("name", ON_THE_REAL_SANDBOX)
def test_broken_fixture_fails_the_same_way_in_the_real_sandbox(name, sandbox):
    check, message = EXPECTED[name]
    verdict = verdict_of(BROKEN / name, sandbox)
    assert_fails_at(verdict, check, message)
    assert verdict.isolation == sandbox.isolation.value != "none"


def test_exception_messages_are_the_same_in_both_sandboxes(sandbox):
    for name in ("load_module_raises.py", "contract_step_raises.py"):
        check, message = EXPECTED[name]
        assert_fails_at(verdict_of(BROKEN / name, sandbox), check, message)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_fixture_is_valid(path, any_sandbox):
    verdict = verdict_of(path, any_sandbox)
    assert verdict.valid, verdict.reason
    expected = {name: (Outcome.PASSED, "") for name in CHECK_NAMES}
    expected["second_solver"] = (
        Outcome.OFF, "not asked for: designer.second_solver (ValidatorConfig.second_solver) is off")
    if not path.name.startswith("tool_"):
        expected["tool_effort"] = (Outcome.OFF, "not a tool world: no calls to weigh")
    if not is_answer_puzzle(path.read_text()):
        expected["stated_answer"] = expected["answer_form"] = (Outcome.OFF, NOT_AN_ANSWER)
    assert [(c.name, c.outcome, c.message) for c in verdict.checks] == \
        [(name, *expected[name]) for name in CHECK_NAMES]
    assert verdict.reason == "valid" and verdict.failure is None
    assert verdict.tolerances == ()
    assert verdict.class_name is not None and verdict.class_name.endswith("Env")
    assert verdict.hint and verdict.seconds > 0


def test_good_fixture_in_a_designer_reply_is_valid():
    code = GOOD[0].read_text()
    reply = f"Here is the environment.\n\n```python\n{code}```\n\nIt should be fun."
    verdict = validate(reply, InProcessSandbox(), is_reply=True)
    assert verdict.valid, verdict.reason


def test_a_reply_extracted_by_the_caller_is_not_extracted_again():
    code = GOOD[0].read_text()
    reply = f"Here is the environment.\n\n```python\n{code}```\n"
    found = ReplyCode.of(reply)
    given, own = (validate(reply, InProcessSandbox(), is_reply=True, extracted=extracted)
                  for extracted in (found, None))
    assert given.valid
    assert (given.class_name, given.hint, given.reason) == (own.class_name, own.hint, own.reason)
    assert [(c.name, c.outcome) for c in given.checks] == [(c.name, c.outcome) for c in own.checks]
    told = validate(reply, InProcessSandbox(), is_reply=True, extracted=ReplyCode(None, "no block here"))
    assert told.failure is not None
    assert (told.failure.name, told.failure.message) == ("parse", "no block here")
    with pytest.raises(ValueError, match="pass is_reply=True with it"):
        validate(code, InProcessSandbox(), extracted=found)


def test_textenv_subclass_may_write_its_own_reset_and_step():
    source = (BROKEN / "static_textenv_missing_apply.py").read_text().replace(
        "class CodeEnv(TextEnv):",
        "class CodeEnv(TextEnv):\n"
        "    def step(self, action):\n"
        "        if action.strip() == str(self.code):\n"
        "            return 'Correct.', 1.0, True, False, {}\n"
        "        return 'Wrong.', 0.0, False, False, {}\n",
    )
    verdict = validate(source, InProcessSandbox())
    assert verdict.valid, verdict.reason


def test_validator_closes_the_environment_whatever_happens():
    closed = []

    class RecordingSandbox(InProcessSandbox):
        def open(self, source):
            env = super().open(source)
            env.close = lambda: closed.append(env.class_name)
            return env

    verdict_of(GOOD[0], RecordingSandbox())
    verdict_of(BROKEN / "solvable_wrong_solution.py", RecordingSandbox())
    verdict_of(BROKEN / "static_eval.py", RecordingSandbox())
    assert closed == ["ArithmeticEnv", "CodeEnv"]


def test_checks_run_in_the_documented_order():
    assert CHECK_NAMES == ["parse", "static", "load", "contract", "determinism", "solvable",
                           "tool_effort", "determined", "key_from_text", "stated_answer", "answer_form",
                           "not_guessable", "no_hint_leak",
                           "second_solver"]


def test_config_needs_two_distinct_seeds():
    with pytest.raises(ValueError) as raised:
        ValidatorConfig(seeds=(4, 4))
    assert str(raised.value) == \
        "ValidatorConfig.seeds needs at least two distinct seeds, got (4, 4)"


def test_seeds_come_from_the_config():
    verdict = validate(source_of("no_hint_leak_secret.py")[0], InProcessSandbox(),
                       ValidatorConfig(seeds=(7, 8)))
    assert verdict.reason == ("no_hint_leak: seed 7: the hint gives away the answer ('431'); "
                              "hint at the method instead")


def test_a_solution_longer_than_the_agents_turns_fails_solvable():
    """The run's turn budget (agent.max_turns) binds as the environment's own max_turns does: a world
    whose solution needs more turns than any play gets is unwinnable, however valid otherwise."""
    source = source_of("solvable_too_long.py")[0].replace("max_turns = 3", "max_turns = 6")
    unbounded = validate(source, InProcessSandbox())
    assert unbounded.checks[CHECK_NAMES.index("solvable")].outcome is Outcome.PASSED
    bounded = validate(source, InProcessSandbox(), ValidatorConfig(turn_budget=3))
    assert_fails_at(bounded, "solvable", "seed 0: solution() has 4 actions but the agent plays at most "
                    "3 turns, so no play could win it; make an episode need 3 actions or fewer "
                    "(fewer steps or tasks)")
    assert validate(source, InProcessSandbox(), ValidatorConfig(turn_budget=4)).checks[
        CHECK_NAMES.index("solvable")].outcome is Outcome.PASSED
    with pytest.raises(ValueError, match="turn_budget must be at least 1"):
        ValidatorConfig(turn_budget=0)


# --- each check alone, on a context built by hand ------------------------------------------------


def loaded(name: str) -> CheckContext:
    """A context as the load check leaves it, for a fixture module."""
    path = BROKEN / name if (BROKEN / name).exists() else FIXTURES / "good" / name
    code = path.read_text()
    sandbox = InProcessSandbox()
    return CheckContext(code, sandbox, code=code, env=sandbox.open(code))


ALONE: list[tuple[Callable[[CheckContext], None], str]] = [
    (check_contract, "contract_terminated_not_bool.py"),
    (check_determinism, "determinism_same_every_seed.py"),
    (check_solvable, "solvable_wrong_solution.py"),
    (check_solvable, "solvable_tool_failed_call.py"),
    (check_tool_effort, "tool_effort_repeat_first_call.py"),
    (check_determined, "determined_silent_lock.py"),
    (check_not_guessable, "not_guessable_yes_wins.py"),
    (check_no_hint_leak, "no_hint_leak_secret.py"),
    (check_no_hint_leak, "no_hint_leak_tool_call.py"),
]


def test_parse_alone():
    reply, _ = source_of("parse_two_blocks.md")
    ctx = CheckContext("```py\nclass AEnv: pass\n```\n", InProcessSandbox(), is_reply=True)
    check_parse(ctx)
    assert ctx.code == "class AEnv: pass\n"
    module = CheckContext("x = 1\n", InProcessSandbox())
    check_parse(module)
    assert module.code == "x = 1\n"
    with pytest.raises(CheckFailed) as raised:
        check_parse(CheckContext(reply, InProcessSandbox(), is_reply=True))
    assert str(raised.value) == EXPECTED["parse_two_blocks.md"][1]


def test_static_alone():
    good = GOOD[0].read_text()
    ctx = CheckContext(good, InProcessSandbox(), code=good)
    check_static(ctx)
    assert ctx.tree is not None and ctx.class_name == "ArithmeticEnv"
    for name in ("static_missing_method.py", "static_forbidden_import.py", "static_open.py"):
        code = (BROKEN / name).read_text()
        with pytest.raises(CheckFailed) as raised:
            check_static(CheckContext(code, InProcessSandbox(), code=code))
        assert str(raised.value) == EXPECTED[name][1]


def test_load_alone():
    good = GOOD[0].read_text()
    ctx = CheckContext(good, InProcessSandbox(), code=good)
    check_load(ctx)
    assert ctx.env is not None and ctx.class_name == "ArithmeticEnv"
    code = (BROKEN / "load_constructor_args.py").read_text()
    with pytest.raises(CheckFailed) as raised:
        check_load(CheckContext(code, InProcessSandbox(), code=code))
    assert str(raised.value) == EXPECTED["load_constructor_args.py"][1]


def test_checks_after_load_need_a_loaded_environment():
    with pytest.raises(CheckFailed) as raised:
        check_contract(CheckContext("", InProcessSandbox(), code=""))
    assert str(raised.value) == "the environment is not loaded; run the load check first"


ALONE_IDS = [f"{c.__name__}-{name.removesuffix('.py')}" for c, name in ALONE]


@pytest.mark.parametrize(("check", "name"), ALONE, ids=ALONE_IDS)
def test_check_alone_fails_with_its_message(check, name):
    with pytest.raises(CheckFailed) as raised:
        check(loaded(name))
    assert str(raised.value) == EXPECTED[name][1]


@pytest.mark.parametrize(("check", "name"), ALONE, ids=ALONE_IDS)
def test_check_alone_passes_a_good_environment(check, name):
    with pytest.raises(CheckOff) if check is check_tool_effort else nullcontext():  # not a tool world
        check(loaded("puzzle_swap_sort.py"))
    check(loaded("tool_library.py"))


def test_contract_alone_caches_the_first_episode():
    ctx = loaded("plain_arithmetic.py")
    check_contract(ctx)
    episode = ctx.episodes[0]
    assert episode.observation == "Compute 9 * 6 + 26 and reply with the number."
    assert (episode.solution, episode.hint) == (["80"], "Multiply first: 9 * 6 = 54, then add.")


# --- the verdict record and reading sources -----------------------------------------------------


@pytest.mark.parametrize("path", [GOOD[0], BROKEN / "solvable_wrong_solution.py"],
                         ids=["valid", "invalid"])
def test_verdict_json_round_trip(path):
    verdict = verdict_of(path, InProcessSandbox())
    data = json.loads(verdict.dumps())
    again = Verdict.from_json(data)
    assert again.to_json() == verdict.to_json() == data
    assert (again.valid, again.reason, again.class_name, again.hint, again.isolation) == \
        (verdict.valid, verdict.reason, verdict.class_name, verdict.hint, verdict.isolation)
    assert [(c.name, c.outcome, c.message) for c in again.checks] == \
        [(c.name, c.outcome, c.message) for c in verdict.checks]


def test_read_source_tells_modules_from_replies(tmp_path):
    module, reply = tmp_path / "env.py", tmp_path / "reply.md"
    module.write_text("x = 1\n")
    reply.write_text("```python\nx = 1\n```\n")
    assert read_source(module) == ("x = 1\n", False)
    assert read_source(reply) == ("```python\nx = 1\n```\n", True)


@pytest.mark.parametrize("kind", ["missing", "directory", "binary"])
def test_read_source_errors(tmp_path, kind):
    path = tmp_path / "env.py"
    if kind == "directory":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    expected = {
        "missing": f"{path}: no such file",
        "directory": f"{path}: not a file",
        "binary": f"{path}: not a UTF-8 text file; give a Python module or a reply",
    }[kind]
    with pytest.raises(UsageError) as raised:
        read_source(path)
    assert str(raised.value) == expected
