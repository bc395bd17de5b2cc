r"""ScriptedPolicy: a deterministic FAKE model for fast tests of everything around a policy.

It plays both roles by rule. A conversation whose system message contains
``DESIGNER_MARKER`` is a designer conversation: the reply is a sentence and one
```` ```python ```` block holding a complete environment of one of a few families, the
family, its parameters and a topic word all drawn from a hash of the first user message
(the grounding document). Any other conversation is an agent conversation: the reply is
a short thought and ``\boxed{command}``, played well when the first user message carries a
``Hint:`` line and weakly when it does not, so hint-based regret is positive.

A conversation given tools (or holding tool results) is a tool world: the reply is a thought
and one tool call (``scripted_tools``). A design conversation that mentions ``ToolWorld`` gets
the tool world family, one that mentions ``DeclaredWorld`` a declared world.

Replies depend only on the conversation's text, the policy's seed and the sampling seed
(never on global random state or on earlier calls), so runs repeat exactly; the sampling
seed only decides whether a designer answers without code, so a request asked again with a
new seed (a fresh retry) may get code. Other sampling settings are ignored.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from collections.abc import Sequence

from spadework.policy.base import (
    Completion,
    Conversation,
    Role,
    Sampling,
    Tools,
    ToolsPerConversation,
    tools_per_conversation,
)
from spadework.policy.scripted_families import FAMILIES, AgentView
from spadework.policy.scripted_tools import (
    DECLARED,
    STOCK,
    design_declared,
    design_stock,
    is_declared_design,
    is_tool_design,
    listed_tools,
    tool_agent_reply,
)

DESIGNER_MARKER = "environment designer"
"""A system message containing this phrase makes a conversation a designer conversation."""

HINT_PREFIX = "Hint:"
REFUSE_EVERY = 4
"""One in this many first design requests (by hash) gets a reply without code."""
FALLBACK_TOPIC = "puzzle"
HELP_REPLY = "I do not recognise this situation, so I ask for help. \\boxed{help}"

STOPWORDS = frozenset("""
about above after again against also although among another any because been before being
below between both cannot could does doing down during each either else even every from
further have having here hers herself himself into itself just like made make many more most
much must myself only other ours over same several should since some such than that their
theirs them themselves then there these they this those through under until upon very were
what when where which while whom whose will with within without would your yours yourself
also often still thus used using uses across along already always among became become
environment environments python class reset step steps solution hint hints return returns
observation observations agent agents designer document documents reward rewards write code
episode episodes action actions seed seeds turn turns valid module string list text reply
""".split())
"""Words never taken as a topic: common function words and the vocabulary of the prompts."""


def _rng(seed: int, purpose: str, text: str) -> random.Random:
    """A private generator seeded from a hash of ``seed``, ``purpose`` and ``text``."""
    digest = hashlib.sha256(f"{seed}\x00{purpose}\x00{text}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def is_designer(conversation: Conversation) -> bool:
    """Whether a system message of ``conversation`` contains ``DESIGNER_MARKER``."""
    return any(m.role == Role.SYSTEM and DESIGNER_MARKER in m.content.lower() for m in conversation)


def design_request(conversation: Conversation) -> tuple[str, bool]:
    """The user message that asks for this design (the last one with a document; the first
    user message when none has one) and whether the designer already answered it (a repair)."""
    users = [i for i, m in enumerate(conversation) if m.role == Role.USER]
    asked = next((i for i in reversed(users) if "<document>" in conversation[i].content),
                 users[0] if users else 0)
    answered = any(m.role == Role.ASSISTANT for m in conversation[asked + 1:])
    return (conversation[asked].content if users else ""), answered


def topic_word(text: str, rng: random.Random) -> str:
    """The word of ``text`` most likely its topic: the most frequent word of 4 to 12 letters
    that is not a stop word, ties broken by ``rng``; ``FALLBACK_TOPIC`` when there is none.

    >>> topic_word("Volcanoes erupt. A volcano's magma; magma cools into basalt.", random.Random(0))
    'magma'
    >>> topic_word("a b c", random.Random(0))
    'puzzle'
    """
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", text) if 4 <= len(w) <= 12]
    counts = Counter(w for w in words if w not in STOPWORDS)
    if not counts:
        return FALLBACK_TOPIC
    most = max(counts.values())
    return rng.choice(sorted(w for w, n in counts.items() if n == most))


def designer_reply(conversation: Conversation, seed: int = 0, sample: int | None = None) -> str:
    """A designer's reply: one complete environment in a code block, or, for one in
    ``REFUSE_EVERY`` requests (by a hash of the document and the sampling seed ``sample``), a
    description without code (a repair request, one that follows the designer's answer to the
    design request, always gets code)."""
    document, repair = design_request(conversation)
    rng = _rng(seed, "design", document)
    topic = topic_word(document, rng)
    family = FAMILIES[rng.randrange(len(FAMILIES))]
    name, design = family.name, family.design
    texts = [m.content for m in conversation]
    if is_declared_design(texts):
        name, design = DECLARED, design_declared
    elif is_tool_design(texts):
        name, design = STOCK, design_stock
    code = design(topic, rng)
    refusal = document if sample is None else f"{document}\x00{sample}"
    if not repair and _rng(seed, "refuse", refusal).randrange(REFUSE_EVERY) == 0:
        return (f"I would build a {name} game about the {topic} in the document, where the "
                "agent reads the state and answers in a few turns.")
    return f"Here is a {name} environment about {topic}.\n\n```python\n{code}```\n"


def agent_view(conversation: Conversation) -> AgentView:
    r"""What the agent reads: the first observation, the hint line, later observations (user or
    tool messages), turn.

    >>> from spadework.policy.base import Message
    >>> view = agent_view([Message(Role.USER, "Find it.\nHint: look left"),
    ...                    Message(Role.ASSISTANT, r"\boxed{a}"), Message(Role.USER, "No.")])
    >>> view.first, view.hint, view.later, view.turn
    ('Find it.', 'look left', ('No.',), 1)
    """
    users = [m.content for m in conversation if m.role in (Role.USER, Role.TOOL)]
    lines = users[0].split("\n") if users else []
    hints = [line for line in lines if line.startswith(HINT_PREFIX)]
    first = "\n".join(line for line in lines if not line.startswith(HINT_PREFIX))
    hint = hints[-1][len(HINT_PREFIX):].strip() if hints else None
    turn = sum(m.role == Role.ASSISTANT for m in conversation)
    return AgentView(first, hint, tuple(users[1:]), turn)


def agent_reply(conversation: Conversation) -> str:
    r"""An agent's reply: a short thought and ``\boxed{command}``; ``\boxed{help}`` when no
    family recognises the observation.

    >>> from spadework.policy.base import Message
    >>> agent_reply([Message(Role.USER, "Add up these numbers: 2, 3.\nHint: add them")])
    'A running total of the numbers. \\boxed{5}'
    >>> agent_reply([Message(Role.USER, "You stand in a dark room.")])
    'I do not recognise this situation, so I ask for help. \\boxed{help}'
    """
    view = agent_view(conversation)
    for family in FAMILIES:
        try:
            move = family.play(view)
        except (ValueError, OverflowError):
            move = None
        if move is not None:
            thought, command = move
            return f"{thought} \\boxed{{{command}}}"
    return HELP_REPLY


def _count(text: str) -> int:
    return len(text.split())


class ScriptedPolicy:
    """FAKE policy: rule-based designer and agent replies, repeatable exactly (see the module).

    Args:
        seed: changes every hash-based choice, so two seeds design different environments.
    """

    name = "scripted"

    def __init__(self, seed: int = 0):
        self.seed = seed

    def reply(self, conversation: Conversation, sample: int | None = None, tools: Tools | None = None) -> str:
        """The reply text for one conversation, sampled with seed ``sample``; ``tools``: the tools
        it may call (a tool world)."""
        if is_designer(conversation):
            return designer_reply(conversation, self.seed, sample)
        listed = listed_tools(conversation[1].content) if len(conversation) > 1 and not tools else []
        if tools or listed or any(m.role is Role.TOOL for m in conversation):
            return tool_agent_reply(agent_view(conversation), tools or listed)
        return agent_reply(conversation)

    def generate_one(
        self, conversation: Conversation, sampling: Sampling, tools: Tools | None = None
    ) -> Completion:
        """One completion; token counts are word counts."""
        text = self.reply(conversation, sampling.seed, tools)
        prompt = sum(_count(m.content) for m in conversation)
        return Completion(text=text, prompt_tokens=prompt, completion_tokens=_count(text))

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order; ``tools[i]``: the tools of the ``i``-th."""
        per = tools_per_conversation(tools, len(conversations))
        return [self.generate_one(c, sampling, per[i]) for i, c in enumerate(conversations)]

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> ScriptedPolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
