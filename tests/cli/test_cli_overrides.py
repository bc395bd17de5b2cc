"""``--set`` and the named run options: what reaches the run's config, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import spadework.cli
from spadework.cli import build_parser, main, run_overrides
from spadework.config import CONFIG_FILE, RunConfig, load_config
from spadework.eval.command import with_overrides
from spadework.eval.policies import parse_policy_spec
from spadework.tracking.settings import TrackingSettings, WandbMode


class Stop(Exception):
    """Raised by the fake run once it has seen its config."""


@pytest.fixture
def started(monkeypatch) -> list[tuple[RunConfig, Path, bool]]:
    """The (config, run_dir, resume) of every run ``main`` starts; the run stops at once."""
    seen: list[tuple[RunConfig, Path, bool]] = []

    def fake_run(config, run_dir, *, resume=False, reporter=None):
        seen.append((config, run_dir, resume))
        raise Stop

    monkeypatch.setattr(spadework.cli, "run", fake_run)
    return seen


def run_config(*argv: str, started: list) -> RunConfig:
    with pytest.raises(Stop):
        main(["run", *argv])
    return started[-1][0]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


def test_set_reaches_nested_fields_with_toml_values_and_bare_words(tmp_path, started):
    config = run_config("--run-dir", str(tmp_path / "r"), "--set", "designer.sampling.temperature=0.2",
                        "--set", "policy.model=qwen2.5-coder-0.5b",
                        "--set", 'learn.lora_targets=["q_proj","v_proj"]', "--set", "designer.memory=false",
                        "--set", "sandbox.ray_address=ray://head:10001", started=started)
    assert config.designer.sampling.temperature == 0.2
    assert config.designer.sampling.max_tokens == 1536  # the designer's default, not SamplingConfig's
    assert config.policy.model == "qwen2.5-coder-0.5b"
    assert config.learn.lora_targets == ("q_proj", "v_proj")
    assert config.designer.memory is False
    assert config.sandbox.ray_address == "ray://head:10001"


def test_a_later_set_wins_and_the_named_options_win_over_set(tmp_path, started):
    config = run_config("--run-dir", str(tmp_path / "r"), "--set", "run.seed=1", "--set", "run.seed=2",
                        "--set", "run.designs=9", "--designs", "3", "--set", "learn.enabled=true",
                        "--no-train", started=started)
    assert (config.run.seed, config.run.designs, config.learn.enabled) == (2, 3, False)


def test_set_applies_over_the_config_file(tmp_path, started):
    file = tmp_path / "c.toml"
    file.write_text('[run]\nseed = 5\ndesigns = 7\n\n[policy]\nkind = "scripted"\n')
    config = run_config("--config", str(file), "--run-dir", str(tmp_path / "r"), "--set", "run.seed=6",
                        started=started)
    assert (config.run.seed, config.run.designs, config.policy.kind.value) == (6, 7, "scripted")


@pytest.mark.parametrize(("flags", "enabled"), [((), True), (("--train",), True), (("--no-train",), False)])
def test_train_and_no_train_override_the_config_and_unset_keeps_it(tmp_path, started, flags, enabled):
    file = tmp_path / "c.toml"
    file.write_text("[learn]\nenabled = true\n")
    config = run_config("--config", str(file), "--run-dir", str(tmp_path / "r"), *flags, started=started)
    assert config.learn.enabled is enabled
    assert load_config(None).learn.enabled is False


def test_tracking_options_and_section(tmp_path, started):
    assert load_config(None).tracking == TrackingSettings()
    config = run_config("--run-dir", str(tmp_path / "r"), "--tensorboard", "--wandb", "offline",
                        "--set", "tracking.wandb_entity=lab", started=started)
    assert config.tracking == TrackingSettings(tensorboard=True, wandb=WandbMode.OFFLINE,
                                               wandb_project="spadework", wandb_entity="lab")
    args = build_parser().parse_args(["run"])
    assert "tracking.tensorboard" not in run_overrides(args) and "tracking.wandb" not in run_overrides(args)


def test_a_resumed_run_takes_set_over_its_own_config(tmp_path, started):
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    (run_dir / CONFIG_FILE).write_text(load_config(None, {"run.designs": 5, "run.iterations": 2}).to_toml())
    config = run_config("--resume", str(run_dir), "--set", "run.iterations=4", started=started)
    assert (config.run.designs, config.run.iterations) == (5, 4)
    assert started[-1][1:] == (run_dir, True)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--set", "designer.sampling.temprature=0.2"],
         "spadework: command line: config field 'designer.sampling.temprature': Extra inputs are not "
         "permitted"),
        (["--set", "nosuch.field=1"], "spadework: command line: config field 'nosuch': Extra inputs"),
        (["--set", "run.designs=many"],
         "spadework: command line: config field 'run.designs': Input should be a valid integer"),
        (["--set", "run.seed=1", "--set", "run.seed.x=2"],
         "spadework: command line: config field 'run.seed.x': 'run.seed' is a value, not a section"),
        (["--designs", "0"], "spadework: command line: config field 'run.designs': Input should be greater"),
    ],
)
def test_a_bad_override_is_one_line_naming_the_field(tmp_path, started, capsys, argv, message):
    assert main(["run", "--run-dir", str(tmp_path / "r"), *argv]) == 2
    assert one_error_line(capsys).startswith(message)
    assert started == []


@pytest.mark.parametrize("command", ["run", "ablate", "eval", "calibrate"])
def test_set_without_equals_is_a_usage_error_showing_the_form(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--set", "run.seed"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: spadework {command}")
    assert ("argument --set: expected SECTION.FIELD=VALUE, e.g. --set designer.sampling.temperature=0.2; "
            "got 'run.seed'") in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--resume", "{tmp}/r", "--run-dir", "{tmp}/s"],
         "spadework: --run-dir and --resume cannot be combined; --resume names the run directory"),
        (["--resume", "{tmp}/r", "--config", "{tmp}/c.toml"],
         "spadework: --config and --resume cannot be combined; a resumed run keeps its own config.toml"),
    ],
)
def test_resume_refuses_options_it_would_ignore(tmp_path, started, capsys, argv, message):
    assert main(["run", *(a.format(tmp=tmp_path) for a in argv)]) == 2
    assert one_error_line(capsys).startswith(message)
    assert started == []


def test_ablate_checks_set_before_any_arm_runs(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["ablate", "--out", str(out), "--set", "run.bogus=1"]) == 2
    assert one_error_line(capsys) == ("spadework: command line: config field 'run.bogus': "
                                      "Extra inputs are not permitted")
    assert not out.exists()


def test_eval_and_calibrate_set_change_the_policy_config(tmp_path):
    file = tmp_path / "c.toml"
    file.write_text('[policy]\nkind = "scripted"\n')
    for command in ("eval", "calibrate"):
        args = build_parser().parse_args([command, "--config", str(file), "--set", "agent.max_turns=3"])
        spec = with_overrides(parse_policy_spec("base", args.config), args.config, dict(args.sets))
        assert (spec.config.agent.max_turns, spec.config.policy.kind.value) == (3, "scripted")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / CONFIG_FILE).write_text(load_config(None, {"policy.model": "mine"}).to_toml())
    spec = with_overrides(parse_policy_spec(str(run_dir)), None, {"policy.n_ctx": 8192})
    assert (spec.config.policy.model, spec.config.policy.n_ctx) == ("mine", 8192)
    assert with_overrides(spec, None, {}) is spec
