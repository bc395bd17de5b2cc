"""ToolEnv and ToolWorld: reading calls without eval, the schemas read from tools, the messages a
call's mistakes get, the goal found by replaying solution(), the generic record tools, and a tool
world validated and played through the real sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.envs import ToolEnv, ToolWorld, tool
from spadework.envs.contract import is_tool_world
from spadework.envs.examples import example_paths
from spadework.envs.tool_calls import ToolCall, ToolCallError, parse_calls
from spadework.envs.tool_records import EXAMPLE
from spadework.envs.tools import NO_CALL, NOTHING_CHANGES, WRONG_ANSWER
from spadework.sandbox import InProcessSandbox
from spadework.validate import validate

LIBRARY = next(p for p in example_paths() if p.stem == "library_lending")
TOOLS = "list_records, find, get, create, update, delete, move, sell, discount"
NO_COLOUR = "the records of items have no field 'colour'; their fields are id, name, price, stock, sale"


class ShopEnv(ToolWorld):
    """A shop: sell an item to a customer (the item's id by its name first)."""

    max_turns = 6

    def new_episode(self) -> str:
        self.records = {
            "items": [{"id": 1, "name": "Lamp", "price": 12.5, "stock": 2, "sale": False},
                      {"id": 2, "name": "Desk", "price": 80.0, "stock": 0, "sale": True}],
            "customers": [{"id": 7, "name": "Ana"}],
            "orders": [],
        }
        return "Sell a lamp to Ana."

    @tool
    def sell(self, item_id: int, customer_id: int, note: str | None = None) -> dict:
        """Sell one unit of an item to a customer.

        Args:
            item_id: the item's id.
            customer_id: the customer's id.
            note: a note for the order.
        """
        item = self.get("items", item_id)
        self.get("customers", customer_id)
        if item["stock"] < 1:
            raise ValueError(f"no stock left of item {item_id}")
        self.update("items", item_id, "stock", item["stock"] - 1)
        return self.create("orders", {"item_id": item_id, "customer_id": customer_id})

    @tool
    def discount(self, item_id: int, percent: float, codes: list[int], extra: dict,
                 rush: bool = False) -> dict:
        """Lower an item's price.

        Args:
            item_id: the item's id.
            percent: how much lower, in percent.
        """
        if item_id == 99:
            raise KeyError("item 99 is archived")
        if item_id == 98:
            return {"size": len(None)}  # a slip in the tool: a TypeError
        return {"item_id": item_id, "percent": percent, "codes": codes, "extra": extra, "rush": rush}

    def solution(self) -> list[str]:
        return ["find(collection='items', field='name', value='Lamp')", "sell(item_id=1, customer_id=7)"]

    def hint(self) -> str:
        return "Look the item up by its name first."


def shop(seed: int = 0) -> tuple[ShopEnv, str, dict]:
    env = ShopEnv()
    task, info = env.reset(seed)
    return env, task, info


def step(env: ToolEnv, action: str) -> list:
    """One step's result as a list (as it comes back from a sandbox)."""
    return list(env.step(action))


def observation(env: ToolEnv, action: str) -> str:
    return step(env, action)[0]


# --- parse_calls --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    '<tool_call>{"name": "sell", "arguments": {"item_id": 1, "customer_id": 7}}</tool_call>',
    '<tool_call>\n{"name": "sell", "arguments": "{\\"item_id\\": 1, \\"customer_id\\": 7}"}\n</tool_call>',
    '<tool_call>{"name": "sell", "parameters": {"item_id": 1, "customer_id": 7}}',  # left open at the end
    "[sell(item_id=1, customer_id=7)]",
    "sell(item_id=1, customer_id=7)",
    '{"name": "sell", "arguments": {"item_id": 1, "customer_id": 7}}',
    '[{"name": "sell", "arguments": {"item_id": 1, "customer_id": 7}}]',
    '{"type": "function", "function": {"name": "sell", '
    '"arguments": "{\\"item_id\\": 1, \\"customer_id\\": 7}"}}',
    "```python\nsell(item_id=1, customer_id=7)\n```",
    "I will sell it now: \\boxed{sell(item_id=1, customer_id=7)}",
    "Selling the lamp.\nsell(item_id=1, customer_id=7)\nThat should do it.",
    "<think>maybe delete(collection='items', id=1)</think>\nsell(item_id=1, customer_id=7)",
], ids=["block", "block-json-string", "block-unclosed", "list", "bare", "json", "json-list", "openai",
        "fence", "boxed", "line-in-prose", "after-thinking"])
def test_every_accepted_form_reads_the_same_call(text):
    assert parse_calls(text) == [ToolCall("sell", {"item_id": 1, "customer_id": 7})]


def test_several_calls_keep_their_order_and_values_are_literals():
    blocks = ('<tool_call>{"name": "a", "arguments": {}}</tool_call>\n'
              '<tool_call>{"name": "b", "arguments": {"x": [1, 2]}}</tool_call>')
    assert [c.name for c in parse_calls(blocks)] == ["a", "b"]
    [call] = parse_calls("f('books', 2, flag=true, gone=null, pair=(1, 2), tags={'b', 'a'}, n=-3.5)")
    assert call.positional == ("books", 2)
    assert call.arguments == {"flag": True, "gone": None, "pair": [1, 2], "tags": ["a", "b"], "n": -3.5}
    assert str(call) == "f('books', 2, flag=True, gone=None, pair=[1, 2], tags=['a', 'b'], n=-3.5)"
    assert [c.name for c in parse_calls("[find(collection='items'), sell(item_id=1, customer_id=7)]")] == [
        "find", "sell"]


@pytest.mark.parametrize("text", ["", "done", "42", "The answer is Dune.", "[1, 2, 3]", '{"answer": 3}',
                                  "Lamp", "(3, 4)", "I am not sure (maybe later)."])
def test_text_with_no_call_gives_no_calls(text):
    assert parse_calls(text) == []


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os').system('x')", "__import__('os').system(...) is not a tool call; call a tool by its "
                                     "own name, as tool_name(arg=value)"),
    ("os.system('ls')", "os.system(...) is not a tool call"),
    ("self.records.clear()", "self.records.clear(...) is not a tool call"),
    ("sell(item_id=1 + 1, customer_id=7)", "sell() argument 'item_id' is not a plain value (1 + 1); write "
                                           "numbers, strings, lists or dicts, and call one tool at a time"),
    ("sell(item_id=find(collection='items'))", "sell() argument 'item_id' is not a plain value"),
    ("sell(__import__('os'))", "sell() argument 1 is not a plain value (__import__('os'))"),
    ("sell(*ids)", "sell() is given *ids; write each argument as name=value"),
    ("sell(**kw)", "sell() is given **kw; write each argument as name=value"),
    ("[sell(item_id=1), 3]", "item 2 of the list (3) is not a call"),
    ("<tool_call>sell it please</tool_call>", "the <tool_call> block 'sell it please' is not a call"),
    ('{"name": "sell", "arguments": [1, 2]}', "the arguments of sell must be a JSON object"),
    ('{"name": "sell", "arguments": "{oops"}', "the arguments of sell are not JSON"),
])
def test_calls_that_are_not_plain_tool_calls_are_refused_with_why(text, message):
    with pytest.raises(ToolCallError) as raised:
        parse_calls(text)
    assert str(raised.value).startswith(message)


def test_parsing_never_runs_the_text(tmp_path: Path):
    made = tmp_path / "made"
    with pytest.raises(ToolCallError):
        parse_calls(f"__import__('pathlib').Path({str(made)!r}).touch()")
    assert parse_calls(f"open({str(made)!r}, 'w')") == [ToolCall("open", {}, (str(made), "w"))]
    env, _, _ = shop()
    assert observation(env, f"open({str(made)!r}, 'w')").endswith(f"-> error: no tool named 'open'; "
                                                                 f"the tools are {TOOLS}")
    assert observation(env, "exec('x = 1')").startswith("exec('x = 1') -> error: no tool named 'exec'")
    assert not made.exists()
    assert observation(env, "os.system('ls')") == ("Invalid action: os.system(...) is not a tool call; "
                                                   "call a tool by its own name, as tool_name(arg=value)")


# --- what a call's mistakes are told --------------------------------------------------------------


DISCOUNT = "discount(item_id={}, percent=5, codes={}, extra={})"


@pytest.mark.parametrize(("action", "error"), [
    ("sel(item_id=1, customer_id=7)", "no tool named 'sel'; did you mean sell?"),
    ("sell(item_id=1)", "sell() is missing the argument 'customer_id' (integer)"),
    ("sell(item_id=1, customer=7)", "sell() has no argument 'customer'; its arguments are item_id, "
                                    "customer_id, note"),
    ("sell(item_id='one', customer_id=7)", "sell() argument 'item_id' must be an integer, got \"one\""),
    ("sell(item_id=1.5, customer_id=7)", "sell() argument 'item_id' must be an integer, got 1.5"),
    ("sell(1, 7, 'x', 4)", "sell() takes 3 arguments (item_id, customer_id, note), got 4"),
    ("sell(1, item_id=1)", "sell() got two values for 'item_id'"),
    ("sell(item_id=2, customer_id=7)", "sell() failed: no stock left of item 2"),
    ("sell(item_id=5, customer_id=7)", "sell() failed: no record with id 5 in items; its ids are 1, 2"),
    (DISCOUNT.format(99, [], {}), "discount() failed: item 99 is archived"),
    (DISCOUNT.format(98, [], {}), "discount() failed: TypeError: object of type 'NoneType' has no len()"),
    (DISCOUNT.format(1, ["a"], {}), "discount() argument 'codes' must be an array of integers, got [\"a\"]"),
    (DISCOUNT.format(1, [], 3), "discount() argument 'extra' must be an object, got 3"),
    (DISCOUNT.format(1, [], "{}, rush='yes'"), "discount() argument 'rush' must be a boolean, got \"yes\""),
])
def test_each_mistake_is_told_exactly(action, error):
    env, _, _ = shop()
    assert step(env, action) == [f"{action} -> error: {error}", 0.0, False, False, {"turn": 1}]


def test_an_unknown_tool_far_from_every_name_gets_the_list():
    env, _, _ = shop()
    assert observation(env, "zzz()") == f"zzz() -> error: no tool named 'zzz'; the tools are {TOOLS}"


def test_numbers_in_strings_and_ints_for_floats_are_converted():
    env, _, _ = shop()
    line = observation(env, "discount(item_id='1', percent=5, codes=['2', 3.0], extra={}, rush=True)")
    assert line == ("discount(item_id='1', percent=5, codes=['2', 3.0], extra={}, rush=True) -> "
                    '{"item_id": 1, "percent": 5.0, "codes": [2, 3], "extra": {}, "rush": true}')
    line = observation(env, "discount(item_id=1, percent='2.5', codes=[], extra={})")
    assert line.endswith('"percent": 2.5, "codes": [], "extra": {}, "rush": false}')


def test_calls_after_an_error_still_run():
    env, _, _ = shop()
    both = "[sell(item_id=2, customer_id=7), sell(item_id=1, customer_id=7)]"
    text, reward, terminated, _, _ = step(env, both)
    first, second = text.splitlines()
    assert first.endswith("error: sell() failed: no stock left of item 2")
    assert second == ('sell(item_id=1, customer_id=7) -> {"id": 1, "item_id": 1, "customer_id": 7}')
    assert (reward, terminated) == (1.0, True)


def test_an_action_without_a_call_is_told_how_to_call_and_the_turn_counts():
    env, _, _ = shop()
    observation, *rest = step(env, "I would sell the lamp.")
    assert rest == [0.0, False, False, {"turn": 1}]
    assert observation.startswith(NO_CALL) and "as list_records(collection=...) with the" in observation
    assert observation.endswith("the tools are list_records, find, get, create, update, delete, move, sell, "
                                "discount.")


def test_a_result_json_cannot_write_is_shown_as_python():
    class OddEnv(Task):
        @tool
        def pairs(self) -> dict:
            """Pairs by position."""
            return {(1, 2): "a"}

        def goal_reached(self) -> bool:
            return False

    env = OddEnv()
    env.reset(0)
    assert observation(env, "pairs()") == "pairs() -> {(1, 2): 'a'}"


def test_long_results_and_many_calls_are_cut():
    env, _, _ = shop()
    env.records["items"] += [{"id": i, "name": "x" * 50, "price": 1.0, "stock": 1, "sale": False}
                             for i in range(3, 60)]
    line = observation(env, "list_records(collection='items')")
    assert line.endswith("more characters)") and len(line) < 1_100
    lines = observation(env, "[" + ", ".join(["get(collection='items', id=1)"] * 8) + "]").splitlines()
    assert len(lines) == 7 and lines[-1] == "Only the first 6 calls ran; make at most 6 calls at a time."


# --- schemas ---------------------------------------------------------------------------------------


def test_schemas_come_from_signatures_and_docstrings():
    env, task, info = shop()
    assert task == "Sell a lamp to Ana."
    assert info == {"tools": ShopEnv.tool_schemas()}
    schemas = {s["function"]["name"]: s for s in info["tools"]}
    assert list(schemas) == ["list_records", "find", "get", "create", "update", "delete", "move", "sell",
                             "discount"]
    assert schemas["sell"] == {"type": "function", "function": {
        "name": "sell", "description": "Sell one unit of an item to a customer.",
        "parameters": {"type": "object", "properties": {
            "item_id": {"type": "integer", "description": "the item's id."},
            "customer_id": {"type": "integer", "description": "the customer's id."},
            "note": {"type": "string", "description": "a note for the order."}},
            "required": ["item_id", "customer_id"]}}}
    discount = schemas["discount"]["function"]["parameters"]
    assert discount["properties"] == {
        "item_id": {"type": "integer", "description": "the item's id."},
        "percent": {"type": "number", "description": "how much lower, in percent."},
        "codes": {"type": "array", "items": {"type": "integer"}}, "extra": {"type": "object"},
        "rush": {"type": "boolean"}}
    assert discount["required"] == ["item_id", "percent", "codes", "extra"]
    assert schemas["find"]["function"]["parameters"]["properties"]["field"] == {
        "type": "string", "description": "the field to compare."}


def test_string_annotations_are_read_without_evaluating_them():
    namespace: dict = {}
    exec(compile("from __future__ import annotations\nfrom spadework.envs import ToolEnv, tool\n"
                 "class NoteEnv(ToolEnv):\n"
                 "    @tool\n"
                 "    def note(self, text: str, tags: Optional[List[str]],\n"
                 "             at: 'int | None' = None) -> Unknown:\n"
                 "        '''Write a note.'''\n", "note.py", "exec"), namespace)  # trusted test source
    properties = namespace["NoteEnv"].tool_schemas()[0]["function"]["parameters"]
    assert properties == {"type": "object", "properties": {
        "text": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
        "at": {"type": "integer"}}, "required": ["text"]}


class Task(ToolEnv):
    def new_episode(self) -> str:
        return "Do it."


class Untyped(Task):
    @tool
    def lend(self, book_id, member_id: int) -> dict:
        """Lend a book."""
        return {}


class Undocumented(Task):
    @tool
    def lend(self, book_id: int, member_id: int) -> dict:
        return {}


class OddlyTyped(Task):
    @tool
    def lend(self, book: ShopEnv) -> dict:
        """Lend a book."""
        return {}


class NoTools(Task):
    pass


class Reserved(Task):
    @tool
    def state(self) -> dict:
        """The state."""
        return {}


@pytest.mark.parametrize(("cls", "message"), [
    (Untyped, "tool lend(): parameter 'book_id' has no type; annotate it, e.g. book_id: int"),
    (Undocumented, "tool lend() has no docstring; say in one line what it does"),
    (OddlyTyped, "tool lend(): parameter 'book' has type ShopEnv; use int, float, str, bool, list or dict"),
    (NoTools, "NoTools has no tools; mark the methods the agent may call with @tool"),
    (Reserved, "tool state() has a name ToolEnv uses itself; rename it"),
])
def test_a_tool_without_a_schema_fails_at_reset_saying_what_to_write(cls, message):
    with pytest.raises(ValueError) as raised:
        cls().reset(0)
    assert str(raised.value) == message


def test_tool_also_works_with_parentheses_and_a_generic_tool_can_be_taken_away():
    class SmallShopEnv(ShopEnv):
        delete = None
        move = None

        @tool()
        def count(self, collection: str) -> int:
            """Count the records of a collection.

            Args:
                collection: its name.
            """
            return len(self.list_records(collection))

    env = SmallShopEnv()
    _, info = env.reset(0)
    names = [s["function"]["name"] for s in info["tools"]]
    assert "delete" not in names and "move" not in names and names[-1] == "count"
    assert observation(env, "count(collection='items')") == "count(collection='items') -> 2"
    assert observation(env, "delete(collection='items', id=1)").endswith(
        "no tool named 'delete'; the tools are list_records, find, get, create, update, sell, discount, "
        "count")


# --- the goal ---------------------------------------------------------------------------------------


def test_the_episode_is_solved_exactly_when_the_world_is_as_the_replay_left_it():
    env, _, _ = shop()
    assert env.goal_problem is None
    assert step(env, "find(collection='items', field='name', value='lamp')")[1:3] == [0.0, False]
    order = "create(collection='orders', fields={'item_id': 1, 'customer_id': 7})"
    assert step(env, order)[1:3] == [0.0, False]
    # the same records by generic tools: the stock too, and the order's id is its only one
    assert step(env, "update(collection='items', id=1, field='stock', value='1')")[1:3] == [1.0, True]
    other, _, _ = shop()
    step(other, "sell(item_id=1, customer_id=7, note='gift')")
    assert other.over  # the note is not stored: the same world
    third, _, _ = shop()
    twice = "[sell(item_id=1, customer_id=7), sell(item_id=1, customer_id=7)]"
    assert step(third, twice)[1:3] == [0.0, False]


def test_a_solution_call_that_fails_makes_the_goal_unreachable_and_says_why():
    class BrokenShopEnv(ShopEnv):
        def solution(self) -> list[str]:
            return ["find(collection='items', field='name', value='Lamp')", "sell(item_id=9, customer_id=7)"]

    env = BrokenShopEnv()
    _, info = env.reset(0)
    problem = ("solution() call 2 sell(item_id=9, customer_id=7) failed: no record with id 9 in items; "
               "its ids are 1, 2")
    assert env.goal_problem == info["goal_problem"] == problem
    assert step(env, "sell(item_id=1, customer_id=7)")[1:3] == [0.0, False]


@pytest.mark.parametrize(("solution", "problem"), [
    (["find(collection='items', field='name', value='Lamp')"], NOTHING_CHANGES),
    (["sel(item_id=1, customer_id=7)"], "solution() call 1 sel(item_id=1, customer_id=7) failed: no tool "
                                        "named 'sel'; did you mean sell?"),
    (["sell it"], "solution() action 1 ('sell it') is no tool call, and the task sets no answer "
                  "(self.answer)"),
    (["os.remove('x')"], "solution() action 1 cannot be read: os.remove(...) is not a tool call; call a "
                         "tool by its own name, as tool_name(arg=value)"),
])
def test_a_solution_that_gives_no_goal_sets_goal_problem(solution, problem):
    class OddShopEnv(ShopEnv):
        def solution(self) -> list[str]:
            return solution

    env = OddShopEnv()
    env.reset(0)
    assert env.goal_problem == problem
    assert NOTHING_CHANGES == ("solution() changes nothing in the world: the task must need state-changing "
                               "calls (or set self.answer)")
    assert not any(step(env, a)[2] for a in ["sell(item_id=1, customer_id=7)", "done"])


class StockEnv(ShopEnv):
    """An answer task: sell a lamp, then say how many are left."""

    def new_episode(self) -> str:
        task = super().new_episode()
        self.answer = 1
        return task + " Then say how many lamps are left."

    def solution(self) -> list[str]:
        return [*super().solution(), "1"]


def test_an_answer_task_needs_the_calls_and_the_answer():
    env = StockEnv()
    env.reset(0)
    assert step(env, "2") == [WRONG_ANSWER, 0.0, False, False, {"turn": 1}]
    assert WRONG_ANSWER == "Not the answer the task asks for."
    assert step(env, "There is one lamp left.\nAnswer: 1") == [
        "That answer is right, but the task is not done yet.", 0.0, False, False, {"turn": 2}]
    assert step(env, "sell(item_id=1, customer_id=7)")[1:3] == [1.0, True]  # the answer was given already
    env.reset(0)
    step(env, "sell(item_id=1, customer_id=7)")
    assert step(env, "Sold it.\nAnswer: \\boxed{1}") == ["Correct.", 1.0, True, False, {"turn": 2}]


def test_an_answer_task_whose_solution_changes_nothing_counts_only_the_answer():
    class CountEnv(ShopEnv):
        def new_episode(self) -> str:
            super().new_episode()
            self.answer = "Desk"
            return "Which item is on sale? Answer with its name."

        def solution(self) -> list[str]:
            return ["find(collection='items', field='sale', value='true')", "Desk"]

    env = CountEnv()
    env.reset(0)
    assert env.goal_problem is None
    step(env, "delete(collection='orders', id=1)")
    step(env, "update(collection='items', id=1, field='stock', value=5)")
    assert step(env, "The answer is desk") == ["Correct.", 1.0, True, False, {"turn": 3}]


def test_goal_reached_overrides_the_replay():
    class RestockEnv(ShopEnv):
        def goal_reached(self) -> bool:
            return all(item["stock"] > 0 for item in self.records["items"])

        def solution(self) -> list[str]:
            return ["update(collection='items', id=2, field='stock', value=3)"]

    env = RestockEnv()
    _, info = env.reset(0)
    assert "goal_problem" not in info and env.goal_problem is None
    assert step(env, "update(collection='items', id=2, field='stock', value=1)")[1:3] == [1.0, True]


def test_state_is_plain_data_of_the_public_attributes():
    class CounterEnv(ToolEnv):
        def new_episode(self) -> str:
            self.count, self.seen, self._cache = 0, {3, 1}, object()
            return "Count to two."

        @tool
        def add(self) -> int:
            """Add one."""
            self.count += 1
            return self.count

        def solution(self) -> list[str]:
            return ["add()", "add()"]

    env = CounterEnv()
    env.reset(1)
    assert env.state() == {"count": 0, "seen": [1, 3]}
    assert step(env, "add()")[1:3] == [0.0, False]
    assert step(env, "add()")[1:3] == [1.0, True]


def test_the_same_seed_gives_the_same_task_and_the_replay_leaves_random_alone():
    import random

    source = LIBRARY.read_text()
    sandbox = InProcessSandbox()
    first, second = sandbox.open(source), sandbox.open(source)
    assert first.reset(4) == second.reset(4)
    assert first.solution() == second.solution() and first.hint() == second.hint()
    assert first.reset(5)[0] != second.reset(4)[0]

    class LuckyShopEnv(ShopEnv):
        @tool
        def sell(self, item_id: int, customer_id: int, note: str | None = None) -> dict:
            """Sell one unit of an item to a customer, with a lucky draw.

            Args:
                item_id: the item's id.
                customer_id: the customer's id.
                note: a note for the order.
            """
            random.random()
            return super().sell(item_id, customer_id, note)

    random.seed(3)
    expected = random.random()
    random.seed(3)
    env = LuckyShopEnv()
    env.reset(0)
    assert env.goal_problem is None and random.random() == expected


# --- ToolWorld's generic tools ------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "result"), [
    ("list_records(collection='customers')", '[{"id": 7, "name": "Ana"}]'),
    ("list_records(collection='Customers')", '[{"id": 7, "name": "Ana"}]'),
    ("find(collection='items', field='name', value='LAMP')", '[{"id": 1, "name": "Lamp", "price": 12.5, '
                                                             '"stock": 2, "sale": false}]'),
    ("find(collection='items', field='price', value='80')", '[{"id": 2, "name": "Desk", "price": 80.0, '
                                                            '"stock": 0, "sale": true}]'),
    ("find(collection='items', field='price', value=12.5)", '[{"id": 1, "name": "Lamp", "price": 12.5, '
                                                            '"stock": 2, "sale": false}]'),
    ("find(collection='items', field='sale', value='yes')", '[{"id": 2, "name": "Desk", "price": 80.0, '
                                                            '"stock": 0, "sale": true}]'),
    ("find(collection='items', field='name', value='Sofa')", "[]"),
    ("get(collection='customers', id=7)", '{"id": 7, "name": "Ana"}'),
    ("create(collection='customers', fields={'name': 'Ben'})", '{"id": 8, "name": "Ben"}'),
    ("create(collection='orders', fields={'item_id': 2})", '{"id": 1, "item_id": 2}'),
    ("update(collection='items', id=2, field='stock', value='4')", '{"id": 2, "name": "Desk", "price": 80.0, '
                                                                   '"stock": 4, "sale": true}'),
    ("update(collection='items', id=2, field='sale', value='no')", '{"id": 2, "name": "Desk", "price": 80.0, '
                                                                   '"stock": 0, "sale": false}'),
    ("update(collection='items', id=1, field='price', value=10)", '{"id": 1, "name": "Lamp", "price": 10.0, '
                                                                  '"stock": 2, "sale": false}'),
    ("delete(collection='customers', id=7)", '{"id": 7, "name": "Ana"}'),
    ("move(collection='customers', id=7, to='orders')", '{"id": 7, "name": "Ana"}'),
])
def test_each_generic_tool_does_its_work(action, result):
    env, _, _ = shop()
    assert observation(env, action) == f"{action} -> {result}"


def test_generic_tools_change_the_records():
    env, _, _ = shop()
    step(env, "[create(collection='items', fields={'name': 'Rug', 'price': '9', 'stock': '1', "
              "'sale': 'no'}), "
             "delete(collection='customers', id=7), move(collection='items', id=2, to='orders')]")
    assert env.records == {
        "items": [{"id": 1, "name": "Lamp", "price": 12.5, "stock": 2, "sale": False},
                  {"id": 3, "name": "Rug", "price": 9.0, "stock": 1, "sale": False}],
        "customers": [],
        "orders": [{"id": 2, "name": "Desk", "price": 80.0, "stock": 0, "sale": True}]}


@pytest.mark.parametrize(("action", "error"), [
    ("list_records(collection='clients')", "list_records() failed: no collection 'clients'; the collections "
                                           "are items, customers, orders"),
    ("find(collection='items', field='colour', value='red')", f"find() failed: {NO_COLOUR}"),
    ("get(collection='items', id=3)", "get() failed: no record with id 3 in items; its ids are 1, 2"),
    ("get(collection='orders', id=1)", "get() failed: no record with id 1 in orders; it is empty"),
    ("create(collection='items', fields={'colour': 'red'})", f"create() failed: {NO_COLOUR}"),
    ("create(collection='items', fields={'id': 5})", "create() failed: create() gives the new record its id; "
                                                     "leave 'id' out of the fields"),
    ("update(collection='items', id=1, field='stock', value='many')", "update() failed: field 'stock' holds "
                                                                      "whole numbers; \"many\" is not one"),
    ("update(collection='items', id=1, field='colour', value='red')",
     "update() failed: record 1 of items has no field 'colour'; its fields are id, name, price, stock, sale"),
    ("update(collection='items', id=1, field='id', value='3')", "update() failed: the id of a record cannot "
                                                                "change; create a new record instead"),
    ("delete(collection='items', id=9)", "delete() failed: no record with id 9 in items; its ids are 1, 2"),
    ("move(collection='items', id=1, to='bin')", "move() failed: no collection 'bin'; the collections are "
                                                 "items, customers, orders"),
    ("move(collection='items', id=1, to='items')", "move() failed: record 1 is in items already; move it to "
                                                   "another collection"),
])
def test_generic_tools_name_what_exists(action, error):
    env, _, _ = shop()
    assert observation(env, action) == f"{action} -> error: {error}"


@pytest.mark.parametrize(("records", "message"), [
    (None, "new_episode() must set self.records to a dict of collections, e.g. {'books': [{'id': 1, 'title': "
           "'Dune'}]}; it is a NoneType"),
    ({"books": {"id": 1}}, f"self.records['books'] must be a list of records (dicts), {EXAMPLE}"),
    ({"books": [{"title": "Dune"}]}, "record 1 of self.records['books'] has no int 'id'; give every record "
                                     "an int id"),
    ({"books": [{"id": 2}, {"id": 2}]}, "self.records['books'] has two records with id 2; ids must be unique "
                                        "in a collection"),
])
def test_records_that_are_not_collections_of_records_fail_at_reset(records, message):
    class BadEnv(ShopEnv):
        def new_episode(self) -> str:
            self.records = records
            return "Do it."

    with pytest.raises(ValueError) as raised:
        BadEnv().reset(0)
    assert str(raised.value) == message


# --- contract, static check and loader ----------------------------------------------------------------


def test_tool_worlds_are_recognised_from_source():
    assert is_tool_world(LIBRARY.read_text())
    assert not any(is_tool_world(p.read_text()) for p in example_paths() if p != LIBRARY)


SMALL_WORLD = '''
class CafeEnv(ToolWorld):
    """Serve a drink: its id by its name first."""

    max_turns = 6

    def new_episode(self):
        drinks = self.rng.sample(["tea", "coffee", "cocoa", "juice", "milk", "soda"], 3)
        self.records = {"drinks": [{"id": self.rng.randint(10, 99) * 10 + i, "name": d, "served": 0}
                                   for i, d in enumerate(drinks)]}
        self.drink = self.rng.choice(self.records["drinks"])
        return f"Serve one {self.drink['name']}."

    @tool
    def serve(self, drink_id: int) -> dict:
        """Serve one drink.

        Args:
            drink_id: the drink's id.
        """
        drink = self.get("drinks", drink_id)
        drink["served"] += 1
        return drink

    def solution(self):
        return [f"find(collection='drinks', field='name', value='{self.drink['name']}')",
                f"serve(drink_id={self.drink['id']})"]

    def hint(self):
        return "Serving takes the id; find the drink by its name first."
'''


def test_a_tool_world_without_imports_loads_with_them_supplied():
    sandbox = InProcessSandbox()
    verdict = validate(SMALL_WORLD, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.tolerances == (
        "'ToolWorld' was used without an import; supplied it from spadework.envs",
        "'tool' was used without an import; supplied it from spadework.envs")
    misplaced = "from spadework.envs.tool import ToolWorld, tool\n" + SMALL_WORLD
    assert validate(misplaced, sandbox).valid
    proper = "from spadework.envs.tools import ToolWorld, tool\n" + SMALL_WORLD
    assert validate(proper, sandbox).tolerances == ()


def test_the_static_check_asks_a_tool_world_for_its_methods():
    source = SMALL_WORLD.replace("    def solution(self):", "    def answer_calls(self):")
    verdict = validate(source, InProcessSandbox())
    assert verdict.reason == ("static: CafeEnv has no solution(); a subclass of ToolWorld needs "
                              "new_episode(), solution(), hint()")


def test_a_reset_of_its_own_still_gets_the_tools_and_the_goal():
    own_reset = SMALL_WORLD.replace("    def new_episode(self):", "    def reset(self, seed=None):\n"
                                    "        return self.setup(), {}\n\n    def setup(self):")
    env = InProcessSandbox().open(own_reset)
    observation, info = env.reset(2)
    assert [t["function"]["name"] for t in info["tools"]][-1] == "serve"
    assert env.tolerances[-1] == ("reset() overrides ToolEnv.reset without calling it; read the tools and "
                                  "replayed solution() after it")
    for action in env.solution():
        result = step(env, action)
    assert result[1:3] == [1.0, True]


def test_a_tool_world_that_cannot_be_solved_is_not_valid():
    source = SMALL_WORLD.replace("serve(drink_id={self.drink['id']})", "serve(drink_id=1)")
    verdict = validate(source, InProcessSandbox())
    assert not verdict.valid and verdict.reason.startswith("solvable: ")
    assert "serve() failed: no record with id 1 in drinks" in verdict.reason  # the failing call's error


# --- end to end, in the real sandbox ----------------------------------------------------------------


def test_the_library_example_is_valid_and_solved_by_its_calls_in_the_real_sandbox(sandbox):
    source = LIBRARY.read_text()
    verdict = validate(source, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.isolation != "none" and verdict.tolerances == ()
    with sandbox.open(source) as env:
        task, info = env.reset(11)
        assert "would like to borrow" in task
        assert [t["function"]["name"] for t in info["tools"]][-2:] == ["lend", "reserve"]
        solution = env.solution()
        assert [a.split("(")[0] for a in solution] == ["find", "find", "lend"]
        for action in solution[:-1]:
            assert step(env, action)[1:4] == [0.0, False, False]
        observation, reward, terminated, truncated, _ = step(env, solution[-1])
        assert (reward, terminated, truncated) == (1.0, True, False)
        assert observation.startswith(solution[-1] + " -> {")


def test_the_library_example_refuses_the_lent_out_edition_and_the_distractor_does_not_solve(sandbox):
    with sandbox.open(LIBRARY.read_text()) as env:
        env.reset(11)
        find_book, _, lend = env.solution()
        [lent_out] = [b for b in _records(step(env, find_book)[0]) if b["copies"] == 0]
        member = lend.split("member_id=")[1].rstrip(")")
        refused = step(env, f"lend(book_id={lent_out['id']}, member_id={member})")[0]
        assert refused.endswith(f"error: lend() failed: no copies left of book {lent_out['id']}; every copy "
                                "is out on loan")
        assert step(env, lend.replace("lend(", "reserve("))[1:3] == [0.0, False]
        assert step(env, lend)[1:3] == [0.0, False]  # the hold nobody asked for stays in the records


def _records(line: str) -> list[dict]:
    import json

    return json.loads(line.split(" -> ", 1)[1])


OWN_WORLD = '''
from spadework.envs import ToolWorld, tool


class ShelfEnv(ToolWorld):
    max_turns = 6

    def new_episode(self):
        self.shelf = [self.rng.choice(["cup", "jar", "pot"])]
        self.wanted = self.rng.choice(["lid", "box"])
        return f"The shelf holds {self.shelf[0]}. Put a {self.wanted} on it."

    @tool
    def put(self, item: str) -> list:
        """Put an item on the shelf.

        Args:
            item: what to put there.
        """
        self.shelf.append(item)
        return list(self.shelf)

    def solution(self):
        return [f"put(item='{self.wanted}')"]

    def hint(self):
        return "Read the task for what belongs on the shelf."
'''


def test_a_tool_world_that_keeps_its_own_attributes_instead_of_records_is_tolerated():
    from spadework.sandbox import InProcessSandbox
    from spadework.validate import validate

    verdict = validate(OWN_WORLD, InProcessSandbox())
    assert verdict.valid, verdict.reason
    assert verdict.tolerances == ("new_episode() set no self.records; the world is its own attributes "
                                  "(shelf, wanted), without the record tools",)
    with InProcessSandbox() as sandbox, sandbox.open(OWN_WORLD) as env:
        env.reset(seed=1)
        assert "keeps no records" in env.step("[list_records(collection='shelf')]")[0]
        assert env.step("[put(item='nothing')]")[2] is False
