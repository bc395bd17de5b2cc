"""The Gymnasium adapter passes Gymnasium's own checker, over the real sandbox."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from spadework.sandbox.gym import GymEnv

SOURCE = '''
from spadework.envs import TextEnv

class CountEnv(TextEnv):
    max_turns = 5

    def new_episode(self):
        self.target = self.rng.randint(2, 9)
        return f"Say the number after {self.target - 1}. Ünïcode is cleaned."

    def apply(self, action):
        if action == str(self.target):
            return "Right.", 1.0, True
        return "No.", 0.0, False

    def solution(self):
        return [str(self.target)]

    def hint(self):
        return "Add one."
'''


@pytest.mark.timeout(60)
def test_gym_adapter_passes_check_env(sandbox):
    env = GymEnv(SOURCE, sandbox)
    try:
        assert isinstance(env, gymnasium.Env)
        check_env(env, skip_render_check=True)
        observation, _ = env.reset(seed=7)
        assert observation in env.observation_space
        assert "?" in observation and "Ü" not in observation
        target = int(observation.split("after ")[1].split(".")[0]) + 1
        assert env.step(str(target)) == ("Right.", 1.0, True, False, {"turn": 1})
    finally:
        env.close()
    with pytest.raises(gymnasium.error.ClosedEnvironmentError):
        env.step("1")


@pytest.mark.timeout(60)
def test_gym_adapter_seeds_are_deterministic_and_own_sandbox_closes():
    env = GymEnv(SOURCE)
    try:
        first = env.reset(seed=3)[0]
        assert env.reset(seed=3)[0] == first
        assert {env.reset(seed=s)[0] for s in range(12)} != {first}
    finally:
        env.close()
    assert env._sandbox._closed.is_set()
