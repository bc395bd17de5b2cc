"""run_plays: lockstep batching, actions, hints, errors as data, stops, closing, order."""

from __future__ import annotations

import pytest
from rollout_fakes import CountingFakeSandbox, ScriptedFakePolicy, counter_env, replies

from spadework.errors import ConfigError, PolicyError
from spadework.policy.base import Completion, Role, Sampling
from spadework.rollout import Arm, EndReason, PlayJob, RolloutConfig, run_plays
from spadework.rollout.prompt import AgentForm, HintStyle, agent_system_prompt, reply_instruction
from spadework.sandbox import InProcessSandbox


def boxed_move(conversation) -> str:
    return f"I will move. \\boxed{{move{replies(conversation) + 1}}}"


def jobs_for(*sources: str, arm: Arm = Arm.NOHINT, seed: int = 0) -> list[PlayJob]:
    return [PlayJob(f"env{i}", source, seed + i, arm) for i, source in enumerate(sources)]


def play(jobs, script=boxed_move, config=None, sandbox=None, **kwargs):
    policy = ScriptedFakePolicy(script)
    sandbox = sandbox or CountingFakeSandbox(InProcessSandbox())
    episodes = run_plays(policy, sandbox, jobs, config or RolloutConfig(), **kwargs)
    return episodes, policy, sandbox


def test_plays_advance_in_lockstep_with_one_policy_call_per_round():
    episodes, policy, _ = play(jobs_for(counter_env(solve_at=1), counter_env(solve_at=3),
                                        counter_env(solve_at=2)))
    assert policy.batch_sizes == [3, 2, 1]
    assert [e.turns for e in episodes] == [1, 3, 2]
    assert all(e.end is EndReason.TERMINATED and e.solved and e.score == 1.0 for e in episodes)


def test_results_come_back_in_job_order():
    solve_at = [4, 1, 3, 2, 5, 1]
    jobs = jobs_for(*(counter_env(solve_at=n) for n in solve_at), seed=10)
    episodes, _, _ = play(jobs, config=RolloutConfig(concurrency=2))
    assert [(e.env_id, e.seed, e.turns) for e in episodes] == \
        [(f"env{i}", 10 + i, n) for i, n in enumerate(solve_at)]
    assert episodes[0].messages[1].content.startswith("solve at 4, seed 10\n\n")


def test_the_boxed_command_is_played_and_unboxed_replies_are_played_whole_and_counted():
    script = ["Thinking. \\boxed{ left }", "  right  \n", "\\boxed{a} or rather \\boxed{up}"]
    episodes, _, _ = play(jobs_for(counter_env(solve_at=3)), script=lambda c: script[replies(c)])
    (episode,) = episodes
    observations = [m.content for m in episode.messages if m.role is Role.USER][1:]
    assert observations == ["turn 1 you said left", "turn 2 you said right", "turn 3 you said up"]
    assert episode.unboxed == 1
    assert [m.content for m in episode.messages if m.role is Role.ASSISTANT] == script
    assert episode.completion_tokens == sum(len(text) for text in script)


def test_the_hint_line_appears_only_in_the_hinted_arm(good_source):
    jobs = [PlayJob("guess", good_source, 7, Arm.NOHINT), PlayJob("guess", good_source, 7, Arm.HINT)]
    (plain, hinted), _, _ = play(jobs, script=lambda c: "\\boxed{6}")
    reply = reply_instruction(AgentForm.GAME)
    assert plain.messages[1].content == f"Guess a number from 1 to 10.\n\n{reply}"
    assert hinted.messages[1].content == f"Guess a number from 1 to 10.\nHint: even\n\n{reply}"
    assert plain.hint is None and hinted.hint == "even"
    assert not any("Hint:" in m.content for m in plain.messages)
    assert plain.solved and hinted.solved


def test_the_system_prompt_asks_for_a_boxed_action_and_is_not_the_designers():
    prompt = agent_system_prompt(AgentForm.GAME)
    assert "\\boxed{" in prompt and "one move" in prompt.lower()
    assert "environment designer" not in prompt.lower()
    episodes, _, _ = play(jobs_for(counter_env(solve_at=1)))
    assert episodes[0].messages[0].role is Role.SYSTEM
    assert episodes[0].messages[0].content == prompt


ANSWER_SOURCE = """
from spadework.envs import AnswerEnv


class SumEnv(AnswerEnv):
    def new_episode(self):
        self.answer = 12
        return "What is 3 + 9?"

    def hint(self):
        return "Count on from 9."
"""


def test_an_answer_puzzle_gets_the_answer_instructions_and_a_game_the_game_ones():
    answer_prompt, game_prompt = agent_system_prompt(AgentForm.ANSWER), agent_system_prompt(AgentForm.GAME)
    assert answer_prompt != game_prompt and "step by step" in answer_prompt and "\\boxed{}" in answer_prompt
    for prompt in (answer_prompt, game_prompt):  # no example action a small model could copy
        assert "go north" not in prompt and "\\boxed{}" in prompt
    episodes, _, _ = play(jobs_for(ANSWER_SOURCE, counter_env(solve_at=1)), script=lambda c: "\\boxed{12}")
    assert [e.messages[0].content for e in episodes] == [answer_prompt, game_prompt]
    forced = PlayJob("forced", ANSWER_SOURCE, 0, Arm.NOHINT, AgentForm.GAME)
    assert play([forced], script=lambda c: "\\boxed{12}")[0][0].messages[0].content == game_prompt


def test_the_advice_style_frames_the_hint_as_a_tip_and_asks_for_the_box():
    config = RolloutConfig(hint_style=HintStyle.ADVICE)
    (hinted,), _, _ = play(jobs_for(ANSWER_SOURCE, arm=Arm.HINT), script=lambda c: "\\boxed{12}",
                           config=config)
    assert hinted.messages[1].content == ("What is 3 + 9?\n\nA tip that may help: Count on from 9.\n\n"
                                          f"{reply_instruction(AgentForm.ANSWER)}")
    assert "step by step" in reply_instruction(AgentForm.ANSWER)
    assert RolloutConfig.from_json(config.to_json()) == config
    job = PlayJob("x", ANSWER_SOURCE, 3, Arm.HINT, AgentForm.ANSWER)
    assert PlayJob.from_json(job.to_json()) == job


def test_an_environment_failing_in_step_ends_only_its_own_play_as_data():
    episodes, policy, sandbox = play(jobs_for(counter_env(fail_at=2), counter_env(solve_at=3)))
    failed, fine = episodes
    assert failed.end is EndReason.ENV_ERROR
    assert failed.error is not None and "RuntimeError: boom at turn 2" in failed.error
    assert failed.rewards == (0.5,) and failed.score == 0.5 and failed.turns == 1 and not failed.solved
    assert failed.messages[-1].role is Role.ASSISTANT
    assert fine.end is EndReason.TERMINATED and fine.turns == 3 and fine.error is None
    assert policy.batch_sizes == [2, 2, 1]
    assert sandbox.opened == sandbox.closed == 2


@pytest.mark.parametrize("source, arm, expected", [
    ("def broken(:", Arm.NOHINT, "syntax error"),
    (counter_env().replace("self.turn = 0", "raise KeyError('seed')"), Arm.NOHINT, "reset() raised KeyError"),
    (counter_env().replace("return 'hint for 0'", "return 1 / 0"), Arm.HINT,
     "hint() raised ZeroDivisionError"),
    (counter_env(step_body="return 'obs', 'one', False, False, {}"), Arm.NOHINT, "reward 'one'"),
    (counter_env(step_body="return 'obs'"), Arm.NOHINT, "return a 5-tuple"),
])
def test_failures_to_open_reset_hint_or_step_properly_are_recorded(source, arm, expected):
    (episode,), _, _ = play([PlayJob("bad", source, 0, arm)])
    assert episode.end is EndReason.ENV_ERROR
    assert expected in episode.error
    assert episode.score == 0.0 and episode.turns == 0


def test_a_hint_that_fails_does_not_matter_in_the_unhinted_arm():
    source = counter_env(solve_at=1).replace("return 'hint for 1'", "return 1 / 0")
    (episode,), _, _ = play([PlayJob("e", source, 0, Arm.NOHINT)])
    assert episode.end is EndReason.TERMINATED and episode.hint is None


def test_the_turn_cap_is_the_smaller_of_the_config_and_the_environment():
    jobs = jobs_for(counter_env(max_turns=20), counter_env(max_turns=2))
    episodes, _, _ = play(jobs, config=RolloutConfig(max_turns_cap=3))
    assert [(e.turns, e.end) for e in episodes] == [(3, EndReason.MAX_TURNS), (2, EndReason.MAX_TURNS)]


def test_an_environment_that_truncates_ends_with_truncated():
    (episode,), _, _ = play(jobs_for(counter_env(truncate_at=2)))
    assert (episode.turns, episode.end) == (2, EndReason.TRUNCATED)


def test_the_context_budget_stops_a_play_before_a_reply_that_would_not_fit():
    # Every message counts 5 (template overhead) + 0; the reply reserves 10. Start: 2 messages.
    # Before turn n: 2n messages = 10n tokens, + 10 must stay <= 40: turns 1, 2, 3 fit, a 4th not.
    config = RolloutConfig(context_tokens=40, sampling=Sampling(max_tokens=10))
    (episode,), _, _ = play(jobs_for(counter_env()), config=config, count_tokens=lambda text: 0)
    assert (episode.turns, episode.end) == (3, EndReason.CONTEXT)


def test_the_default_token_estimate_is_four_characters_a_token():
    # Each step's observation is ~8,000 characters, ~2,000 tokens. After one step the transcript
    # is ~2,200 tokens and a 512-token reply still fits in 3,072; after two it is ~4,200.
    (episode,), _, _ = play(jobs_for(counter_env(pad=7_900)))
    assert (episode.turns, episode.end) == (2, EndReason.CONTEXT)
    (episode,), _, _ = play(jobs_for(counter_env(pad=7_900)), config=RolloutConfig(context_tokens=2_000))
    assert (episode.turns, episode.end) == (1, EndReason.CONTEXT)


def test_every_environment_is_closed_even_when_the_policy_fails():
    def failing(conversation):
        if replies(conversation) == 1:
            raise PolicyError("the fake server went away")
        return "\\boxed{x}"

    sandbox = CountingFakeSandbox(InProcessSandbox())
    jobs = jobs_for(counter_env(), counter_env(fail_at=1), counter_env(solve_at=1), "def broken(:")
    with pytest.raises(PolicyError, match="went away"):
        play(jobs, script=failing, sandbox=sandbox)
    assert sandbox.opened == sandbox.closed == 3


def test_a_policy_returning_the_wrong_number_of_completions_is_a_policy_error():
    class ShortFakePolicy(ScriptedFakePolicy):
        def generate(self, conversations, sampling, tools=None):
            return [Completion("\\boxed{x}")]

    sandbox = CountingFakeSandbox(InProcessSandbox())
    with pytest.raises(PolicyError, match="returned 1 completions for 2 conversations"):
        run_plays(ShortFakePolicy(boxed_move), sandbox, jobs_for(counter_env(), counter_env()),
                  RolloutConfig())
    assert sandbox.opened == sandbox.closed == 2


def test_no_jobs_no_episodes():
    episodes, policy, _ = play([])
    assert episodes == [] and policy.batch_sizes == []


def test_an_invalid_config_names_the_field():
    with pytest.raises(ConfigError, match="RolloutConfig.concurrency"):
        RolloutConfig(concurrency=0)


def test_plays_through_the_real_sandbox(sandbox, good_source):
    # Seed 7 draws the secret 6: a wrong guess, then the right one.
    jobs = [PlayJob("guess", good_source, 7, Arm.NOHINT), PlayJob("guess", good_source, 7, Arm.HINT),
            PlayJob("broken", "def broken(:", 7, Arm.NOHINT)]
    episodes, policy, _ = play(jobs, script=lambda c: ["\\boxed{1}", "\\boxed{6}"][replies(c)],
                               sandbox=sandbox)
    plain, hinted, broken = episodes
    for episode in (plain, hinted):
        assert (episode.rewards, episode.end, episode.solved) == ((0.0, 1.0), EndReason.TERMINATED, True)
        assert [m.content for m in episode.messages[2:]] == ["\\boxed{1}", "Wrong.", "\\boxed{6}", "Right."]
    assert hinted.hint == "even" and "\nHint: even\n\n" in hinted.messages[1].content
    assert broken.end is EndReason.ENV_ERROR and broken.messages == ()
    assert policy.batch_sizes == [2, 2]
