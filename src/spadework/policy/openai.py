"""OpenAIPolicy: any OpenAI-compatible chat server (vLLM, SGLang, llama.cpp server) over HTTP.

Requests go out concurrently from a thread pool (at most ``concurrency`` in flight) over
one synchronous ``httpx.Client``; completions come back in the order of the conversations.
Connection errors, timeouts, 429 and 5xx answers are retried with exponential backoff;
other 4xx answers are not, and become a ``PolicyError`` saying what to fix.

Tools go in the request's ``tools`` field. A reply's native ``tool_calls`` are appended to its
text as ``<tool_call>`` lines (what a tool world parses), and the policy remembers them: when
that reply comes back in a later request, it is sent with its ``tool_calls`` again, and the
tool results after it as ``tool`` messages answering those calls' ids. Tool results after any
other reply (calls the model wrote as text) are sent as user messages, which every server takes.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx

from spadework.errors import ContextOverflow, PolicyError
from spadework.policy.base import (
    CONTEXT_OVERFLOW,
    Completion,
    Conversation,
    Sampling,
    Tools,
    ToolsPerConversation,
    tools_per_conversation,
)
from spadework.policy.toolcalls import (
    NativeCalls,
    chat_messages,
    native_call_texts,
    native_calls,
    with_native_calls,
)

CHAT_PATH = "/chat/completions"
MODELS_PATH = "/models"
MAX_RETRY_AFTER_S = 60.0
UNKNOWN_MODEL = re.compile(r"\bmodel\b[^\n]{0,120}?(does not exist|not found|unknown|no such|"
                           r"not available|not served)|(unknown|invalid|no such) model", re.IGNORECASE)
OVERFLOW_MESSAGE = re.compile(r"context (length|window)|maximum context|too many tokens|"
                              r"exceed.*context", re.IGNORECASE | re.DOTALL)
NATIVE_MEMORY = 4096
"""Most replies with native tool calls remembered (the oldest are forgotten first)."""
def request_body(model: str, conversation: Conversation, sampling: Sampling, tools: Tools | None = None,
                 native: NativeCalls | None = None) -> dict[str, Any]:
    """The JSON body of one chat completion request (``chat_messages`` says how ``native`` is used).

    >>> from spadework.policy.base import Message, Role
    >>> request_body("m", [Message(Role.USER, "hi")], Sampling(temperature=0.0, max_tokens=8, seed=1))
    {'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}], 'temperature': 0.0, \
'top_p': 0.95, 'max_tokens': 8, 'seed': 1}
    >>> request_body("m", [], Sampling(), [{"type": "function", "function": {"name": "f"}}])["tools"]
    [{'type': 'function', 'function': {'name': 'f'}}]
    """
    body: dict[str, Any] = {
        "model": model,
        "messages": chat_messages(conversation, native),
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "max_tokens": sampling.max_tokens,
    }
    if sampling.seed is not None:
        body["seed"] = sampling.seed
    if sampling.stop:
        body["stop"] = list(sampling.stop)
    if tools:
        body["tools"] = list(tools)
    return body


def error_detail(response: httpx.Response, limit: int = 300) -> str:
    """The server's own explanation in an error answer, shortened.

    >>> error_detail(httpx.Response(400, json={"error": {"message": "bad seed"}}))
    'bad seed'
    >>> error_detail(httpx.Response(500, text="boom"))
    'boom'
    """
    text = response.text
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        found = error.get("message") if isinstance(error, dict) else error
        found = found or data.get("detail") or data.get("message")
        if found:
            text = found if isinstance(found, str) else json.dumps(found)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def parse_completion(data: Any, seconds: float) -> Completion:
    """A ``Completion`` from a chat completion answer; native tool calls are appended to the text
    as ``<tool_call>`` lines.

    Raises:
        KeyError, IndexError, TypeError, ValueError: the answer is not a chat completion.

    >>> parse_completion({"choices": [{"message": {"content": "hi"}, "finish_reason": "length"}],
    ...                   "usage": {"prompt_tokens": 5, "completion_tokens": 1,
    ...                             "prompt_tokens_details": {"cached_tokens": 4}}}, 0.5)
    Completion(text='hi', prompt_tokens=5, completion_tokens=1, seconds=0.5, finish_reason='length', \
cached_tokens=4)
    """
    choice = data["choices"][0]
    text = choice["message"].get("content") or ""
    if not isinstance(text, str):
        raise TypeError(f"content is a {type(text).__name__}")
    text = with_native_calls(text, choice["message"].get("tool_calls"))
    usage = data.get("usage") or {}
    return Completion(text=text, prompt_tokens=int(usage.get("prompt_tokens") or 0),
                      completion_tokens=int(usage.get("completion_tokens") or 0), seconds=seconds,
                      finish_reason=str(choice.get("finish_reason") or "stop"),
                      cached_tokens=int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0))


def model_ids(data: Any) -> list[str]:
    """The model names in a ``GET /models`` answer (``{"data": [{"id": ...}, ...]}``).

    >>> model_ids({"data": [{"id": "a"}, {"id": "b"}]}), model_ids({"oops": 1})
    (['a', 'b'], [])
    """
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    return [str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e]


class OpenAIPolicy:
    """A policy served by an OpenAI-compatible server.

    Args:
        base_url: the server's API root, usually ending in ``/v1``.
        model: the served model's name, as the server's ``/models`` lists it.
        api_key: the key; default read from the environment variable ``api_key_env``.
            It is sent as a bearer token and never logged or shown.
        api_key_env: where to read the key when ``api_key`` is None.
        timeout_s: per request.
        max_retries: retries after connection errors, timeouts, 429 and 5xx.
        backoff_s: first wait before a retry; it doubles with each retry.
        concurrency: most requests in flight at once.
        transport: an ``httpx`` transport (``httpx.MockTransport`` in tests).
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", timeout_s: float = 300.0, max_retries: int = 3,
                 backoff_s: float = 0.5, concurrency: int = 8,
                 transport: httpx.BaseTransport | None = None):
        if concurrency < 1:
            raise PolicyError(f"concurrency is {concurrency}; use 1 or more")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai:{model}"
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.concurrency = concurrency
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self._client = httpx.Client(timeout=timeout_s, headers=headers, limits=limits, transport=transport)
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="openai-policy")
        self._model_checked = False
        self._lock = threading.Lock()
        self._native: OrderedDict[str, tuple[str, list[dict[str, Any]]]] = OrderedDict()
        self._native_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIPolicy(base_url={self.base_url!r}, model={self.model!r})"

    def use_model(self, model: str) -> None:
        """Send later requests to ``model``: a LoRA adapter the server has just confirmed loading
        (so it is not checked against ``/models``, where some servers do not list adapters)."""
        with self._lock:
            self.model = model
            self._model_checked = True

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order, with up to ``concurrency`` requests in flight;
        ``tools[i]`` go in the ``i``-th request. A conversation the server finds too long for its
        context gets an empty completion whose ``finish_reason`` is ``CONTEXT_OVERFLOW``; the others
        complete.

        Raises:
            PolicyError: the server is unreachable, rejects the request or the model, or keeps
                failing after ``max_retries`` retries (the first failure, in conversation order).
        """
        self.check_model()
        per = tools_per_conversation(tools, len(conversations))
        futures: list[Future[Completion]] = [
            self._pool.submit(self._one_or_overflow, c, sampling.for_item(i), per[i])
            for i, c in enumerate(conversations)]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise

    def _one_or_overflow(self, conversation: Conversation, sampling: Sampling,
                         tools: Tools | None) -> Completion:
        try:
            return self.generate_one(conversation, sampling, tools)
        except ContextOverflow:
            return Completion(text="", finish_reason=CONTEXT_OVERFLOW)

    def generate_one(
        self, conversation: Conversation, sampling: Sampling, tools: Tools | None = None
    ) -> Completion:
        """One completion, in the calling thread.

        Raises:
            ContextOverflow: the server finds the conversation too long for its context.
            PolicyError: as ``generate``.
        """
        start = time.perf_counter()
        with self._native_lock:
            native = {m.content: self._native[m.content] for m in conversation if m.content in self._native}
        body = request_body(self.model, conversation, sampling, tools, native)
        response = self._request("POST", CHAT_PATH, body)
        self._raise_for_answer(response)
        try:
            data = response.json()
            completion = parse_completion(data, time.perf_counter() - start)
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise PolicyError(f"the server at {self.base_url} answered {CHAT_PATH} with something that "
                              f"is not a chat completion ({type(exc).__name__}: {exc}): "
                              f"{response.text[:200]!r}; is base_url an OpenAI-compatible API?") from None
        if native_call_texts(message.get("tool_calls")):
            self._remember(completion.text, message.get("content") or "", native_calls(message["tool_calls"]))
        return completion

    def _remember(self, text: str, content: str, calls: list[dict[str, Any]]) -> None:
        """Keep a reply's native tool calls, to send them again when the reply comes back."""
        with self._native_lock:
            self._native[text] = (content, calls)
            self._native.move_to_end(text)
            while len(self._native) > NATIVE_MEMORY:
                self._native.popitem(last=False)

    def check_model(self) -> None:
        """Once per policy: when the server lists its models, ``model`` must be among them.

        Servers without a usable ``GET /models`` are not checked.

        Raises:
            PolicyError: the server lists its models and ``model`` is not one of them.
        """
        with self._lock:
            if self._model_checked:
                return
            offered = self.offered_models()
            if offered and self.model not in offered:
                raise self._unknown_model(offered)
            self._model_checked = True

    def offered_models(self) -> list[str]:
        """The models the server lists, or ``[]`` when it does not list them."""
        response = self._request("GET", MODELS_PATH)
        if response.status_code != 200:
            return []
        try:
            return model_ids(response.json())
        except ValueError:
            return []

    def _unknown_model(self, offered: list[str] | None = None) -> PolicyError:
        if offered is None:
            try:
                offered = self.offered_models()
            except PolicyError:
                offered = []
        listing = ", ".join(repr(m) for m in offered) if offered else "nothing it would list"
        return PolicyError(f"the server at {self.base_url} does not serve model {self.model!r}; it "
                           f"offers {listing}; set the policy's model to one of them")

    def _raise_for_answer(self, response: httpx.Response) -> None:
        """Turn a final non-2xx answer into a ``PolicyError`` that says what to fix."""
        status = response.status_code
        if status < 400:
            return
        detail = error_detail(response)
        if status in (401, 403):
            raise PolicyError(f"the server at {self.base_url} refused the request (HTTP {status}: "
                              f"{detail}); put a valid API key in the environment variable "
                              f"{self.api_key_env}")
        if UNKNOWN_MODEL.search(detail):
            raise self._unknown_model()
        if status == 404:
            raise PolicyError(f"the server at {self.base_url} has no {CHAT_PATH} (check the base URL, "
                              "it usually ends in /v1)")
        if OVERFLOW_MESSAGE.search(detail):
            raise ContextOverflow(f"the conversation does not fit the context of model {self.model!r} "
                                  f"at {self.base_url}: {detail}; shorten it or lower max_tokens")
        raise PolicyError(f"the server at {self.base_url} rejected the request (HTTP {status}): {detail}")

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        """Send one request, retrying connection errors, timeouts, 429 and 5xx with backoff.

        Raises:
            PolicyError: every try failed; the message names the last failure.
        """
        url = f"{self.base_url}{path}"
        failure, wait = "", 0.0
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(max(self.backoff_s * 2 ** (attempt - 1), wait))
            try:
                response = self._client.request(method, url, json=body)
            except httpx.ConnectError as exc:
                failure, wait = f"cannot reach the server at {self.base_url}: {exc}; is it running?", 0.0
                continue
            except httpx.TimeoutException:
                failure = (f"the server at {self.base_url} did not answer {path} within "
                           f"{self.timeout_s:g} s; raise timeout_s or check the server")
                wait = 0.0
                continue
            except httpx.TransportError as exc:
                failure, wait = f"the connection to {self.base_url} failed: {exc}", 0.0
                continue
            if response.status_code != 429 and response.status_code < 500:
                return response
            failure = (f"the server at {self.base_url} answered {path} with HTTP {response.status_code} "
                       f"({error_detail(response)}); check the server's log")
            wait = _retry_after(response)
        raise PolicyError(f"{failure} (gave up after {self.max_retries + 1} tries)")

    def close(self) -> None:
        """Stop the request threads and close the connections."""
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._client.close()

    def __enter__(self) -> OpenAIPolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _retry_after(response: httpx.Response) -> float:
    """Seconds a 429 or 503 answer asks to wait (``Retry-After``), capped; 0 when absent.

    >>> _retry_after(httpx.Response(429, headers={"Retry-After": "2"}))
    2.0
    >>> _retry_after(httpx.Response(503, headers={"Retry-After": "soon"}))
    0.0
    """
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(response.headers.get("Retry-After", 0))))
    except ValueError:
        return 0.0
