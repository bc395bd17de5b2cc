"""MkDocs hook: the configuration reference is generated from the config models at build time, so
it cannot drift from the code (the marker ``<!-- config-reference -->`` in a page is replaced)."""

from __future__ import annotations

import enum
import json

MARKER = "<!-- config-reference -->"


def _default(field) -> str:
    value = field.default_factory() if field.default_factory is not None else field.default
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return f"`{json.dumps(value, default=str)}`"
    except (TypeError, ValueError):
        return f"`{value!r}`"


def _type(annotation) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "").replace("spadework.", "")


def _rows(prefix: str, model) -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        nested = field.annotation if hasattr(field.annotation, "model_fields") else None
        if nested is not None:
            rows += _rows(f"{prefix}.{name}", nested)
            continue
        meaning = (field.description or "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| `{prefix}.{name}` | `{_type(field.annotation)}` | {_default(field)} | {meaning} |")
    return rows


def reference() -> str:
    """Every section of ``RunConfig`` as a table: field, type, default and meaning."""
    from spadework.config import RunConfig

    parts = []
    for name, section in RunConfig.model_fields.items():
        parts += [f"## `[{name}]`", "", "| field | type | default | meaning |", "|---|---|---|---|",
                  *_rows(name, section.annotation), ""]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    return markdown.replace(MARKER, reference()) if MARKER in markdown else markdown
