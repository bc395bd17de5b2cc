"""The learner on two processes (accelerate, gloo, CPU) computes the same update as on one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("accelerate")


@pytest.mark.timeout(300)
def test_two_gloo_processes_give_the_one_process_loss_and_gradients(tmp_path: Path):
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    module = ["-m", "spadework.learn.distributed"]
    subprocess.run([sys.executable, *module, "--single", "--out", str(tmp_path / "one.json")],
                   check=True, env=env, timeout=240)
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
              "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    done = subprocess.run([*launch, *module, "--out", str(tmp_path / "two.json")], env=env, timeout=240,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    one = json.loads((tmp_path / "one.json").read_text())
    two = json.loads((tmp_path / "two.json").read_text())
    assert (one["processes"], two["processes"], two["backend"]) == (1, 2, "gloo")
    for key in ("loss", "grad_norm", "tokens", "second_grad_norm"):
        assert two[key] == pytest.approx(one[key], rel=1e-5), key


@pytest.mark.timeout(600)
def test_a_two_process_training_run_matches_the_one_process_run(tmp_path: Path):
    """`accelerate launch ... spadework run --train`: the main process plays, both train."""
    config = tmp_path / "c.toml"
    config.write_text('[run]\niterations = 2\ndesigns = 2\nplays = 2\n[policy]\nkind = "scripted"\n'
                      '[corpus]\nmax_doc_tokens = 32\n[sandbox]\npool_size = 1\n'
                      '[learn]\nmodel = "tiny"\nmax_sample_tokens = 8192\nmicro_batch_tokens = 2048\n'
                      'lr = 0.001\n')
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    run = ["-m", "spadework.cli", "run", "--config", str(config), "--train"]
    single = subprocess.run([sys.executable, *run, "--run-dir", str(tmp_path / "one")], env=env, timeout=300,
                            capture_output=True, text=True)
    assert single.returncode == 0, single.stderr[-2000:]
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
              "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    double = subprocess.run([*launch, *run, "--run-dir", str(tmp_path / "two")], env=env, timeout=300,
                            capture_output=True, text=True)
    assert double.returncode == 0, double.stderr[-2000:]

    def learning(name: str) -> list[dict]:
        lines = [json.loads(x) for x in (tmp_path / name / "metrics.jsonl").read_text().splitlines()]
        return [{k: v for k, v in m.items() if k.startswith("learn/") and not k.endswith(("_s", "per_s"))}
                for m in lines]

    one, two = learning("one"), learning("two")
    assert any(m["learn/samples"] > 1 for m in one)
    assert [m.keys() for m in two] == [m.keys() for m in one]
    for a, b in zip(one, two, strict=True):
        assert b == pytest.approx(a, rel=1e-4, abs=1e-7)
