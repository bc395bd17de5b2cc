"""spadework: self-play in adaptive synthetic executable environments.

The main verbs (see ``spadework.api``), importable from here:

- ``validate_source(code)``: the validator's verdict on an environment's source, sandboxed;
- ``open_env(code)``: a sandboxed environment to ``reset``/``step`` in a ``with`` block;
- ``run_self_play(config, run_dir)``: run or continue self-play, as ``spadework run``;
- ``open_archive(run_dir)``: every environment a run archived;
- ``load_config(path, overrides)``: a validated run configuration.

They are loaded on first use, so ``import spadework`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_VERBS = {
    "validate_source": "spadework.api",
    "open_env": "spadework.api",
    "run_self_play": "spadework.api",
    "open_archive": "spadework.api",
    "load_config": "spadework.config",
}

if TYPE_CHECKING:
    from spadework.api import open_archive, open_env, run_self_play, validate_source
    from spadework.config import load_config


def __getattr__(name: str) -> Any:
    if name in _VERBS:
        import importlib

        return getattr(importlib.import_module(_VERBS[name]), name)
    raise AttributeError(f"module 'spadework' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_VERBS])


__all__ = ["__version__", "load_config", "open_archive", "open_env", "run_self_play", "validate_source"]
