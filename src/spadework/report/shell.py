"""The page around the sections: one self-contained HTML document, and small markup helpers.

Everything that comes from a run (environment code, transcripts, domains, config values) is
untrusted text: it goes through ``esc`` into markup and through ``script_json`` into scripts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from spadework.report.assets import CSS, JS


@dataclass(frozen=True)
class ResultsFile:
    """One JSON results file of a run (an evaluation, a calibration): its content, or why it could
    not be read."""

    name: str
    data: dict[str, Any] | None
    error: str = ""


def load_results(folder: Path, key: str, kind: str) -> list[ResultsFile]:
    """Every ``folder/*.json``, oldest name first; a file without a list under ``key`` is not ``kind``."""
    loaded = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            loaded.append(ResultsFile(path.name, None, f"cannot read it: {exc}"))
            continue
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            loaded.append(ResultsFile(path.name, None, f"not {kind} (no list of {key})"))
            continue
        loaded.append(ResultsFile(path.name, data))
    return loaded


@dataclass(frozen=True)
class Section:
    """One ``<section>`` of a page.

    Attributes:
        id: the element id (also the navigation anchor).
        title: the heading.
        body: trusted markup, already escaped by whoever built it.
    """

    id: str
    title: str
    body: str


def esc(text: object) -> str:
    """Text made safe for HTML content and quoted attribute values.

    >>> esc('</script><b class="x">')
    '&lt;/script&gt;&lt;b class=&quot;x&quot;&gt;'
    """
    return escape(str(text), quote=True)


def script_json(data: Any, element_id: str) -> str:
    """JSON in a ``<script type="application/json">`` block that no string in ``data`` can end.

    ``<``, ``>`` and ``&`` are written as ``\\u003c`` etc., which ``JSON.parse`` reads back as
    the same characters; so ``</script>`` inside the data never closes the block.

    >>> block = script_json({"domain": "</script><script>alert(1)</script>"}, "d")
    >>> block.count("</script>"), "\\\\u003c/script\\\\u003e" in block
    (1, True)
    >>> inner = block.split(">", 1)[1].rsplit("<", 1)[0]
    >>> json.loads(inner) == {"domain": "</script><script>alert(1)</script>"}
    True
    """
    text = json.dumps(data, sort_keys=True, allow_nan=False)
    for char, code in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                       ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, code)
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def definition_list(items: Iterable[tuple[str, object]], css_class: str = "summary") -> str:
    """``<dl>`` of (term, value) pairs, both escaped.

    >>> definition_list([("a", "<1>")])
    '<dl class="summary"><dt>a</dt><dd>&lt;1&gt;</dd></dl>'
    """
    rows = "".join(f"<dt>{esc(term)}</dt><dd>{esc(value)}</dd>" for term, value in items)
    return f'<dl class="{esc(css_class)}">{rows}</dl>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[bool] = ()) -> str:
    """A plain table; ``rows`` hold trusted cell markup (escape before), headers are escaped here."""
    right = [bool(numeric[i]) if i < len(numeric) else False for i in range(len(headers))]
    head = "".join(f'<th class="num">{esc(h)}</th>' if right[i] else f"<th>{esc(h)}</th>"
                   for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i < len(right) and right[i]
                                    else f"<td>{c}</td>" for i, c in enumerate(row)) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def empty(message: str) -> str:
    """A muted line saying why something is not shown."""
    return f'<p class="empty">{esc(message)}</p>'


def percent(value: float | None, digits: int = 0) -> str:
    """A share as a percentage, or an en dash when unknown.

    >>> percent(0.5), percent(None), percent(0.1234, 1)
    ('50%', '–', '12.3%')
    """
    return "–" if value is None else f"{value * 100:.{digits}f}%"


def page(title: str, sections: Sequence[Section], subtitle: str = "") -> str:
    """The whole HTML document: head with inline style, a navigation bar, the sections, the script.

    Args:
        title: the document and header title (escaped here).
        sections: in page order.
        subtitle: a line next to the title (escaped here).

    >>> html = page("Run <1>", [Section("curves", "Curves", "<p>x</p>")])
    >>> '<section id="curves">' in html and "<title>Run &lt;1&gt;</title>" in html
    True
    >>> "http://" in html.replace('xmlns="http://www.w3.org/2000/svg"', "") or "https://" in html
    False
    """
    nav = "".join(f'<a href="#{esc(s.id)}">{esc(s.title)}</a>' for s in sections)
    body = "\n".join(f'<section id="{esc(s.id)}">\n<h2>{esc(s.title)}</h2>\n{s.body}\n</section>'
                     for s in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<header class="top"><h1>{esc(title)}</h1><span class="subtitle">{esc(subtitle)}</span>'
        f"<nav>{nav}</nav></header>\n<main>\n{body}\n</main>\n<script>{JS}</script>\n</body>\n</html>\n"
    )


def with_interval(value: str, interval: tuple[float, float] | None,
                  shown: Callable[[float], str] = str) -> str:
    """``value`` followed by its interval in brackets, each end shown by ``shown``.

    >>> with_interval("0.41", (0.3, 0.52), lambda x: f"{x:.2f}"), with_interval("3", None)
    ('0.41 [0.30, 0.52]', '3')
    """
    return value if interval is None else f"{value} [{shown(interval[0])}, {shown(interval[1])}]"
