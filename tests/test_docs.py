"""The front door stays short and its links lead somewhere: the README is at most about 250 lines
and every file it links to exists (the site itself is built with ``mkdocs build --strict`` by
``make docs``, which ``make test`` runs)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_every_file_the_readme_links_to_exists():
    targets = [t.split("#", 1)[0] for t in re.findall(r"\]\(([^)\s]+)\)", README)
               if not t.startswith(("http://", "https://", "#"))]
    assert targets and [t for t in targets if not (ROOT / t).exists()] == []


def test_the_configuration_reference_lists_every_field():
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from hooks import reference
    finally:
        sys.path.remove(str(ROOT / "docs"))
    from spadework.config import RunConfig

    table = reference()
    for section, field in RunConfig.model_fields.items():
        for name in field.annotation.model_fields:
            assert f"`{section}.{name}" in table, f"{section}.{name}"
