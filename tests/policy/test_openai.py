"""OpenAIPolicy against a FAKE server (httpx.MockTransport), and once against a real llama.cpp server."""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from spadework.errors import ContextOverflow, PolicyError
from spadework.policy import Message, Role, Sampling
from spadework.policy.base import CONTEXT_OVERFLOW
from spadework.policy.llama_server import LlamaServer
from spadework.policy.models import PRESETS, part_files, resolve_model
from spadework.policy.openai import OpenAIPolicy, request_body

URL = "http://fake.test/v1"
SAMPLING = Sampling(temperature=0.0, max_tokens=16)
HI = [Message(Role.USER, "hi")]


def chat_answer(text: str, prompt_tokens: int = 3) -> dict:
    return {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split())}}


class FakeServer:
    """FAKE OpenAI-compatible server: lists ``models``; chat answers come from ``script`` (a list
    of responses or exceptions, used in turn, the last one repeating) or echo the last message."""

    def __init__(self, models=("m",), script=(), delay_s: float = 0.0):
        self.models = None if models is None else list(models)
        self.script = list(script)
        self.delay_s = delay_s
        self.requests: list[httpx.Request] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/v1/models":
            if self.models is None:
                return httpx.Response(404, json={"detail": "Not Found"})
            return httpx.Response(200, json={"data": [{"id": m} for m in self.models]})
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.delay_s:
                time.sleep(self.delay_s)
            return self.answer(request)
        finally:
            with self.lock:
                self.in_flight -= 1

    def answer(self, request: httpx.Request) -> httpx.Response:
        if self.script:
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
            if isinstance(step, Exception):
                raise step
            return step
        body = json.loads(request.content)
        return httpx.Response(200, json=chat_answer(body["messages"][-1]["content"]))

    @property
    def chats(self) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path.endswith("/chat/completions")]


def policy_for(server: FakeServer, **kwargs) -> OpenAIPolicy:
    options = {"backoff_s": 0.001, "max_retries": 3} | kwargs
    return OpenAIPolicy(URL, "m", transport=httpx.MockTransport(server), **options)


def test_request_carries_the_sampling_and_the_key(monkeypatch):
    monkeypatch.setenv("FAKE_KEY_VAR", "sk-secret-123")
    server = FakeServer()
    policy = policy_for(server, api_key_env="FAKE_KEY_VAR")
    sampling = Sampling(temperature=0.5, top_p=0.9, max_tokens=7, seed=3, stop=("\n\n",))
    completion = policy.generate([HI], sampling)[0]
    assert completion.text == "hi" and completion.prompt_tokens == 3 and completion.completion_tokens == 1
    request = server.chats[0]
    assert request.url == "http://fake.test/v1/chat/completions"
    assert json.loads(request.content) == {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                                           "temperature": 0.5, "top_p": 0.9, "max_tokens": 7,
                                           "seed": 3, "stop": ["\n\n"]}
    assert request.headers["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in repr(policy)


def test_server_errors_are_retried_until_an_answer():
    server = FakeServer(script=[httpx.Response(500, text="busy"), httpx.Response(429),
                                httpx.Response(200, json=chat_answer("done"))])
    assert policy_for(server).generate([HI], SAMPLING)[0].text == "done"
    assert len(server.chats) == 3


def test_retries_back_off_exponentially(monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr("spadework.policy.openai.time.sleep", sleeps.append)
    server = FakeServer(script=[httpx.Response(503, json={"error": {"message": "overloaded"}})])
    with pytest.raises(PolicyError, match=r"answered /chat/completions with HTTP 503 \(overloaded\); "
                                          r"check the server's log \(gave up after 4 tries\)"):
        policy_for(server, backoff_s=0.5).generate([HI], SAMPLING)
    assert len(server.chats) == 4
    assert sleeps == [0.5, 1.0, 2.0]


def test_client_errors_are_not_retried():
    server = FakeServer(script=[httpx.Response(400, json={"error": {"message": "top_p must be <= 1"}})])
    with pytest.raises(PolicyError, match=r"rejected the request \(HTTP 400\): top_p must be <= 1$"):
        policy_for(server).generate([HI], SAMPLING)
    assert len(server.chats) == 1


def test_a_404_points_at_the_base_url():
    server = FakeServer(models=None, script=[httpx.Response(404, json={"detail": "Not Found"})])
    with pytest.raises(PolicyError) as caught:
        policy_for(server).generate([HI], SAMPLING)
    assert str(caught.value) == ("the server at http://fake.test/v1 has no /chat/completions (check the "
                                 "base URL, it usually ends in /v1)")


def test_a_model_the_server_does_not_list_is_named_with_the_offer():
    server = FakeServer(models=["qwen-a", "qwen-b"])
    with pytest.raises(PolicyError) as caught:
        policy_for(server).generate([HI], SAMPLING)
    assert str(caught.value) == ("the server at http://fake.test/v1 does not serve model 'm'; it offers "
                                 "'qwen-a', 'qwen-b'; set the policy's model to one of them")
    assert server.chats == []


def test_a_model_the_server_refuses_is_named():
    refusal = httpx.Response(404, json={"error": {"message": "The model `m` does not exist."}})
    server = FakeServer(models=None, script=[refusal])
    with pytest.raises(PolicyError, match="does not serve model 'm'; it offers nothing it would list"):
        policy_for(server).generate([HI], SAMPLING)


def test_an_answer_that_is_not_a_completion_is_reported():
    for answer in (httpx.Response(200, text="<html>hello</html>"), httpx.Response(200, json={"x": 1})):
        with pytest.raises(PolicyError, match="with something that is not a chat completion"):
            policy_for(FakeServer(script=[answer])).generate([HI], SAMPLING)


def test_a_context_overflow_has_its_own_error_and_fails_only_its_own_item():
    answer = httpx.Response(400, json={"error": {"message": "This model's maximum context length is 2048"}})
    with pytest.raises(ContextOverflow, match="maximum context length is 2048; shorten it"):
        policy_for(FakeServer(script=[answer])).generate_one(HI, SAMPLING)
    [overflow] = policy_for(FakeServer(script=[answer])).generate([HI], SAMPLING)
    assert (overflow.text, overflow.finish_reason) == ("", CONTEXT_OVERFLOW)


def test_a_refused_key_names_the_variable_and_never_the_key():
    server = FakeServer(script=[httpx.Response(401, json={"error": {"message": "bad key"}})])
    policy = policy_for(server, api_key="sk-hidden-999", api_key_env="MY_KEY")
    with pytest.raises(PolicyError, match="environment variable MY_KEY") as caught:
        policy.generate([HI], SAMPLING)
    assert "sk-hidden" not in str(caught.value)


def test_timeouts_are_retried_then_explained():
    server = FakeServer(script=[httpx.ReadTimeout("slow")])
    with pytest.raises(PolicyError, match=r"did not answer /chat/completions within 2 s; raise timeout_s"):
        policy_for(server, timeout_s=2.0, max_retries=2).generate([HI], SAMPLING)
    assert len(server.chats) == 3


def test_requests_overlap_up_to_the_concurrency_and_stay_in_order():
    server = FakeServer(delay_s=0.05)
    conversations = [[Message(Role.USER, f"n{i}")] for i in range(12)]
    with policy_for(server, concurrency=4) as policy:
        start = time.perf_counter()
        completions = policy.generate(conversations, SAMPLING)
        elapsed = time.perf_counter() - start
    assert [c.text for c in completions] == [f"n{i}" for i in range(12)]
    assert server.most_in_flight == 4
    assert elapsed < 12 * 0.05


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_server_that_is_down_is_explained():
    url = f"http://127.0.0.1:{free_port()}/v1"
    with OpenAIPolicy(url, "m", max_retries=1, backoff_s=0.01) as policy, \
            pytest.raises(PolicyError, match=rf"cannot reach the server at {url}: .*; is it running\? "
                                             r"\(gave up after 2 tries\)"):
        policy.generate([HI], SAMPLING)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """A real llama.cpp OpenAI-compatible server on loopback, serving the 0.5B model as 'tiny'."""
    pytest.importorskip("llama_cpp.server.app")
    try:
        part_files(PRESETS["qwen2.5-coder-0.5b"])
    except PolicyError as exc:
        pytest.skip(str(exc))
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    server = LlamaServer(resolve_model("qwen2.5-coder-0.5b"), free_port(), "tiny", n_ctx=2048, log=log,
                         start_timeout_s=60.0)
    try:
        server.start()
    except PolicyError as exc:
        server.close()
        pytest.fail(f"{exc}: {log.read_text(errors='replace')[-2000:]}")
    try:
        yield server.url
    finally:
        server.close()


def test_a_real_server_answers_concurrent_requests(llama_server):
    conversations = [[Message(Role.USER, "Name a colour.")], [Message(Role.USER, "Name an animal.")]]
    with OpenAIPolicy(llama_server, "tiny", concurrency=2, timeout_s=60.0) as policy:
        completions = policy.generate(conversations, Sampling(temperature=0.0, max_tokens=16))
    assert len(completions) == 2
    for completion in completions:
        assert completion.text.strip()
        assert completion.prompt_tokens > 0 and 0 < completion.completion_tokens <= 16


TOOLS = [{"type": "function", "function": {"name": "find", "description": "Find records.", "parameters": {
    "type": "object", "properties": {"collection": {"type": "string", "description": "where."}},
    "required": ["collection"]}}}]
NATIVE = {"id": "call_9", "type": "function",
          "function": {"name": "find", "arguments": '{"collection": "books"}'}}
FIND_TEXT = '<tool_call>\n{"name": "find", "arguments": {"collection": "books"}}\n</tool_call>'


def tool_calls_answer(content, *calls) -> httpx.Response:
    message = {"role": "assistant", "content": content, "tool_calls": list(calls)}
    return httpx.Response(200, json={"choices": [{"message": message, "finish_reason": "tool_calls"}],
                                     "usage": {"prompt_tokens": 9, "completion_tokens": 4}})


def test_tools_are_sent_and_native_tool_calls_come_back_as_tool_call_text():
    server = FakeServer(script=[tool_calls_answer("Looking.", NATIVE), tool_calls_answer(None, NATIVE)])
    with policy_for(server) as policy:
        first, second = policy.generate([HI, HI], SAMPLING, tools=[TOOLS, None])
    assert first.text == f"Looking.\n{FIND_TEXT}" and second.text == FIND_TEXT
    assert first.finish_reason == "tool_calls"
    bodies = [json.loads(r.content) for r in server.chats]
    assert bodies[0]["tools"] == TOOLS and "tools" not in bodies[1]


def test_a_native_call_goes_back_with_its_id_and_its_results_as_tool_messages():
    server = FakeServer(script=[tool_calls_answer("", NATIVE, NATIVE | {"id": "call_10"}),
                                httpx.Response(200, json=chat_answer("done"))])
    with policy_for(server) as policy:
        [reply] = policy.generate([HI], SAMPLING, tools=[TOOLS])
        results = "find(collection='books') -> []\nfind(collection='books') -> []"
        policy.generate([[*HI, Message(Role.ASSISTANT, reply.text), Message(Role.TOOL, results)]], SAMPLING,
                        tools=[TOOLS])
    sent = json.loads(server.chats[1].content)["messages"]
    calls = [NATIVE, NATIVE | {"id": "call_10"}]
    assert sent[1] == {"role": "assistant", "content": "", "tool_calls": calls}
    line = "find(collection='books') -> []"
    assert sent[2:] == [{"role": "tool", "tool_call_id": "call_9", "content": line},
                        {"role": "tool", "tool_call_id": "call_10", "content": line}]


def test_results_of_calls_written_as_text_go_back_as_a_user_message():
    server = FakeServer()
    conversation = [*HI, Message(Role.ASSISTANT, FIND_TEXT), Message(Role.TOOL, "find(...) -> []")]
    with policy_for(server) as policy:
        policy.generate([conversation], SAMPLING, tools=[TOOLS])
    sent = json.loads(server.chats[0].content)["messages"]
    assert sent[1:] == [{"role": "assistant", "content": FIND_TEXT},
                        {"role": "user", "content": "find(...) -> []"}]


def test_a_real_server_takes_tools_and_a_native_call_sent_back_with_its_results(llama_server):
    conversation = [*HI, Message(Role.ASSISTANT, FIND_TEXT),
                    Message(Role.TOOL, "find(collection='books') -> []")]
    body = request_body("tiny", conversation, Sampling(temperature=0.0, max_tokens=4), TOOLS,
                        {FIND_TEXT: ("", [NATIVE])})
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    response = httpx.post(f"{llama_server}/chat/completions", json=body, timeout=60.0)
    assert response.status_code == 200, response.text[:500]
