"""Batched design with repair, against a FAKE scripted policy and the in-process FAKE sandbox."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from spadework.corpus import Document
from spadework.designer import (
    Design,
    DesignRequest,
    DesignSettings,
    MemoryDigest,
    NoveltyIndex,
    design_batch,
    render_design,
)
from spadework.designer.design import Retry
from spadework.designer.prompts import DesignForm
from spadework.envs.examples import example_paths
from spadework.errors import PolicyError
from spadework.policy.base import Completion, Role, Sampling
from spadework.sandbox import InProcessSandbox
from spadework.validate import ValidatorConfig

EXAMPLES = {path.stem: path.read_text() for path in example_paths()}
NO_CODE = "I will write a game about ships in the harbour, with cargo to weigh."
BROKEN = "```python\nclass Harbour:\n    pass\n```"


def block(code: str) -> str:
    return f"Here is the environment.\n```python\n{code}```\n"


SCRIPTS = {
    "doc-A": [NO_CODE, block(EXAMPLES["coin_purse"])],
    "doc-B": [block(EXAMPLES["caesar_cipher"])],
    "doc-C": [BROKEN],
}
"""Replies per document, in order; the last one repeats."""
DOCUMENTS = [("A", "doc-A: a ledger of coins", "finance"), ("B", "doc-B: a coded letter", None),
             ("C", "doc-C: a harbour log", "ships")]
IDS = ["it1:d0", "it1:d1", "it1:d2"]
SAMPLING = Sampling(temperature=0.0, max_tokens=900)


class FakeDesignerPolicy:
    """FAKE policy: answers each document's conversations from a script; records every call."""

    name = "fake-designer"

    def __init__(self, scripts: dict[str, list[str]], drop_one: bool = False):
        self.scripts = scripts
        self.calls: list[list[list]] = []
        self.samplings: list[Sampling] = []
        self.replies: dict[str, int] = defaultdict(int)
        self.drop_one = drop_one

    def generate(self, conversations, sampling, tools=None):
        self.calls.append([list(c) for c in conversations])
        self.samplings.append(sampling)
        out = [Completion(self.reply(list(c)), prompt_tokens=10, completion_tokens=7) for c in conversations]
        return out[:-1] if self.drop_one else out

    def reply(self, conversation) -> str:
        if "Write the hint" in conversation[-1].content:
            return "Add up a few coins before you pay. Small ones first. Then check. Then pay."
        key = next(k for k in self.scripts if k in conversation[3].content)  # the design request
        script = self.scripts[key]
        self.replies[key] += 1
        return script[min(self.replies[key], len(script)) - 1]

    def close(self) -> None:
        pass


def requests(documents=DOCUMENTS, ids=IDS, form=DesignForm.ANSWER, forms=None) -> list[DesignRequest]:
    asked = forms if forms is not None else [form] * len(documents)
    return [DesignRequest(design_id, Document(doc_id, text, domain, "test"), f)
            for design_id, (doc_id, text, domain), f in zip(ids, documents, asked, strict=True)]


def run(policy, documents=DOCUMENTS, ids=IDS, form=DesignForm.ANSWER, forms=None, **options) -> list[Design]:
    return design_batch(policy, InProcessSandbox(), requests(documents, ids, form, forms), MemoryDigest(),
                        DesignSettings(sampling=SAMPLING, **options))


def test_each_round_is_one_generate_call_for_the_failing_designs():
    policy = FakeDesignerPolicy(SCRIPTS)
    run(policy)
    assert [len(call) for call in policy.calls] == [3, 2, 1]
    second = [call[3].content for call in policy.calls[1]]
    assert "doc-A" in second[0] and "doc-C" in second[1]
    assert policy.samplings == [SAMPLING] * 3


def test_each_repair_round_samples_hotter_when_asked():
    policy = FakeDesignerPolicy(SCRIPTS)
    run(policy, temperature_step=0.2)
    assert [round(s.temperature, 6) for s in policy.samplings] == [0.0, 0.2, 0.4]


def test_designs_keep_every_attempt():
    a, b, c = run(FakeDesignerPolicy(SCRIPTS))
    assert (a.design_id, a.document_id, a.domain) == ("it1:d0", "A", "finance")
    assert [t.attempt for t in a.attempts] == [1, 2]
    assert a.attempts[0].reply == NO_CODE and a.attempts[0].code is None
    assert a.attempts[0].verdict.failure.name == "parse"
    assert a.final.code == EXAMPLES["coin_purse"]
    assert a.valid and a.repaired and a.final.verdict.class_name == "CoinPurseEnv"
    assert b.valid and not b.repaired and len(b.attempts) == 1
    assert not c.valid and not c.repaired and len(c.attempts) == 3
    assert {t.verdict.failure.name for t in c.attempts} == {"static"}
    assert c.final.code == "class Harbour:\n    pass\n"
    assert a.completion_tokens == 14 and a.attempts[1].completion_tokens == 7


def test_attempts_record_their_prompts():
    a, b, _ = run(FakeDesignerPolicy(SCRIPTS), retry=Retry.REPAIR)
    first = tuple(render_design(DOCUMENTS[0][1], MemoryDigest()))
    assert a.attempts[0].conversation == first
    assert "environment designer" in first[0].content
    repair = a.attempts[1].conversation
    assert repair[:4] == first
    assert [m.role for m in repair[4:]] == [Role.ASSISTANT, Role.USER]
    assert repair[4].content == NO_CODE
    assert a.attempts[0].verdict.failure.message in repair[5].content
    assert 'failed the check "parse"' in repair[5].content
    assert b.attempts[0].conversation == tuple(render_design(DOCUMENTS[1][1], MemoryDigest()))


def test_repairs_show_only_the_latest_reply():
    *_, c = run(FakeDesignerPolicy(SCRIPTS), retry=Retry.REPAIR)
    third = c.attempts[2].conversation
    assert len(third) == 6  # the first prompt (4 messages), the latest reply, the repair request
    assert 'failed the check "static"' in third[5].content


def test_max_attempts_one_means_no_repair():
    policy = FakeDesignerPolicy(SCRIPTS)
    designs = run(policy, max_attempts=1)
    assert [len(call) for call in policy.calls] == [3]
    assert [d.valid for d in designs] == [False, True, False]
    with pytest.raises(ValueError, match="max_attempts"):
        run(policy, max_attempts=0)


def test_hint_writer_is_off_by_default_and_one_call_when_on():
    policy = FakeDesignerPolicy(SCRIPTS)
    assert all(d.written_hint is None for d in run(policy))
    assert len(policy.calls) == 3
    policy = FakeDesignerPolicy(SCRIPTS)
    a, b, c = run(policy, hint_call=True)
    assert [len(call) for call in policy.calls] == [3, 2, 1, 2]
    assert EXAMPLES["coin_purse"].strip() in policy.calls[-1][0][1].content
    assert policy.samplings[-1].max_tokens == 160
    assert a.written_hint == "Add up a few coins before you pay. Small ones first. Then check."
    assert b.written_hint is not None and c.written_hint is None


def test_novelty_checks_reject_a_copy_of_an_archived_environment():
    index = NoveltyIndex()
    index.add(5, EXAMPLES["caesar_cipher"], "CaesarCipherEnv")
    policy = FakeDesignerPolicy(SCRIPTS)
    _, b, _ = run(policy, novelty=index, max_attempts=2, retry=Retry.REPAIR)
    assert not b.valid and len(b.attempts) == 2
    assert b.final.verdict.failure.name == "novel"
    assert "#5" in b.final.verdict.failure.message
    assert "#5" in b.attempts[1].conversation[-1].content


def test_each_reply_is_extracted_once_per_attempt(monkeypatch):
    from spadework.validate import parse

    extracted: list[str] = []
    real = parse.extract_code

    def counting(reply: str) -> str:
        extracted.append(reply)
        return real(reply)

    monkeypatch.setattr(parse, "extract_code", counting)
    designs = run(FakeDesignerPolicy(SCRIPTS), novelty=NoveltyIndex())
    replies = [t.reply for d in designs for t in d.attempts]
    assert sorted(extracted) == sorted(replies) and len(replies) == 6
    assert designs[0].final.code == EXAMPLES["coin_purse"] and designs[0].attempts[0].code is None


def test_design_round_trips_through_json():
    designs = run(FakeDesignerPolicy(SCRIPTS), hint_call=True)
    for design in designs:
        data = json.loads(json.dumps(design.to_json()))
        assert data["valid"] == design.valid
        back = Design.from_json(data)
        assert back.to_json() == data
        assert (back.attempts[-1].conversation, back.written_hint) == (design.final.conversation,
                                                                      design.written_hint)


def test_wrong_counts_are_refused():
    with pytest.raises(PolicyError, match="returned 2 completions for 3 conversations"):
        run(FakeDesignerPolicy(SCRIPTS, drop_one=True))


def test_no_documents_means_no_call():
    policy = FakeDesignerPolicy(SCRIPTS)
    assert run(policy, documents=[], ids=[]) == []
    assert policy.calls == []


def test_threaded_validation_gives_the_same_designs():
    one = run(FakeDesignerPolicy(SCRIPTS))
    many = run(FakeDesignerPolicy(SCRIPTS), workers=3)
    assert [(d.valid, len(d.attempts)) for d in many] == [(d.valid, len(d.attempts)) for d in one]


def test_real_sandbox_validates_replies_concurrently(sandbox):
    policy = FakeDesignerPolicy(SCRIPTS)
    a, b = design_batch(policy, sandbox, requests(DOCUMENTS[:2], IDS[:2]), MemoryDigest(),
                        DesignSettings(sampling=SAMPLING, workers=2))
    assert a.valid and a.repaired and b.valid
    assert b.final.verdict.isolation == sandbox.isolation.value != "none"


def test_the_design_form_picks_the_request_and_example_shown():
    answer, game = FakeDesignerPolicy(SCRIPTS), FakeDesignerPolicy(SCRIPTS)
    run(answer, max_attempts=1)
    run(game, max_attempts=1, form=DesignForm.GAME)
    assert all("import AnswerEnv" in c[1].content and "TextEnv" not in c[1].content for c in answer.calls[0])
    assert all("class DoughRatioEnv(AnswerEnv)" in c[2].content for c in answer.calls[0])
    assert all("import TextEnv" in c[1].content for c in game.calls[0])
    assert all("class CodeLockEnv(TextEnv)" in c[2].content for c in game.calls[0])


def test_with_the_second_solver_the_answer_request_and_example_carry_solve():
    asked = FakeDesignerPolicy(SCRIPTS)
    run(asked, max_attempts=1, validator=ValidatorConfig(second_solver=True))
    assert all("Also write `solve(observation)`" in c[1].content and "def solve(observation):" in c[2].content
               for c in asked.calls[0])


def test_fresh_retries_ask_the_first_request_again():
    policy = FakeDesignerPolicy(SCRIPTS)
    a, _, c = run(policy, temperature_step=0.1)  # fresh retries are the default
    assert [len(call) for call in policy.calls] == [3, 2, 1]
    assert policy.calls[1] == [policy.calls[0][0], policy.calls[0][2]]  # the same requests, no repair
    assert policy.calls[2] == [policy.calls[0][2]]
    assert [round(s.temperature, 6) for s in policy.samplings] == [0.0, 0.1, 0.2]
    assert a.valid and a.repaired and [t.attempt for t in a.attempts] == [1, 2]
    assert all(t.conversation == c.attempts[0].conversation for t in c.attempts)


def test_mixed_forms_send_each_design_the_request_and_example_of_its_form():
    policy = FakeDesignerPolicy(SCRIPTS)
    forms = [DesignForm.TOOL, DesignForm.ANSWER, DesignForm.GAME]
    designs = run(policy, max_attempts=1, forms=forms)
    tool, answer, game = policy.calls[0]
    assert "subclasses `ToolWorld`" in tool[1].content
    assert "class ClinicBookingEnv(ToolWorld)" in tool[2].content
    assert "import AnswerEnv" in answer[1].content
    assert "class DoughRatioEnv(AnswerEnv)" in answer[2].content
    assert "import TextEnv" in game[1].content and "class CodeLockEnv(TextEnv)" in game[2].content
    assert all(doc[1] in c[3].content for c, doc in zip(policy.calls[0], DOCUMENTS, strict=True))
    assert [d.form for d in designs] == forms


def test_retries_ask_again_in_the_designs_own_form():
    policy = FakeDesignerPolicy(SCRIPTS)
    a, _, c = run(policy, forms=[DesignForm.TOOL, DesignForm.ANSWER, DesignForm.TOOL], retry=Retry.REPAIR)
    assert all("subclasses `ToolWorld`" in t.conversation[1].content for t in (*a.attempts, *c.attempts))
    assert len(c.attempts) == 3 and c.form is DesignForm.TOOL


def test_each_request_keeps_its_form():
    """A design's id, document and form travel together in its request, so they cannot disagree."""
    assert [d.form for d in run(FakeDesignerPolicy(SCRIPTS), max_attempts=1)] == [DesignForm.ANSWER] * 3
    game = run(FakeDesignerPolicy(SCRIPTS), max_attempts=1, form=DesignForm.GAME)
    assert {d.form for d in game} == {DesignForm.GAME}


def test_the_form_round_trips_and_old_designs_have_none():
    design, *_ = run(FakeDesignerPolicy(SCRIPTS), max_attempts=1, forms=[DesignForm.TOOL] * 3)
    data = json.loads(json.dumps(design.to_json()))
    back = Design.from_json(data)
    assert data["form"] == "tool" and back.form is DesignForm.TOOL and back.to_json() == data
    del data["form"]  # written before designs kept their form
    assert Design.from_json(data).form is None
