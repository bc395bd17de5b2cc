"""``benchmarks/revalidate.py``: a run's archived designs validated again in the real sandbox, with
the run's seeds and a setting changed; it counts the designs that gain a valid attempt."""

from __future__ import annotations

import sys

import pytest
from tests.sandbox.test_sandbox import DOCSTRING_HINT, FORGOT

from spadework.archive import Archive, DesignResult, EnvRecord
from spadework.config import CONFIG_FILE, load_config
from spadework.engines import open_sandbox, validator_settings
from spadework.validate import validate


@pytest.fixture
def run_dir(tmp_path):
    """A run whose archive holds three designs of iteration 2, validated as the run did with the
    docstring hint refused: one that fails only on it, one valid, one that fails anyway."""
    config = load_config(None, {"sandbox.docstring_hint": False, "sandbox.pool_size": 0})
    (tmp_path / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
    settings = validator_settings(config, 2)  # as the run validated iteration 2
    fair = DOCSTRING_HINT.replace('"""Add the chapters\' pages:\n        all of them, once each."""',
                                  'return "Add the pages of all the chapters."')
    with open_sandbox(config) as sandbox, Archive.open(tmp_path) as archive:
        for n, source in enumerate((DOCSTRING_HINT, fair, FORGOT)):
            design = DesignResult(2, f"i2-d{n}", 1, None, None, True)
            archive.add(EnvRecord.new(source, validate(source, sandbox, settings), f"run:i2:i2-d{n}:a1",
                                      design=design))
    return tmp_path


def test_the_docstring_hint_gains_the_design_that_failed_only_on_it(run_dir, benchmark_script):
    revalidate = benchmark_script("revalidate")
    with Archive.open(run_dir, create=False) as archive:
        every = list(archive.records())
    assert [r.valid for r in every] == [False, True, False]
    for docstring_hint, reasons, gain in ((False, [every[0].reason, "valid", every[2].reason], (2, 0)),
                                          (True, ["valid", "valid", every[2].reason], (2, 1))):
        config = load_config(run_dir / CONFIG_FILE, {"sandbox.docstring_hint": docstring_hint})
        with open_sandbox(config) as sandbox:
            again = revalidate.revalidated(every, config, sandbox)
        assert [reason for _, reason in again] == reasons  # the run's seeds: its verdicts again
        assert revalidate.gained(again, every) == gain


def test_the_script_prints_each_chosen_attempt_and_what_it_gained(run_dir, benchmark_script, monkeypatch,
                                                                  capsys):
    revalidate = benchmark_script("revalidate")
    monkeypatch.setattr(sys, "argv", ["revalidate.py", str(run_dir), "--reason", "hint() returned a None",
                                      "--set", "sandbox.docstring_hint=true"])
    revalidate.main()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("1 PagesEnv: 'contract: ") and lines[0].endswith("-> 'valid'")
    assert lines[1].startswith("3 PagesEnv: 'contract: ") and not lines[1].endswith("-> 'valid'")
    assert lines[2] == ("1 of 2 attempts valid now; "
                        "1 of the 2 designs among them with no valid attempt have one now")
