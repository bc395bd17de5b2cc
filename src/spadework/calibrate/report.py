"""A calibration's output: one JSON file (the shape below) and rich tables of it.

::

    {"created_at": ISO time, "policy": {"name", "spec"}, "seeds": [...], "plays": K,
     "isolation": "namespaces" | "rlimits" | "none", "rollout": {RolloutConfig},
     "environments": [{"name", "path", "kind", "expected", "screening", "valid", "reason",
                       "failed_check", "scores": {"nohint": [...], "hint": [...]} | null, "env_errors",
                       "chance", "calls", "voided": REASON | null,
                       # only when played:
                       "solve_rate_nohint", "solve_rate_hint", "regret", "regret_low", "regret_high",
                       "estimate": {"plays", "mean_diff", "low", "high", "confidence"},
                       "designer_score": {"regret", "regret_low", "win_rate", "plateau", "micro_lp",
                                          "frontier", "blend", "masked"}}],
     "summary": {"ranked", "spearman": {"rho", "p_value", "n", "meaning", "low", "high"},
                 "rewards": {VARIANT: {"rho", "p_value", "n", "meaning", "low", "high"}},
                 "separation": {"reached", "k", "plays", "text", "frontier": ESTIMATE | null,
                                "easy": ESTIMATE | null},
                 "leaks_caught": [names], "leaks_missed": [names], "rejected": [names]}}

``kind`` is the file name's prefix (``easy``, ``frontier``, ``impossible``, ``leaking``, or
``unranked``); ``expected`` its score in the expected order (1, 0, 0, null, null); ``screening`` the
verdict read against the kind (``valid``, ``rejected``, ``leak caught``, ``LEAK MISSED``); ``scores``
per seed in seed order; ``env_errors`` the episodes whose environment failed while played (scored
0); ``voided`` why the play audit voided its plays, as the loop voids them (then ``regret`` and its
interval are 0, ``estimate`` and ``designer_score`` null, and it is not ranked);
``regret_low``/``regret_high`` the regret's 95% interval (clipped at 0); ``designer_score`` every
component of what the environment would earn its designer (``spadework.rewards.designer``), its plays
read as one step; ``rewards`` Spearman's rho, with its 95% interval, of each designer reward a
calibration can rank (regret, regret_lcb, plateau, blend) against the expected order.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from spadework.calibrate.records import Calibration, EnvResult, Kind, Screening
from spadework.calibrate.stats import RankCorrelation
from spadework.rollout import RolloutConfig

CALIBRATION_DIR = "calibration"
"""Where a run keeps its calibration reports (``RUN_DIR/calibration/*.json``); its report reads them."""

SCREENING_STYLE = {Screening.VALID: "green", Screening.REJECTED: "yellow", Screening.LEAK_CAUGHT: "green",
                   Screening.LEAK_MISSED: "bold red"}


def report_json(calibration: Calibration, policy: tuple[str, str], rollout: RolloutConfig,
                created_at: str) -> dict[str, Any]:
    """The whole report (see the module).

    Args:
        calibration: what was found.
        policy: the policy's name and its ``--policy`` text.
        rollout: the settings the episodes were played with.
        created_at: an ISO time.
    """
    return {
        "created_at": created_at,
        "policy": {"name": policy[0], "spec": policy[1]},
        "seeds": list(calibration.seeds),
        "plays": len(calibration.seeds),
        "isolation": calibration.isolation,
        "rollout": rollout.to_json(),
        "environments": [r.to_json(calibration.blend) for r in calibration.results],
        "summary": calibration.summary_json(),
    }


def _regret_cells(result: EnvResult) -> list[str | Text]:
    """Solve rates per arm, then the regret and its interval (a voided design: 0, and why)."""
    if result.scores is None:
        return ["–"] * 4
    rates: list[str | Text] = [f"{result.scores.solve_rate(hinted=hinted):.2f}" for hinted in (False, True)]
    if result.voided is not None:
        return [*rates, Text("0 (void)", style="red"), Text(result.voided[:60])]
    estimate = result.scores.estimate()
    interval = Text(f"[{estimate.regret_low:.2f}, {estimate.regret_high:.2f}]")
    return [*rates, f"{estimate.regret:.2f}", interval]


def regret_table(calibration: Calibration) -> Table:
    """Per environment: kind, the validator's word, solve rates per arm, regret and its interval."""
    table = Table(title=f"Calibration: regret on {len(calibration.seeds)} paired seeds (95% interval)")
    for column in ("environment", "kind", "validator", "solved, no hint", "solved, hint", "regret",
                   "95% interval"):
        numeric = column not in ("environment", "kind", "validator")
        table.add_column(column, justify="right" if numeric else "left", overflow="fold")
    order = list(Kind)
    for result in sorted(calibration.results, key=lambda r: (order.index(r.kind), r.name)):
        screening = Text(result.screening.value, style=SCREENING_STYLE[result.screening])
        table.add_row(Text(result.name), result.kind.value, screening, *_regret_cells(result))
    return table


def rejected_table(calibration: Calibration) -> Table | None:
    """The files the validator rejected, with the reason; None when it rejected none."""
    rejected = [r for r in calibration.results if not r.screening.played]
    if not rejected:
        return None
    table = Table(title="Rejected by the validator (a leaking file rejected is a pass)")
    for column in ("environment", "kind", "validator", "reason"):
        table.add_column(column, overflow="fold")
    for result in rejected:
        screening = Text(result.screening.value, style=SCREENING_STYLE[result.screening])
        table.add_row(Text(result.name), result.kind.value, screening, Text(result.reason))
    return table


SIGNIFICANCE = 0.05
"""The p-value under which rho's sign is read as a finding."""


def summary_lines(calibration: Calibration) -> list[Text]:
    """The findings in words: missed leaks (loudly), the rank correlation and the separation."""
    lines = [Text(f"LEAK MISSED: the validator accepted {r.name}, whose hint or puzzle gives the answer "
                  "away; it was played but not ranked", style="bold red")
             for r in calibration.with_screening(Screening.LEAK_MISSED)]
    rho = calibration.correlation()
    if rho.rho is None or rho.p_value is None:  # the two are None together (RankCorrelation)
        lines.append(Text(f"Spearman's rho: undefined over {rho.n} ranked environments (every regret, or "
                          "every expected score, the same)"))
    else:
        lines.append(Text(f"Spearman's rho (regret against the expected order, {rho.n} environments): "
                          f"{rho.rho:+.2f} (p = {rho.p_value:.3f}); {_rho_word(rho.rho, rho.p_value)}"))
    lines.append(Text(f"Frontier above easy at 95%: {calibration.separation().describe()}"))
    lines.append(Text("Designer rewards against the expected order: " + "; ".join(
        f"{variant.value} {_rho_text(rho)}" for variant, rho in calibration.correlations().items())))
    return lines


def _rho_text(rho: RankCorrelation) -> str:
    """Rho with its interval, in a few characters.

    >>> _rho_text(RankCorrelation(0.5, 0.1, 12)), _rho_text(RankCorrelation(None, None, 2))
    ('+0.50 [-0.12, +0.84]', 'undefined')
    """
    if rho.rho is None:
        return "undefined"
    interval = rho.interval
    return f"{rho.rho:+.2f}" + ("" if interval is None else f" [{interval[0]:+.2f}, {interval[1]:+.2f}]")


def _rho_word(rho: float, p_value: float = 0.0) -> str:
    """What rho says: its sign, when it is significant at the 5% level.

    >>> _rho_word(-0.5), _rho_word(-0.05, p_value=0.9)
    ('regret ranks them the wrong way round', 'no relation these environments can show (not significant)')
    >>> _rho_word(0.0)
    'no relation between regret and the expected order'
    """
    if rho != 0 and p_value >= SIGNIFICANCE:
        return "no relation these environments can show (not significant)"
    if rho > 0:
        return "regret ranks frontier environments above easy and impossible ones, as it should"
    if rho < 0:
        return "regret ranks them the wrong way round"
    return "no relation between regret and the expected order"
