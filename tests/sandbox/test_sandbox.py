"""The sandbox's good path: playing, tolerances, errors raised by environment code, the
pool, and the in-process fake."""

from __future__ import annotations

import time

import pytest

from spadework.errors import EnvRaised, SandboxError
from spadework.sandbox import InProcessSandbox, Isolation, Sandbox, SandboxConfig
from spadework.validate import validate

SLOPPY_SOURCE = '''
class SloppyEnv:
    def reset(self):
        self.target = random.randint(1, 100)
        return "Say the number.", {}

    def step(self, action):
        done = action == str(self.target)
        return ("Yes." if done else "No."), float(done), done, {}

    def solution(self):
        return str(self.target)

    def hint(self):
        return "It is between 1 and 100."
'''
"""Every slip the loader tolerates: no ``import random``, ``reset()`` without a seed, no
``max_turns``, a 4-tuple from ``step`` and a string from ``solution``."""

SLOPPY_TOLERANCES = [
    "'random' was used without an import; supplied it from random",
    "max_turns is missing; used the default of 20",
    "reset() takes no seed; seeded the global random module instead",
    "solution() returned one string; read it as a list of one action",
    "step() returned (observation, reward, done, info); read done as terminated",
]

RAISING_SOURCE = '''
class RaisingEnv:
    max_turns = 3

    def reset(self, seed=None):
        self.board = {"a": 1}
        return "Pick a key.", {}

    def step(self, action):
        value = self.board[action]
        return f"Value {value}.", 1.0, True, False, {}

    def solution(self):
        return ["a"]

    def hint(self):
        return "The first letter."
'''


def play(env) -> list:
    """Everything a short session with ``env`` returns, in order."""
    values = [env.class_name, env.max_turns, env.reset(seed=11), env.hint()]
    solution = env.solution()
    values += [solution, env.step("not it"), *(env.step(action) for action in solution)]
    return [*values, list(env.tolerances)]


@pytest.mark.timeout(30)
def test_text_env_plays_through_the_sandbox(sandbox, good_source):
    with sandbox.open(good_source) as env:
        assert env.isolation is Isolation.NAMESPACES
        assert (env.class_name, env.max_turns, env.tolerances) == ("GuessEnv", 5, [])
        assert env.reset(seed=7) == ["Guess a number from 1 to 10.", {}]
        assert env.reset(seed=7) == ["Guess a number from 1 to 10.", {}]  # same seed, same game
        assert (env.solution(), env.hint()) == (["6"], "even")
        assert env.step("6") == ["Right.", 1.0, True, False, {"turn": 1}]
        assert env.step("6") == ["The episode is over.", 0.0, True, False, {"turn": 1}]
        env.reset(seed=7)
        for turn in range(1, 5):
            assert env.step("1") == ["Wrong.", 0.0, False, False, {"turn": turn}]
        assert env.step("1") == ["Wrong.", 0.0, False, True, {"turn": 5}]  # truncated
        assert env.alive
    assert not env.alive


@pytest.mark.timeout(30)
def test_tolerances_are_reported(sandbox):
    with sandbox.open(SLOPPY_SOURCE) as env:
        assert env.max_turns == 20
        assert env.tolerances == SLOPPY_TOLERANCES[:3]  # known once the class is loaded
        observation, info = env.reset(seed=4)
        assert (observation, info) == ("Say the number.", {})
        solution = env.solution()
        assert env.reset(seed=4) == ["Say the number.", {}]
        assert env.solution() == solution  # the global random module was seeded with 4
        assert env.step("0") == ["No.", 0.0, False, False, {}]
        assert env.step(solution[0]) == ["Yes.", 1.0, True, False, {}]
        assert env.tolerances == SLOPPY_TOLERANCES  # each once, in the order applied


@pytest.mark.timeout(30)
def test_exception_in_step_is_reported_and_the_env_goes_on(sandbox):
    with sandbox.open(RAISING_SOURCE) as env:
        env.reset(seed=0)
        with pytest.raises(EnvRaised) as raised:
            env.step("z")
        assert str(raised.value) == (
            "step() raised KeyError: 'z' (line 10, in step: value = self.board[action])"
        )
        assert raised.value.reason == "raised"
        assert env.alive
        assert env.step("a") == ["Value 1.", 1.0, True, False, {}]


@pytest.mark.timeout(30)
def test_load_errors_name_the_problem(sandbox):
    with pytest.raises(EnvRaised, match="^syntax error at line 2: "):
        sandbox.open("class BrokenEnv:\n    def reset(self\n")
    with pytest.raises(EnvRaised, match="found GoodEnv, OtherEnv$"):
        sandbox.open("class GoodEnv: pass\nclass OtherEnv: pass\n")


@pytest.mark.timeout(30)
def test_pool_hands_out_prestarted_workers_with_distinct_uids(good_source):
    with Sandbox(SandboxConfig(pool_size=3, call_timeout_s=2.0)) as box:
        deadline = time.monotonic() + 15
        while box._ready.qsize() < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert box._ready.qsize() == 3
        waiting = list(box._ready.queue)
        envs = [box.open(good_source) for _ in range(5)]  # 3 from the pool, then more
        try:
            assert [env.worker for env in envs[:3]] == waiting
            uids = [env.worker.uid for env in envs]
            assert len(set(uids)) == 5
            assert all(env.reset(seed=7) == ["Guess a number from 1 to 10.", {}] for env in envs)
        finally:
            for env in envs:
                env.close()


@pytest.mark.timeout(30)
def test_a_worker_that_cannot_start_is_a_sandbox_error():
    config = SandboxConfig(start_timeout_s=0.001, pool_size=1)
    with Sandbox(config) as box:
        with pytest.raises(SandboxError, match="^sandbox worker did not start: start did not"):
            box.open("class AnyEnv: pass\n")
        time.sleep(0.6)
        assert box._filler.is_alive()  # the pool keeps trying, it does not die


@pytest.mark.timeout(30)
@pytest.mark.parametrize("source", ["good", "sloppy"])
def test_in_process_fake_gives_the_same_values(source, sandbox, good_source):
    source = good_source if source == "good" else SLOPPY_SOURCE
    with InProcessSandbox() as fake, fake.open(source) as env:
        assert env.isolation is Isolation.NONE
        expected = play(env)
    with sandbox.open(source) as env:
        assert play(env) == expected


OVERRIDDEN_RESET = '''
from spadework.envs import TextEnv


class PickEnv(TextEnv):
    max_turns = 3

    def reset(self, seed=None):
        self.target = self.rng.randint(1, 9)
        return f"Pick the number {self.target}.", {}

    def apply(self, action):
        return ("Yes.", 1.0, True) if action == str(self.target) else ("No.", 0.0, False)

    def solution(self):
        return [self.target]

    def hint(self):
        return "Read the first line."
'''


def test_textenv_subclass_overriding_reset_gets_its_rng_and_numbers_become_actions(sandbox):
    with sandbox.open(OVERRIDDEN_RESET) as env:
        first = env.reset(4)
        assert env.reset(4) == first
        target = first[0].split()[-1].rstrip(".")
        assert env.solution() == [target]
        assert env.step(target)[:3] == ["Yes.", 1.0, True]
        assert env.tolerances == [
            "reset() overrides TextEnv.reset without making self.rng; made it from the seed",
            "solution() returned numbers as actions; read them as text",
        ]


def test_textenv_subclass_making_its_own_rng_is_not_a_tolerance(sandbox):
    own_rng = "        self.rng = __import__('random').Random(seed)\n        self.target = self.rng"
    source = OVERRIDDEN_RESET.replace("        self.target = self.rng", own_rng)
    with sandbox.open(source) as env:
        env.reset(4)
        assert not any("self.rng" in t for t in env.tolerances)


MIXED_STYLES = '''
from spadework.envs import TextEnv


class SquareEnv(TextEnv):
    max_turns = 3

    def new_episode(self):
        self.n = self.rng.randint(2, 9)
        self.solution = [str(self.n * self.n)]
        return f"Square {self.n}.", {}

    def apply(self, action):
        return ("Yes.", 1.0, True) if [action] == self.solution else ("No.", 0.0, False)

    def solution(self):
        return self.solution

    def hint(self):
        return "Multiply it by itself."
'''


def test_observation_pairs_from_new_episode_and_a_solution_attribute_are_tolerated(sandbox):
    with sandbox.open(MIXED_STYLES) as env:
        observation, info = env.reset(2)
        assert observation.startswith("Square ") and info == {}
        actions = env.solution()
        assert env.step(actions[0])[:3] == ["Yes.", 1.0, True]
        assert env.tolerances == [
            "new_episode() returned (observation, info); used the observation",
            "an attribute named solution hid the solution() method; used its value",
        ]


def test_the_base_class_from_a_submodule_that_does_not_exist_is_tolerated(sandbox):
    source = MIXED_STYLES.replace("from spadework.envs import TextEnv",
                                  "from spadework.envs.text_envs import TextEnv")
    assert "spadework.envs.text_envs" in source
    verdict = validate(source, sandbox)
    assert verdict.valid, verdict.reason
    assert "TextEnv was imported from spadework.envs.text_envs; imported it from spadework.envs" in \
        verdict.tolerances
    other = source.replace("import TextEnv", "import TextEnv, helper")  # more than the base class: refused
    assert validate(other, sandbox).failure.name == "static"


DOCSTRING_HINT = '''
from spadework.envs import AnswerEnv


class PagesEnv(AnswerEnv):
    """How many pages a book of chapters has."""

    max_turns = 3

    def new_episode(self):
        self.chapters = [self.rng.randint(5, 30) for _ in range(3)]
        self.answer = sum(self.chapters)
        return f"Chapters of {', '.join(map(str, self.chapters))} pages. How many pages in all?"

    def hint(self):
        """Add the chapters' pages:
        all of them, once each."""
'''
"""An answer puzzle whose ``hint()`` is only a docstring (the slip of 22 of the full arm's first 144
design attempts): it returns None."""

FORGOT = DOCSTRING_HINT.replace('once each."""', 'once each."""\n        text = \'Add them.\'')
"""A ``hint()`` that computes and forgets to return: its docstring is no hint."""

DOCSTRING_TOLERANCE = "hint() held only a docstring and returned None; used the docstring as the hint"


def test_a_hint_written_only_as_a_docstring_is_read_from_it_and_said(sandbox):
    verdict = validate(DOCSTRING_HINT, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.hint == "Add the chapters' pages:\nall of them, once each."
    assert verdict.tolerances == (DOCSTRING_TOLERANCE,)
    with Sandbox(SandboxConfig(pool_size=0, docstring_hint=False)) as refusing:
        refused = validate(DOCSTRING_HINT, refusing)
    assert refused.reason.startswith("contract: ")
    assert refused.reason.endswith("hint() returned a None; return a str")


def test_a_hint_that_computes_forgets_to_return_or_is_not_the_method_is_not_read_from_a_docstring():
    shadowed = DOCSTRING_HINT.replace("        return f\"Chapters", "        self.hint = lambda: None\n"
                                      "        return f\"Chapters")  # the class's docstring method never runs
    assert "text = 'Add them.'" in FORGOT and "self.hint = lambda: None" in shadowed
    for source in (FORGOT, shadowed):
        with InProcessSandbox().open(source) as env:
            env.reset(seed=1)
            assert (env.hint(), env.tolerances) == (None, [])
    with InProcessSandbox(SandboxConfig(docstring_hint=False)).open(DOCSTRING_HINT) as env:  # the setting off
        env.reset(seed=1)
        assert (env.hint(), env.tolerances) == (None, [])


def test_a_docstring_hint_is_checked_for_leaks_like_any_hint(sandbox):
    """The docstring is static text, but it is the hint: a docstring naming an answer some seeds
    have gives that answer away on those seeds."""
    leaking = DOCSTRING_HINT.replace("[self.rng.randint(5, 30) for _ in range(3)]",
                                     "[self.rng.choice([40, 41]), 0, 0]") \
        .replace("Add the chapters' pages:\n        all of them, once each.", "It is 40 or 41.")
    assert "It is 40 or 41." in leaking
    verdict = validate(leaking, sandbox)
    assert verdict.reason == ("no_hint_leak: seed 0: the hint gives away the answer ('41'); "
                              "hint at the method instead")
    assert DOCSTRING_TOLERANCE in verdict.tolerances


CONTINUED = '''from spadework.envs import AnswerEnv


class SumEnv(AnswerEnv):
    def new_episode(self):
        a, b = self.rng.randint(10, 99), self.rng.randint(10, 99)
        self.answer = a + b
        return f"What is {a} + {b}? "
               "Reply with the number."

    def hint(self):
        return "Add the tens first, "
               "then the ones; "
               "carry when you must."
'''


def test_a_string_continued_without_parentheses_is_mended_and_said(sandbox):
    """The slip that refused 7 of the 1.5B's 22 attempts on fresh documents: "unexpected indent"."""
    from spadework.validate import validate

    env = sandbox.open(CONTINUED)
    try:
        observation, _ = env.reset(seed=3)
        assert observation.startswith("What is ") and observation.endswith("? Reply with the number.")
        assert env.hint() == "Add the tens first, then the ones; carry when you must."
        assert env.tolerances == ["a string was continued on the next line without parentheses (2 times); "
                                  "put it in parentheses"]
    finally:
        env.close()
    verdict = validate(CONTINUED, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.tolerances == tuple(env.tolerances)


def test_only_that_slip_is_mended():
    from spadework.pysyntax import join_continued_strings

    other = "def f():\n    x = 1\n        y = 2\n"  # an indent that is no string: left as it is
    assert join_continued_strings(other) == (other, 0)
    assert join_continued_strings("x = (1,\n")[1] == 0


GAME_AS_ANSWER = '''from spadework.envs import AnswerEnv


class DiceEnv(AnswerEnv):
    max_turns = 6

    def new_episode(self):
        self.target, self.total = self.rng.randint(3, 9), 0
        return f"Reach exactly {self.target} by adding 1, 2 or 3 at a time. Reply with a number."

    def apply(self, action):
        self.total += int(action)
        if self.total >= self.target:
            exact = self.total == self.target
            return ("Exactly there." if exact else "Too far."), float(exact), True
        return f"Now at {self.total}.", 0.0, False

    def solution(self):
        return ["3"] * (self.target // 3) + ([str(self.target % 3)] if self.target % 3 else [])

    def hint(self):
        return "Take big steps first."
'''


def test_a_game_written_in_the_answer_form_is_read_as_a_game_and_said(sandbox):
    """7 of the 1.5B's 22 attempts on fresh documents were games in the answer form, refused for
    setting no answer; one that writes apply() is a game, and one that also lacks solution() is told so."""
    from spadework.envs.contract import is_answer_puzzle
    from spadework.validate import validate

    verdict = validate(GAME_AS_ANSWER, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.tolerances == (
        "an AnswerEnv subclass writes apply(): read it as a game, a TextEnv subclass",)
    assert not is_answer_puzzle(GAME_AS_ANSWER)
    lacking = GAME_AS_ANSWER[:GAME_AS_ANSWER.index("    def solution")] + \
        GAME_AS_ANSWER[GAME_AS_ANSWER.index("    def hint"):]
    assert validate(lacking, sandbox).reason == (
        "static: DiceEnv has no solution(); it writes apply(), so it is read as a game (a TextEnv subclass), "
        "which needs new_episode(), apply(), solution(), hint()")
