"""spadework as a library: the main verbs, importable as ``spadework.<verb>``.

    import spadework

    verdict = spadework.validate_source(code)           # sandboxed; a Verdict with reasons
    with spadework.open_env(code) as env:               # a sandboxed environment to play
        observation, info = env.reset(seed=0)
    summary = spadework.run_self_play({"run": {"iterations": 1}}, "runs/lib")
    with spadework.open_archive("runs/lib") as archive:
        best = max(archive.records(valid=True), key=lambda r: r.design.play.regret if r.design and
                   r.design.play else 0.0, default=None)

Each verb opens what it needs (a sandbox, the archive) and closes it; pass your own
``sandbox`` to share one between many calls.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any, TypeAlias

from spadework.archive import Archive
from spadework.config import RunConfig, load_config
from spadework.errors import EnvError, UsageError
from spadework.policy.base import Policy
from spadework.run import RunSummary, run
from spadework.sandbox import EnvHandle, Sandbox, SandboxProtocol
from spadework.validate import Verdict, validate
from spadework.validate.parse import extract_code

ConfigSource: TypeAlias = RunConfig | Mapping[str, Mapping[str, Any]] | str | Path | None
"""What ``run_self_play`` takes as a config (``resolve_config`` turns each into a ``RunConfig``)."""


def validate_source(source: str, *, is_reply: bool = False,
                    sandbox: SandboxProtocol | None = None) -> Verdict:
    """Run the validator's checks on an environment's source (or on a designer reply holding one
    ```python block, with ``is_reply``) in a sandbox, and return the verdict.

    Args:
        source: the environment module's code, or a designer's whole reply.
        is_reply: ``source`` is a reply: its code block is validated.
        sandbox: a sandbox to use; by default one of its own, closed afterwards.
    """
    with ExitStack() as stack:
        box = sandbox if sandbox is not None else stack.enter_context(Sandbox())
        return validate(source, box, is_reply=is_reply)


@contextmanager
def open_env(source: str, *, is_reply: bool = False, sandbox: SandboxProtocol | None = None
             ) -> Iterator[EnvHandle]:
    """A sandboxed environment of ``source`` for a ``with`` block: ``reset(seed)``, ``step(action)``,
    ``solution()``, ``hint()``; closed (with its own sandbox) when the block ends.

    Raises:
        UsageError: the source does not load (the message says why).
    """
    code = extract_code(source) if is_reply else source
    with ExitStack() as stack:
        box = sandbox if sandbox is not None else stack.enter_context(Sandbox())
        try:
            env = box.open(code)
        except EnvError as exc:
            raise UsageError(f"the environment does not load: {exc}") from None
        with closing(env):
            yield env


def run_self_play(config: ConfigSource, run_dir: str | Path, *,
                  resume: bool = False, policy: Policy | None = None,
                  overrides: Mapping[str, Any] | None = None) -> RunSummary:
    """Run (or continue) self-play in ``run_dir``, as ``spadework run`` does.

    Args:
        config: a ``RunConfig``, a mapping shaped like the TOML file, a path to a TOML file,
            or None for the defaults (a resumed run reads its own ``config.toml``); see
            ``resolve_config``.
        run_dir: the run directory.
        resume: continue the run in ``run_dir``.
        policy: a ready policy instead of the one the config describes.
        overrides: dotted fields on top, e.g. ``{"run.iterations": 3}``.

    Raises:
        ConfigError: a field is invalid (the message names it).
    """
    run_dir = Path(run_dir)
    if resume and config is None:
        config = run_dir / "config.toml"
    config = resolve_config(config, overrides)
    return run(config, run_dir, resume=resume, policy=policy)


def resolve_config(config: ConfigSource, overrides: Mapping[str, Any] | None = None) -> RunConfig:
    """A validated ``RunConfig`` from any of the forms ``run_self_play`` takes, with ``overrides``
    (dotted fields) on top.

    Args:
        config: a ``RunConfig``; a mapping shaped like the TOML file (``{section: {field: value}}``);
            a path (str or ``Path``) to a TOML file; or None for the defaults.
        overrides: dotted fields that win over ``config``, e.g. ``{"run.plays": 4}``.

    Raises:
        ConfigError: a field is invalid or unknown (the message names it).

    >>> resolve_config({"run": {"designs": 3}}, {"run.plays": 4}).run.plays
    4
    >>> resolve_config(resolve_config({"run": {"designs": 3}})).run.designs
    3
    >>> resolve_config(None).run == RunConfig().run
    True
    """
    dotted = dict(overrides or {})
    if isinstance(config, RunConfig):
        config = config.model_dump(mode="json")
    if config is None or isinstance(config, str | Path):
        return load_config(Path(config) if config is not None else None, dotted)
    flat = {f"{section}.{key}": value for section, fields in config.items() for key, value in fields.items()}
    return load_config(None, {**flat, **dotted})


def open_archive(run_dir: str | Path) -> Archive:
    """The archive of an existing run (every environment, its verdict and results); close it after
    use, or use it in a ``with`` block.

    Raises:
        ArchiveError: ``run_dir`` holds no archive.
    """
    return Archive.open(Path(run_dir), create=False)


__all__ = ["ConfigSource", "open_archive", "open_env", "resolve_config", "run_self_play", "validate_source"]
