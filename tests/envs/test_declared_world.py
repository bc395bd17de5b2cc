"""DeclaredWorld: a tool world written as data. The records, tasks, solution and hint it draws,
the messages a bad declaration gets, and declared worlds validated and played in the real sandbox."""

from __future__ import annotations

import random

import pytest

from spadework.envs import DeclaredWorld
from spadework.envs.contract import is_tool_world
from spadework.envs.declared import KINDS, declaration_problem, draw_records
from spadework.envs.tool_calls import parse_calls
from spadework.sandbox import InProcessSandbox
from spadework.validate import validate

SHOP = '''
from spadework.envs import DeclaredWorld


class SpiceShopEnv(DeclaredWorld):
    """A spice merchant's stock and customers."""

    collections = {
        "spices": {"name": ["saffron", "clove", "nutmeg", "cumin", "mace"],
                   "origin": ["Iran", "Zanzibar", "Grenada"], "jars": range(0, 9)},
        "customers": {"name": ["Ines", "Tomas", "Yara", "Oleg"], "city": ["Lisbon", "Porto", "Faro"]},
    }
    links = {"orders": {"spice_id": "spices", "customer_id": "customers"}}
    tasks = ("update", "transfer", "link")
    steps = STEPS
    size = 4
'''


def shop(steps: int = 2) -> str:
    return SHOP.replace("STEPS", str(steps))


class Ledger(DeclaredWorld):
    collections = {"accounts": {"holder": ["Ada", "Bo", "Cy", "Di"], "balance": [0, 5, 10, 50]},
                   "branches": {"town": ["Ely", "Ayr", "Looe"], "manager": ["Kim", "Lee", "Max"]}}
    links = {"memberships": {"account_id": "accounts", "branch_id": "branches"}}
    steps = 3
    size = 3


def played(env: DeclaredWorld, actions) -> tuple[float, bool]:
    total, done = 0.0, False
    for action in actions:
        _, reward, done, _, _ = env.step(action)
        total += reward
        if done:
            break
    return total, done


@pytest.mark.parametrize("seed", range(40))
def test_the_drawn_solution_solves_and_doing_nothing_does_not(seed):
    env = Ledger()
    task, info = env.reset(seed=seed)
    assert "goal_problem" not in info and len(info["tools"]) == 7
    assert played(env, ["list_records(collection='accounts')"]) == (0.0, False)
    assert played(env, env.solution()) == (1.0, True)
    for action in env.solution():  # every call names a record the task names by its key
        for call in parse_calls(action):
            if call.name == "find":
                assert str(call.arguments["value"]) in task


def test_the_same_seed_draws_the_same_episode_and_others_differ():
    first, again, other = Ledger(), Ledger(), Ledger()
    assert first.reset(seed=3)[0] == again.reset(seed=3)[0] and first.solution() == again.solution()
    assert {Ledger().reset(seed=s)[0] for s in range(12)} | {other.reset(seed=4)[0]} and len(
        {Ledger().reset(seed=s)[0] for s in range(12)}) >= 10


def test_steps_never_name_the_same_record_and_transfers_keep_numbers_whole_and_not_negative():
    for seed in range(60):
        env = Ledger()
        env.reset(seed=seed)
        touched = [t for step in env._drawn for t in step.touches]
        assert len(touched) == len(set(touched))
        played(env, env.solution())
        assert all(isinstance(a["balance"], int) and a["balance"] >= 0 for a in env.records["accounts"])


def test_records_keep_unique_keys_and_ids_and_links_point_at_records():
    world = draw_records(Ledger.collections, Ledger.links, 3, random.Random(1))
    for name in ("accounts", "branches"):
        assert len({r["id"] for r in world[name]}) == 3
    assert len({r["holder"] for r in world["accounts"]}) == 3
    [link] = world["memberships"]
    assert link["account_id"] in {r["id"] for r in world["accounts"]}


def test_the_hint_tells_the_method_and_no_call():
    env = Ledger()
    env.reset(seed=0)
    hint = env.hint()
    assert "find" in hint and not any(str(value) in hint for step in env._drawn for call in step.calls
                                      for value in parse_calls(call)[0].arguments.values()
                                      if not isinstance(value, dict))


@pytest.mark.parametrize(("change", "message"), [
    ({"collections": {}}, "collections must be a dict of collection name"),
    ({"collections": {"accounts": {"holder": ["Ada", "Bo"]}}}, "has 2 value(s) for 3 records"),
    ({"collections": {"accounts": {"id": [1, 2, 3]}}}, "leave 'id' out"),
    ({"collections": {"accounts": {"holder": ["a", "b", "c"], "tags": [["x"]]}}}, "not text, a number"),
    ({"collections": {"accounts": {"holder": ["a", "b", "c"], "tags": []}}}, "must be a list (or range)"),
    ({"tasks": ()}, "tasks must be a tuple of kinds of task"),
    ({"steps": 4}, "steps (tasks per episode) must be an int from 1 to 3, got 4"),
    ({"steps": "two"}, "steps (tasks per episode) must be an int from 1 to 3, got 'two'"),
    ({"size": "four"}, "size (records per collection) must be an int from 2 to 12, got 'four'"),
    ({"links": {"accounts": {"a": "accounts", "b": "branches"}}}, "needs a new name of its own"),
    ({"links": {"loans": {"account_id": "accounts", "book_id": "books"}}}, "points to 'books'"),
    ({"links": {}, "tasks": ("link",)}, "none of the tasks can be drawn"),
])
def test_a_bad_declaration_fails_at_reset_saying_what_to_write(change, message):
    values = {"collections": Ledger.collections, "links": Ledger.links, "tasks": KINDS, "steps": 1, "size": 3,
              **change}
    problem = declaration_problem(values["collections"], values["links"], values["tasks"], values["steps"],
                                  values["size"])
    assert problem is not None and message in problem
    bad = type("BadEnv", (DeclaredWorld,), values)
    with pytest.raises(ValueError, match="must|has|holds|leave|needs|points|none"):
        bad().reset(seed=0)


def test_a_declared_world_is_a_tool_world_and_needs_no_method():
    assert is_tool_world(shop())
    verdict = validate(shop(), InProcessSandbox())
    assert verdict.valid, verdict.reason


def test_a_bad_declaration_gets_the_validators_verdict_with_the_message():
    verdict = validate(shop().replace('"Ines", "Tomas", "Yara", "Oleg"', '"Ines"'), InProcessSandbox())
    assert not verdict.valid
    assert "collections['customers']['name'] has 1 value(s) for 4 records" in verdict.reason


def test_a_method_that_hides_a_records_tool_gets_a_verdict_naming_it():
    # a world of the run (archive id 11) wrote its own update(), so the agent's update tool vanished
    hiding = shop(1).replace('    size = 4', '    size = 4\n\n    def update(self):\n        return None')
    verdict = validate(hiding.replace('("update", "transfer", "link")', '("update",)'), InProcessSandbox())
    assert not verdict.valid
    assert "SpiceShopEnv.update() is not a @tool and hides ToolWorld's tool update: rename that method" \
        in verdict.reason


@pytest.mark.parametrize("steps", [1, 3])
def test_declared_worlds_validate_and_play_in_the_real_sandbox(sandbox, steps):
    verdict = validate(shop(steps), sandbox)
    assert verdict.valid, verdict.reason
    with sandbox.open(shop(steps)) as env:
        task, info = env.reset(seed=5)
        assert task.startswith("Do these in order:") == (steps > 1)
        solution = env.solution()
        for action in solution[:-1]:
            assert env.step(action)[1:3] == [0.0, False]
        assert env.step(solution[-1])[1:3] == [1.0, True]


def test_the_slips_small_models_make_are_repaired_and_recorded_as_tolerances():
    """Measured with the 1.5B designer: a key with fewer values than size, size 1, tuples as values,
    kinds of task that do not exist, an id field."""
    slipped = (shop().replace("size = 4", "size = 9").replace('tasks = ("update", "transfer", "link")',
                                                               'tasks = ("update", "create")')
               .replace('"city": ["Lisbon", "Porto", "Faro"]', '"city": [("Lisbon", 1), ("Porto", 2)]'))
    verdict = validate(slipped, InProcessSandbox())
    assert verdict.valid, verdict.reason
    assert set(verdict.tolerances) == {
        "collections['customers']['city'] holds values that are not text or numbers; used them as text",
        "tasks holds 'create', which is no kind of task; left it out",
        "size 9 is more than the 4 values of a key; used 4"}
    verdict = validate(shop().replace('"spices": {', '"spices": {"id": [1, 2], ').replace(
        'tasks = ("update", "transfer", "link")', 'tasks = ("sell", "buy")'), InProcessSandbox())
    assert verdict.valid and set(verdict.tolerances) == {
        "collections['spices'] declared an 'id' field; left it out (records get ids)",
        "tasks holds no kind of task ('sell', 'buy'); used update, transfer and link"}
    verdict = validate(shop().replace("size = 4", "size = 1"), InProcessSandbox())
    assert verdict.valid
    assert list(verdict.tolerances) == ["size 1 is too few records to choose between; used 4"]


class Pantry(DeclaredWorld):
    collections = {"jars": {"label": ["fig", "plum", "pear", "lime", "date", "kiwi"]}}
    tasks = ("update", "transfer")
    steps = 2
    size = 3


@pytest.mark.parametrize("seed", range(20))
def test_a_collection_of_keys_alone_gets_records_renamed_to_keys_no_record_holds(seed):
    env = Pantry()
    task, _ = env.reset(seed=seed)
    assert task.count("Set the label of the jars record whose label is") == 2
    held = {r["label"] for r in env.records["jars"]}
    assert played(env, env.solution()) == (1.0, True)
    labels = [r["label"] for r in env.records["jars"]]
    assert len(set(labels)) == 3 and len(set(labels) - held) == 2


def test_a_declared_world_whose_hint_hands_over_the_calls_is_not_valid():
    """An attack on regret: the designer's own hint() gives the agent the solution's calls."""
    leaky = shop(1) + "\n    def hint(self):\n        return ' then '.join(self.solution())\n"
    verdict = validate(leaky, InProcessSandbox())
    assert not verdict.valid and "no_hint_leak" in verdict.reason
    assert validate(shop(1), InProcessSandbox()).valid  # the same world with the base class's hint
