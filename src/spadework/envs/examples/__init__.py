"""Small, complete example environments; each passes the validator on the real sandbox."""

from __future__ import annotations

from pathlib import Path


def example_paths() -> list[Path]:
    """The example environment modules in this package, sorted by name."""
    here = Path(__file__).resolve().parent
    return sorted(path for path in here.glob("*.py") if path.name != "__init__.py")
