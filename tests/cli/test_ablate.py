"""`spadework ablate` with the scripted fake policy: every arm's run, the table, resuming."""

from __future__ import annotations

import json
import shutil
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from spadework.ablate import Ablation, HeldOut, markdown_table
from spadework.archive import Archive
from spadework.cli import main
from spadework.engines import measure_run

CALIBRATION = Path(__file__).resolve().parents[2] / "src/spadework/calibrate/envs"
ARGS = ["--policy", "scripted", "--iterations", "1", "--designs", "3", "--plays", "1", "--seed", "2"]


@pytest.fixture(scope="module")
def ablation(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ablate") / "out"
    config = out.parent / "small.toml"
    config.write_text('[sandbox]\npool_size = 1\n\n[diversity]\nembedder = "hashing"\n\n'
                      '[eval]\ntasks = ["spell_backward"]\n\n[rewards]\ndesigner = "blend"\n')
    assert main(["ablate", *ARGS, "--config", str(config), "--out", str(out), "--eval-seeds", "2"]) == 0
    return out


def test_every_arm_is_a_run_with_its_own_change(ablation: Path):
    for arm in Ablation:
        config = tomllib.loads((ablation / arm.value / "config.toml").read_text())
        assert config["run"]["designs"] == 3 and config["sandbox"]["pool_size"] == 1
        assert config["designer"]["corpus"] is (arm is not Ablation.NO_CORPUS)
        assert config["designer"]["memory"] is (arm is not Ablation.NO_MEMORY)
        assert config["learn"]["designer"] is (arm is not Ablation.FROZEN_DESIGNER)
        assert config["designer"].get("fixed_pool") == ("examples" if arm is Ablation.FIXED_POOL else None)
        plain = arm is Ablation.PLAIN_REGRET
        paid = (config["rewards"]["designer"], config["run"]["plays"])
        assert paid == (("regret", 2) if plain else ("blend", 1))
    used = {arm: json.loads((ablation / arm.value / "metrics.jsonl").read_text())["corpus/documents_used"]
            for arm in (Ablation.FULL, Ablation.NO_CORPUS)}
    assert used == {Ablation.FULL: 3.0, Ablation.NO_CORPUS: 0.0}


def test_the_table_agrees_with_each_arms_archive(ablation: Path):
    rows = json.loads((ablation / "ablation.json").read_text())
    assert [r["arm"] for r in rows] == [a.value for a in Ablation]
    for row in rows:
        run_dir = Path(row["run_dir"])
        with Archive.open(run_dir, create=False) as archive:
            finals = [r for r in archive.records() if r.metrics.get("final")]
        valid = [r for r in finals if r.valid]
        assert (row["designs"], row["valid"]) == (3, len(valid))
        regrets = [r.metrics["regret"] for r in valid]
        assert row["mean_regret"] == pytest.approx(sum(regrets) / len(regrets) if regrets else 0.0)
        measured = measure_run(run_dir)
        overall = measured.overall
        assert row["diversity"] == pytest.approx(overall.score)
        assert row["clusters"] == overall.clusters
        assert row["diversity_ci"] == pytest.approx(list(measured.score_ci))
        assert row["near_duplicate_ci"] == pytest.approx(list(measured.near_duplicate_ci))
        designs = measure_run(run_dir, every_design=True)  # valid or not: the invalid designs too
        named = [r for r in finals if r.class_name]
        assert row["designs_measured"] == designs.overall.count == len(named) >= len(valid)
        assert row["designs_diversity"] == pytest.approx(designs.overall.score)
        assert row["designs_diversity_ci"] == pytest.approx(list(designs.score_ci))
    # nothing trained: every arm is the same base policy, evaluated once, its report in every run
    reports = [json.loads((ablation / a.value / "eval/eval-ablate.json").read_text()) for a in Ablation]
    assert [r["policies"][0]["name"] for r in reports] == [f"{a.value}/untrained" for a in Ablation]
    for report in reports:
        report["policies"][0].pop("name"), report["policies"][0].pop("spec")
    assert all(r == reports[0] for r in reports)
    overall = reports[0]["policies"][0]["overall"]
    assert overall["n"] == 2
    assert {(r["eval_accuracy"], tuple(r["eval_ci"])) for r in rows} == {
        (overall["accuracy"], (overall["ci_low"], overall["ci_high"]))}
    pool = next(r for r in rows if r["arm"] == "fixed-pool")
    assert pool["valid"] == 3  # the bundled examples are all valid
    lines = (ablation / "ablation.md").read_text().splitlines()
    assert len(lines) == 2 + len(Ablation) and lines[2].startswith("| full | ")
    assert f"{rows[0]['diversity']:.3f} [{rows[0]['diversity_ci'][0]:.3f}, " in lines[2]


def test_the_html_shows_every_arm_and_its_map(ablation: Path):
    page = (ablation / "ablation.html").read_text()
    for arm in Ablation:
        assert f"<h3>{arm.value}</h3>" in page
    assert page.count("<svg") >= len(Ablation)
    assert "https://" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "near-duplicates 0% [0%, " in page  # the maps' summaries carry intervals
    assert 'id="design-maps"' in page and page.count('aria-label="3 designs (PCA)"') == len(Ablation)


def test_every_map_is_also_a_standalone_svg(ablation: Path):
    for row in json.loads((ablation / "ablation.json").read_text()):
        for name, points in ((f"{row['arm']}.svg", row["valid"]),
                             (f"{row['arm']}-every-design.svg", row["designs_measured"])):
            svg = ET.fromstring((ablation / "maps" / name).read_text())  # well-formed XML
            assert svg.tag == "{http://www.w3.org/2000/svg}svg"
            assert len(svg.findall("{http://www.w3.org/2000/svg}circle")) == points > 0


def sizes(out: Path) -> dict[Ablation, int]:
    counts = {}
    for arm in Ablation:
        with Archive.open(out / arm.value, create=False) as archive:
            counts[arm] = len(archive)
    return counts


def test_running_again_resumes_instead_of_repeating(ablation: Path, capsys, monkeypatch):
    def never(*args):
        raise AssertionError("an arm's held-out evaluation was played again")

    monkeypatch.setattr(HeldOut, "evaluate", never)  # each arm's report says what it measured
    before = sizes(ablation)
    table = (ablation / "ablation.md").read_text()
    config = str(ablation.parent / "small.toml")
    assert main(["ablate", *ARGS, "--config", config, "--out", str(ablation), "--eval-seeds", "2"]) == 0
    assert "resuming full" in capsys.readouterr().out
    assert sizes(ablation) == before
    assert (ablation / "ablation.md").read_text() == table


def probe_config(tmp_path: Path, *files: str) -> Path:
    probe = tmp_path / "probe"
    probe.mkdir()
    for name in files:
        shutil.copy(CALIBRATION / name, probe / name)
    config = tmp_path / "probe.toml"
    config.write_text('[sandbox]\npool_size = 1\n\n[diversity]\nembedder = "hashing"\n\n'
                      f'[eval]\nsuites = ["probe"]\nprobe = "{probe}"\n')
    return config


def test_a_probe_alone_is_each_arms_held_out_set(tmp_path: Path):
    config = probe_config(tmp_path, "easy_add.py", "easy_larger.py")
    out = tmp_path / "out"
    assert main(["ablate", *ARGS, "--config", str(config), "--out", str(out), "--arms", "full",
                 "--eval-seeds", "2"]) == 0
    [played] = json.loads((out / "full/eval/eval-ablate.json").read_text())["policies"]
    played_tasks = sorted({(i["suite"], i["task"]) for i in played["items"]})
    assert played_tasks == [("probe", "easy_add"), ("probe", "easy_larger")]
    assert played["overall"]["n"] == 4
    [row] = json.loads((out / "ablation.json").read_text())
    assert row["eval_accuracy"] == played["overall"]["accuracy"]


def test_an_empty_probe_is_refused_before_any_arm_runs(tmp_path: Path, capsys):
    config = probe_config(tmp_path)
    assert main(["ablate", *ARGS, "--config", str(config), "--out", str(tmp_path / "out")]) == 2
    assert "has no" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_unknown_arm_is_refused_with_the_choices(capsys):
    assert main(["ablate", "--policy", "scripted", "--arms", "full,no-sandbox"]) == 2
    assert "no-sandbox" in capsys.readouterr().err


def test_an_unknown_eval_task_is_refused_before_any_arm_runs(tmp_path: Path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text('[eval]\ntasks = ["nope"]\n')
    assert main(["ablate", *ARGS, "--config", str(config), "--out", str(tmp_path / "out")]) == 2
    assert "no task 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_markdown_table_marks_missing_eval():
    from spadework.ablate import AblationRow

    row = AblationRow("no-memory", "r", 2, 0, 0.0, 0.0, 0.0, 0.0, 0, 0)
    expected = "| no-memory | 0/2 (0%) | 0.000 | 0.000 | 0% | 0 | - | - | 0 | - |"
    assert markdown_table([row]).splitlines()[2] == expected


def test_the_html_renders_in_a_real_browser_without_console_errors(ablation: Path):
    from spadework.report.browser import check_report, missing_reason

    if missing_reason() is not None:
        pytest.skip(str(missing_reason()))
    result = check_report(ablation / "ablation.html", ablation / "ablation.png",
                          expected=("comparison", "maps"))
    assert result.ok and result.errors == () and result.missing == ()
    assert (ablation / "ablation.png").read_bytes()[:4] == b"\x89PNG"
