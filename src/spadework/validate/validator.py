"""Running the checks in order and turning their outcomes into a ``Verdict``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from spadework.errors import CheckFailed, CheckOff, EnvError, UsageError
from spadework.sandbox import SandboxProtocol
from spadework.validate.checks import CHECKS, Check, CheckContext, ValidatorConfig
from spadework.validate.levels import climb
from spadework.validate.parse import ReplyCode
from spadework.validate.verdict import CheckResult, Outcome, Verdict


def run_check(check: Check, ctx: CheckContext) -> CheckResult:
    """Run one check; an environment that misbehaves during it fails the check, with why. A check that
    does not apply to the design says so (``CheckOff``) and is recorded ``off``, not ``passed``."""
    start = time.perf_counter()
    try:
        check.run(ctx)
        outcome, message = Outcome.PASSED, ""
    except CheckOff as exc:
        outcome, message = Outcome.OFF, str(exc)
    except CheckFailed as exc:
        outcome, message = Outcome.FAILED, str(exc)
    except EnvError as exc:
        outcome, message = Outcome.FAILED, str(exc)
    return CheckResult(check.name, outcome, message, time.perf_counter() - start)


def validate(
    text: str,
    sandbox: SandboxProtocol,
    config: ValidatorConfig | None = None,
    *,
    is_reply: bool = False,
    checks: Sequence[Check] = CHECKS,
    extracted: ReplyCode | None = None,
) -> Verdict:
    """Validate environment source (or a designer reply) and say why it is or is not valid.

    Checks run in order; after the first failure the rest are skipped. The
    environment's worker is always closed before returning.

    Args:
        text: the environment's source, or a designer reply with ``is_reply``.
        sandbox: where the environment is loaded and played.
        config: the validator's settings; its default when None.
        is_reply: ``text`` is a reply: its one Python code block is validated.
        checks: the checks, in order.
        extracted: the reply's code block when the caller already extracted it
            (``ReplyCode.of(text)``), so it is not extracted again; only with ``is_reply``.

    Raises:
        ValueError: ``extracted`` is given for a module (``is_reply`` is False).
    """
    if extracted is not None and not is_reply:
        raise ValueError("validate: `extracted` is a reply's code block; pass is_reply=True with it, "
                         "or leave it out for a module")
    config = config or ValidatorConfig()
    first, ctx = _validate_at(CheckContext(text, sandbox, config, is_reply=is_reply, extracted=extracted,
                                           difficulty=1 if config.levels else None), checks)
    if not config.levels:
        return first

    def at(level: int) -> tuple[Verdict, CheckContext]:
        return _validate_at(CheckContext(ctx.code or "", sandbox, config, difficulty=level), checks)

    return climb(first, ctx, ctx.declared, at)


def _validate_at(ctx: CheckContext, checks: Sequence[Check]) -> tuple[Verdict, CheckContext]:
    """The checks in order on ``ctx``'s environment (the rest skipped after a failure), its worker
    closed; the verdict and the context they filled."""
    start = time.perf_counter()
    results: list[CheckResult] = []
    failed: CheckResult | None = None
    try:
        for check in checks:
            if failed is not None:
                results.append(CheckResult(check.name, Outcome.SKIPPED,
                                           f"skipped: '{failed.name}' did not pass"))
                continue
            results.append(run_check(check, ctx))
            failed = None if results[-1].ok else results[-1]
    finally:
        if ctx.env is not None:
            ctx.declared = getattr(ctx.env, "difficulties", 1)
            ctx.env.close()
    first = ctx.episodes.get(ctx.config.seeds[0])
    verdict = Verdict(
        checks=tuple(results),
        isolation=ctx.sandbox.isolation.value,
        tolerances=tuple(ctx.env.tolerances) if ctx.env is not None else (),
        class_name=ctx.class_name,
        hint=first.hint if first is not None else None,
        seconds=time.perf_counter() - start,
        chance=ctx.chance if failed is None else None,
    )
    return verdict, ctx


def read_source(path: Path) -> tuple[str, bool]:
    """A file's text, and whether it is a designer reply (anything but a ``.py`` file).

    Raises:
        UsageError: the file is missing, unreadable or not text.
    """
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if not path.is_file():
        raise UsageError(f"{path}: not a file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file; give a Python module or a reply") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None
    return text, path.suffix != ".py"
