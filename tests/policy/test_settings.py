"""PolicySettings and build_policy: validation, JSON, and one constructor per kind."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from spadework.errors import ConfigError, PolicyError
from spadework.policy import PolicyKind, PolicySettings, build_policy
from spadework.policy.openai import OpenAIPolicy
from spadework.policy.scripted import ScriptedPolicy
from spadework.policy.settings import BUILDERS


def test_every_kind_has_a_builder():
    assert set(BUILDERS) == set(PolicyKind)


def test_defaults_are_the_embedded_default_model():
    settings = PolicySettings()
    assert (settings.kind, settings.model, settings.n_ctx) == \
        (PolicyKind.EMBEDDED, "qwen2.5-coder-1.5b", 4096)


def test_scripted_and_openai_are_built_without_contacting_anything(monkeypatch):
    scripted = build_policy(PolicySettings(kind=PolicyKind.SCRIPTED, seed=5))
    assert isinstance(scripted, ScriptedPolicy) and scripted.seed == 5
    monkeypatch.setenv("SPADE_TEST_KEY", "k")
    settings = PolicySettings(kind=PolicyKind.OPENAI, model="served", base_url="http://127.0.0.1:9/v1/",
                              api_key_env="SPADE_TEST_KEY", concurrency=3, max_retries=1)
    with build_policy(settings) as openai:
        assert isinstance(openai, OpenAIPolicy)
        assert (openai.name, openai.base_url, openai.concurrency, openai.max_retries) == \
            ("openai:served", "http://127.0.0.1:9/v1", 3, 1)


def test_settings_round_trip_through_json():
    settings = PolicySettings(kind=PolicyKind.OPENAI, model="x", n_threads=2, timeout_s=5.0)
    data = settings.to_json()
    assert data["kind"] == "openai"
    assert PolicySettings.from_json(data) == settings


@pytest.mark.parametrize(("changes", "message"), [
    ({"concurrency": 0}, "concurrency\n  Input should be greater than or equal to 1"),
    ({"n_ctx": 64}, "n_ctx\n  Input should be greater than or equal to 512"),
    ({"timeout_s": 0.0}, "timeout_s\n  Input should be greater than 0"),
    ({"max_retries": -1}, "max_retries\n  Input should be greater than or equal to 0"),
    ({"n_threads": 0}, "n_threads\n  Input should be greater than or equal to 1"),
    ({"model": " "}, "model\n  Value error, is empty; give a preset name, a GGUF path or a model name"),
    ({"kind": "vllm"}, "kind\n  Input should be 'embedded', 'openai', 'hf' or 'scripted'"),
])
def test_invalid_settings_name_the_field(changes, message):
    with pytest.raises(ValidationError) as caught:
        PolicySettings(**changes)
    assert message in str(caught.value)


def test_json_with_unknown_fields_or_kinds_is_refused():
    with pytest.raises(ConfigError, match="PolicySettings field 'temperature': Extra inputs are not "
                                          "permitted"):
        PolicySettings.from_json({"temperature": 1.0})
    with pytest.raises(ConfigError, match="PolicySettings field 'kind': Input should be 'embedded', "
                                          "'openai', 'hf' or 'scripted'"):
        PolicySettings.from_json({"kind": "vllm"})


def test_the_run_configuration_s_section_becomes_the_settings_with_the_run_s_seed():
    from spadework.config import load_config
    from spadework.engines import policy_settings

    config = load_config(None, {"policy.kind": "openai", "policy.concurrency": 3, "run.seed": 7})
    settings = policy_settings(config)
    assert (settings.kind, settings.concurrency, settings.seed) == (PolicyKind.OPENAI, 3, 7)
    assert settings.model_dump(exclude={"n_threads", "max_retries", "seed"}) == config.policy.model_dump()


def test_the_policy_layer_imports_nothing_from_the_layers_above_it():
    import ast
    from pathlib import Path

    import spadework.policy

    upward = []
    for path in sorted(Path(spadework.policy.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            upward += [f"{path.name}: {n}" for n in names
                       if n.startswith(("spadework.rollout", "spadework.learn", "spadework.loop"))]
    assert upward == []


def test_the_hf_kind_builds_the_tiny_model_in_the_policy_layer():
    pytest.importorskip("torch")
    from spadework.policy.hf import ByteTokenizer, HFPolicy

    policy = build_policy(PolicySettings(kind=PolicyKind.HF, model="tiny:1"))
    assert isinstance(policy, HFPolicy) and isinstance(policy.tokenizer, ByteTokenizer)
    assert policy.name == "hf:tiny:1"
    with pytest.raises(PolicyError, match="hf model 'nothing' is neither 'tiny', a preset"):
        build_policy(PolicySettings(kind=PolicyKind.HF, model="nothing"))
