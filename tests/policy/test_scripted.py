"""The scripted FAKE policy: repeatable, valid designs from documents, hints that help its agent."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from spadework.envs.contract import episode_score
from spadework.policy import Message, Role, Sampling
from spadework.policy.scripted import (
    DESIGNER_MARKER,
    HELP_REPLY,
    ScriptedPolicy,
    agent_reply,
    topic_word,
)
from spadework.policy.scripted_families import FAMILIES
from spadework.sandbox import InProcessSandbox
from spadework.validate import validate
from spadework.validate.parse import extract_code

SUBJECTS = ("glacier", "violin", "harvest", "satellite", "copper", "ballot", "bakery", "lighthouse",
            "tortoise", "orchard", "telescope", "compass", "cathedral", "monsoon", "algebra", "ferry")
BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
SAMPLING = Sampling(temperature=0.0, max_tokens=64)


def document(index: int) -> str:
    """A small made-up document whose most frequent word is one of ``SUBJECTS``."""
    rng = random.Random(index)
    subject = SUBJECTS[index % len(SUBJECTS)]
    filler = ["the", "town", "keeps", "old", "records", "people", "visit", "every", "season", "near",
              "river", "market", "while", "children", "learn", "songs", "about", "winter"]
    words = rng.sample(filler, 14) + [subject] * 3
    rng.shuffle(words)
    return f"Document {index}: " + " ".join(words) + "."


def design_conversation(doc: str) -> list[Message]:
    return [Message(Role.SYSTEM, f"You are an {DESIGNER_MARKER}. Write one Python environment."),
            Message(Role.USER, f"Ground the environment in this text:\n{doc}")]


def design(policy: ScriptedPolicy, doc: str) -> str:
    """A designer reply with code: the first reply, or the repair reply after one without code."""
    conversation = design_conversation(doc)
    text = policy.reply(conversation)
    if "```python" not in text:
        conversation += [Message(Role.ASSISTANT, text),
                         Message(Role.USER, "Your reply has no code block; write the environment.")]
        text = policy.reply(conversation)
    return text


@pytest.fixture(scope="module")
def replies() -> dict[int, str]:
    policy = ScriptedPolicy()
    return {i: design(policy, document(i)) for i in range(48)}


def test_replies_repeat_exactly_and_depend_on_the_seed():
    conversation = design_conversation(document(3))
    first = ScriptedPolicy(seed=0).generate([conversation] * 2, SAMPLING)
    again = ScriptedPolicy(seed=0).generate([conversation], SAMPLING)
    assert first[0] == first[1] == again[0]
    others = {ScriptedPolicy(seed=s).reply(conversation) for s in range(1, 6)}
    assert len(others) >= 3


def test_generate_keeps_order_and_counts_tokens():
    convs = [[Message(Role.USER, f"Add up these numbers: {n}, 2, 3.\nHint: add")] for n in (4, 5, 6)]
    completions = ScriptedPolicy().generate(convs, SAMPLING)
    assert [BOXED.search(c.text).group(1) for c in completions] == ["9", "10", "11"]
    assert all(c.prompt_tokens == 9 and c.completion_tokens > 0 for c in completions)


def test_every_design_passes_the_validator(replies):
    sandbox = InProcessSandbox()
    for index, reply in replies.items():
        verdict = validate(reply, sandbox, is_reply=True)
        problems = [(c.name, c.message) for c in verdict.checks if not c.passed]
        assert verdict.valid, f"document {index}: {problems}"


def test_designs_cover_every_family_and_name_the_topic(replies):
    families = Counter(reply.split()[3] for reply in replies.values())
    assert set(families) == {f.name for f in FAMILIES}
    sandbox = InProcessSandbox()
    for index, reply in replies.items():
        subject = SUBJECTS[index % len(SUBJECTS)]
        env = sandbox.open(extract_code(reply))
        observation, _ = env.reset(seed=0)
        assert subject in observation, (index, observation)


def test_a_tool_world_request_gets_valid_tool_worlds_about_the_topic():
    from spadework.envs.contract import is_tool_world

    policy, sandbox = ScriptedPolicy(), InProcessSandbox()
    for index in range(4):
        conversation = design_conversation(document(index))
        conversation[1] = Message(Role.USER, conversation[1].content + "\nSubclass `ToolWorld`.")
        reply = policy.reply(conversation)
        if "```python" not in reply:
            reply = policy.reply([*conversation, Message(Role.ASSISTANT, reply), Message(Role.USER, "Code?")])
        assert reply.split()[3] == "stock" and is_tool_world(extract_code(reply))
        verdict = validate(reply, sandbox, is_reply=True)
        assert verdict.valid, [(c.name, c.message) for c in verdict.checks if not c.passed]
        observation, info = sandbox.open(extract_code(reply)).reset(seed=0)
        assert SUBJECTS[index] in observation and info["tools"]


def test_given_tools_the_agent_calls_one_and_reads_the_results():
    tool = {"type": "function", "function": {"name": "look", "parameters": {
        "type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]}}}
    [completion] = ScriptedPolicy().generate([[Message(Role.USER, "Search the 'attic'.")]], SAMPLING,
                                             tools=[[tool]])
    call = '<tool_call>\n{"name": "look", "arguments": {"room": "attic"}}\n</tool_call>'
    assert completion.text.endswith(call)


def test_different_documents_give_different_environments(replies):
    codes = {extract_code(reply) for reply in replies.values()}
    assert len(codes) == len(replies)


def test_one_in_four_first_requests_has_no_code_but_repairs_always_do():
    policy = ScriptedPolicy()
    first = [policy.reply(design_conversation(document(i))) for i in range(200)]
    without = [i for i, text in enumerate(first) if "```" not in text]
    assert 30 <= len(without) <= 70
    for i in without[:10]:
        repair = design_conversation(document(i)) + [
            Message(Role.ASSISTANT, first[i]), Message(Role.USER, "Write the code this time.")]
        assert validate(policy.reply(repair), InProcessSandbox(), is_reply=True).valid


def test_a_request_asked_again_with_another_sampling_seed_may_get_code():
    policy = ScriptedPolicy()
    asked = [design_conversation(document(i)) for i in range(40)]
    first = [policy.reply(c, sample=7) for c in asked]
    again = [policy.reply(c, sample=7 + 7919) for c in asked]
    assert first == [policy.reply(c, sample=7) for c in asked]  # the same seed: the same reply
    refused = [i for i, text in enumerate(first) if "```" not in text]
    assert refused and any("```python" in again[i] for i in refused)
    assert all(again[i] == first[i] for i in range(40) if "```" in first[i] and "```" in again[i])


def test_system_marker_decides_the_role():
    doc = document(1)
    agent = ScriptedPolicy().reply([Message(Role.SYSTEM, "You play games."), Message(Role.USER, doc)])
    assert agent == HELP_REPLY


def play(source: str, seed: int, hinted: bool, policy: ScriptedPolicy) -> float:
    """Play one episode of ``source`` with the scripted agent; return its score."""
    env = InProcessSandbox().open(source)
    observation, _ = env.reset(seed=seed)
    first = f"{observation}\nHint: {env.hint()}" if hinted else observation
    conversation = [Message(Role.SYSTEM, "You play text games."), Message(Role.USER, first)]
    rewards = []
    for _ in range(env.max_turns):
        reply = policy.generate([conversation], SAMPLING)[0].text
        observation, reward, terminated, truncated, _ = env.step(BOXED.findall(reply)[-1])
        rewards.append(reward)
        conversation += [Message(Role.ASSISTANT, reply), Message(Role.USER, observation)]
        if terminated or truncated:
            break
    return episode_score(rewards)


def test_hinted_play_beats_unhinted_play_in_every_family(replies):
    policy = ScriptedPolicy()
    scores: dict[str, list[tuple[float, float]]] = {}
    for reply in replies.values():
        source = extract_code(reply)
        pairs = [(play(source, s, True, policy), play(source, s, False, policy)) for s in range(4)]
        scores.setdefault(reply.split()[3], []).extend(pairs)
    for family, pairs in scores.items():
        hinted = sum(h for h, _ in pairs) / len(pairs)
        unhinted = sum(u for _, u in pairs) / len(pairs)
        assert hinted == 1.0, family
        assert unhinted <= 0.3, family


def test_the_agent_plays_the_bundled_examples_with_their_hints():
    from spadework.envs.examples import example_paths

    policy = ScriptedPolicy()
    sources = {p.stem: p.read_text() for p in example_paths()}
    for name in ("number_guess", "caesar_cipher"):
        assert all(play(sources[name], s, True, policy) == 1.0 for s in range(5)), name


@pytest.mark.parametrize("observation", [
    "", "Hint: nothing", "Add up these numbers: , , .", "a whole number from 5 to " + "9" * 5000,
    "the word 'abc' was coded by moving every letter", "Reverse the letters of the word ''",
])
def test_the_agent_never_crashes_on_strange_observations(observation):
    reply = agent_reply([Message(Role.USER, observation), Message(Role.USER, "higher than x")])
    assert len(BOXED.findall(reply)) == 1


def test_topic_word_prefers_frequent_content_words():
    text = "The environment designer reads: the tide, the tide again, and the harbour."
    assert topic_word(text, random.Random(0)) == "tide"
