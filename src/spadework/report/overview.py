"""The ``config`` section: what the run was asked to do, and how far it got."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from spadework.report.rundata import RunData, number
from spadework.report.shell import Section, definition_list, esc


def flatten_tables(config: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(table name, [(key, value as TOML-like text)]) for every table holding plain values.

    >>> list(flatten_tables({"run": {"seed": 0, "name": "x"}, "designer": {"sampling": {"top_p": 0.9}}}))
    [('run', [('seed', '0'), ('name', '"x"')]), ('designer.sampling', [('top_p', '0.9')])]
    """
    values = [(k, json.dumps(v)) for k, v in config.items() if not isinstance(v, dict)]
    if values:
        yield (prefix or "(top level)", values)
    for key, value in config.items():
        if isinstance(value, dict):
            yield from flatten_tables(value, f"{prefix}.{key}" if prefix else key)


def config_cards(text: str) -> str:
    """The config as one card per table; the raw text when it does not parse as TOML."""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return (f'<p class="note">config.toml does not parse ({esc(exc)}); as written:</p>'
                f"<pre>{esc(text)}</pre>")
    cards = []
    for name, values in flatten_tables(config):
        cards.append(f'<div class="card"><h4>{esc(name)}</h4>{definition_list(values, "")}</div>')
    return '<div class="cards">' + "".join(cards) + "</div>"


def summary(run: RunData) -> list[tuple[str, object]]:
    """The run at a glance, as (term, value) pairs."""
    configured = _configured_iterations(run.config_text)
    done = len(run.metrics)
    total, regret = run.counts.environments, run.counts.regret_mean
    items: list[tuple[str, object]] = [
        ("run directory", str(run.run_dir)),
        ("iterations committed", f"{done} of {configured}" if configured is not None else str(done)),
        ("environments archived", f"{total} (every attempt of every design)"),
        ("valid", f"{run.valid_count} of {total} attempts; "
                  f"{run.valid_designs} of {run.designs} designs"),
        ("mean regret of valid designs", f"{regret:.3f}" if regret is not None else "–"),
        ("report written", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
    ]
    if run.skipped_lines:
        items.append(("unreadable metrics lines", f"{run.skipped_lines} (skipped)"))
    return items


def _configured_iterations(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = number(tomllib.loads(text).get("run", {}).get("iterations"))
    except (tomllib.TOMLDecodeError, AttributeError):
        return None
    return int(value) if value is not None else None


def config_section(run: RunData) -> Section:
    """The ``config`` section: a summary, then the resolved config table by table, then the raw file."""
    parts = [definition_list(summary(run))]
    if run.config_text is None:
        parts.append('<p class="empty">no config.toml in this run directory</p>')
    else:
        parts.append("<h3>Resolved config</h3>" + config_cards(run.config_text))
        parts.append(f"<details><summary>config.toml as written</summary><pre>{esc(run.config_text)}</pre>"
                     "</details>")
    return Section("config", "Run and config", "\n".join(parts))
