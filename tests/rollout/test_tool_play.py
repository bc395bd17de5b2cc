"""run_plays in tool worlds: the tools reach the policy, results come back as tool messages, the whole
reply is the action (a boxed answer alone when it calls nothing), and the scripted fake solves its world."""

from __future__ import annotations

import random

from rollout_fakes import ScriptedFakePolicy, counter_env, replies

from spadework.policy.base import Role
from spadework.policy.scripted import ScriptedPolicy
from spadework.policy.scripted_tools import design_stock
from spadework.rollout import Arm, EndReason, PlayJob, RolloutConfig, run_plays
from spadework.rollout.prompt import AgentForm, agent_system_prompt, reply_instruction
from spadework.sandbox import InProcessSandbox

LIBRARY = '''
from spadework.envs import ToolWorld, tool


class LibraryEnv(ToolWorld):
    """Lend a book named in the task; lending takes the book's id."""

    max_turns = 4

    def new_episode(self):
        self.records = {"books": [{"id": 1, "title": "Dune", "copies": 2},
                                  {"id": 2, "title": "Emma", "copies": 1}], "loans": []}
        return "Lend 'Emma' to member 7."

    @tool
    def lend(self, book_id: int, member_id: int) -> dict:
        """Lend a book to a member.

        Args:
            book_id: the book's id.
            member_id: the member's id.
        """
        book = self.get("books", book_id)
        if book["copies"] < 1:
            raise ValueError(f"no copies left of book {book_id}")
        self.update("books", book_id, "copies", book["copies"] - 1)
        return self.create("loans", {"book": book_id, "member": member_id})

    def solution(self):
        return ["find(collection='books', field='title', value='Emma')", "lend(book_id=2, member_id=7)"]

    def hint(self):
        return "Lending takes an id: look the book up by its title first."
'''

QUIZ = LIBRARY.replace('return "Lend \'Emma\' to member 7."',
                       'self.answer = 2\n        return "How many books are there?"').replace(
    'return ["find(collection=\'books\', field=\'title\', value=\'Emma\')", "lend(book_id=2, member_id=7)"]',
    'return ["list_records(collection=\'books\')", "2"]')

FIND = ('<tool_call>\n{"name": "find", "arguments": {"collection": "books", "field": "title", '
        '"value": "Emma"}}\n</tool_call>')
LEND = "The book is id 2.\n[lend(book_id=2, member_id=7)]"


def play(source, script, arm=Arm.NOHINT, form=None, policy=None):
    policy = policy or ScriptedFakePolicy(script)
    [episode] = run_plays(policy, InProcessSandbox(), [PlayJob("lib", source, 0, arm, form)], RolloutConfig())
    return episode, policy


def test_calls_as_tool_call_text_then_a_python_list_solve_the_world_with_tool_messages():
    episode, policy = play(LIBRARY, lambda c: [FIND, LEND][replies(c)])
    assert episode.solved and episode.end is EndReason.TERMINATED and episode.turns == 2
    assert [m.role for m in episode.messages] == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL,
                                                  Role.ASSISTANT, Role.TOOL]
    assert episode.messages[0].content == agent_system_prompt(AgentForm.TOOL)
    assert episode.messages[1].content == f"Lend 'Emma' to member 7.\n\n{reply_instruction(AgentForm.TOOL)}"
    assert [m.content for m in episode.messages if m.role is Role.ASSISTANT] == [FIND, LEND]
    assert episode.messages[3].content == ("find(collection='books', field='title', value='Emma') -> "
                                           '[{"id": 2, "title": "Emma", "copies": 1}]')
    assert episode.messages[5].content.startswith("lend(book_id=2, member_id=7) -> {")
    assert episode.unboxed == 0


def test_the_worlds_tools_reach_generate_with_each_conversation_and_the_episode():
    episode, policy = play(LIBRARY, lambda c: [FIND, LEND][replies(c)])
    names = [tool["function"]["name"] for tool in episode.tools]
    assert {"lend", "find", "update", "list_records"} <= set(names)
    assert policy.tools == [[list(episode.tools)], [list(episode.tools)]]


def test_errors_come_back_as_tool_messages_and_the_agent_can_call_again():
    script = ["[lend(book_id='two', member_id=7)]", "[lent(book_id=2, member_id=7)]",
              "I am not sure.", "[lend(book_id=2, member_id=7)]"]
    episode, _ = play(LIBRARY, lambda c: script[replies(c)])
    results = [m.content for m in episode.messages if m.role is Role.TOOL]
    assert "error:" in results[0] and "integer" in results[0]
    assert "no tool named 'lent'; did you mean lend?" in results[1]
    assert results[2].startswith("No tool call found.")
    assert episode.solved and episode.turns == 4 and episode.unboxed == 1


def test_a_boxed_answer_without_calls_plays_the_boxed_content():
    script = ["[list_records(collection='books')]", "There are two books, so \\boxed{2}."]
    episode, _ = play(QUIZ, lambda c: script[replies(c)])
    assert episode.solved and episode.turns == 2
    assert [m.content for m in episode.messages if m.role is Role.TOOL][-1] == "Correct."


def test_other_forms_keep_user_observations_and_get_no_tools():
    episode, policy = play(counter_env(solve_at=2), lambda c: "\\boxed{x}")
    assert episode.solved and episode.tools == ()
    assert [m.role for m in episode.messages[2:]] == [Role.ASSISTANT, Role.USER] * 2
    assert policy.tools == [None, None]


def test_tools_that_are_not_schemas_end_the_episode_as_an_environment_error():
    source = ("class BadEnv:\n    max_turns = 2\n\n    def reset(self, seed=None):\n"
              "        return 'task', {'tools': ['lend']}\n\n    def step(self, action):\n"
              "        return 'ok', 0.0, False, False, {}\n\n    def hint(self):\n        return 'h'\n")
    episode, _ = play(source, lambda c: "[lend()]", form=AgentForm.TOOL)
    assert episode.end is EndReason.ENV_ERROR and episode.messages == ()
    assert episode.error.startswith("reset() info['tools'] holds 'lend'; give a list with each tool as a "
                                    "function schema")


def test_the_scripted_fake_solves_its_stock_world_with_the_hint():
    source = design_stock("harbor", random.Random(3))
    jobs = [PlayJob("stock", source, seed, arm) for seed in range(6) for arm in (Arm.HINT, Arm.NOHINT)]
    episodes = run_plays(ScriptedPolicy(), InProcessSandbox(), jobs, RolloutConfig())
    hinted = [e for e in episodes if e.arm is Arm.HINT]
    unhinted = [e for e in episodes if e.arm is Arm.NOHINT]
    assert all(e.solved and e.turns == 2 and e.error is None for e in hinted)
    assert sum(e.solved for e in unhinted) < len(unhinted)
    assert all(Role.TOOL in {m.role for m in e.messages} and e.tools for e in episodes)


def test_the_metered_wrapper_passes_the_tools_on_and_leaves_them_out_for_other_forms():
    from spadework.metered import MeteredPolicy

    inner = ScriptedFakePolicy(lambda c: [FIND, LEND][replies(c)])
    episode, _ = play(LIBRARY, None, policy=MeteredPolicy(inner))
    assert episode.solved and inner.tools == [[list(episode.tools)]] * 2
    plain, _ = play(counter_env(solve_at=1), None, policy=MeteredPolicy(inner))
    assert plain.solved and inner.tools[-1] is None
