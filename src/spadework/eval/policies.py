"""Which policy an evaluation plays: ``base``, a run, or one checkpoint of a run.

Specs, as ``--policy`` takes them:

- ``base``: the policy of the default config, or of ``--config FILE``, without an adapter.
- ``RUN_DIR``: the policy of that run's ``config.toml`` with the LoRA adapter of its newest
  complete checkpoint (its warm start's when no iteration has one yet); a run that did not train
  has none, and plays its own model as it is (named ``<run>/untrained``).
- ``RUN_DIR/checkpoints/latest``: the same, but a run without a checkpoint is an error.
- ``RUN_DIR/checkpoints/iteration-NNNN``: the same with that checkpoint's adapter.
- ``RUN_DIR/checkpoints/warm-start``: the same with the adapter of the run's supervised warm start
  (``[learn] warm_start``), taken before its first iteration.

- ``RUN_DIR/checkpoints/start``: the same with the adapter the run began from (``[learn]
  init_adapter``): the run's own copy when it kept one, else the folder its config names.

An adapter reaches the embedded llama.cpp engine as the checkpoint's GGUF LoRA adapter
(``adapter.gguf``, which a training run with the embedded policy writes; when it is missing, as in
the checkpoints committed under ``results/``, it is written from the PEFT adapter folder beside it,
in a second and without the base model) and ``EmbeddedPolicy.load_adapter``. The scripted fake
takes no adapter. Checkpoints of runs whose policy is ``openai`` or ``hf`` are not supported here
(see ``ADAPTER_KINDS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from spadework.config import CONFIG_FILE, RunConfig, load_config
from spadework.engines import open_sandbox, policy_settings
from spadework.errors import UsageError
from spadework.eval.bfcl_play import BfclSettings
from spadework.eval.probe import ProbeOpener
from spadework.eval.report import PolicyEval
from spadework.eval.runner import ItemResult, eval_rollout, evaluate
from spadework.eval.tasks import Suite, TaskSpec, require_packages
from spadework.learn.checkpoint import (
    ADAPTER_DIR,
    ADAPTER_WEIGHTS,
    CHECKPOINTS_DIR,
    GGUF_ADAPTER,
    LATEST,
    NAME,
    START,
    WARM_START,
    checkpoints,
    latest_checkpoint,
    named_folder,
    start_source,
)
from spadework.policy.base import Policy
from spadework.policy.settings import PolicyKind, PolicySettings, build_policy

BASE = "base"
UNTRAINED = "untrained"

ADAPTER_KINDS = frozenset({PolicyKind.EMBEDDED, PolicyKind.SCRIPTED})
"""Policy kinds whose checkpoints can be evaluated. For ``openai``, load the checkpoint's
``adapter/`` folder into the server and evaluate ``base`` with a ``--config`` naming it; ``hf``
checkpoints are not loaded here."""


class PolicySource(Enum):
    """Where a policy's weights come from."""

    BASE = "base"
    CHECKPOINT = "checkpoint"


@dataclass(frozen=True)
class PolicySpec:
    """A policy to evaluate.

    Attributes:
        name: its name in results (``base``, or ``<run>/<checkpoint>``).
        spec: the ``--policy`` text as given.
        source: base weights, or a run's checkpoint.
        config: the config whose ``[policy]`` section builds it.
        run_dir: the run, for a checkpoint.
        checkpoint: the checkpoint folder, for a checkpoint.
    """

    name: str
    spec: str
    source: PolicySource
    config: RunConfig
    run_dir: Path | None = None
    checkpoint: Path | None = None


def _run_and_checkpoint(path: Path) -> tuple[Path, Path | None]:
    """The run directory a path names, and the checkpoint it asks for (None: the newest)."""
    if path.parent.name == CHECKPOINTS_DIR and path.name == LATEST:
        return path.parent.parent, None
    if path.parent.name == CHECKPOINTS_DIR and (NAME.match(path.name) or path.name in (WARM_START, START)):
        return path.parent.parent, path
    return path, None


def _checkpoint(run_dir: Path, asked: Path | None, config: RunConfig) -> Path:
    """The checkpoint folder to load: ``asked``, or the newest complete one. The run's start is
    its own copy, or the ``init_adapter`` folder its config names when it kept none."""
    found = checkpoints(run_dir)
    have = ", ".join(p.name for p in found.values()) or "none"
    if asked is not None and asked.name == START and config.learn.init_adapter:
        asked = start_source(run_dir, config.learn.init_adapter)
    if asked is not None:
        if not asked.is_dir():
            raise UsageError(f"{asked}: no such checkpoint; {run_dir} has: {have}")
        return asked
    newest = _newest(run_dir)
    if newest is None:
        raise UsageError(f"{run_dir} has no checkpoint (a run writes them with --train); "
                         "evaluate --policy base, or train the run first")
    return newest


def _newest(run_dir: Path) -> Path | None:
    """The newest complete checkpoint of an iteration, else the warm start's, else the start's
    (``learn.init_adapter``), else None."""
    named = [named_folder(run_dir, WARM_START), named_folder(run_dir, START)]
    return latest_checkpoint(run_dir) or next((folder for folder in named if folder.is_dir()), None)


def parse_policy_spec(text: str, config_file: Path | None = None) -> PolicySpec:
    """The policy a ``--policy`` spec names (see the module).

    Args:
        text: ``base``, a run directory, or a checkpoint path.
        config_file: the config of ``base`` (default: built-in defaults); runs use their own.

    Raises:
        UsageError: no such run directory, no ``config.toml`` in it, or no such checkpoint.
        ConfigError: the config is invalid.
    """
    if text == BASE:
        return PolicySpec(BASE, text, PolicySource.BASE, load_config(config_file))
    run_dir, asked = _run_and_checkpoint(Path(text))
    if not run_dir.is_dir():
        raise UsageError(f"--policy {text}: no run directory {run_dir}; give 'base', RUN_DIR, "
                         "RUN_DIR/checkpoints/latest, RUN_DIR/checkpoints/iteration-NNNN, "
                         "RUN_DIR/checkpoints/warm-start or RUN_DIR/checkpoints/start")
    if not (run_dir / CONFIG_FILE).is_file():
        raise UsageError(f"--policy {text}: {run_dir} has no {CONFIG_FILE}; is it a run directory?")
    config = load_config(run_dir / CONFIG_FILE)
    if asked is None and Path(text).resolve() == run_dir.resolve() and _newest(run_dir) is None:
        return PolicySpec(f"{run_dir.name}/{UNTRAINED}", text, PolicySource.BASE, config, run_dir)
    checkpoint = _checkpoint(run_dir, asked, config)
    return PolicySpec(f"{run_dir.name}/{(asked or checkpoint).name}", text, PolicySource.CHECKPOINT, config,
                      run_dir, checkpoint)


def distinct_names(specs: Sequence[PolicySpec]) -> tuple[PolicySpec, ...]:
    """The specs with repeated names made distinct (``base``, ``base#2``)."""
    seen: dict[str, int] = {}
    named = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        count = seen[spec.name]
        named.append(spec if count == 1 else replace(spec, name=f"{spec.name}#{count}"))
    return tuple(named)


def checkpoint_adapter(checkpoint: Path) -> Path:
    """The checkpoint's GGUF LoRA adapter, written from its PEFT adapter folder when missing
    (``adapter.gguf`` beside it, as a training run writes it; git ignores it under ``results/``).

    Raises:
        UsageError: the checkpoint has neither adapter, or the conversion's packages are missing.
        ConfigError: the PEFT adapter is not one llama.cpp can apply.
    """
    path = checkpoint / GGUF_ADAPTER
    if path.is_file():
        return path
    folder = checkpoint / ADAPTER_DIR
    if not (folder / "adapter_config.json").is_file() or not (folder / ADAPTER_WEIGHTS).is_file():
        raise UsageError(f"{checkpoint} has no LoRA adapter ({GGUF_ADAPTER}, or {ADAPTER_DIR}/ with "
                         f"adapter_config.json and {ADAPTER_WEIGHTS}); is it a complete checkpoint of a "
                         "run with --train?")
    try:
        import gguf  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError:
        raise UsageError(f"{checkpoint} has no {GGUF_ADAPTER}; writing it from {ADAPTER_DIR}/ needs the "
                         "gguf and safetensors packages: pip install 'spadework[embedded]'") from None
    from spadework.learn.gguf_lora import export_adapter_folder

    return export_adapter_folder(folder, path)


def load_eval_policy(
    spec: PolicySpec, build: Callable[[PolicySettings], Policy] = build_policy
) -> Policy:
    """Build the policy of ``spec``, with its checkpoint's adapter loaded.

    Args:
        spec: what to build.
        build: the backend constructor (a fake in tests).

    Raises:
        UsageError: a checkpoint of a policy kind not in ``ADAPTER_KINDS``, or no adapter in it.
        PolicyError: the backend or the adapter does not load.
    """
    kind = spec.config.policy.kind
    if spec.checkpoint is not None and kind not in ADAPTER_KINDS:
        raise UsageError(f"--policy {spec.spec}: evaluating checkpoints of policy.kind = '{kind.value}' is "
                         f"not supported (only {', '.join(sorted(k.value for k in ADAPTER_KINDS))}); load "
                         f"{spec.checkpoint / ADAPTER_DIR} into your server and evaluate --policy base "
                         "with a --config that names it")
    policy = build(policy_settings(spec.config))
    if spec.checkpoint is None or kind is PolicyKind.SCRIPTED:
        return policy
    try:
        policy.load_adapter(checkpoint_adapter(spec.checkpoint))  # type: ignore[attr-defined]
    except BaseException:
        policy.close()
        raise
    return policy


def play_policy(spec: PolicySpec, tasks: Sequence[TaskSpec], seeds: Sequence[int],
                build: Callable[[PolicySettings], Policy] = build_policy,
                on_item: Callable[[ItemResult], None] | None = None,
                done: Mapping[tuple[str, int], ItemResult] | None = None) -> PolicyEval:
    """Build ``spec``'s policy, play every (task, seed) item not ``done`` with its config's rollout
    settings (``eval_rollout``), and close the policy; ``on_item`` hears of each item when it is
    scored (``evaluate``)."""
    section = spec.config.eval
    if any(t.suite is Suite.BFCL for t in tasks):  # an entry's function docs alone are 4k-9k tokens
        spec = replace(spec, config=with_context(spec.config, section.bfcl_n_ctx))
    policy = load_eval_policy(spec, build)
    bfcl = BfclSettings(section.bfcl_format, section.bfcl_max_steps)
    try:
        with ExitStack() as stack:
            opener = None
            if any(t.suite in (Suite.PROBE, Suite.CODE) for t in tasks):  # unreviewed code: the sandbox
                require_packages(tasks)
                opener = ProbeOpener(tasks, stack.enter_context(open_sandbox(spec.config)))
            result = evaluate(policy, tasks, seeds, eval_rollout(spec.config), opener, bfcl=bfcl,
                              on_item=on_item, done=done)
    finally:
        policy.close()
    return PolicyEval(spec.name, spec.spec, result)


def with_context(config: RunConfig, n_ctx: int) -> RunConfig:
    """``config`` with the embedded model's context window at least ``n_ctx``.

    >>> from spadework.config import load_config
    >>> with_context(load_config(None), 32768).policy.n_ctx
    32768
    """
    if config.policy.n_ctx >= n_ctx:
        return config
    return config.model_copy(update={"policy": config.policy.model_copy(update={"n_ctx": n_ctx})})
