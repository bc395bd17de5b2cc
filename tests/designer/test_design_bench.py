"""``benchmarks/design_bench.py``: the designer's valid rate per form, here with the scripted policy
(a fake) and a committed checkpoint named as ``spadework eval`` names one; the real sandbox judges."""

from __future__ import annotations

import json
import sys

import pytest

CHECKPOINT = "results/tool-learning-1.5b/checkpoints/warm-start"


@pytest.mark.timeout(120)
def test_the_bench_designs_with_a_checkpoint_and_counts_what_it_printed(benchmark_script, monkeypatch,
                                                                         capsys):
    bench = benchmark_script("design_bench")
    argv = ["--form", "records", "--designs", "3", "--attempts", "2", "--set", "policy.kind=scripted",
            "--policy", CHECKPOINT]
    monkeypatch.setattr(sys, "argv", ["design_bench.py", *argv])
    bench.main()
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["policy"] == CHECKPOINT and summary["designs"] == 3 and summary["form"] == "records"
    attempts = [line.strip() for line in lines if line.strip().startswith("attempt ")]
    firsts = [line for line in attempts if line.startswith("attempt 1:")]
    assert len(firsts) == 3 and summary["valid_first"] == sum(line.endswith("valid") for line in firsts)
    assert summary["valid"] == sum(line.endswith("valid") for line in attempts)  # a design stops once valid
    assert sum(summary["failed_checks"].values()) == len(attempts) - summary["valid"]
