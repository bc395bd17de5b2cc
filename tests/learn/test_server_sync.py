"""Adapter hot-loading on vLLM and SGLang servers: request shapes checked with httpx's MockTransport."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from spadework.errors import PolicyError
from spadework.learn.settings import ServerKind
from spadework.learn.sync import ServerSync
from spadework.policy.openai import OpenAIPolicy


class FakeServer:
    """FAKE: records adapter requests; answers chat completions naming the model it was asked for."""

    def __init__(self, refuse: bool = False):
        self.calls: list[tuple[str, dict]] = []
        self.refuse = refuse

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        self.calls.append((request.url.path, body))
        if request.url.path.endswith("load_lora_adapter") and self.refuse:
            return httpx.Response(400, text="LoRA is not enabled")
        if request.url.path.endswith("/chat/completions"):
            return httpx.Response(200, json={"choices": [{"message": {"content": body["model"]},
                                                          "finish_reason": "stop"}], "usage": {}})
        return httpx.Response(200, text="ok")


def setup(kind: ServerKind, server: FakeServer) -> tuple[OpenAIPolicy, ServerSync]:
    transport = httpx.MockTransport(server)
    policy = OpenAIPolicy("http://gpu-0:8000/v1", "Qwen/Qwen2.5-7B-Instruct", transport=transport)
    return policy, ServerSync(policy, kind, "Qwen/Qwen2.5-7B-Instruct", transport=transport)


@pytest.mark.parametrize("kind, load, unload, model", [
    (ServerKind.VLLM, "/v1/load_lora_adapter", "/v1/unload_lora_adapter", "{name}"),
    (ServerKind.SGLANG, "/load_lora_adapter", "/unload_lora_adapter", "Qwen/Qwen2.5-7B-Instruct:{name}"),
])
def test_each_update_loads_a_new_adapter_unloads_the_old_and_redirects_requests(
        tmp_path: Path, kind, load, unload, model):
    server = FakeServer()
    policy, sync = setup(kind, server)
    first, second = tmp_path / "iteration-0000", tmp_path / "iteration-0001"
    sync.publish(first, None)
    sync.publish(second, None)
    paths = [path for path, _ in server.calls]
    assert paths == [load, load, unload]
    names = [body["lora_name"] for path, body in server.calls if path == load]
    assert len(set(names)) == 2
    assert server.calls[0][1]["lora_path"] == str(first / "adapter")
    assert server.calls[2][1] == {"lora_name": names[0]}
    from spadework.policy.base import Message, Role, Sampling

    reply = policy.generate([[Message(Role.USER, "hi")]], Sampling(max_tokens=4))[0].text
    assert reply == model.format(name=names[1])


def test_a_server_without_lora_says_how_to_start_it(tmp_path: Path):
    _, sync = setup(ServerKind.VLLM, FakeServer(refuse=True))
    with pytest.raises(PolicyError, match="--enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True"):
        sync.publish(tmp_path / "iteration-0000", None)


def test_an_unreachable_server_is_named(tmp_path: Path):
    def down(request):
        raise httpx.ConnectError("refused")

    policy = OpenAIPolicy("http://gpu-0:8000/v1", "m", transport=httpx.MockTransport(down))
    sync = ServerSync(policy, ServerKind.SGLANG, "m", transport=httpx.MockTransport(down))
    with pytest.raises(PolicyError, match="http://gpu-0:8000/load_lora_adapter"):
        sync.publish(tmp_path / "c", None)


def test_training_against_a_server_needs_to_know_which_server(tmp_path: Path):
    from spadework.config import load_config
    from spadework.engines import weight_sync
    from spadework.errors import ConfigError

    policy = OpenAIPolicy("http://gpu-0:8000/v1", "m")
    with pytest.raises(ConfigError, match="learn.sync_server = 'vllm', 'sglang' or 'llama-cpp'"):
        weight_sync(policy, load_config(None, {"policy.kind": "openai"}), tmp_path)


def test_a_managed_llama_cpp_server_must_be_on_loopback(tmp_path: Path):
    from spadework.learn.sync import LlamaServerSync

    with pytest.raises(PolicyError, match="runs the server itself on loopback"):
        LlamaServerSync(OpenAIPolicy("http://gpu-0:8000/v1", "m"), tmp_path / "m.gguf")
