"""One definition of every setting.

Each part defines its settings once, in a light ``settings`` module of its own folder, and
``RunConfig`` composes those models as its sections; a part's wider settings (the seed, limits
the TOML does not expose) extend the section's model rather than repeat it. These tests fail
naming the setting, the places and the two definitions when:

- a section of ``RunConfig`` is not the part's own model (a copy of it in ``config``);
- a model re-declares a field it inherits (a second default for one setting);
- a part's settings and the section they are made from define a shared field differently;
- a constructor the engines call gives one of its keywords a default other than the setting's;

and the configuration still loads no part that acts on it.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from spadework.config import RunConfig
from spadework.settings_base import Section

OWNED = {
    "policy": ("spadework.policy.settings", "PolicySection"),
    "sandbox": ("spadework.sandbox.settings", "SandboxSection"),
    "learn": ("spadework.learn.settings", "LearnSection"),
    "replay": ("spadework.replay.settings", "ReplaySettings"),
    "difficulty": ("spadework.difficulty.settings", "DifficultySettings"),
    "diversity": ("spadework.diversity.settings", "DiversitySettings"),
    "tracking": ("spadework.tracking.settings", "TrackingSettings"),
}
"""Section of ``RunConfig`` -> the part's module and model that define it."""


def defaults(kind: Any) -> dict[str, Any]:
    """Field (or keyword) defaults of a pydantic model, a dataclass or a callable."""
    if hasattr(kind, "model_fields"):
        return {name: (f.default_factory() if f.default_factory else f.default)
                for name, f in kind.model_fields.items()}
    if dataclasses.is_dataclass(kind):
        return {f.name: (f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default)
                for f in dataclasses.fields(kind)
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
    return {name: p.default for name, p in inspect.signature(kind).parameters.items()
            if p.default is not inspect.Parameter.empty}


def normal(value: Any) -> Any:
    return value.value if hasattr(value, "value") and not isinstance(value, (int, float, str)) else value


def derived() -> list[tuple[type[Section], type[Section]]]:
    """(a section RunConfig composes, a part's settings made from it with ``Section.into``)."""
    from spadework.learn.settings import LearnerSettings, LearnSection, TrainerSettings
    from spadework.policy.settings import PolicySection, PolicySettings
    from spadework.sandbox.config import SandboxConfig
    from spadework.sandbox.settings import SandboxSection

    return [(PolicySection, PolicySettings), (SandboxSection, SandboxConfig),
            (LearnSection, LearnerSettings), (LearnSection, TrainerSettings)]


def constructors() -> list[tuple[type[Section], Any, frozenset[str]]]:
    """(a settings model, a constructor the engines or the parts call with its values, keywords
    that are not that setting)."""
    from spadework.config import AgentSection, SamplingConfig
    from spadework.learn.model import load_base
    from spadework.learn.settings import LearnSection
    from spadework.learn.sync import LlamaServerSync
    from spadework.policy.base import Sampling
    from spadework.policy.embedded import EmbeddedPolicy
    from spadework.policy.hf import load_hf
    from spadework.policy.llama_server import LlamaServer
    from spadework.policy.openai import OpenAIPolicy
    from spadework.policy.scripted import ScriptedPolicy
    from spadework.policy.settings import PolicySettings
    from spadework.rollout import RolloutConfig

    none: frozenset[str] = frozenset()
    return [
        (PolicySettings, EmbeddedPolicy, none),
        (PolicySettings, OpenAIPolicy, none),
        (PolicySettings, ScriptedPolicy, none),
        (PolicySettings, LlamaServer, none),
        (PolicySettings, LlamaServerSync, none),
        (LearnSection, load_base, none),
        (LearnSection, load_hf, none),
        (SamplingConfig, Sampling, none),
        (AgentSection, RolloutConfig, frozenset({"sampling"})),  # a SamplingConfig becomes a Sampling
    ]


def where(kind: Any) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def test_each_section_of_the_run_configuration_is_the_part_s_own_model():
    import importlib

    composed = {name: field.annotation for name, field in RunConfig.model_fields.items() if name in OWNED}
    owned = {name: getattr(importlib.import_module(module), model) for name, (module, model) in OWNED.items()}
    assert composed == owned


def sections() -> list[type[Section]]:
    """Every settings model of the package (the parts' settings and the config's own sections)."""
    import importlib

    for module in [*(module for module, _ in OWNED.values()), "spadework.sandbox.config"]:
        importlib.import_module(module)
    found, todo = [], [Section]
    while todo:
        kind = todo.pop()
        found.append(kind)
        todo += kind.__subclasses__()
    return [k for k in found if k.__module__.startswith("spadework.")]


def test_no_model_declares_again_a_setting_it_inherits():
    twice = [f"{name}: {where(kind)} and {where(base)}"
             for kind in sections() for base in kind.__mro__[1:] if issubclass(base, Section)
             for name in kind.__dict__.get("__annotations__", {}) if name in base.model_fields]
    assert twice == []


def test_settings_made_from_a_section_share_its_definitions():
    differ = []
    for section, settings in derived():
        mine, theirs = section.model_fields, settings.model_fields
        for name in sorted(mine.keys() & theirs.keys()):
            if repr(mine[name]) != repr(theirs[name]):
                differ.append(f"{name}: {mine[name]!r} in {where(section)}, "
                              f"{theirs[name]!r} in {where(settings)}")
    assert differ == []


def test_every_constructor_keyword_defaults_to_its_setting_s_default():
    disagree = []
    for settings, constructor, other in constructors():
        mine, theirs = defaults(settings), defaults(constructor)
        for name in sorted((mine.keys() & theirs.keys()) - other):
            if normal(mine[name]) != normal(theirs[name]):
                disagree.append(f"{name}: {mine[name]!r} in {where(settings)}, "
                                f"{theirs[name]!r} in {where(constructor)}")
    assert disagree == []


@pytest.mark.parametrize("pair", range(len(derived())))
def test_each_section_and_its_part_s_settings_share_settings(pair):
    """The comparisons above are not vacuous: each pair has settings in common."""
    section, settings = derived()[pair]
    assert len(section.model_fields.keys() & settings.model_fields.keys()) >= 2


@pytest.mark.parametrize("pair", range(len(constructors())))
def test_each_constructor_shares_a_setting(pair):
    settings, constructor, other = constructors()[pair]
    assert (defaults(settings).keys() & defaults(constructor).keys()) - other


def test_a_constructor_default_that_differs_from_its_setting_is_found(monkeypatch):
    """The check above reads the constructors it names: a changed default is caught."""
    from spadework.policy.scripted import ScriptedPolicy

    monkeypatch.setattr(ScriptedPolicy, "__init__", lambda self, seed=1: None)
    with pytest.raises(AssertionError, match="seed: 0 in spadework.policy.settings.PolicySettings, 1 in"):
        test_every_constructor_keyword_defaults_to_its_setting_s_default()


def test_reading_a_configuration_loads_no_part_that_acts_on_it():
    """Of each part, ``load_config`` loads its package (whose names load on first use) and its
    settings module; no library a part acts with."""
    import ast
    import subprocess
    import sys

    code = ("import sys; from spadework.config import load_config; load_config(None); "
            "print(sorted(m for m in sys.modules if m.startswith('spadework') or m in "
            "('numpy', 'torch', 'httpx', 'llama_cpp', 'ray', 'wandb', 'usearch')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    parts = [f"spadework.{part}{module}" for part in sorted(OWNED) for module in ("", ".settings")]
    assert ast.literal_eval(loaded) == sorted(["spadework", "spadework.config", "spadework.errors",
                                               "spadework.kinds", "spadework.lazy", "spadework.rundir",
                                               "spadework.settings_base", "spadework.tomltext", *parts])
