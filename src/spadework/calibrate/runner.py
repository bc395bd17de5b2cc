"""Validating and playing a calibration set: ``calibrate``, the library function behind the command.

Every file is validated in the sandbox; every one the validator accepts is played on the same
K seeds (from a range no run uses: ``CALIBRATION_SEED_START`` on) in both arms, all episodes
together through ``run_plays``, as the loop plays (its agent's turn cap, context and sampling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from spadework.calibrate.climb import climb
from spadework.calibrate.records import Calibration, EnvResult, Kind, Screening
from spadework.calibrate.stats import PairedScores
from spadework.config import RunConfig
from spadework.difficulty import DifficultySettings
from spadework.engines import rollout_config, sampling
from spadework.errors import UsageError
from spadework.policy.base import Policy
from spadework.rewards import REFERENCE_BLEND, BlendSettings
from spadework.rollout import Arm, EndReason, Episode, PlayJob, RolloutConfig, run_plays
from spadework.rollout.audit import void_reason
from spadework.rollout.calls import call_metrics
from spadework.sandbox import SandboxProtocol
from spadework.validate import Verdict, read_source, validate
from spadework.validate.checks import ValidatorConfig
from spadework.validate.parse import extract_code

BUNDLED_DIR = Path(__file__).resolve().parent / "envs"
"""The bundled calibration set: ``easy_*``, ``frontier_*``, ``impossible_*`` and ``leaking_*`` files."""

CALIBRATION_SEED_START = 10_000
"""The first calibration seed: far from the validator's seeds (0, 1, 2...) and a run's first ones."""

DEFAULT_PLAYS = 4
"""Paired seeds per environment by default."""


@dataclass(frozen=True)
class CalibrationFile:
    """One environment file to calibrate with.

    Attributes:
        path: the file as given.
        kind: from its name's prefix.
        text: its content.
        is_reply: whether it is a designer reply (not a ``.py`` module).
    """

    path: Path
    kind: Kind
    text: str
    is_reply: bool = False

    @property
    def code(self) -> str:
        """The module to play: the reply's code block for a reply (only valid files are played)."""
        return extract_code(self.text) if self.is_reply else self.text


def bundled_paths() -> tuple[Path, ...]:
    """The bundled calibration files, sorted by name."""
    return tuple(sorted(BUNDLED_DIR.glob("*.py")))


def _files_under(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.glob("*.py") if p.name != "__init__.py")
        if not found:
            raise UsageError(f"{path}: a folder with no environment files (*.py); give files or folders "
                             "that hold them")
        return found
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder; give environment files or folders of them")
    return [path]


def load_files(paths: Sequence[Path]) -> tuple[CalibrationFile, ...]:
    """The environment files that ``paths`` name: files as given, folders' ``*.py`` files by name,
    each once; the bundled set when ``paths`` is empty.

    Raises:
        UsageError: a path that does not exist, a folder without ``*.py`` files, an unreadable file.
    """
    found = [p for path in (paths or bundled_paths()) for p in _files_under(Path(path))]
    if not found:
        raise UsageError(f"no calibration files in {BUNDLED_DIR}; is the package installed whole?")
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    files = []
    for path in unique.values():
        text, is_reply = read_source(path)
        files.append(CalibrationFile(path, Kind.of_path(path), text, is_reply))
    return tuple(files)


def calibration_rollout(config: RunConfig) -> RolloutConfig:
    """Rollout settings as the loop plays: the config's ``[agent]`` turn cap, context budget,
    concurrency, hint style and sampling, seeded by ``run.seed``.

    >>> from spadework.config import load_config
    >>> rollout = calibration_rollout(load_config(None))
    >>> rollout.max_turns_cap, rollout.sampling.temperature, rollout.context_tokens
    (6, 0.7, 3072)
    """
    return rollout_config(config.agent, sampling(config.agent.sampling, seed=config.run.seed))


def screen(file: CalibrationFile, sandbox: SandboxProtocol, levels: bool = False) -> EnvResult:
    """Validate one file (every difficulty it declares, with ``levels``) and read the verdict
    against its kind (not yet played)."""
    verdict: Verdict = validate(file.text, sandbox, ValidatorConfig(levels=levels), is_reply=file.is_reply)
    failed = verdict.failure
    return EnvResult(file.path, file.kind, Screening.of(file.kind, verdict.valid), verdict.reason,
                     failed.name if failed is not None else None, chance=verdict.chance or 0.0,
                     difficulties=verdict.difficulties)


def _played(result: EnvResult, episodes: Sequence[Episode], env_id: str, seeds: Sequence[int]) -> EnvResult:
    """``result`` with the scores of its episodes (``env_id``) in seed order, their errors, and the
    audit's verdict on them (``void_reason``, as the loop reads it)."""
    mine = [e for e in episodes if e.env_id == env_id]
    score = {(e.seed, e.arm): e.score for e in mine}
    scores = PairedScores(tuple(score[(s, Arm.HINT)] for s in seeds),
                          tuple(score[(s, Arm.NOHINT)] for s in seeds))
    return replace(result, scores=scores, env_errors=sum(1 for e in mine if e.end is EndReason.ENV_ERROR),
                   calls=call_rates(mine), voided=void_reason(mine))


def calibrate(
    files: Sequence[CalibrationFile],
    policy: Policy,
    sandbox: SandboxProtocol,
    rollout: RolloutConfig,
    seeds: Sequence[int],
    blend: BlendSettings = REFERENCE_BLEND,
    controller: DifficultySettings | None = None,
    rounds: int = 0,
) -> Calibration:
    """Validate every file, play the valid ones on ``seeds`` in both arms, and collect the results.
    With a ``controller`` that is on, each valid one first climbs for ``rounds`` rounds
    (``calibrate.climb``) and its paired plays are at the level it reached.

    Args:
        files: what to calibrate with (``load_files``).
        policy: the agent.
        sandbox: validates and opens the environments (``Sandbox``; ``InProcessSandbox`` in tests).
        rollout: turn cap, context, concurrency and sampling (``calibration_rollout``).
        seeds: the paired seeds, the same in both arms and for every environment.
        blend: the blend's settings the designer rewards are scored with (``[rewards.blend]``).
        controller: the difficulty controller (``[difficulty]``); None or off: every file at its own.
        rounds: the controller's rounds of no-hint plays before the paired plays.

    Returns:
        The results in file order, the seeds and the sandbox's isolation.

    Raises:
        UsageError: no seeds.
        PolicyError: the policy failed.
    """
    seeds = tuple(dict.fromkeys(int(s) for s in seeds))
    if not seeds:
        raise UsageError("calibration needs at least one paired seed; give --plays 1 or more")
    on = controller is not None and controller.on
    screened = [screen(file, sandbox, levels=on) for file in files]
    played = {str(index): (file.code, result.difficulties)
              for index, (file, result) in enumerate(zip(files, screened, strict=True))
              if result.screening.played}
    climbs = climb(played, policy, sandbox, rollout, controller, rounds, seeds[0], blend) \
        if on and controller is not None and played else {}
    screened = [replace(result, climb=climbs.get(str(index))) for index, result in enumerate(screened)]
    jobs = [PlayJob(key, code, seed, arm, difficulty=climbs[key].standing.level if key in climbs else None)
            for key, (code, _) in played.items() for seed in seeds for arm in Arm]
    episodes = run_plays(policy, sandbox, jobs, rollout) if jobs else []
    results = tuple(_played(result, episodes, str(index), seeds) if result.screening.played else result
                    for index, result in enumerate(screened))
    return Calibration(results, seeds, sandbox.isolation.value, blend, call_rates(episodes))


def call_rates(episodes: Sequence[Episode]) -> dict[str, float]:
    """``call_metrics`` of the episodes, named without their ``rollout/`` prefix."""
    return {name.removeprefix("rollout/"): value for name, value in call_metrics(episodes).items()}
