"""The kinds a run's configuration chooses between: small enums with no behaviour of their own.

They live here, under every part, so that reading a configuration (``spadework.config``) loads
none of the parts that act on it; each part re-exports the kinds it owns.
"""

from __future__ import annotations

from enum import StrEnum

CONFIDENCE = 0.95
"""The default two-sided confidence of every regret interval."""


class Retry(StrEnum):
    """What a design whose reply failed validation is asked next."""

    REPAIR = "repair"
    """Its first request, its failed reply and what the validator found: fix it."""
    FRESH = "fresh"
    """Its first request again, sampled anew (small models seldom repair; a new sample often passes)."""


class DesignForm(StrEnum):
    """What the designer is asked to write; each form has its own request and example
    (``prompts/design_<form>.txt``, ``example_<form>.txt``, ``example_document_<form>.txt``).

    Small models copy the example's class and drop whatever stands outside it, so each
    example keeps everything inside its one class.
    """

    ANSWER = "answer"
    """A puzzle with one answer (``AnswerEnv``): the designer writes the puzzle, its answer and
    a hint, and the base class the rest. The form the small embedded models get right."""
    GAME = "game"
    """Any environment: an answer puzzle, a game of several moves (``TextEnv``) or a plain class."""
    TOOL = "tool"
    """A tool world (``ToolWorld``): records drawn from the document, tools that query and change
    them, and a task that needs several dependent calls; the base class checks the goal."""
    RECORDS = "records"
    """A tool world declared as data (``DeclaredWorld``): collections, their fields' values and the
    kinds of task; the base class draws records, tasks, solution and hint. The tool form small
    models get right."""


class EmbedderKind(StrEnum):
    """Which embedder measures diversity."""

    AUTO = "auto"
    """The sentence-embedding model when it is installed, else n-gram hashing (with a note)."""
    MINILM = "minilm"
    """all-MiniLM-L6-v2 (384 dimensions), from its PyPI data package, offline."""
    HASHING = "hashing"
    """Character 3-gram and word counts hashed into 512 dimensions; no model needed."""


class ServerKind(StrEnum):
    """Which inference server's adapter hot-load endpoints receive each update."""

    VLLM = "vllm"
    SGLANG = "sglang"
    LLAMA_CPP = "llama-cpp"
    """llama.cpp's server reads adapter files only when it starts: spadework runs it on
    loopback itself and restarts it with each new adapter."""


class AttemptChoice(StrEnum):
    """Which reply of a design the designer is trained on.

    FIRST (the default): the first reply, with the design's advantage, so the designer learns
    to be right the first time; repairs are context the model never sees again.
    FINAL: the last reply (the valid one when repair succeeded), in its repair conversation.
    ALL: every reply, each with the design's advantage.
    """

    FIRST = "first"
    FINAL = "final"
    ALL = "all"


class Aggregation(StrEnum):
    """How token losses become one number.

    TOKEN_MEAN: the mean over every trained token of the batch (long replies weigh more).
    SEQUENCE_MEAN: each sequence's mean over its tokens, then the mean over sequences.
    """

    TOKEN_MEAN = "token_mean"
    SEQUENCE_MEAN = "sequence_mean"


class PolicyKind(StrEnum):
    """Which inference backend serves the policy."""

    EMBEDDED = "embedded"
    OPENAI = "openai"
    HF = "hf"
    SCRIPTED = "scripted"


class CallFormat(StrEnum):
    """How a benchmark shows its functions to the model and reads its calls.

    ``prompting``: the function docs in the system prompt, calls written as a Python list (how a
    leaderboard scores models without tool calling); ``native``: the model's own tool calling
    (the chat template's tools, a server's ``tools`` field).
    """

    PROMPTING = "prompting"
    NATIVE = "native"


class ToolPrompt(StrEnum):
    """How a tool world's tools and the way to call them are shown to the agent.

    ``mixed``: the tools through the model's chat template, and calls asked for in either of two
    forms (``<tool_call>`` JSON or a Python list of calls); ``native``: the tools through the chat
    template and exactly one call a reply in the template's own ``<tool_call>`` form; ``compact``:
    the tools as one ``name(argument: type) - what it does`` line each under the task (not through
    the template) and exactly one Python call a reply. The last two show a neutral example call
    from another world.
    """

    MIXED = "mixed"
    NATIVE = "native"
    COMPACT = "compact"


class Controller(StrEnum):
    """What moves each environment's difficulty (``[difficulty] controller``).

    ``none``: nothing; every environment plays at its own difficulty. ``sliding``: the sliding-window
    rule (``spadework.difficulty``): up a level when the last plays at a level are won often, down
    one when they are won seldom.
    """

    NONE = "none"
    SLIDING = "sliding"


class ReplayScore(StrEnum):
    """What ranks the archived environments for replay (``[replay] score``).

    ``regret``: the environment's current hint-based regret (pooled over all its plays).
    ``advantage``: ``positive_advantage`` of its no-hint scores, the agent-side analogue of PLR's
    positive value loss.
    """

    REGRET = "regret"
    ADVANTAGE = "advantage"


class DesignerReward(StrEnum):
    """What a valid design earns (``[rewards] designer``; ``spadework.rewards.designer``).

    ``regret`` is the paper's: the mean lift of the hint. ``regret_lcb`` is the lower end of the
    regret's interval, clipped at 0: one lucky hinted play earns little, a lift seen on many
    seeds earns nearly its mean. ``plateau`` pays a no-hint win rate inside a band (difficulty at
    the agent's edge); ``learning_potential`` the rise of the agent's win rate over the
    environment's window; ``blend`` the reference's weighted mix of them (``[rewards.blend]``).
    """

    REGRET = "regret"
    REGRET_LCB = "regret_lcb"
    PLATEAU = "plateau"
    LEARNING_POTENTIAL = "learning_potential"
    BLEND = "blend"


class AdvantageGroup(StrEnum):
    """Within which groups the designer's rewards are centred (``[rewards] group_by``)."""

    NONE = "none"
    DOMAIN = "domain"
    """the corpus domain of each design's document"""
    SKILL = "skill"
    """the skill each design was asked to exercise (``[designer] skills``)"""


class HintStyle(StrEnum):
    """How the hinted arm shows the hint under the first observation.

    ``line``: a plain ``Hint:`` line under the observation; ``advice``: a paragraph of its own,
    framed as a tip that may help.
    """

    LINE = "line"
    ADVICE = "advice"


class WandbMode(StrEnum):
    """Whether and how a run logs to Weights & Biases.

    OFF: not at all. OFFLINE: into the run directory, no network (``wandb sync`` uploads later).
    ONLINE: to the server the user is logged in to.
    """

    OFF = "off"
    OFFLINE = "offline"
    ONLINE = "online"


class Arm(StrEnum):
    """Whether the agent sees the environment's hint (the two arms of hint-based regret)."""

    NOHINT = "nohint"
    HINT = "hint"


class Arms(StrEnum):
    """Which arms an environment is played in (``[agent] arms``).

    BOTH: without and with the hint, on the same seeds: what regret needs.
    NOHINT: the agent's own play only, for a run where nothing earns regret (a fixed pool): the
        hinted arm would cost as much play again and teach nothing, as only no-hint episodes train.

    >>> [arm.value for arm in Arms.BOTH.played], [arm.value for arm in Arms.NOHINT.played]
    (['nohint', 'hint'], ['nohint'])
    """

    BOTH = "both"
    NOHINT = "nohint"

    @property
    def played(self) -> tuple[Arm, ...]:
        """The arms, in the order their jobs are made."""
        return tuple(Arm) if self is Arms.BOTH else (Arm.NOHINT,)
