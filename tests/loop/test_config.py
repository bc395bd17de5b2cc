"""The run configuration: defaults, overrides, and messages that name the bad field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from spadework.config import RunConfig, load_config
from spadework.errors import ConfigError
from spadework.policy.settings import PolicyKind
from spadework.rewards import DesignerReward


def test_defaults_and_overrides():
    config = load_config(None, {"run.designs": 3, "policy.kind": "scripted", "run.seed": None})
    assert config.run.designs == 3
    assert config.policy.kind is PolicyKind.SCRIPTED
    assert config.run.seed == 0


def test_resolved_config_round_trips_through_toml(tmp_path: Path):
    config = load_config(None, {"designer.max_attempts": 2, "corpus.path": "my corpus.jsonl"})
    path = tmp_path / "config.toml"
    path.write_text(config.to_toml())
    assert tomllib.loads(path.read_text())["designer"]["sampling"]["max_tokens"] == 1536
    assert load_config(path) == config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[run]\niterations = 0\n",
         "config field 'run.iterations': Input should be greater than or equal to 1"),
        ("[designer]\nmax_atempts = 2\n",
         "config field 'designer.max_atempts': Extra inputs are not permitted"),
        ("[policy]\nkind = 'gpu'\n",
         "config field 'policy.kind': Input should be 'embedded', 'openai', 'hf' or 'scripted'"),
        ("[agent.sampling]\ntemperature = 'hot'\n",
         "config field 'agent.sampling.temperature': Input should be a valid number"),
        ("[rewards]\ndesigner = 'lcb'\n",
         "config field 'rewards.designer': Input should be 'regret', 'regret_lcb', 'plateau', "
             "'learning_potential' or 'blend'"),
        ("[rewards]\nconfidence = 1.0\n",
         "config field 'rewards.confidence': Input should be less than 1"),
        ("[run\n", "not valid TOML"),
    ],
)
def test_bad_config_names_the_field(tmp_path: Path, text: str, message: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}: ")
    assert message in str(error.value)


def test_the_designer_reward_and_confidence_load_and_round_trip(tmp_path: Path):
    assert load_config(None).rewards.designer is DesignerReward.REGRET
    assert load_config(None).rewards.confidence == 0.95
    path = tmp_path / "lcb.toml"
    path.write_text('[rewards]\ndesigner = "regret_lcb"\nconfidence = 0.9\n')
    config = load_config(path)
    assert config.rewards.designer is DesignerReward.REGRET_LCB and config.rewards.confidence == 0.9
    assert 'designer = "regret_lcb"' in config.to_toml()
    path.write_text(config.to_toml())
    assert load_config(path) == config


def test_missing_config_file(tmp_path: Path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml")


def test_context_must_fit_the_model():
    with pytest.raises(ConfigError, match="agent.context_tokens .* exceeds policy.n_ctx"):
        load_config(None, {"agent.context_tokens": 8192, "policy.n_ctx": 4096})


def test_every_field_is_documented():
    def walk(model):
        for name, field in model.model_fields.items():
            annotation = field.annotation
            if isinstance(annotation, type) and issubclass(annotation, RunConfig.__mro__[1]):
                yield from walk(annotation)
            elif model is not RunConfig:
                yield f"{model.__name__}.{name}", field.description
    missing = [name for name, description in walk(RunConfig) if not description]
    assert missing == []


def test_design_forms_mix_by_weight_from_the_file_and_the_command_line(tmp_path: Path):
    from spadework.config import parse_assignment
    from spadework.designer.prompts import DesignForm

    assert load_config(None).designer.forms == {}  # empty: `form` alone
    path = tmp_path / "mixed.toml"
    path.write_text("[designer]\nforms = {answer = 0.5, tool = 0.5}\n")
    config = load_config(path)
    assert config.designer.forms == {DesignForm.ANSWER: 0.5, DesignForm.TOOL: 0.5}
    assert "[designer.forms]\nanswer = 0.5\ntool = 0.5\n" in config.to_toml()
    path.write_text(config.to_toml())
    assert load_config(path) == config
    key, value = parse_assignment("designer.forms={answer=0.5, tool=0.5}")
    assert load_config(None, {key: value}).designer.forms == config.designer.forms
    assert load_config(None, {"designer.form": "tool"}).designer.form is DesignForm.TOOL


@pytest.mark.parametrize(("forms", "message"), [
    ({"answer": 0.5, "tool": 0.0}, "config field 'designer.forms': Value error, weights must be finite "
                                   "numbers greater than 0, got tool = 0.0; leave a form out instead of "
                                   "giving it 0"),
    ({"answer": -1}, "config field 'designer.forms': Value error, weights must be finite numbers greater "
                     "than 0, got answer = -1.0"),
    ({"answer": float("inf")}, "got answer = inf"),
    ({"quiz": 1.0}, "config field 'designer.forms.quiz.[key]': Input should be 'answer', 'game', 'tool' or "
                    "'records'"),
    ({"answer": "half"}, "config field 'designer.forms.answer': Input should be a valid number"),
])
def test_bad_form_weights_name_the_field(forms, message):
    with pytest.raises(ConfigError) as error:
        load_config(None, {"designer.forms": forms})
    assert str(error.value).startswith("command line: ") and message in str(error.value)
