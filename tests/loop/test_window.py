"""Environments that live for a window of iterations (``designer.regenerate_every``), with the
scripted fake policy: the hinted arm plays at the window's first step only, the agent trains every
iteration, the designer is paid and trained when the window closes (its archived designs updated
then), and a run stopped mid-window resumes to the same end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadework.archive import Archive, DesignResult
from spadework.config import load_config
from spadework.run import run

K = 2


def windowed(**overrides):
    values = {"policy.kind": "scripted", "run.iterations": 4, "run.designs": 3, "run.plays": 2,
              "run.seed": 1, "sandbox.pool_size": 2, "diversity.embedder": "hashing",
              "designer.regenerate_every": K, "rewards.designer": "blend"}
    values.update(overrides)
    return load_config(None, values)


def metrics_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def episodes_of(run_dir: Path, iteration: int) -> list[dict]:
    path = run_dir / "episodes" / f"iteration-{iteration:04d}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def finals(run_dir: Path) -> list[DesignResult]:
    with Archive.open(run_dir, create=False) as archive:
        results = [DesignResult.from_metrics(r.metrics) for r in archive.records()]
    return [r for r in results if r is not None and r.final]


@pytest.mark.timeout(240)
def test_a_window_designs_once_hints_once_and_pays_when_it_closes(tmp_path: Path):
    run(windowed(), tmp_path / "run")
    rows = metrics_of(tmp_path / "run")
    for iteration, row in enumerate(rows):
        opening, closing = iteration % K == 0, iteration % K == K - 1
        arms = {e["arm"] for e in episodes_of(tmp_path / "run", iteration)}
        assert ("hint" in arms) == opening, iteration
        assert ("design/valid_rate" in row) == opening
        assert ("reward/blend_mean" in row) == ("reward/designer_mean" in row) == closing
        assert ("reward/regret_mean" in row) == opening
    designed = [r for r in finals(tmp_path / "run")]
    assert {r.iteration for r in designed} == {0, 2}  # designed at the windows' first steps only
    played = [r for r in designed if r.play is not None]
    assert played, "the scripted designer writes some valid environments"
    for result in played:  # paid when the window closed: the update reached the archived record
        assert result.score is not None and result.designer_reward == pytest.approx(result.score.blend)
    # the no-hint plays of every step are in the window the loop state keeps (and its win rate)
    with Archive.open(tmp_path / "run", create=False) as archive:
        kept = archive.last_iteration()[1]["window"]["designs"]
    assert [len(d["steps"]) for d in kept if d["valid"]] == [K] * sum(d["valid"] for d in kept)
    assert all(len(d["hint"]) == 2 and len(step) == 2 for d in kept if d["valid"] for step in d["steps"])


@pytest.mark.timeout(300)
def test_a_run_stopped_mid_window_resumes_to_the_same_end(tmp_path: Path, crashing_policy):
    config = windowed()
    run(config, tmp_path / "whole")
    with pytest.raises(KeyboardInterrupt):
        run(config, tmp_path / "broken", policy=crashing_policy(calls=10, seed=1))
    committed = len(metrics_of(tmp_path / "broken"))
    assert committed % K == 1, "stopped inside a window (after its first step)"
    run(config, tmp_path / "broken", resume=True)
    def strip(run_dir: Path) -> list[dict]:
        return [{k: v for k, v in row.items() if not k.startswith("perf/")} for row in metrics_of(run_dir)]
    assert strip(tmp_path / "broken") == strip(tmp_path / "whole")
    assert finals(tmp_path / "broken") == finals(tmp_path / "whole")


@pytest.mark.timeout(240)
def test_the_hinted_arm_plays_its_own_count_of_the_same_seeds(tmp_path: Path):
    run(windowed(**{"run.iterations": 1, "run.plays": 2, "run.hint_plays": 3,
                    "designer.regenerate_every": 1, "rewards.designer": "regret"}), tmp_path / "run")
    played = episodes_of(tmp_path / "run", 0)
    by_env: dict[str, dict[str, list[int]]] = {}
    for e in played:
        by_env.setdefault(e["env_id"], {}).setdefault(e["arm"], []).append(e["seed"])
    assert by_env
    for arms in by_env.values():
        assert len(arms["nohint"]) == 2 and len(arms["hint"]) == 3
        assert set(arms["nohint"]) < set(arms["hint"])  # the first seeds alike
    for result in finals(tmp_path / "run"):
        if result.play is not None:
            assert len(result.play.scores_hint) == 3 and len(result.play.scores_nohint) == 2


def test_a_window_closes_with_every_design_paid_from_all_its_plays():
    from spadework.outcomes import DesignOutcome, Payment, with_designer_advantages
    from spadework.rewards import BlendSettings, DesignerReward
    from spadework.window import Window, WindowDesign, window_metrics

    designs = (WindowDesign("i0-d0", 0, True, "code"), WindowDesign("i0-d1", 1, False, invalid_reward=-0.5),
               WindowDesign("i0-d2", 2, True, "code"))
    window = Window(0, 2, designs)

    def step(design_id, nohint, hint=()):
        return DesignOutcome(design_id, True, tuple(nohint), tuple(hint), 0.0, 0.0)

    window = window.with_step(0, [step("i0-d0", [0, 0, 0, 0], [1, 1, 0, 0]), step("i0-d2", [1] * 4, [1] * 4)])
    window = window.with_step(1, [step("i0-d0", [1, 1, 0, 0]), step("i0-d2", [1] * 4)])
    assert window.designs[0].hint == (1, 1, 0, 0) and window.designs[0].first == (0, 0, 0, 0)
    assert window.designs[0].steps == ((0, 0, 0, 0), (1, 1, 0, 0))  # the later step adds no hint
    assert Window.from_json(json.loads(json.dumps(window.to_json()))) == window
    payment = Payment(designer=DesignerReward.BLEND, blend=BlendSettings())
    closed = window.close(payment)
    # d0: regret 0.5 at the first step (floored: 1), win rate 2/8 = .25 -> plateau 0.4, lp 0.5
    assert closed[0].score.micro_lp == pytest.approx(0.5) and closed[0].reward == pytest.approx(0.4 + 0.24)
    assert closed[1].reward == -0.5 and closed[1].score is None  # invalid: its penalty
    assert closed[2].reward == 0.0  # always solved: out of band, no regret
    centred, _ = with_designer_advantages(closed, None)
    assert sum(o.advantage for o in centred) == pytest.approx(0.0)
    metrics = window_metrics(closed, payment)
    assert metrics["reward/in_band_share"] == 0.0 and metrics["reward/plateau_mean"] == pytest.approx(0.2)
    assert metrics["reward/micro_lp_mean"] == pytest.approx(0.25) and metrics["reward/masked"] == 0.0


def test_a_window_pays_the_plateau_above_the_chance_its_validator_measured():
    """The chance a design's verdict measured travels with it through the window and its commits:
    half the plays won on a coin toss (chance 0.5) earns no plateau; the same plays on a design
    whose seeds all need their own answer earn it in full."""
    from spadework.outcomes import DesignOutcome, Payment
    from spadework.rewards import BlendSettings, DesignerReward
    from spadework.window import Window, WindowDesign, window_metrics

    window = Window(0, 1, (WindowDesign("i0-d0", 0, True, "code", chance=0.5),
                           WindowDesign("i0-d1", 1, True, "code")))
    half = (1.0, 0.0, 1.0, 0.0)
    window = window.with_step(0, [DesignOutcome(d, True, half, half, 0.0, 0.0) for d in ("i0-d0", "i0-d1")])
    assert Window.from_json(json.loads(json.dumps(window.to_json()))) == window
    payment = Payment(designer=DesignerReward.PLATEAU, blend=BlendSettings())
    coin, fair = window.close(payment)
    assert (coin.reward, fair.reward) == (0.0, 1.0)
    assert coin.score.chance == 0.5 and coin.score.win_rate == fair.score.win_rate == 0.5
    metrics = window_metrics([coin, fair], payment)
    assert metrics["reward/in_band_share"] == 0.5 and metrics["reward/chance_mean"] == 0.25


@pytest.mark.timeout(240)
def test_a_window_in_play_is_never_replayed(tmp_path: Path):
    run(windowed(**{"replay.count": 2, "run.iterations": 4}), tmp_path / "run")
    replayed = [r for r in finals(tmp_path / "run") if r.play is not None and r.play.last_played is not None]
    assert replayed, "earlier windows' designs are replayed"
    assert all(r.play.last_played >= r.iteration + K for r in replayed)  # only once their window closed
