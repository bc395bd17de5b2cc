"""The config's TOML: every text survives dump -> load exactly; ``--set`` values; section defaults."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import UnionType
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel, ValidationError

from spadework.config import (
    RunConfig,
    Section,
    build_config,
    load_config,
    parse_assignment,
)
from spadework.errors import ConfigError
from spadework.tomltext import dump_toml, toml_string
from spadework.tracking.settings import TrackingSettings, WandbMode

NASTY = 'a\nb\t"c"\x01 \\ \\n \b\f\r \x1f\x7f\x85 \u2028 é 😀 \'\'\' """ #x [y] = z'


def text_fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, bool]]:
    """(dotted field, is a tuple of text) for every text field of the config, sub-sections included."""
    found = []
    for name, field in model.model_fields.items():
        annotation, dotted = field.annotation, f"{prefix}{name}"
        if isinstance(annotation, type) and issubclass(annotation, Section):
            found += text_fields(annotation, f"{dotted}.")
        elif annotation is str or (isinstance(annotation, UnionType) and str in get_args(annotation)):
            found.append((dotted, False))
        elif get_origin(annotation) is tuple and get_args(annotation)[0] is str:
            found.append((dotted, True))
    return found


def nested(flat: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for dotted, value in flat.items():
        *sections, key = dotted.split(".")
        target = data
        for section in sections:
            target = target.setdefault(section, {})
        target[key] = value
    return data


def test_every_text_field_survives_dump_and_load_with_control_characters_and_unicode(tmp_path: Path):
    values: dict[str, Any] = {}
    for dotted, is_tuple in text_fields(RunConfig):
        value = [NASTY, f"2{NASTY}"] if is_tuple else NASTY
        try:  # a field with a pattern (learn.dtype) cannot hold it
            build_config(nested({**values, dotted: value}))
        except ConfigError:
            continue
        values[dotted] = value
    assert {"policy.model", "policy.base_url", "corpus.path", "designer.fixed_pool", "learn.model",
            "learn.lora_targets", "sandbox.ray_address", "eval.suites", "tracking.wandb_project",
            "tracking.wandb_entity"} <= set(values)
    config = build_config(nested(values))
    text = config.to_toml()
    assert all(ord(c) >= 0x20 or c == "\n" for c in text)  # every control character escaped
    assert "\u2028" not in text
    assert build_config(tomllib.loads(text)) == config
    (tmp_path / "config.toml").write_bytes(text.encode("utf-8"))
    assert load_config(tmp_path / "config.toml") == config
    assert config.policy.model == NASTY and config.learn.lora_targets == (NASTY, f"2{NASTY}")


@pytest.mark.parametrize("char", [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029]])
def test_each_control_character_round_trips(char: str):
    assert tomllib.loads(f"v = {toml_string(f'x{char}y')}")["v"] == f"x{char}y"


def test_keys_that_are_not_bare_are_quoted():
    text = dump_toml({"a b": {"c.d": 1, "ok": "é"}})
    assert text == '["a b"]\n"c.d" = 1\nok = "é"\n\n'
    assert tomllib.loads(text) == {"a b": {"c.d": 1, "ok": "é"}}


def test_text_that_is_not_utf8_is_refused_naming_the_field():
    with pytest.raises(ConfigError, match="config field 'corpus.path': .*not UTF-8 text"):
        load_config(None, {"corpus.path": "runs/\udcff.jsonl"})
    with pytest.raises(ConfigError, match="config field 'run.name': .*not UTF-8"):
        dump_toml({"run": {"name": "\udcff"}})


def test_a_partial_sub_section_keeps_its_sections_defaults(tmp_path: Path):
    path = tmp_path / "c.toml"
    path.write_text("[designer.sampling]\ntemperature = 0.1\n\n[agent.sampling]\nmax_tokens = 64\n")
    config = load_config(path)
    assert (config.designer.sampling.temperature, config.designer.sampling.max_tokens) == (0.1, 1536)
    assert (config.agent.sampling.temperature, config.agent.sampling.max_tokens) == (0.7, 64)
    with pytest.raises(ValidationError, match="Extra inputs"):
        RunConfig.model_validate({"designer": {"sampling": {"heat": 1}}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("run.seed=3", ("run.seed", 3)),
        (" run.seed = 3 ", ("run.seed", 3)),
        ("designer.memory=false", ("designer.memory", False)),
        ('policy.model="1.5"', ("policy.model", "1.5")),
        ("policy.model=qwen2.5-coder-0.5b", ("policy.model", "qwen2.5-coder-0.5b")),
        ("corpus.path=/data/my corpus.jsonl", ("corpus.path", "/data/my corpus.jsonl")),
        ("policy.base_url=http://h:8000/v1?a=b", ("policy.base_url", "http://h:8000/v1?a=b")),
        ("eval.tasks=[]", ("eval.tasks", [])),
        ("designer.sampling={temperature=0.1}", ("designer.sampling", {"temperature": 0.1})),
        ("policy.model=1\nw = 2", ("policy.model", "1\nw = 2")),  # one value, never two keys
        ("policy.model=", ("policy.model", "")),
    ],
)
def test_parse_assignment(text: str, expected: tuple[str, Any]):
    assert parse_assignment(text) == expected


@pytest.mark.parametrize("text", ["run.seed", "=3", ".seed=3", "run..seed=3", "run seed=3", ""])
def test_parse_assignment_refuses_what_is_not_an_assignment(text: str):
    with pytest.raises(ValueError, match=r"expected SECTION\.FIELD=VALUE, e\.g\. --set designer"):
        parse_assignment(text)


def test_the_tracking_section():
    assert RunConfig().tracking == TrackingSettings() == load_config(None).tracking
    config = load_config(None, {"tracking.wandb": "online", "tracking.wandb_project": "p",
                                "tracking.wandb_entity": "team", "tracking.tensorboard": True})
    assert config.tracking == TrackingSettings(tensorboard=True, wandb=WandbMode.ONLINE, wandb_project="p",
                                               wandb_entity="team")
    assert load_config(None, {}).tracking.wandb is WandbMode.OFF
    with pytest.raises(ConfigError, match="config field 'tracking.wandb': Input should be 'off', 'offline' "
                                          "or 'online'"):
        load_config(None, {"tracking.wandb": "cloud"})
    assert tomllib.loads(config.to_toml())["tracking"] == {"tensorboard": True, "wandb": "online",
                                                           "wandb_project": "p", "wandb_entity": "team"}
