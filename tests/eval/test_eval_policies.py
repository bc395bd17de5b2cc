"""Policy specs: base, a run, a checkpoint; clear errors; the adapter reaching an embedded policy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from eval_fakes import make_run, scripted_config_file

from spadework.config import load_config
from spadework.errors import UsageError
from spadework.eval.policies import (
    ADAPTER_DIR,
    GGUF_ADAPTER,
    PolicySource,
    checkpoint_adapter,
    distinct_names,
    load_eval_policy,
    parse_policy_spec,
)
from spadework.policy.scripted import ScriptedPolicy
from spadework.policy.settings import PolicyKind


def test_base_uses_the_given_config_or_the_defaults(tmp_path):
    spec = parse_policy_spec("base", scripted_config_file(tmp_path))
    assert (spec.name, spec.source, spec.config.policy.kind, spec.checkpoint) == (
        "base", PolicySource.BASE, PolicyKind.SCRIPTED, None)
    assert parse_policy_spec("base").config.policy.kind is PolicyKind.EMBEDDED


def test_a_run_means_its_newest_checkpoint_and_its_own_config(tmp_path):
    run = make_run(tmp_path / "run-a", [1, 2, 3])
    for text in (str(run), str(run / "checkpoints" / "latest")):
        spec = parse_policy_spec(text, scripted_config_file(tmp_path / "other"))
        assert (spec.name, spec.spec, spec.run_dir, spec.checkpoint) == (
            "run-a/iteration-0003", text, run, run / "checkpoints" / "iteration-0003")
        assert spec.config.policy.kind is PolicyKind.SCRIPTED
    older = parse_policy_spec(str(run / "checkpoints" / "iteration-0002"))
    assert older.name == "run-a/iteration-0002"


def test_missing_runs_and_checkpoints_say_what_to_change(tmp_path):
    with pytest.raises(UsageError, match="no run directory .*nope; give 'base', RUN_DIR"):
        parse_policy_spec(str(tmp_path / "nope"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError, match="has no config.toml; is it a run directory"):
        parse_policy_spec(str(tmp_path / "plain"))
    untrained = make_run(tmp_path / "untrained", [])
    with pytest.raises(UsageError, match="has no checkpoint .*evaluate --policy base, or train the run"):
        parse_policy_spec(str(untrained / "checkpoints" / "latest"))
    run = make_run(tmp_path / "run-b", [4, 5])
    missing = "iteration-0009: no such checkpoint; .* has: iteration-0004, iteration-0005"
    with pytest.raises(UsageError, match=missing):
        parse_policy_spec(str(run / "checkpoints" / "iteration-0009"))


def test_a_run_that_did_not_train_plays_its_own_model_without_an_adapter(tmp_path):
    run = make_run(tmp_path / "run-u", [])
    spec = parse_policy_spec(str(run))
    assert (spec.name, spec.checkpoint, spec.run_dir) == ("run-u/untrained", None, run)
    assert spec.config == load_config(run / "config.toml")
    trained = parse_policy_spec(str(make_run(tmp_path / "run-t", [3])))
    assert trained.name == "run-t/iteration-0003"


def test_repeated_names_are_made_distinct(tmp_path):
    base = parse_policy_spec("base", scripted_config_file(tmp_path))
    assert [s.name for s in distinct_names([base, base, base])] == ["base", "base#2", "base#3"]


def test_a_scripted_checkpoint_builds_the_scripted_policy_without_adapter(tmp_path):
    spec = parse_policy_spec(str(make_run(tmp_path / "run", [1])))
    assert isinstance(load_eval_policy(spec), ScriptedPolicy)


class FakeEmbedded:
    """FAKE embedded policy: records the adapters it is given."""

    name = "fake-embedded"

    def __init__(self, settings):
        self.settings = settings
        self.adapters: list[Path] = []
        self.closed = False

    def load_adapter(self, path):
        self.adapters.append(path)

    def generate(self, conversations, sampling, tools=None):
        return []

    def close(self):
        self.closed = True


def test_an_embedded_checkpoint_loads_its_gguf_adapter(tmp_path):
    spec = parse_policy_spec(str(make_run(tmp_path / "run", [2], kind="embedded")))
    (spec.checkpoint / GGUF_ADAPTER).write_bytes(b"GGUF")
    policy = load_eval_policy(spec, build=FakeEmbedded)
    assert policy.adapters == [spec.checkpoint / GGUF_ADAPTER]
    assert policy.settings.kind is PolicyKind.EMBEDDED


def test_a_checkpoint_without_an_adapter_is_refused_and_the_policy_closed(tmp_path):
    spec = parse_policy_spec(str(make_run(tmp_path / "run", [2], kind="embedded")))
    built = []

    def build(settings):
        built.append(FakeEmbedded(settings))
        return built[-1]

    with pytest.raises(UsageError, match=r"has no LoRA adapter \(adapter.gguf, or adapter/ with"):
        load_eval_policy(spec, build=build)
    assert built[0].closed


def test_checkpoints_of_other_kinds_are_refused_before_anything_is_built(tmp_path):
    spec = parse_policy_spec(str(make_run(tmp_path / "run", [1], kind="openai")))

    def build(settings):
        raise AssertionError("nothing may be built")

    with pytest.raises(UsageError, match="kind = 'openai' is not supported .*adapter into your server"):
        load_eval_policy(spec, build=build)


def test_a_missing_gguf_adapter_is_written_from_the_peft_folder_as_the_model_would_write_it(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("peft")
    gguf = pytest.importorskip("gguf")
    from spadework.learn import learner, sync
    from spadework.learn.gguf_lora import export_adapter
    from spadework.learn.model import tiny_model, with_lora

    assert (ADAPTER_DIR, GGUF_ADAPTER) == (learner.ADAPTER_DIR, sync.GGUF_ADAPTER)
    checkpoint = tmp_path / "iteration-0001"
    model = with_lora(tiny_model(0), rank=4, alpha=8, dropout=0.0, targets=("q_proj", "v_proj"))
    for _, param in model.named_parameters():  # B starts at zero: make every tensor tell
        if param.requires_grad:
            param.data.normal_()
    model.save_pretrained(str(checkpoint / ADAPTER_DIR))
    path = checkpoint_adapter(checkpoint)
    assert path == checkpoint / GGUF_ADAPTER
    from_model = export_adapter(model, tmp_path / "from-model.gguf")
    read, expected = gguf.GGUFReader(str(path)), gguf.GGUFReader(str(from_model))
    assert [t.name for t in read.tensors] == [t.name for t in expected.tensors]
    assert {t.name for t in read.tensors} == {
        f"blk.{n}.attn_{p}.weight.lora_{ab}" for n in (0, 1) for p in "qv" for ab in "ab"}
    for mine, theirs in zip(read.tensors, expected.tensors, strict=True):
        assert (mine.data == theirs.data).all()
    assert read.fields["adapter.lora.alpha"].parts[-1][0] == 8.0
    assert checkpoint_adapter(checkpoint) == path  # reused, not written again


def test_an_adapter_llama_cpp_cannot_apply_is_refused_with_what_to_change(tmp_path):
    pytest.importorskip("gguf")
    from spadework.errors import ConfigError

    folder = tmp_path / "iteration-0001" / ADAPTER_DIR
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text('{"lora_alpha": 8, "use_dora": true}')
    (folder / "adapter_model.safetensors").write_bytes(b"")
    with pytest.raises(ConfigError, match="only a plain LoRA adapter .* can be written as a GGUF"):
        checkpoint_adapter(folder.parent)
    assert not (folder.parent / GGUF_ADAPTER).exists()


def test_a_runs_start_is_its_own_copy_or_else_the_adapter_its_config_names(tmp_path, monkeypatch):
    from spadework.config import CONFIG_FILE, load_config
    from spadework.learn.checkpoint import write_named

    monkeypatch.chdir(tmp_path)  # init_adapter is relative, as in the committed configs
    started = make_run(tmp_path / "warm", [0])
    run = make_run(tmp_path / "run", [3])
    config = load_config(None, {"policy.kind": "scripted",
                                "learn.init_adapter": "warm/checkpoints/iteration-0000"})
    (run / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
    spec = parse_policy_spec(str(run / "checkpoints" / "start"))
    assert (spec.name, spec.checkpoint) == ("run/start", Path("warm/checkpoints/iteration-0000"))
    assert spec.checkpoint.resolve() == (started / "checkpoints" / "iteration-0000").resolve()
    kept = write_named(run, "start", lambda folder: None, {})
    assert parse_policy_spec(str(run / "checkpoints" / "start")).checkpoint == kept
    (tmp_path / "warm").rename(tmp_path / "moved")
    shutil.rmtree(kept)
    with pytest.raises(UsageError, match="no such checkpoint"):
        parse_policy_spec(str(run / "checkpoints" / "start"))
