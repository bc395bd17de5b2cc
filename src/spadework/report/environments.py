"""The ``environments`` section: a sortable table of every archived environment and, per row,
a detail panel with its code, hint, verdict, scores and one sample transcript per arm.

Environment code and transcripts are untrusted: every piece goes through ``esc``. Long texts
are cut (with a note) and a large run keeps full details for a bounded number of environments,
so the page stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.archive import DesignResult, EnvRecord
from spadework.envs.tool_schema import signature_lines
from spadework.report.rundata import EnvRow, ci_confidence, fetch_records, number
from spadework.report.shell import Section, empty, esc, percent, table
from spadework.rewards import RegretEstimate


@dataclass(frozen=True)
class Limits:
    """Bounds that keep the page small for large runs.

    Attributes:
        max_rows: table rows (the most recent environments are kept).
        max_details: environments with a detail panel.
        max_code_chars: characters of code shown per environment.
        max_message_chars: characters shown per transcript message.
        max_messages: messages shown per transcript.
    """

    max_rows: int = 2000
    max_details: int = 200
    max_code_chars: int = 12_000
    max_message_chars: int = 2_000
    max_messages: int = 16


DEFAULT_LIMITS = Limits()

INTERVAL_COLUMN = "regret CI"
"""The interval column's header; ``interval_label`` names its confidence when the rows share one."""
COLUMNS = (("id", "number"), ("iteration", "number"), ("design", "text"), ("class", "text"),
           ("valid", "text"), ("reason", "text"), ("regret", "number"), (INTERVAL_COLUMN, "number"),
           ("solved, no hint", "number"), ("solved, hint", "number"))
INTERVAL_METHOD = "paired differences, Agresti-Min adjusted"
"""How the regret's interval is computed, in a few words (``spadework.rewards.interval``)."""


def confidence_label(confidence: float | None) -> str:
    """A confidence as a percentage ("" when unknown).

    >>> confidence_label(0.95), confidence_label(0.9), confidence_label(0.975), confidence_label(None)
    ('95%', '90%', '97.5%', '')
    """
    return "" if confidence is None else f"{100 * confidence:g}%"


def interval_label(rows: Sequence[EnvRow]) -> str:
    """The interval column's header: with its confidence when every interval shares one.

    >>> from dataclasses import replace
    >>> row = EnvRow(1, 0, "d", 1, True, "E", True, "valid", None, 0.5, 0.0, 0.5, 0.0, 0.9, 0.95)
    >>> interval_label([row]), interval_label([row, replace(row, confidence=0.8)]), interval_label([])
    ('regret 95% CI', 'regret CI', 'regret CI')
    """
    levels = {r.confidence for r in rows if r.confidence is not None}
    return f"regret {confidence_label(levels.pop())} CI" if len(levels) == 1 else INTERVAL_COLUMN


def interval_text(estimate: RegretEstimate | None) -> str:
    """The archived regret interval in words: ends, plays and method ("" for records without one).

    >>> interval_text(RegretEstimate(2, 0.5, -0.4, 0.9))
    '95% interval [0.00, 0.90] over 2 paired plays (paired differences, Agresti-Min adjusted)'
    >>> interval_text(None)
    ''
    """
    if estimate is None:
        return ""
    low, high = number(estimate.regret_low), number(estimate.regret_high)
    if low is None or high is None:
        return ""
    level = confidence_label(ci_confidence(estimate))
    over = f"over {estimate.plays:g} paired plays"
    return f"{level} interval [{low:.2f}, {high:.2f}] {over} ({INTERVAL_METHOD})".lstrip()


def detail_ids(rows: Sequence[EnvRow], cap: int) -> list[int]:
    """Which environments get a detail panel: all when few; else the half of ``cap`` with the
    highest regret, then the most recent ones.

    >>> rows = [EnvRow(i, 0, "d", 1, True, "E", True, "valid", None, (7 - i) / 10, None, None)
    ...         for i in range(1, 7)]
    >>> detail_ids(rows, 10), detail_ids(rows, 4)
    ([1, 2, 3, 4, 5, 6], [1, 2, 5, 6])
    """
    if len(rows) <= cap:
        return [r.id for r in rows]
    scored = sorted((r for r in rows if r.valid and r.regret is not None),
                    key=lambda r: (-(r.regret or 0), -r.id))
    chosen = [r.id for r in scored[: cap // 2]]
    taken = set(chosen)
    for row in sorted(rows, key=lambda r: -r.id):
        if len(chosen) >= cap:
            break
        if row.id not in taken:
            chosen.append(row.id)
            taken.add(row.id)
    return sorted(chosen)


def cut(text: str, limit: int) -> tuple[str, str]:
    """``text`` cut to ``limit`` characters, and a note saying what was left out ("" when nothing).

    >>> cut("abcdef", 4)
    ('abcd', '2 more characters not shown')
    >>> cut("ab", 4)
    ('ab', '')
    """
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"{len(text) - limit} more characters not shown"


def _cell(value: str, sort: object = None, css: str = "", title: str = "") -> str:
    attrs = "" if sort is None else f' data-sort="{esc(sort)}"'
    attrs += f' class="{css}"' if css else ""
    attrs += f' title="{esc(title)}"' if title else ""
    return f"<td{attrs}>{value}</td>"


def _sort_value(value: float | None) -> object:
    return "" if value is None else value


def _interval_cell(row: EnvRow) -> str:
    """The regret's interval, sorted by its lower end; empty for records without one."""
    if row.regret_low is None or row.regret_high is None:
        return _cell("", "", "num")
    title = f"{confidence_label(row.confidence)} interval of the regret ({INTERVAL_METHOD})".lstrip()
    return _cell(f"[{row.regret_low:.2f}, {row.regret_high:.2f}]", row.regret_low, "num", title)


def row_html(row: EnvRow) -> str:
    """One table row; sortable cells carry their raw value in ``data-sort``."""
    pill = '<span class="pill valid">yes</span>' if row.valid else '<span class="pill invalid">no</span>'
    design = f"{row.design_id} a{row.attempt}" if row.attempt is not None else row.design_id
    cells = [
        _cell(str(row.id), row.id, "num"),
        _cell("" if row.iteration is None else str(row.iteration), _sort_value(row.iteration), "num"),
        _cell(esc(design) + (" <span class=\"note\">final</span>" if row.final else "")),
        _cell(esc(row.class_name or "?")),
        _cell(pill, "yes" if row.valid else "no"),
        _cell(esc(row.reason[:160]), row.reason[:160], "reason", row.reason[:600]),
        _cell("" if row.regret is None else f"{row.regret:.2f}", _sort_value(row.regret), "num"),
        _interval_cell(row),
        _cell(percent(row.solve_nohint), _sort_value(row.solve_nohint), "num"),
        _cell(percent(row.solve_hint), _sort_value(row.solve_hint), "num"),
    ]
    return f'<tr class="env-row" data-env="{row.id}" tabindex="0">{"".join(cells)}</tr>'


def env_table(rows: Sequence[EnvRow]) -> str:
    """The sortable table (click a header to sort; click a row to open its details)."""
    numeric = ' class="num"'
    labels = {INTERVAL_COLUMN: interval_label(rows)}
    head = "".join(f'<th data-type="{kind}"{numeric if kind == "number" else ""}>'
                   f"{esc(labels.get(label, label))}</th>" for label, kind in COLUMNS)
    body = "\n".join(row_html(r) for r in rows)
    return (f'<div class="table-box"><table class="sortable" id="env-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table></div>")


def checks_html(record: EnvRecord) -> str:
    """The verdict's checks in order, with outcome, message and time."""
    rows = []
    for check in record.verdict.checks:
        css = "ok" if check.passed else ("bad" if check.outcome.value == "failed" else "note")
        rows.append([esc(check.name), f'<span class="{css}">{esc(check.outcome.value)}</span>',
                     esc(check.message[:1000]), f"{check.seconds:.3f}"])
    tolerances = "".join(f"<li>{esc(t)}</li>" for t in record.tolerances)
    extra = f"<p class=\"note\">tolerated slips:</p><ul>{tolerances}</ul>" if tolerances else ""
    headers = ["check", "outcome", "message", "seconds"]
    return table(headers, rows, numeric=[False, False, False, True]) + extra


def scores_html(design: DesignResult | None) -> str:
    """Per-arm scores on the paired seeds, solve rates, regret and the designer's reward."""
    reward = number(design.designer_reward) if design is not None else None
    play = design.play if design is not None else None
    if play is None:
        return empty("not played (only valid final attempts are played)"
                     + (f"; designer reward {reward:g}" if reward is not None else ""))
    rows = []
    for label, scores, rate in (("no hint", play.scores_nohint, play.solve_rate_nohint),
                                ("hint", play.scores_hint, play.solve_rate_hint)):
        shown = ", ".join(f"{s:.2f}" if number(s) is not None else "?" for s in scores) or "not played"
        rows.append([label, esc(shown), percent(number(rate))])
    regret = number(play.regret)
    interval = interval_text(play.estimate)
    said = f", {esc(interval)}" if interval else ""
    note = (f'<p>regret <strong>{"?" if regret is None else f"{regret:.3f}"}</strong>{said}; '
            f'designer reward {"?" if reward is None else f"{reward:.3f}"}</p>')
    if play.voided:  # a played episode failed its audit: the regret was not paid
        note += f'<p class="bad">voided: {esc(play.voided[:1000])}</p>'
    if design is not None and design.skill:
        note += f"<p>skill: {esc(design.skill)}</p>"
    if design is not None and design.difficulty is not None:
        held = design.difficulty
        note += (f"<p>difficulty: level {held.level} of {held.top} (played at "
                 f"{' → '.join(map(str, held.path))}; {held.plays} no-hint plays)</p>")
    return table(["arm", "scores on the paired seeds", "solved"], rows) + note + score_html(design)


def score_html(design: DesignResult | None) -> str:
    """Every component of the designer's reward over the design's window ("" before it closed).

    >>> from spadework.rewards import DesignerScore
    >>> s = DesignerScore(0.25, 0.0, 0.5, 1.0, 0.0, 0.0, 1.0, False)
    >>> d = DesignResult(0, "d", 1, None, None, True, score=s)
    >>> "plateau" in score_html(d), score_html(DesignResult(0, "d", 1, None, None, True))
    (True, '')
    """
    score = design.score if design is not None else None
    if score is None:
        return ""
    cells = [f"{value:.3f}" for value in (score.regret, score.regret_low, score.win_rate, score.chance,
                                          score.plateau, score.micro_lp, score.frontier, score.blend)]
    headers = ["regret", "regret lcb", "win rate", "chance", "plateau", "micro-LP", "frontier", "blend"]
    masked = '<p class="note">masked: its negative blend was left out of the designer\'s update</p>' \
        if score.masked else ""
    return "<p>designer reward components (its window)</p>" + table(headers, [cells]) + masked


def transcript_html(episode: Any, limits: Limits) -> str:
    """One episode: its outcome, then its messages with their roles (cut to the limits)."""
    if not isinstance(episode, dict):
        return empty("no transcript stored")
    score = number(episode.get("score"))
    head = (f'<p class="note">seed {esc(episode.get("seed", "?"))}; score '
            f'{"?" if score is None else f"{score:.2f}"}; {esc(episode.get("turns", "?"))} turns; '
            f'ended: {esc(episode.get("end", "?"))}</p>')
    if episode.get("error"):
        head += f'<p class="bad">{esc(str(episode["error"])[:1000])}</p>'
    messages = [m for m in episode.get("messages") or [] if isinstance(m, dict)]
    parts = [head]
    tools = signature_lines(episode.get("tools"))
    if tools:  # a tool world: what the agent could call, folded like the system prompt
        parts.append(f'<div class="msg system"><div class="role">tools</div><details><summary>{len(tools)} '
                     f'tools</summary><pre class="wrap">{esc(chr(10).join(tools))}</pre></details></div>')
    for message in messages[: limits.max_messages]:
        role = str(message.get("role", "?"))
        text, note = cut(str(message.get("content", "")), limits.max_message_chars)
        css = role if role in ("system", "user", "assistant", "tool") else "other"
        body = f'<pre class="wrap">{esc(text)}</pre>' + (f'<p class="note">{note}</p>' if note else "")
        if role == "system":  # the same long instructions in every episode: folded
            body = f"<details><summary>system prompt</summary>{body}</details>"
        parts.append(f'<div class="msg {css}"><div class="role">{esc(role)}</div>{body}</div>')
    if len(messages) > limits.max_messages:
        parts.append(f'<p class="note">{len(messages) - limits.max_messages} more messages not shown</p>')
    return "".join(parts)


def detail_html(record: EnvRecord, limits: Limits) -> str:
    """The hidden panel of one environment, shown when its row is clicked."""
    design = record.design
    play = design.play if design is not None else None
    code, code_note = cut(record.source, limits.max_code_chars)
    pill = ('<span class="pill valid">valid</span>' if record.valid
            else '<span class="pill invalid">invalid</span>')
    iteration, attempt = (design.iteration, design.attempt) if design is not None else ("?", "?")
    domain, document = (design.domain, design.document_id) if design is not None else (None, None)
    facts = (f'<p class="note">{esc(record.origin)} · iteration {esc(iteration)} · attempt '
             f'{esc(attempt)} · domain {esc(domain or "none")} · document '
             f'{esc(document or "none")} · created {esc(record.created_at)} · hash '
             f"{esc(record.content_hash[:12])}</p>")
    parts = [f"<h3>#{record.id} {esc(record.class_name or '?')} {pill}</h3>", facts,
             f"<p><strong>reason:</strong> {esc(record.reason)}</p>"]
    if play is not None and play.description:
        parts.append(f'<p><strong>task:</strong> {esc(play.description)}</p>')
    hint = (f'<pre class="wrap">{esc(record.hint)}</pre>' if record.hint
            else empty("no hint (the environment did not get that far)"))
    parts.append("<h4>Hint (first validation seed)</h4>" + hint)
    parts.append("<h4>Scores</h4>" + scores_html(design))
    parts.append("<h4>Verdict</h4>" + checks_html(record))
    parts.append("<h4>Code</h4>" + f"<pre>{esc(code)}</pre>"
                 + (f'<p class="note">{code_note}; see `spadework archive show RUN_DIR {record.id}`</p>'
                    if code_note else ""))
    if play is not None:
        arms = "".join(f"<div><h4>Transcript, {label}</h4>"
                       f"{transcript_html(play.transcripts.get(key), limits)}</div>"
                       for key, label in (("nohint", "no hint"), ("hint", "with hint")))
        parts.append(f'<div class="transcripts">{arms}</div>')
    return (f'<div class="env-detail" id="env-{record.id}" hidden>' + "\n".join(parts) + "</div>")


def environments_section(run_dir: Path, rows: Sequence[EnvRow], limits: Limits = DEFAULT_LIMITS,
                         total: int | None = None) -> Section:
    """The ``environments`` section: the table (a sample: the newest ``limits.max_rows`` of the
    ``total`` archived, all of ``rows`` by default), then one hidden detail panel per kept environment."""
    title = "Environments"
    if not rows:
        return Section("environments", title, empty("no environments archived yet"))
    total = len(rows) if total is None else total
    shown = sorted(rows, key=lambda r: r.id)[-limits.max_rows:]
    ids = detail_ids(shown, limits.max_details)
    records = fetch_records(run_dir, ids)
    note = (f'<p class="note">{total} environments (every attempt of every design). Click a header to '
            "sort, a row to see its code, hint, verdict and transcripts.")
    if len(shown) < total:
        note += (f" The table keeps the {len(shown)} most recent; `spadework archive ls RUN_DIR --page N` "
                 "pages through all.")
    if len(ids) < len(shown):
        note += (f" Details are kept for {len(ids)} of them (highest regret, then most recent); "
                 "`spadework archive show RUN_DIR ID` shows any.")
    missing = ('<p class="env-detail note" id="env-missing" hidden>This environment\'s details are not in '
               "the report; run `spadework archive show RUN_DIR ID`.</p>")
    details = "\n".join(detail_html(records[i], limits) for i in ids)
    return Section("environments", title, note + "</p>" + env_table(shown) + missing + details)
