"""The run configuration: one TOML file, validated at start, with CLI overrides.

Every field is documented in its section's model: the sections of the run, the designer, the agent,
the rewards and the evaluation are defined here; the policy's, the sandbox's, the learner's, the
replay's, the diversity measures' and the trackers' in a light ``settings`` module of each part,
which ``RunConfig`` composes (so each setting has one definition, and reading a configuration loads
no part that acts on it). An invalid file fails at start with a message that names the field.
The resolved configuration is written into the run directory.
Any field can be set on the command line with ``--set section.field=value``
(``parse_assignment``); overrides are validated exactly like the file.
"""

from __future__ import annotations

import argparse
import math
import re
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from spadework.difficulty.settings import DifficultySettings
from spadework.diversity.settings import DiversitySettings
from spadework.errors import ConfigError
from spadework.kinds import (
    CONFIDENCE,
    AdvantageGroup,
    Arms,
    CallFormat,
    DesignerReward,
    DesignForm,
    HintStyle,
    PolicyKind,
    Retry,
    ToolPrompt,
)
from spadework.learn.settings import LearnSection
from spadework.policy.settings import PolicySection
from spadework.replay.settings import ReplaySettings
from spadework.rundir import CONFIG_FILE as CONFIG_FILE  # where a run keeps its config
from spadework.sandbox.settings import SandboxSection
from spadework.settings_base import Section as Section
from spadework.tomltext import dump_toml
from spadework.tracking.settings import TrackingSettings

if TYPE_CHECKING:
    from spadework.rewards.designer import BlendSettings

SET_FORM = "SECTION.FIELD=VALUE"
SET_EXAMPLE = "--set designer.sampling.temperature=0.2"

_KEY = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")


class SamplingConfig(Section):
    """Sampling settings of one role (``[designer.sampling]``, ``[agent.sampling]``)."""

    temperature: float = Field(0.7, ge=0.0, le=2.0, description="0 is greedy")
    top_p: float = Field(0.95, gt=0.0, le=1.0, description="nucleus sampling mass")
    max_tokens: int = Field(512, ge=1, le=32768, description="most new tokens per reply")


class RunSection(Section):
    """The size of the run: iterations, designs per iteration, paired plays, the seed."""

    iterations: int = Field(2, ge=1, description="self-play iterations")
    designs: int = Field(4, ge=1, description="environments the designer writes per iteration")
    plays: int = Field(2, ge=1, description="seeds each valid environment is played on without the hint "
                       "(the agent's plays; the hinted arm plays the first hint_plays of the same seeds)")
    hint_plays: int | None = Field(None, ge=1, description="seeds the hinted arm plays (unset: as many as "
                                   "plays, paired seed for seed); the regret is then the hinted mean minus "
                                   "the no-hint mean")
    seed: int = Field(0, description="seeds the corpus sampler, play seeds and sampling")


class CorpusSection(Section):
    """The documents the designer is grounded on."""

    path: str = Field("default", description="'default', a .jsonl/.parquet file or a folder")
    max_doc_tokens: int = Field(350, ge=16, description="documents are cut to this budget")


class DesignerSection(Section):
    """What the designer is asked for, how its failed designs are retried, what it earns."""

    form: DesignForm = Field(DesignForm.ANSWER, description="answer: a puzzle with one answer (AnswerEnv); "
                             "game: any environment, games of several moves included; tool: a world of "
                             "records changed through tool calls (ToolWorld); records: a tool world "
                             "declared as data (DeclaredWorld)")
    forms: dict[DesignForm, float] = Field(default_factory=dict, description="forms mixed by weight, e.g. "
                                           "{answer = 0.5, tool = 0.5}: each iteration's designs are shared "
                                           "out in these proportions (empty: every design gets `form`)")
    max_attempts: int = Field(3, ge=1, le=10, description="first attempt plus retries")
    retry: Retry = Field(Retry.FRESH, description="after a failed attempt: fresh (ask the same request "
                         "again) or repair (show the failed reply and the validator's message)")
    repair_temperature_step: float = Field(0.15, ge=0.0, le=1.0, description="each retry round samples "
                                           "this much hotter (a small model often repeats its failed reply)")
    memory: bool = Field(True, description="show the archive digest (off: the no-memory ablation)")
    corpus: bool = Field(True, description="ground on documents (off: the no-corpus ablation)")
    hint_writer: bool = Field(False, description="ask for the hint in a separate call")
    hint_temperature: float | None = Field(None, ge=0.0, le=2.0, description="the separate hint call's "
                                           "temperature (unset: the designer's)")
    regenerate_every: int = Field(1, ge=1, description="iterations an environment set stays in play: the "
                                  "agent trains on the same designed environments for this many iterations "
                                  "(fresh seeds each), and the designer is paid and trained when the window "
                                  "closes (1: a new set every iteration)")
    skills: tuple[str, ...] = Field((), description="skills each design request names, e.g. "
                                    "['Error_Recovery', 'Tool_Selection'] (empty: none)")
    skill_weights: tuple[float, ...] = Field((), description="weights to draw skills by, one per skill "
                                             "(empty: round robin)")
    novelty_threshold: float = Field(0.85, gt=0.0, le=1.0, description="MinHash similarity of a twin")
    second_solver: bool = Field(False, description="an answer puzzle also writes solve(observation), which "
                                "the validator runs without the class: a key that does not follow from the "
                                "text fails (docs/results/coevolution.md, Wrong keys)")
    max_chance: float | None = Field(None, ge=0.0, le=1.0, description="refuse a design whose blind "
                                     "guesser wins more than this share of the compared seeds (the "
                                     "reference's random-guess gate; unset: off; measured in "
                                     "docs/results/admission-gate.md, where 0.75 refuses no fair design)")
    invalid_penalty: float = Field(0.0, ge=0.0, description="an invalid design's reward is minus this")
    partial_credit: bool = Field(False, description="scale an invalid design's penalty by the share of "
                                 "checks it failed (a learning signal before any design is valid)")
    fixed_pool: str | None = Field(None, description="the fixed-environment baseline: 'examples', a folder "
                                   "of .py files (its subfolders' too) or an earlier run; the designer is "
                                   "not asked")
    # 1536: a whole environment with its hint; at 1024, 2 of the 1.5B's 22 attempts on fresh
    # documents were cut off inside their code block (2026-12-07)
    sampling: SamplingConfig = SamplingConfig(temperature=0.3, max_tokens=1536)

    @model_validator(mode="after")
    def _skill_weights(self) -> DesignerSection:
        if self.skill_weights and len(self.skill_weights) != len(self.skills):
            raise ValueError(f"skill_weights needs one weight per skill: {len(self.skills)} skills, "
                             f"{len(self.skill_weights)} weights; give as many, or none for round robin")
        if any(not (math.isfinite(w) and w > 0) for w in self.skill_weights):
            raise ValueError("skill_weights must be finite numbers greater than 0; leave a skill out instead")
        if len(set(self.skills)) != len(self.skills) or any(not s.strip() for s in self.skills):
            raise ValueError("skills must be distinct, non-empty names")
        return self

    @field_validator("forms")
    @classmethod
    def _positive_weights(cls, forms: dict[DesignForm, float]) -> dict[DesignForm, float]:
        bad = [f"{form.value} = {weight}" for form, weight in forms.items()
               if not (math.isfinite(weight) and weight > 0)]
        if bad:
            raise ValueError(f"weights must be finite numbers greater than 0, got {', '.join(bad)}; "
                             "leave a form out instead of giving it 0")
        return forms


class AgentSection(Section):
    """How the agent plays: turns, context, arms, hint style, sampling."""

    max_turns: int = Field(6, ge=1, le=100, description="turn cap (also capped by the env)")
    context_tokens: int = Field(3072, ge=256, description="transcript budget per episode")
    concurrency: int = Field(8, ge=1, description="environment steps in flight")
    hint_style: HintStyle = Field(HintStyle.LINE, description="how the hinted arm shows the hint: line (a "
                                  "'Hint:' line) or advice (a tip in a paragraph of its own)")
    arms: Arms = Field(Arms.BOTH, description="both (without and with the hint, for regret) or nohint (the "
                       "agent's own play only: half the play, for a fixed pool, where nothing earns regret)")
    tool_prompt: ToolPrompt = Field(
        ToolPrompt.NATIVE, description="how a tool world's tools are shown: native (the template's one "
        "<tool_call> a reply; the 1.5B called in 78% of its replies, against 13% with mixed), mixed (through "
        "the chat template, calls in either of two forms; the 0.5B's most valid calls) or compact (one line "
        "a tool under the task, one Python call a reply)")
    sampling: SamplingConfig = SamplingConfig(temperature=0.7, max_tokens=384)


class BlendSection(Section):
    """The designer reward ``blend``'s weights, scales, band and ramp (the reference's tool-use recipe)."""

    regret_weight: float = Field(0.4, ge=0.0, description="weight of clip(regret / regret_scale, 0, 1)")
    plateau_weight: float = Field(0.6, ge=0.0, description="weight of the plateau of the no-hint win rate")
    lp_weight: float = Field(0.0, ge=0.0, description="weight of micro learning potential / lp_scale")
    frontier_weight: float = Field(0.0, ge=0.0, description="weight of the frontier penalty (subtracted)")
    regret_scale: float = Field(0.15, gt=0.0, description="a regret this large or more pays in full")
    lp_scale: float = Field(0.10, gt=0.0, description="micro learning potential is divided by this")
    frontier_scale: float = Field(0.08, gt=0.0, description="(win rate - band centre)^2 is divided by this")
    band_low: float = Field(0.4, ge=0.0, le=1.0, description="lowest no-hint win rate the plateau pays "
                            "in full")
    band_high: float = Field(0.6, ge=0.0, le=1.0, description="highest win rate the plateau pays in full")
    ramp: float = Field(0.25, gt=0.0, description="outside the band the plateau falls to 0 over this")
    mask_negative: bool = Field(True, description="leave designs whose blend is negative out of the "
                                "designer's update")

    @model_validator(mode="after")
    def _band(self) -> BlendSection:
        if self.band_low > self.band_high:
            raise ValueError(f"band_low ({self.band_low}) is above band_high ({self.band_high})")
        return self

    def settings(self) -> BlendSettings:
        """The blend's settings as the reward functions take them."""
        from spadework.rewards.designer import BlendSettings

        return BlendSettings(**self.model_dump())


class RewardsSection(Section):
    """How designs and episodes are paid: the designer's reward and the regret's interval."""

    group_by: AdvantageGroup = Field(AdvantageGroup.NONE, description="centre designer rewards within "
                                     "each group: none (across the designs), domain (of the document) or "
                                     "skill (``designer.skills``)")
    designer: DesignerReward = Field(DesignerReward.REGRET, description="what a valid design earns: regret "
                                     "(the paper's mean lift of the hint), regret_lcb (the lower end of its "
                                     "interval, clipped at 0), plateau (a no-hint win rate in the band), "
                                     "learning_potential (the win rate's rise over the window) or blend "
                                     "(the reference's mix, [rewards.blend])")
    confidence: float = Field(CONFIDENCE, gt=0.0, lt=1.0, description="two-sided confidence of every "
                              "regret interval (archive, report, regret_lcb)")
    blend: BlendSection = BlendSection()

    @model_validator(mode="before")
    @classmethod
    def _group_by_domain(cls, data: Any) -> Any:
        """Runs written before ``group_by`` said ``group_by_domain = true/false``."""
        if isinstance(data, dict) and "group_by_domain" in data:
            data = dict(data)
            legacy = data.pop("group_by_domain")  # (a parent section has filled in the default group_by)
            data["group_by"] = AdvantageGroup.DOMAIN if legacy else AdvantageGroup.NONE
        return data


class EvalSection(Section):
    """Held-out evaluation inside a run."""

    every: int = Field(0, ge=0, description="held-out evaluation every N iterations (0: never)")
    suites: tuple[str, ...] = Field((), description="suites to evaluate (empty: the default ones)")
    tasks: tuple[str, ...] = Field((), description="tasks to evaluate (empty: every task of the suites)")
    seeds: int = Field(4, ge=1, description="seeds per task")
    probe: str | None = Field(None, description="the probe suite's environments: a run directory (its valid "
                              "archived environments) or a folder of environment files; played when set")
    bfcl_format: CallFormat = Field(CallFormat.PROMPTING, description="BFCL: prompting (function docs in "
                                    "the system prompt, calls as a Python list) or native (tool calling)")
    bfcl_max_steps: int | None = Field(None, ge=1, description="BFCL: replies with calls per user turn "
                                       "before the entry is forced to quit (unset: the leaderboard's limit)")
    bfcl_n_ctx: int = Field(32768, ge=4096, description="BFCL: the embedded model's context window (entries "
                            "carry 4k-9k tokens of function docs; long_context results add up to 8k more)")


class RunConfig(Section):
    """The whole configuration of ``spadework run``."""

    run: RunSection = RunSection()
    policy: PolicySection = PolicySection()
    corpus: CorpusSection = CorpusSection()
    designer: DesignerSection = DesignerSection()
    agent: AgentSection = AgentSection()
    sandbox: SandboxSection = SandboxSection()
    rewards: RewardsSection = RewardsSection()
    learn: LearnSection = LearnSection()
    replay: ReplaySettings = ReplaySettings()
    difficulty: DifficultySettings = DifficultySettings()
    diversity: DiversitySettings = DiversitySettings()
    eval: EvalSection = EvalSection()
    tracking: TrackingSettings = TrackingSettings()

    @model_validator(mode="after")
    def _consistent(self) -> RunConfig:
        if self.agent.context_tokens > self.policy.n_ctx and self.policy.kind is PolicyKind.EMBEDDED:
            raise ValueError(f"agent.context_tokens ({self.agent.context_tokens}) exceeds "
                             f"policy.n_ctx ({self.policy.n_ctx})")
        if "probe" in self.eval.suites and not self.eval.probe:
            raise ValueError("eval.suites names probe but eval.probe is unset; set eval.probe to a run "
                             "directory or a folder of environment files")
        if self.agent.arms is Arms.NOHINT and not self.designer.fixed_pool:
            raise ValueError("agent.arms = 'nohint' plays no hinted arm, so designs would earn no regret; "
                             "use it with designer.fixed_pool (nothing designed), or set agent.arms = 'both'")
        if self.learn.warm_start and not (self.learn.warm_start_worlds or self.designer.fixed_pool):
            raise ValueError("learn.warm_start demonstrates the worlds of learn.warm_start_worlds (or of "
                             "designer.fixed_pool); set one of them, or learn.warm_start = 0")
        if self.rewards.group_by is AdvantageGroup.SKILL and not self.designer.skills:
            raise ValueError("rewards.group_by = 'skill' needs designer.skills; name the skills, or group "
                             "by 'domain' or 'none'")
        if self.agent.arms is Arms.NOHINT and self.replay.count:
            raise ValueError("agent.arms = 'nohint' leaves replayed environments' regret unmeasured; set "
                             "replay.count = 0, or agent.arms = 'both'")
        bfcl = "bfcl" in self.eval.suites or any(t.startswith("bfcl/") for t in self.eval.tasks)
        if (bfcl and self.eval.every and self.policy.kind is PolicyKind.EMBEDDED
                and self.policy.n_ctx < self.eval.bfcl_n_ctx):
            need = self.eval.bfcl_n_ctx
            raise ValueError(f"the run evaluates BFCL, whose entries need a context of {need} tokens; set "
                             f"policy.n_ctx = {need} (it is {self.policy.n_ctx})")
        return self

    def to_toml(self) -> str:
        """The resolved configuration as TOML (every field, defaults included)."""
        return dump_toml(self.model_dump(mode="json"))


def _problem(error: ErrorDetails) -> str:
    return f"config field '{_field(error)}': {error['msg']}"


def _field(error: ErrorDetails) -> str:
    return ".".join(str(p) for p in error["loc"]) or "(top level)"


def _set_here(field: str, overridden: Collection[str]) -> bool:
    """Whether a bad ``field`` is one the command line set (or lies in a section it set)."""
    return any(field == key or field.startswith(f"{key}.") or key.startswith(f"{field}.")
               for key in overridden)


def build_config(data: dict[str, Any], origin: str = "config", overridden: Collection[str] = ()) -> RunConfig:
    """Validate a config mapping. Raises ConfigError naming the first bad field.

    Args:
        data: the nested mapping (a parsed TOML file with the overrides applied).
        origin: where ``data`` came from, the start of the message (a file's path).
        overridden: the dotted fields the command line set; a bad one is blamed on the command line.
    """
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        problems = [_problem(e) for e in errors]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        where = "command line" if _set_here(_field(errors[0]), overridden) else origin
        raise ConfigError(f"{where}: {problems[0]}{more}") from None


def read_config_file(path: Path) -> dict[str, Any]:
    """A config file's TOML as a mapping. Raises ConfigError naming the path and what to change."""
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder, not a config file; give a .toml file")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except PermissionError:
        raise ConfigError(f"{path}: cannot read it: permission denied; fix its permissions") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the config as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {(exc.strerror or str(exc)).lower()}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def _apply(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``dotted`` (``section.field``) in the nested mapping ``data``."""
    *sections, key = dotted.split(".")
    target = data
    for depth, section in enumerate(sections):
        target = target.setdefault(section, {})
        if not isinstance(target, dict):
            parent = ".".join(sections[:depth + 1])
            raise ConfigError(f"command line: config field '{dotted}': '{parent}' is a value, not a section")
    target[key] = value


def load_config(path: Path | None, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read a TOML file (or the defaults when ``path`` is None) and apply dotted overrides.

    Overrides apply in order (a later one wins); a None value is skipped (an option not given).

    >>> load_config(None, {"run.designs": 3, "designer.sampling.temperature": 0.2}).designer.sampling
    SamplingConfig(temperature=0.2, top_p=0.95, max_tokens=1536)
    """
    data = read_config_file(path) if path is not None else {}
    given = {dotted: value for dotted, value in (overrides or {}).items() if value is not None}
    for dotted, value in given.items():
        _apply(data, dotted, value)
    return build_config(data, str(path) if path else "config", overridden=given)


def parse_assignment(text: str) -> tuple[str, Any]:
    """A ``--set`` assignment ``section.field=value``: the dotted field, and the value read as a
    TOML value, or as plain text when it is not one (so a bare word needs no quotes).

    >>> parse_assignment("designer.sampling.temperature=0.2")
    ('designer.sampling.temperature', 0.2)
    >>> parse_assignment("policy.model=qwen2.5-coder-0.5b")
    ('policy.model', 'qwen2.5-coder-0.5b')
    >>> parse_assignment('learn.lora_targets=["q_proj","v_proj"]')
    ('learn.lora_targets', ['q_proj', 'v_proj'])
    >>> parse_assignment("run.seed")
    Traceback (most recent call last):
    ...
    ValueError: expected SECTION.FIELD=VALUE, e.g. --set designer.sampling.temperature=0.2; got 'run.seed'

    Raises:
        ValueError: no ``=``, or the part before it is not a dotted name.
    """
    key, equals, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not equals or not _KEY.fullmatch(key):
        raise ValueError(f"expected {SET_FORM}, e.g. {SET_EXAMPLE}; got {text!r}")
    try:
        parsed = tomllib.loads(f"v = {value}")
    except tomllib.TOMLDecodeError:
        return key, value
    return (key, parsed["v"]) if len(parsed) == 1 else (key, value)  # "1\nw = 2" is text, not two keys


def _assignment(text: str) -> tuple[str, Any]:
    try:
        return parse_assignment(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_set_option(parser: argparse.ArgumentParser, scope: str) -> None:
    """Add the repeatable ``--set SECTION.FIELD=VALUE`` option (into ``args.sets``); ``scope``
    ends its help text (which config it changes, and what wins over it)."""
    parser.add_argument("--set", dest="sets", action="append", type=_assignment, metavar=SET_FORM,
                        help="set any config field, e.g. --set designer.sampling.temperature=0.2 or "
                             "--set 'learn.lora_targets=[\"q_proj\",\"v_proj\"]'; VALUE is read as TOML "
                             f"(a bare word is text); validated like the file; repeatable, the later wins; "
                             f"{scope}")
