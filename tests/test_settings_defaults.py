"""One definition of every setting: where a part's own settings record and the run configuration's
section name the same setting, they give it the same default, and so do the constructors the
engines call. Fails naming each setting, the places and the two defaults."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from spadework import config

MISSING = object()


def defaults(kind: Any) -> dict[str, Any]:
    """Field (or keyword) defaults of a pydantic section, a dataclass or a callable."""
    if hasattr(kind, "model_fields"):
        return {name: (f.default_factory() if f.default_factory else f.default)
                for name, f in kind.model_fields.items()}
    if dataclasses.is_dataclass(kind):
        return {f.name: (f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)
                for f in dataclasses.fields(kind)
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
    return {name: p.default for name, p in inspect.signature(kind).parameters.items()
            if p.default is not inspect.Parameter.empty}


def pairs() -> list[tuple[str, Any, Any]]:
    from spadework.diversity.incremental import DiversitySettings
    from spadework.learn.settings import LearnerSettings, TrainerSettings
    from spadework.policy.embedded import EmbeddedPolicy
    from spadework.policy.openai import OpenAIPolicy
    from spadework.policy.settings import PolicySettings
    from spadework.replay.plan import ReplaySettings
    from spadework.sandbox.config import SandboxConfig
    from spadework.tracking.settings import TrackingSettings

    return [
        ("policy", config.PolicySection, PolicySettings),
        ("policy", config.PolicySection, EmbeddedPolicy),
        ("policy", config.PolicySection, OpenAIPolicy),
        ("sandbox", config.SandboxSection, SandboxConfig),
        ("learn", config.LearnSection, LearnerSettings),
        ("learn", config.LearnSection, TrainerSettings),
        ("replay", config.ReplaySection, ReplaySettings),
        ("diversity", config.DiversitySection, DiversitySettings),
        ("tracking", config.TrackingSection, TrackingSettings),
    ]


def normal(value: Any) -> Any:
    return value.value if hasattr(value, "value") and not isinstance(value, (int, float, str)) else value


def test_every_setting_has_one_default_wherever_it_is_defined():
    disagree = []
    for section, composed, owned in pairs():
        mine, theirs = defaults(composed), defaults(owned)
        for name in sorted(mine.keys() & theirs.keys()):
            if normal(mine[name]) != normal(theirs[name]):
                disagree.append(f"{section}.{name}: {mine[name]!r} in config.{composed.__name__}, "
                                f"{theirs[name]!r} in {owned.__module__}.{owned.__qualname__}")
    assert disagree == []


@pytest.mark.parametrize("section", ["policy", "sandbox", "learn", "replay", "diversity", "tracking"])
def test_each_compared_pair_shares_settings(section):
    """The comparison above is not vacuous: each pair has settings in common."""
    shared = [set(defaults(a)) & set(defaults(b)) for s, a, b in pairs() if s == section]
    assert all(len(common) >= 2 for common in shared)


def test_reading_a_configuration_loads_no_part_that_acts_on_it():
    import ast
    import subprocess
    import sys

    code = ("import sys; from spadework.config import load_config; load_config(None); "
            "print(sorted(m for m in sys.modules if m.startswith('spadework')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert ast.literal_eval(loaded) == ["spadework", "spadework.config", "spadework.errors",
                                        "spadework.kinds", "spadework.rundir", "spadework.settings_base",
                                        "spadework.tomltext"]
