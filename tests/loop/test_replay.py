"""Prioritised level replay in `spadework run`, with the scripted FAKE policy and a FAKE trainer:
what is replayed and on which seeds, what each role learns from it, the pooled regret, the
metrics, a run with replay off, and resuming after a crash."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import spadework.run
from spadework.archive import Archive
from spadework.config import load_config
from spadework.learn.samples import TrainRole
from spadework.loop import SilentReporter
from spadework.policy.scripted import ScriptedPolicy
from spadework.rewards import group_advantages, regret_estimate
from spadework.run import run

pytest.importorskip("torch")  # the FAKE trainer is the real Trainer's sample-making, without a model

from spadework.learn.model import ByteTokenizer  # noqa: E402
from spadework.learn.settings import TrainerSettings  # noqa: E402
from spadework.learn.trainer import Trainer  # noqa: E402

PLAYS = 2
# run.seed 1 with the advantage score: a replayed environment's no-hint plays differ, so the
# agent gets samples from a replay (the scripted agent seldom solves without the hint)
SETTINGS = {"policy.kind": "scripted", "run.iterations": 3, "run.designs": 3, "run.plays": PLAYS,
            "run.seed": 1, "sandbox.pool_size": 2, "diversity.embedder": "hashing", "replay.count": 2,
            "replay.score": "advantage"}
REPLAY_ID = re.compile(r"i(\d+)-r(\d+)")
REPLAY_METRICS = ("replay/count", "replay/candidates", "replay/mean_priority", "replay/play_share",
                  "replay/staleness_mean", "replay/regret_mean", "replay/solve_rate_nohint",
                  "replay/solve_rate_hint")


class RecordingTrainer(Trainer):
    """FAKE: makes the real trainer's samples of every iteration and keeps them (and its inputs);
    no model, no update, no checkpoint."""

    def __init__(self, run_dir: Path):
        super().__init__(learner=None, tokenizer=ByteTokenizer(),
                         settings=TrainerSettings(max_sample_tokens=1 << 20), sync=None, run_dir=run_dir)
        self.calls: list[dict] = []

    def train(self, designer, outcomes, episodes, replayed=()):
        samples = self.samples(designer, outcomes, episodes, replayed)
        self.calls.append({"designer": list(designer), "replayed": list(replayed), "samples": samples})
        return {}

    def checkpoint(self, iteration, loop_state):
        return self.run_dir

    def publish(self, checkpoint):
        return {}

    def restore(self, iteration):
        return None

    def close(self):
        pass


class CountingPolicy(ScriptedPolicy):
    """FAKE: the scripted policy, counting its generate calls."""

    calls = 0

    def generate(self, conversations, sampling, tools=None):
        self.calls += 1
        return super().generate(conversations, sampling, tools)


@dataclass
class CallsPerIteration(SilentReporter):
    """How many generate calls the policy had made when each iteration was committed."""

    policy: CountingPolicy
    calls: list[int] = field(default_factory=list)
    phases: list[str] = field(default_factory=list)

    def phase(self, name, total):
        self.phases.append(name)

    def iteration_done(self, iteration, metrics):
        self.calls.append(self.policy.calls)


@dataclass
class Replayed:
    run_dir: Path
    trainer: RecordingTrainer
    calls: list[int]
    phases: list[str]


def config(**overrides):
    return load_config(None, {**SETTINGS, **overrides})


@pytest.fixture(scope="module")
def replayed(tmp_path_factory) -> Replayed:
    run_dir = tmp_path_factory.mktemp("replay") / "run"
    trainer, policy = RecordingTrainer(run_dir), CountingPolicy(seed=SETTINGS["run.seed"])
    reporter = CallsPerIteration(policy)
    real = spadework.run.build_engines
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spadework.run, "build_engines",
                      lambda config, run_dir, policy=None: (real(config, run_dir, policy)[0], trainer))
        run(config(), run_dir, policy=policy, reporter=reporter)
    return Replayed(run_dir, trainer, reporter.calls, reporter.phases)


def episodes(run_dir: Path, iteration: int) -> list[dict]:
    path = run_dir / "episodes" / f"iteration-{iteration:04d}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def metrics_lines(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def finals(run_dir: Path) -> dict[int, dict]:
    with Archive.open(run_dir, create=False) as archive:
        return {r.id: r.metrics for r in archive.records(valid=True) if r.metrics["final"]}


def replays_by_record(run_dir: Path) -> dict[int, dict[int, list[dict]]]:
    """record id -> iteration -> that iteration's replay episodes of it."""
    found: dict[int, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for iteration in range(len(metrics_lines(run_dir))):
        for episode in episodes(run_dir, iteration):
            match = REPLAY_ID.fullmatch(episode["env_id"])
            if match:
                assert int(match[1]) == iteration
                found[int(match[2])][iteration].append(episode)
    return found


def snapshot(run_dir: Path) -> tuple[list, list]:
    """What a run produced, without timestamps and timings."""
    with Archive.open(run_dir, create=False) as archive:
        records = [(r.origin, r.content_hash, r.valid, r.reason, json.dumps(r.metrics, sort_keys=True))
                   for r in archive.records()]
    lines = metrics_lines(run_dir)
    return records, [{k: v for k, v in m.items() if not k.startswith("perf/")} for m in lines]


def by_arm(group: list[dict], arm: str) -> list[dict]:
    return sorted((e for e in group if e["arm"] == arm), key=lambda e: e["seed"])


def test_replays_are_archived_designs_of_earlier_iterations_played_in_both_arms(replayed: Replayed):
    played = replays_by_record(replayed.run_dir)
    records = finals(replayed.run_dir)
    lines = metrics_lines(replayed.run_dir)
    assert lines[0]["replay/count"] == 0.0  # nothing archived yet
    for iteration, line in enumerate(lines):
        mine = {rid: groups[iteration] for rid, groups in played.items() if iteration in groups}
        assert len(mine) == line["replay/count"] == min(2, line["replay/candidates"])
        for rid, group in mine.items():
            assert records[rid]["iteration"] < iteration
            nohint, hint = by_arm(group, "nohint"), by_arm(group, "hint")
            assert len(nohint) == len(hint) == PLAYS
            assert [e["seed"] for e in nohint] == [e["seed"] for e in hint]
    assert lines[-1]["replay/count"] == 2.0


def test_replays_are_played_on_seeds_never_played_before(replayed: Replayed):
    records = finals(replayed.run_dir)
    for rid, groups in replays_by_record(replayed.run_dir).items():
        design = records[rid]
        original = sorted(e["seed"] for e in episodes(replayed.run_dir, design["iteration"])
                          if e["env_id"] == design["design_id"] and e["arm"] == "nohint")
        seeds = list(original)
        for iteration in sorted(groups):
            seeds += [e["seed"] for e in by_arm(groups[iteration], "nohint")]
        assert len(seeds) == len(set(seeds))
        assert design["play_seeds"] == seeds  # aligned with the pooled scores


def test_replayed_records_pool_their_regret_and_keep_the_designer_reward(replayed: Replayed):
    records = finals(replayed.run_dir)
    played = replays_by_record(replayed.run_dir)
    assert played
    for rid, groups in played.items():
        metrics = records[rid]
        iterations = sorted(groups)
        assert metrics["replays"] == len(iterations) and metrics["last_played"] == iterations[-1]
        assert metrics["regret_plays"] == len(metrics["scores_hint"]) == PLAYS * (1 + len(iterations)) > PLAYS
        for arm in ("nohint", "hint"):
            replay_scores = [e["score"] for i in iterations for e in by_arm(groups[i], arm)]
            assert metrics[f"scores_{arm}"][PLAYS:] == replay_scores
        estimate = regret_estimate(metrics["scores_hint"], metrics["scores_nohint"])
        assert metrics["regret_ci"] == estimate.to_json() and metrics["regret"] == estimate.regret
        own = [h - n for h, n in zip(metrics["scores_hint"][:PLAYS], metrics["scores_nohint"][:PLAYS],
                                     strict=True)]
        assert metrics["designer_reward"] == max(0.0, sum(own) / PLAYS)  # earned when designed
    untouched = [m for rid, m in records.items() if rid not in played]
    assert untouched and all("replays" not in m and "play_seeds" not in m for m in untouched)


def test_the_agent_learns_from_replays_and_the_designer_does_not(replayed: Replayed):
    calls = replayed.trainer.calls
    assert len(calls) == SETTINGS["run.iterations"]
    replay_samples = 0
    for iteration, call in enumerate(calls):
        ids = {f"i{iteration}-r{rid}" for rid, groups in replays_by_record(replayed.run_dir).items()
               if iteration in groups}
        assert {o.design_id for o in call["replayed"]} == ids
        assert not {s.design_id for s in call["designer"]} & ids
        for outcome in call["replayed"]:
            assert outcome.reward == outcome.advantage == 0.0
            assert list(outcome.agent_advantages) == group_advantages(outcome.scores_nohint)[0]
        for sample in call["samples"]:
            replay = sample.source.split("/")[0] in ids
            assert not (replay and sample.role is TrainRole.DESIGNER)
            replay_samples += replay and sample.role is TrainRole.AGENT
    assert replay_samples > 0


def test_replay_metrics(replayed: Replayed):
    lines = metrics_lines(replayed.run_dir)
    records = finals(replayed.run_dir)
    for iteration, line in enumerate(lines):
        assert set(REPLAY_METRICS) <= set(line)
        played = episodes(replayed.run_dir, iteration)
        replays = [e for e in played if REPLAY_ID.fullmatch(e["env_id"])]
        assert line["replay/play_share"] == (len(replays) / len(played) if played else 0.0)
        assert line["rollout/episodes"] == len(played) - len(replays)  # the new designs' own
        assert 0.0 <= line["replay/mean_priority"] <= 1.0
    last = lines[-1]
    replayed_last = [rid for rid, groups in replays_by_record(replayed.run_dir).items() if 2 in groups]
    regrets = [records[rid]["regret"] for rid in replayed_last]
    assert last["replay/regret_mean"] == pytest.approx(sum(regrets) / len(regrets))
    assert last["replay/staleness_mean"] >= 1.0


def test_replay_off_is_a_run_without_the_section(tmp_path: Path):
    small = {**SETTINGS, "run.iterations": 2, "run.designs": 2}
    del small["replay.count"], small["replay.score"]
    run(load_config(None, small), tmp_path / "without")
    section = tmp_path / "off.toml"
    section.write_text('[replay]\ncount = 0\nscore = "advantage"\nstaleness = 0.9\ntemperature = 2.0\n')
    run(load_config(section, small), tmp_path / "off")
    without, off = snapshot(tmp_path / "without"), snapshot(tmp_path / "off")
    assert off == without
    assert not any(key.startswith("replay/") for line in off[1] for key in line)
    assert not any('"replays"' in metrics for *_, metrics in off[0])


@pytest.mark.timeout(180)
def test_resume_after_a_crash_with_replay_ends_like_an_uninterrupted_run(tmp_path: Path, replayed: Replayed,
                                                                         crashing_policy):
    broken = tmp_path / "broken"
    last_call_of_the_third_iteration = replayed.calls[2] - 1  # while it plays its replays
    with pytest.raises(KeyboardInterrupt):
        run(config(), broken, policy=crashing_policy(calls=last_call_of_the_third_iteration,
                                                     seed=SETTINGS["run.seed"]))
    assert len(metrics_lines(broken)) == 2  # the second iteration, with its replays, is committed
    assert any("replays" in m for m in finals(broken).values())
    run(config(), broken, resume=True)
    assert snapshot(broken) == snapshot(replayed.run_dir)


def test_the_fixed_pool_baseline_replays_its_archived_draws(tmp_path: Path):
    run(load_config(None, {**SETTINGS, "run.iterations": 2, "run.designs": 2, "run.plays": 1,
                           "designer.fixed_pool": "examples", "replay.count": 1}), tmp_path / "run")
    lines = metrics_lines(tmp_path / "run")
    assert [line["replay/count"] for line in lines] == [0.0, 1.0]
    (rid,) = replays_by_record(tmp_path / "run")
    assert finals(tmp_path / "run")[rid]["replays"] == 1


def test_every_step_of_an_iteration_shows_its_phase_in_order(replayed):
    """A minutes-long step (the audit, the learner's update, the checkpoint) never sits under the
    finished bar of the one before it."""
    first = [p.removeprefix("iteration 0: ") for p in replayed.phases if p.startswith("iteration 0: ")]
    steps = [re.sub(r"\d+", "N", p) for p in first]
    assert steps == ["designing", "playing N episodes", "auditing N episodes", "scoring N episodes",
                     "learner update", "measuring diversity", "checkpoint and adapter sync", "committing"]
    assert [p for p in replayed.phases if p.startswith("iteration 1: ")][0] == "iteration 1: designing"


def test_every_iteration_counts_its_refusals_by_check(replayed):
    from spadework.outcomes import CHECK_NAMES, REFUSED

    with Archive.open(replayed.run_dir) as archive:
        records = [r for r in archive.records() if r.design is not None]
    for row in metrics_lines(replayed.run_dir):
        refused = {k.removeprefix(REFUSED): v for k, v in row.items() if k.startswith(REFUSED)}
        if "design/count" not in row:
            assert not refused  # nothing designed: nothing to count
            continue
        assert set(refused) == set(CHECK_NAMES)
        failed = [r.verdict.failure.name for r in records
                  if r.design.iteration == row["iteration"] and r.verdict.failure is not None]
        assert refused == {name: float(failed.count(name)) for name in CHECK_NAMES}
