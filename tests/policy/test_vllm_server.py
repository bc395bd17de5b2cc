"""The cluster path against a real server: vLLM's CPU build serving the 0.5B on this machine.

The server runs from ``.venv-vllm`` (``make vllm``; ``make test`` builds it) with the 0.5B's
Hugging Face weights as the learner makes them (``learn.model.hf_copy``), LoRA enabled and
runtime adapter loading allowed. Through ``OpenAIPolicy`` with concurrent requests: plain replies,
a tool world and a game played in both arms in the real sandbox, then a LoRA adapter hot-loaded
by ``ServerSync`` that changes the greedy reply, and a second one that replaces it.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from spadework.policy.base import Message, Role, Sampling

ROOT = Path(__file__).parents[2]
VLLM_PYTHON = Path(os.environ.get("SPADEWORK_VLLM_PYTHON", ROOT / ".venv-vllm" / "bin" / "python"))
SERVED = "qwen05"
START_TIMEOUT_S = 420
# A test here may start the server (a minute, up to START_TIMEOUT_S) before it decodes on 2 cores
pytestmark = pytest.mark.timeout(START_TIMEOUT_S + 180)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def unlimited_memory() -> None:
    """The server maps more address space than the test run's soft cap (conftest) allows."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A started vLLM server: (its /v1 address, the HF folder it serves)."""
    if not VLLM_PYTHON.exists():
        pytest.skip(f"no vLLM server environment at {VLLM_PYTHON}; build it with `make vllm`")
    pytest.importorskip("transformers")
    from spadework.learn.model import hf_copy
    from spadework.policy.models import resolve_model

    folder = hf_copy(resolve_model("qwen2.5-coder-0.5b"))
    port = free_port()
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    environment = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}
    # float32: a CPU without bfloat16 instructions (this one has AVX2 only) emulates them, and the
    # tool world's long first prompt took 135 s in bfloat16 against 28 s in float32
    command = [str(VLLM_PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
               "--served-model-name", SERVED, "--dtype", "float32", "--max-model-len", "2048",
               "--host", "127.0.0.1", "--port", str(port), "--enable-lora", "--max-lora-rank", "8",
               "--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment,
                                   start_new_session=True, preexec_fn=unlimited_memory)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"the vLLM server exited ({process.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the vLLM server did not start in {START_TIMEOUT_S} s:\n"
                            f"{log.read_text()[-3000:]}")
            time.sleep(2)
        yield base_url, folder
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def asked(question: str) -> list[Message]:
    return [Message(Role.SYSTEM, "Answer in one short sentence."), Message(Role.USER, question)]


def test_concurrent_requests_come_back_in_order_with_their_usage(server):
    from spadework.policy.openai import OpenAIPolicy

    policy = OpenAIPolicy(server[0], SERVED, concurrency=4)
    questions = ["What is 2+2?", "Name a colour of the sky.", "Spell cat backwards.",
                 "What is the capital of France?"]
    replies = policy.generate([asked(q) for q in questions], Sampling(temperature=0.0, max_tokens=24))
    assert [r.finish_reason in ("stop", "length") for r in replies] == [True] * 4
    assert "4" in replies[0].text and "paris" in replies[3].text.lower()
    assert all(0 < r.completion_tokens <= 24 and r.prompt_tokens > 10 for r in replies)
    policy.close()


def test_a_tool_world_and_a_game_are_played_in_both_arms_through_the_server(server):
    from spadework.envs.examples import __path__ as examples
    from spadework.policy.openai import OpenAIPolicy
    from spadework.rollout import Arm, EndReason, PlayJob, RolloutConfig, run_plays
    from spadework.sandbox import Sandbox, SandboxConfig

    policy = OpenAIPolicy(server[0], SERVED, concurrency=4)
    sources = {name: (Path(examples[0]) / f"{name}.py").read_text()
               for name in ("library_lending", "number_guess")}
    jobs = [PlayJob(name, source, 0, arm) for name, source in sources.items()
            for arm in (Arm.NOHINT, Arm.HINT)]
    # One turn of 64 tokens: a long prompt is slow to prefill on 2 cores
    config = RolloutConfig(max_turns_cap=1, sampling=Sampling(temperature=0.0, max_tokens=64))
    with Sandbox(SandboxConfig(pool_size=2)) as sandbox:
        episodes = run_plays(policy, sandbox, jobs, config)
    assert [e.end is not EndReason.ENV_ERROR for e in episodes] == [True] * 4, [e.error for e in episodes]
    assert all(e.turns >= 1 and e.completion_tokens > 0 for e in episodes)
    tool_world = [e for e in episodes if e.env_id == "library_lending"]
    assert all(e.tools for e in tool_world)
    assert all(any(m.role is Role.TOOL for m in e.messages) for e in tool_world)
    assert [e.hint is not None for e in episodes] == [False, True, False, True]
    policy.close()


def random_adapter(folder: Path, checkpoint: Path, seed: int) -> None:
    """A LoRA adapter of the served model with random, large weights (its effect is what is
    checked here, not its quality), saved where ``ServerSync`` looks for it."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch.float32)
    peft = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                            init_lora_weights=False))
    with torch.no_grad():
        for name, parameter in peft.named_parameters():
            if "lora_B" in name:
                parameter.mul_(40.0)
    peft.save_pretrained(str(checkpoint / "adapter"))


def test_a_hot_loaded_adapter_changes_the_reply_and_the_next_one_replaces_it(server, tmp_path):
    from spadework.learn.settings import ServerKind
    from spadework.learn.sync import ServerSync
    from spadework.policy.openai import OpenAIPolicy

    base_url, folder = server
    policy = OpenAIPolicy(base_url, SERVED, concurrency=2)
    greedy = Sampling(temperature=0.0, max_tokens=16)
    before = policy.generate([asked("Name three fruits.")], greedy)[0].text
    sync = ServerSync(policy, ServerKind.VLLM, SERVED)
    first, second = tmp_path / "iteration-0000", tmp_path / "iteration-0001"
    for seed, checkpoint in enumerate((first, second)):
        random_adapter(folder, checkpoint, seed)
    sync.publish(first, None)
    with_first = policy.generate([asked("Name three fruits.")], greedy)[0].text
    assert policy.model != SERVED and with_first != before
    sync.publish(second, None)
    served = {m["id"] for m in httpx.get(f"{base_url}/models", timeout=10).json()["data"]}
    assert policy.model in served and f"spadework-{first.name}-1" not in served
    assert policy.generate([asked("Name three fruits.")], greedy)[0].text != before
    policy.use_model(SERVED)
    assert policy.generate([asked("Name three fruits.")], greedy)[0].text == before
    policy.close()
