"""Rendering the designer's prompts from the packaged templates (``designer/prompts/*.txt``).

Templates use ``string.Template`` placeholders (``$name``) and are read once, then cached.
Everything here is a pure function of its arguments and those files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from string import Template

from spadework.designer.memory import MemoryDigest
from spadework.kinds import DesignForm as DesignForm
from spadework.policy.base import Conversation, Message, Role
from spadework.validate.parse import code_blocks
from spadework.validate.verdict import Verdict

ANY_TOPIC = "(Any topic you like.)"
"""The document of the example turn when the caller gives its own example."""

REPAIR_MESSAGE_CHARS = 600
"""The most characters of a check's message quoted in a repair prompt."""

HINT_SENTENCES = 3
"""The most sentences kept of a written hint."""


@cache
def template(name: str) -> Template:
    """The packaged template ``prompts/<name>.txt``."""
    text = resources.files("spadework.designer").joinpath("prompts", f"{name}.txt").read_text("utf-8")
    return Template(text.strip())


@cache
def advice() -> dict[str, str]:
    """What to fix, by check name (``*``: any other check), from ``prompts/advice.txt``."""
    table = {}
    for line in template("advice").template.splitlines():
        name, _, text = line.partition(":")
        if text.strip():
            table[name.strip()] = text.strip()
    return table


@cache
def default_example(form: DesignForm = DesignForm.ANSWER) -> str:
    """The source of the example environment shown in design prompts of ``form``."""
    return template(f"example_{form}").template + "\n"


def system_message() -> Message:
    """The designer's system message."""
    return Message(Role.SYSTEM, template("system").template)


def render_design(
    document: str, digest: MemoryDigest, example: str | None = None, form: DesignForm = DesignForm.ANSWER,
    skill: str | None = None, solver: bool = False,
) -> list[Message]:
    """The first prompt of a design: the example as an earlier exchange, then the request.

    The contract and an example document are asked first, and the example environment is the
    assistant's answer to them; the real request follows with its own document and the digest.
    Shown this way, as a finished answer to another document, the example is copied far less
    than when it stands inside the request (the 1.5B preset copied it in every first attempt).

    Args:
        document: the grounding document, already cut to the prompt's budget.
        digest: what the designer is told about its past environments.
        example: the source of one complete example environment; ``None`` for the form's
            bundled one (``prompts/example_<form>.txt``, answering ``example_document_<form>.txt``).
        form: what the designer is asked to write.
        skill: a skill the environment must exercise (``[designer] skills``), said in the request;
            None: no line.
        solver: an answer puzzle must come with ``solve(observation)`` (``designer.second_solver``):
            the contract asks for it and the bundled example has one.

    Returns:
        ``[system, user (contract, example document), assistant (example), user (request)]``.
    """
    code = (default_example(form) if example is None else example).strip()
    example_document = template(f"example_document_{form}").template if example is None else ANY_TOPIC
    contract = template(f"design_{form}").substitute(document=example_document)
    if solver and form is DesignForm.ANSWER:
        head, reply, tail = contract.rpartition("\n\nReply with")  # asked before the reply's form
        contract = f"{head}\n\n{template('design_answer_solver').template.strip()}{reply}{tail}"
        if example is None:
            code = f"{code}\n\n\n{template('example_answer_solver').template.strip()}"
    request = template("design_next").substitute(document=document.strip(), memory=digest.render())
    if skill is not None:
        request = f"{request}\n\n{skill_line(skill)}"
    return [system_message(), Message(Role.USER, contract),
            Message(Role.ASSISTANT, f"```python\n{code}\n```"), Message(Role.USER, request)]


def skill_line(skill: str) -> str:
    """The request's line naming the skill to exercise.

    >>> skill_line("Error_Recovery")
    'Skill to exercise: Error Recovery. Make the task need this skill to be solved.'
    """
    return f"Skill to exercise: {skill.replace('_', ' ')}. Make the task need this skill to be solved."


def repair_text(verdict: Verdict) -> str:
    """The user's repair message for a verdict that failed: the check, its message, the fix.

    Raises:
        ValueError: the verdict has no failed check.
    """
    failed = verdict.failure
    if failed is None:
        raise ValueError("the verdict has no failed check; repair only designs that failed")
    table = advice()
    message = " ".join(failed.message.split()) or "(no message)"
    if len(message) > REPAIR_MESSAGE_CHARS:
        message = message[:REPAIR_MESSAGE_CHARS - 1] + "…"
    return template("repair").substitute(check=failed.name, message=message,
                                         advice=table.get(failed.name, table["*"]))


def render_repair(conversation: Conversation, reply: str, verdict: Verdict) -> list[Message]:
    """The conversation, the designer's reply, and a request to fix what the validator found.

    Pass the first prompt (``render_design``'s) as ``conversation`` to keep repairs inside a
    small context: each repair then shows only the latest reply.

    Raises:
        ValueError: the verdict has no failed check.
    """
    return [*conversation, Message(Role.ASSISTANT, reply), Message(Role.USER, repair_text(verdict))]


def render_hint_request(code: str) -> list[Message]:
    """The optional hint-writing call: the designer reads its code and writes a short hint."""
    return [system_message(), Message(Role.USER, template("hint_writer").substitute(code=code.strip()))]


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def clean_hint(reply: str, sentences: int = HINT_SENTENCES) -> str | None:
    """The hint in a hint-writing reply: code blocks dropped, one line, the first sentences.

    >>> clean_hint('  "Try the middle.\\nThen halve.   Again. And again."  ')
    'Try the middle. Then halve. Again.'
    >>> clean_hint("```python\\nx = 1\\n```") is None
    True
    """
    blocks, _ = code_blocks(reply)
    text = reply
    for _, code in blocks:
        text = text.replace(code, " ")
    text = re.sub(r"```\S*", " ", text)
    text = " ".join(text.split()).strip("\"' ")
    if not text:
        return None
    return " ".join(SENTENCE_END.split(text)[:sentences])


def prompt_chars(messages: Sequence[Message]) -> int:
    """Characters in the messages' contents (a rough size; about 3.5 per token for code)."""
    return sum(len(m.content) for m in messages)
