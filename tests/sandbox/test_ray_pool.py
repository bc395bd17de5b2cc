"""Environments on Ray actors (a local Ray instance with 2 CPUs): the same answers as the local sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from spadework.archive import Archive  # noqa: E402
from spadework.config import load_config  # noqa: E402
from spadework.envs.examples import example_paths  # noqa: E402
from spadework.errors import EnvRaised  # noqa: E402
from spadework.run import run  # noqa: E402
from spadework.sandbox import SandboxConfig  # noqa: E402
from spadework.sandbox.ray_pool import RaySandbox  # noqa: E402
from spadework.validate import validate  # noqa: E402


@pytest.fixture(scope="module")
def ray_sandbox():
    box = RaySandbox(SandboxConfig(), num_cpus=2, object_store_memory=80 << 20)
    yield box
    box.close()


@pytest.mark.timeout(300)
def test_an_environment_on_an_actor_plays_like_a_local_one(ray_sandbox, sandbox):
    source = example_paths()[0].read_text(encoding="utf-8")
    with ray_sandbox.open(source) as remote, sandbox.open(source) as local:
        assert remote.class_name == local.class_name
        assert remote.reset(3) == local.reset(3)
        actions = remote.solution()
        assert actions == local.solution()
        assert [remote.step(a) for a in actions] == [local.step(a) for a in actions]
    assert validate(source, ray_sandbox).valid


@pytest.mark.timeout(300)
def test_errors_in_the_actor_arrive_as_the_same_errors(ray_sandbox):
    with pytest.raises(EnvRaised, match="^expected exactly one class whose name ends in .Env.; found none$"):
        ray_sandbox.open("x = 1\n")
    code = "from spadework.envs import TextEnv\n\nclass BoomEnv(TextEnv):\n    max_turns = 3\n" \
           "    def new_episode(self):\n        return 'go'\n    def apply(self, action):\n" \
           "        raise KeyError(action)\n    def solution(self):\n        return ['a']\n" \
           "    def hint(self):\n        return 'h'\n"
    with ray_sandbox.open(code) as env:
        env.reset(0)
        with pytest.raises(EnvRaised, match="KeyError"):
            env.step("a")


@pytest.mark.timeout(600)
def test_a_run_on_ray_ends_like_a_local_run(tmp_path: Path, ray_sandbox):
    def snapshot(run_dir: Path):
        with Archive.open(run_dir, create=False) as archive:
            records = [(r.origin, r.content_hash, r.valid, json.dumps(r.metrics, sort_keys=True))
                       for r in archive.records()]
        lines = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
        return records, [{k: v for k, v in m.items() if not k.startswith("perf/")} for m in lines]

    values = {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 3, "run.plays": 1,
              "sandbox.pool_size": 1}
    run(load_config(None, values), tmp_path / "local")
    run(load_config(None, {**values, "sandbox.executor": "ray"}), tmp_path / "ray")
    assert snapshot(tmp_path / "ray") == snapshot(tmp_path / "local")
