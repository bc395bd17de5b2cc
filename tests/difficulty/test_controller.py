"""The difficulty controller in a window of plays: an agent that wins every play drives an
environment's difficulty up, one that loses every play drives it down, a window committed and read
back mid-way (a resumed run) keeps where it stood, and the environment reads the level it is set to."""

from __future__ import annotations

import json

import pytest
from tests.rollout.rollout_fakes import ScriptedFakePolicy

from spadework.difficulty import DifficultySettings, Standing, moved
from spadework.outcomes import Payment
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.sandbox import InProcessSandbox
from spadework.window import Window, WindowDesign, difficulty_metrics

LADDER_ENV = '''
from spadework.envs import TextEnv


class LadderEnv(TextEnv):
    """Say the level's word: 'up' and 'down' win at every level, 'lose' at none."""

    difficulties = 4
    max_turns = 1

    def new_episode(self):
        return f"difficulty {self.difficulty}: say a word"

    def apply(self, action):
        won = action in ("up", "down")
        return ("won" if won else "lost"), float(won), won

    def solution(self):
        return ["up"]

    def hint(self):
        return "a word"
'''

RULE = DifficultySettings(controller="sliding", window=4, raise_at=0.75, lower_at=0.25, start=2)


def reply(word: str) -> ScriptedFakePolicy:
    return ScriptedFakePolicy(lambda conversation: f"\\boxed{{{word}}}")


def play_step(window: Window, iteration: int, policy: ScriptedFakePolicy) -> tuple[Window, list]:
    jobs = [PlayJob(d.design_id, d.code, 100 * iteration + k, Arm.NOHINT, difficulty=d.difficulty)
            for d in window.live for k in range(4)]
    episodes = run_plays(policy, InProcessSandbox(), jobs, RolloutConfig(max_turns_cap=1))
    return window.with_step(iteration, window.step_outcomes(episodes, Payment()), RULE), episodes


def opened() -> Window:
    return Window(0, 6, (WindowDesign("i0-d0", 0, True, LADDER_ENV, standing=Standing.start(4, RULE)),))


def test_an_agent_that_wins_everything_drives_the_difficulty_up_to_the_top():
    window, seen = opened(), []
    for iteration in range(4):
        window, episodes = play_step(window, iteration, reply("up"))
        seen.append({e.messages[1].content.split(":")[0] for e in episodes})
        assert {e.difficulty for e in episodes} == {window.designs[0].levels[-1]}
    design = window.designs[0]
    assert design.levels == (2, 3, 4, 4) and design.standing.level == 4
    assert design.standing.path == (2, 3, 4) and design.standing.plays == 16
    assert [s for s in seen] == [{"difficulty 2"}, {"difficulty 3"}, {"difficulty 4"}, {"difficulty 4"}]


def test_an_agent_that_loses_everything_drives_it_down_to_the_easiest():
    window = opened()
    for iteration in range(3):
        window, _ = play_step(window, iteration, reply("lose"))
    assert window.designs[0].levels == (2, 1, 1) and window.designs[0].standing.level == 1
    assert difficulty_metrics(window, 2)["difficulty/lowered"] == 0.0  # at the floor it stays


def test_a_window_committed_mid_way_and_read_back_plays_on_where_it_stood():
    window, _ = play_step(opened(), 0, reply("up"))
    resumed = Window.from_json(json.loads(json.dumps(window.to_json())))
    assert resumed == window and resumed.designs[0].difficulty == 3
    again, episodes = play_step(resumed, 1, reply("up"))
    assert {e.difficulty for e in episodes} == {3} and again.designs[0].standing.level == 4


def test_the_designer_is_scored_on_the_steps_at_the_last_level():
    window = opened()
    for iteration, word in enumerate(("up", "up", "lose")):
        window, _ = play_step(window, iteration, reply(word))
    design = window.designs[0]
    assert design.levels == (2, 3, 4)
    assert design.at_last_level == ((0.0, 0.0, 0.0, 0.0),)


@pytest.mark.parametrize(("scores", "level"), [([1.0] * 8, 3), ([0.0] * 8, 1), ([1.0, 0.0] * 4, 2),
                                               ([1.0] * 7, 2)])
def test_the_reference_rule_reads_the_last_eight_plays(scores, level):
    rule = DifficultySettings(controller="sliding")
    assert moved(Standing(2, 3), scores, rule).level == level


def test_a_difficulty_the_environment_does_not_declare_is_refused_with_a_message():
    from spadework.errors import EnvRaised

    with pytest.raises(EnvRaised, match="difficulty 5 is not one LadderEnv declares"):
        InProcessSandbox().open(LADDER_ENV, difficulty=5)
