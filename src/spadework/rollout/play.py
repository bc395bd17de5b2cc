"""Playing many episodes at once, in lockstep, so one policy call serves every active episode.

Each round: one ``policy.generate`` call with the conversations of all episodes still going
(a server backend batches them), then every environment steps, concurrently. An environment
that fails ends its own episode as data (``EndReason.ENV_ERROR``); it never stops the others.

In a tool world (``AgentForm.TOOL``) the tools come from ``reset``'s info and go to the policy
with the conversation, the agent's whole reply is the action (the world reads the calls in it)
and the world's answers are ``Role.TOOL`` messages.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from spadework.envs.contract import (
    MAX_ACTION_CHARS,
    MAX_HINT_CHARS,
    MAX_OBSERVATION_CHARS,
    MAX_TURNS_LIMIT,
    episode_score,
    is_solved,
)
from spadework.envs.tool_calls import parse_calls
from spadework.errors import EnvContractError, EnvError, PolicyError
from spadework.policy.base import CONTEXT_OVERFLOW, Completion, Message, Policy, Role, ToolSchema
from spadework.rollout.audit import PlayCheck, audit_seed, read_opening
from spadework.rollout.boxed import extract_command
from spadework.rollout.calls import ReplyShape, reply_shape
from spadework.rollout.prompt import AgentForm, ToolPrompt, form_of_source, opening_messages
from spadework.rollout.reading import read_reset, read_step, text
from spadework.rollout.records import (
    Arm,
    EndReason,
    Episode,
    PlayJob,
    RolloutConfig,
    TokenCounter,
    estimate_tokens,
)
from spadework.validate.redraw import Reading

MESSAGE_OVERHEAD_TOKENS = 5
"""Tokens a chat template adds around each message (ChatML: start, role, newline, end, newline)."""
MAX_TOOLS_CHARS = 16_000
"""Most characters of JSON a tool world's schemas may take (they are in every prompt)."""
MAX_CODE_CHARS = 16_000
"""Most characters of a code task's reply it is given (a whole function with its docstring
repeated passes ``MAX_ACTION_CHARS``; code tasks are held-out tasks, never designed code)."""

T = TypeVar("T")


class EnvOpener(Protocol):
    """What ``run_plays`` needs of a sandbox: ``Sandbox`` and the ``InProcessSandbox`` fake have it."""

    def open(self, source: str) -> Any:
        """An environment handle for ``source`` (with ``difficulty=`` too, for a job that sets one)."""


def transcript_tokens(messages: Sequence[Message], count_tokens: TokenCounter = estimate_tokens) -> int:
    """Estimated tokens of a transcript: each content plus ``MESSAGE_OVERHEAD_TOKENS`` per message.

    >>> transcript_tokens([Message(Role.USER, "x" * 40), Message(Role.ASSISTANT, "")])
    20
    """
    return sum(count_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def read_tools(info: Any) -> list[ToolSchema] | None:
    """The tool schemas in ``reset``'s info (``info["tools"]``), or None when it carries none.

    >>> read_tools({"tools": [{"type": "function", "function": {"name": "look"}}]})
    [{'type': 'function', 'function': {'name': 'look'}}]
    >>> read_tools({}), read_tools(None), read_tools({"tools": []})
    (None, None, None)
    >>> read_tools({"tools": ["look"]})
    Traceback (most recent call last):
    ...
    spadework.errors.EnvContractError: reset() info['tools'] holds 'look'; give a list with each tool as \
a function schema {"type": "function", "function": {"name": ..., "description": ..., "parameters": ...}}
    """
    tools = info.get("tools") if isinstance(info, dict) else None
    if not tools:
        return None
    for tool in tools if isinstance(tools, list) else [None]:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            shown = tool if isinstance(tools, list) else tools
            raise EnvContractError(f"reset() info['tools'] holds {str(shown)[:80]!r}; give a list with each "
                                   'tool as a function schema {"type": "function", "function": {"name": ..., '
                                   '"description": ..., "parameters": ...}}')
    size = len(json.dumps(tools, default=str))
    if size > MAX_TOOLS_CHARS:
        raise EnvContractError(f"reset() info['tools'] is {size} characters of JSON; keep the tool schemas "
                               f"under {MAX_TOOLS_CHARS} (fewer tools, or shorter descriptions)")
    return list(tools)


def tool_action(reply: str, shape: ReplyShape) -> str:
    r"""What a tool world's reply plays, given its shape (``rollout.calls.reply_shape``).

    The whole reply goes to the world, which reads the calls in it (a reply longer than
    ``MAX_ACTION_CHARS`` sends its calls alone, as a list). A reply without calls that boxes an
    answer plays the boxed answer; any other reply is played whole.

    >>> def played(reply):
    ...     return tool_action(reply, reply_shape(reply, []))
    >>> played("Look it up.\n[find(collection='books')]")
    "Look it up.\n[find(collection='books')]"
    >>> played(r"The total is \boxed{42}."), played(" I am done. ")
    ('42', 'I am done.')
    >>> played("Long thoughts.\n" * 200 + "get(id=3)")
    '[get(id=3)]'
    """
    action = reply.strip()
    if shape.calls and len(action) > MAX_ACTION_CHARS:
        action = "[" + ", ".join(map(str, parse_calls(reply))) + "]"
    elif shape is ReplyShape.ANSWER:
        action = extract_command(reply) or action
    return action[:MAX_ACTION_CHARS]


def _turn_limit(env: Any, cap: int) -> int:
    value = getattr(env, "max_turns", None)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return cap
    return min(cap, value, MAX_TURNS_LIMIT)


@dataclass
class _Play:
    """The mutable state of one episode while it is played (private to this module)."""

    job: PlayJob
    started: float = field(default_factory=time.monotonic)
    env: Any = None
    max_turns: int = 0
    messages: list[Message] = field(default_factory=list)
    form: AgentForm = AgentForm.GAME
    tools: list[ToolSchema] | None = None
    native: bool = True
    rewards: list[float] = field(default_factory=list)
    action: str = ""
    unboxed: int = 0
    completion_tokens: int = 0
    tool_replies: int = 0
    calls: int = 0
    valid_calls: int = 0
    hint: str | None = None
    check: PlayCheck | None = None
    error: str | None = None
    end: EndReason | None = None
    seconds: float = 0.0

    @property
    def sent_tools(self) -> list[ToolSchema] | None:
        """The tools that go to the policy with the conversation: none when they are listed in the
        first message instead (``ToolPrompt.COMPACT``)."""
        return self.tools if self.native else None

    def finish(self, end: EndReason, error: str | None = None) -> None:
        """End the episode; its environment stays open for the audit (``run_plays`` closes it)."""
        self.end, self.error = end, error
        self.seconds = time.monotonic() - self.started

    def close(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            try:
                env.close()
            except EnvError:
                pass

    def add_reply(self, completion: Completion) -> None:
        self.messages.append(Message(Role.ASSISTANT, completion.text))
        self.completion_tokens += completion.completion_tokens
        if self.form is AgentForm.TOOL:
            shape = reply_shape(completion.text, self.tools or ())
            self.action = tool_action(completion.text, shape)
            self.unboxed += shape is ReplyShape.PROSE  # no call, not even one it cannot read, and no answer
            self.tool_replies += 1
            self.calls += shape.calls
            self.valid_calls += shape is ReplyShape.VALID_CALL
            return
        if self.form is AgentForm.CODE:  # the task reads the code out of the whole reply
            self.action = completion.text.strip()[:MAX_CODE_CHARS]
            return
        command = extract_command(completion.text)
        if command is None:
            self.unboxed += 1
            command = completion.text.strip()
        self.action = command[:MAX_ACTION_CHARS]

    def episode(self) -> Episode:
        score = episode_score(self.rewards)
        return Episode(
            env_id=self.job.env_id, seed=self.job.seed, arm=self.job.arm, messages=tuple(self.messages),
            rewards=tuple(self.rewards), score=score, solved=is_solved(score), turns=len(self.rewards),
            unboxed=self.unboxed, hint=self.hint, error=self.error,
            completion_tokens=self.completion_tokens, seconds=self.seconds,
            end=self.end or EndReason.ENV_ERROR, tools=tuple(self.sent_tools or ()), check=self.check,
            tool_replies=self.tool_replies, calls=self.calls, valid_calls=self.valid_calls,
            difficulty=self.job.difficulty,
        )


def _start(play: _Play, sandbox: EnvOpener, config: RolloutConfig) -> None:
    """Open, reset, read a tool world's tools and (hinted arm) the hint; an environment failure
    ends the play. Audited (``config.audit``), both arms read the hint and the solution alike."""
    play.form = play.job.form or form_of_source(play.job.source)
    try:
        difficulty = play.job.difficulty
        play.env = sandbox.open(play.job.source) if difficulty is None else \
            sandbox.open(play.job.source, difficulty=difficulty)  # type: ignore[call-arg]
        if config.audit:
            reset, play.check = read_opening(play.env, play.job.seed)
        else:
            reset = read_reset(play.env.reset(seed=play.job.seed))
        observation = text(reset[0], MAX_OBSERVATION_CHARS)
        if play.form is AgentForm.TOOL:
            play.tools = read_tools(reset[1])
            play.native = config.tool_prompt is not ToolPrompt.COMPACT
        if play.job.arm is Arm.HINT:
            play.hint = play.check.hint if play.check is not None else text(play.env.hint(), MAX_HINT_CHARS)
        play.max_turns = _turn_limit(play.env, config.max_turns_cap)
    except EnvError as exc:
        play.finish(EndReason.ENV_ERROR, str(exc))
        return
    play.messages = opening_messages(observation, play.hint, play.form, config.hint_style, config.tool_prompt,
                                     play.tools or ())


def _audit(play: _Play) -> None:
    """Replay the played seed after another one and check it against its opening (``rollout.audit``)."""
    if play.check is None or play.env is None or play.end is EndReason.ENV_ERROR:
        return
    try:
        play.check = audit_seed(play.env, play.job.seed, play.check, play.max_turns,
                                redraw=Reading.of(play.job.source))
    except EnvError as exc:  # a failure, or a broken contract (a reward that is not a number, say)
        play.check = replace(play.check, problem=f"seed {play.job.seed}: replaying it after the episode "
                                                 f"failed: {exc}")


def _step(play: _Play) -> None:
    """Play the pending action; record the reward and the next observation, or the failure."""
    try:
        observation, reward, terminated, truncated = read_step(play.env.step(play.action))
    except EnvError as exc:
        play.finish(EndReason.ENV_ERROR, str(exc))
        return
    play.rewards.append(reward if math.isfinite(reward) else 0.0)
    play.messages.append(Message(Role.TOOL if play.form is AgentForm.TOOL else Role.USER, observation))
    if terminated:
        play.finish(EndReason.TERMINATED)
    elif truncated:
        play.finish(EndReason.TRUNCATED)
    elif len(play.rewards) >= play.max_turns:
        play.finish(EndReason.MAX_TURNS)


def _still_going(plays: list[_Play], config: RolloutConfig, count_tokens: TokenCounter) -> list[_Play]:
    """The plays that take another turn; those whose next reply would not fit end with CONTEXT."""
    going = []
    for play in plays:
        if play.end is not None:
            continue
        needed = transcript_tokens(play.messages, count_tokens) + config.sampling.max_tokens
        if play.sent_tools:
            needed += count_tokens(json.dumps(play.sent_tools, default=str))
        if needed > config.context_tokens:
            play.finish(EndReason.CONTEXT)
        else:
            going.append(play)
    return going


def _reply(policy: Policy, plays: list[_Play], config: RolloutConfig) -> None:
    """One policy call for every play still going; each reply becomes that play's next action.
    A tool world's tools go with its conversation (``tools`` is left out when no play has any, so
    a policy without tool support still plays the other forms)."""
    conversations = [tuple(play.messages) for play in plays]
    tools = [play.sent_tools for play in plays]
    if any(tools):
        completions = policy.generate(conversations, config.sampling, tools)
    else:
        completions = policy.generate(conversations, config.sampling)
    if len(completions) != len(plays):
        raise PolicyError(f"policy {getattr(policy, 'name', '?')!r} returned {len(completions)} completions "
                          f"for {len(plays)} conversations; a backend must return one per conversation")
    for play, completion in zip(plays, completions, strict=True):
        if completion.finish_reason == CONTEXT_OVERFLOW:
            play.finish(EndReason.CONTEXT,
                        f"the conversation does not fit the context of {getattr(policy, 'name', '?')}")
        else:
            play.add_reply(completion)


def _run_all(pool: ThreadPoolExecutor, function: Callable[[T], None], items: Sequence[T]) -> None:
    """Run ``function`` on every item in ``pool``; wait for all, then raise the first failure."""
    futures = [pool.submit(function, item) for item in items]
    wait(futures)
    for future in futures:
        future.result()


def run_plays(
    policy: Policy,
    sandbox: EnvOpener,
    jobs: Sequence[PlayJob],
    config: RolloutConfig,
    count_tokens: TokenCounter | None = None,
    announce: Callable[[str], None] | None = None,
) -> list[Episode]:
    """Play every job to its end, in lockstep, and return the episodes in job order.

    Each job gets an environment instance of its own (``sandbox.open``), reset with the job's
    seed; the hinted arm shows ``env.hint()`` under the first observation. The action played is
    the reply's last ``\\boxed{...}``, or the whole stripped reply when it has none (counted in
    ``unboxed``); in a tool world, the whole reply unless it boxes an answer and calls no tool
    (``tool_action``). Actions are cut to ``MAX_ACTION_CHARS``, observations to
    ``MAX_OBSERVATION_CHARS``.
    An episode ends when the environment terminates or truncates, at
    ``min(config.max_turns_cap, env.max_turns)`` steps, when its next reply would overflow
    ``config.context_tokens``, or when the environment fails. Every environment is closed.

    Args:
        policy: generates one reply per conversation, once per round.
        sandbox: opens environments (``Sandbox``, or the ``InProcessSandbox`` fake).
        jobs: what to play.
        config: turn cap, context budget, concurrency of environment calls, sampling.
        count_tokens: tokens of a text; default ``estimate_tokens`` (four characters a token).
        announce: hears of a step after the plays that takes its time (``auditing N episodes``).

    Returns:
        One episode per job, in the order of ``jobs``.

    Raises:
        PolicyError: the policy failed, or returned the wrong number of completions.
        SandboxError: the sandbox itself could not start a worker.
    """
    count = count_tokens or estimate_tokens
    plays = [_Play(job) for job in jobs]
    if not plays:
        return []
    with ThreadPoolExecutor(max_workers=min(config.concurrency, len(plays))) as pool:
        try:
            # opened in a random order, so which worker (uid, pid) an episode gets says nothing of its arm
            opening = random.SystemRandom().sample(plays, len(plays))
            _run_all(pool, lambda play: _start(play, sandbox, config), opening)
            while going := _still_going(plays, config, count):
                _reply(policy, going, config)
                _run_all(pool, _step, [play for play in going if play.end is None])
            if config.audit:
                if announce is not None:
                    announce(f"auditing {len(plays)} episodes")
                _run_all(pool, _audit, plays)
        finally:
            for play in plays:
                play.close()
    return [play.episode() for play in plays]
