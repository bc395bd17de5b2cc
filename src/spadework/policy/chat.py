"""Conversations as text: the tokenizer's own chat template, or ChatML when it has none.

A model is prompted and trained on text its own chat template renders (Qwen's renders ChatML,
Llama 3's and Gemma's their own). ChatML is written out here only for tokenizers without a
template: the byte tokenizer of the tiny test model and fakes in tests.

Which characters of a rendered conversation are an assistant's reply (what the learner trains
on) is read off the template itself: the text that rendering one more assistant message adds
to the conversation rendered with its generation prompt (``assistant_spans``).

A conversation with tools renders them the way the template does (Qwen2.5's writes them into
the system message); ChatML, and a template that ignores them, get the same section in the
system message (``policy.toolcalls.with_tools_in_system``). Tool results (``Role.TOOL``) are
rendered as the template renders the ``tool`` role; ChatML as ``<|im_start|>tool``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from spadework.errors import ConfigError
from spadework.policy.base import Message, Role, Tools
from spadework.policy.toolcalls import with_tools_in_system


class Tokenizer(Protocol):
    """Anything that turns text into token ids, adding no special tokens of its own.

    A transformers tokenizer fits through ``policy.hf.HFTokenizer``, whose ``encode`` calls
    ``tokenizer.encode(text, add_special_tokens=False)``.
    """

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without special tokens."""


@runtime_checkable
class TemplatedTokenizer(Protocol):
    """A tokenizer that may carry its own chat template (``policy.hf.HFTokenizer``).

    ``chat_template`` is None when it has none; ``render_chat`` is then never called. ``render_chat``
    with ``tools`` shows them as the template does, or in the system message when it does not.
    ``encode_offsets`` gives the ids of a text and each id's ``(start, end)`` characters, or
    None when the tokenizer cannot say (a slow tokenizer).
    """

    chat_template: str | None

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without special tokens."""

    def render_chat(
        self, messages: Sequence[Message], *, add_generation_prompt: bool, tools: Tools | None = None
    ) -> str:
        """The messages as the tokenizer's chat template renders them."""

    def encode_offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]] | None:
        """The ids of ``text`` and each id's ``(start, end)`` characters; None when it cannot say."""


Render = Callable[[Sequence[Message], bool], str]
"""Renders messages to text; the flag asks for the header of the assistant's next reply."""


@dataclass(frozen=True)
class ChatTemplate:
    """How a template without logic wraps each message: ``header``, content, ``footer``, ``separator``.

    Used only for tokenizers without a chat template of their own.

    Attributes:
        name: a label for logs.
        header: opens a message; ``{role}`` is replaced by the role. Never trained on.
        footer: closes a message; trained on after an assistant's content, so the model
            learns to stop.
        separator: follows every footer. Never trained on.
    """

    name: str
    header: str
    footer: str
    separator: str

    def to_json(self) -> dict[str, str]:
        """The template as JSON (``from_json`` reads it back)."""
        return {"name": self.name, "header": self.header, "footer": self.footer, "separator": self.separator}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> ChatTemplate:
        """The template written by ``to_json``."""
        return cls(data["name"], data["header"], data["footer"], data["separator"])


CHATML = ChatTemplate(name="chatml", header="<|im_start|>{role}\n", footer="<|im_end|>", separator="\n")
"""ChatML, as Qwen2.5's template renders it: ``<|im_start|>{role}\\n{content}<|im_end|>\\n``."""


def render_pieces(
    messages: Sequence[Message], template: ChatTemplate = CHATML, *, last_only: bool = False,
    tools: Tools | None = None,
) -> list[tuple[str, bool]]:
    """The transcript rendered with ``template`` as pieces of text, each marked True when trained on.

    ``last_only`` trains on the last message alone (a designer's repair reply, whose
    conversation holds its earlier replies as context). ``tools`` are shown in the system message.

    >>> render_pieces([Message(Role.USER, "hi"), Message(Role.ASSISTANT, "yo")])
    [('<|im_start|>user\\n', False), ('hi', False), ('<|im_end|>', False), ('\\n', False), \
('<|im_start|>assistant\\n', False), ('yo', True), ('<|im_end|>', True), ('\\n', False)]
    """
    pieces = []
    messages = with_tools_in_system(messages, tools)
    for number, message in enumerate(messages, 1):
        trained = message.role is Role.ASSISTANT and (not last_only or number == len(messages))
        pieces += [
            (template.header.format(role=message.role.value), False),
            (message.content, trained),
            (template.footer, trained),
            (template.separator, False),
        ]
    return pieces


def render_text(
    messages: Sequence[Message], template: ChatTemplate = CHATML, tools: Tools | None = None
) -> str:
    """The transcript rendered with ``template`` as one text (``tools`` in the system message).

    >>> render_text([Message(Role.SYSTEM, "Be brief.")])
    '<|im_start|>system\\nBe brief.<|im_end|>\\n'
    >>> render_text([Message(Role.TOOL, "look() -> 3")])
    '<|im_start|>tool\\nlook() -> 3<|im_end|>\\n'
    """
    return "".join(text for text, _ in render_pieces(messages, template, tools=tools))


def own_template(tokenizer: Tokenizer | None) -> TemplatedTokenizer | None:
    """``tokenizer`` when it renders conversations with a chat template of its own, else None."""
    if isinstance(tokenizer, TemplatedTokenizer) and tokenizer.chat_template:
        return tokenizer
    return None


def renderer(tokenizer: TemplatedTokenizer, tools: Tools | None = None) -> Render:
    """``tokenizer``'s chat template as a ``Render`` function (showing ``tools`` in every rendering)."""
    if not tools:
        return lambda messages, prompt: tokenizer.render_chat(messages, add_generation_prompt=prompt)
    return lambda messages, prompt: tokenizer.render_chat(messages, add_generation_prompt=prompt, tools=tools)


def prompt_text(conversation: Sequence[Message], tokenizer: Tokenizer | None = None,
                tools: Tools | None = None) -> str:
    """The conversation rendered for generation: the tokenizer's own template with its generation
    prompt, or (for a tokenizer without one) ChatML and the header of the assistant's reply.
    ``tools``: the tools the conversation may call.

    >>> prompt_text([Message(Role.USER, "hi")])
    '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    templated = own_template(tokenizer)
    if templated is not None:
        return renderer(templated, tools)(conversation, True)
    return render_text(conversation, CHATML, tools) + CHATML.header.format(role="assistant")


def _template_problem(problem: str) -> ConfigError:
    return ConfigError(f"the model's chat template {problem}, so the assistant's replies cannot be told "
                       "apart from the rest of the rendered conversation; use a model (learn.model, "
                       "policy.model) whose tokenizer's chat_template renders every message the same "
                       "whatever follows it, or set a chat_template on the tokenizer that does")


def assistant_spans(
    messages: Sequence[Message], render: Render, *, last_only: bool = False
) -> tuple[str, list[tuple[int, int]]]:
    """The rendered conversation and the ``(start, end)`` characters of each trained assistant reply.

    A reply's span is what rendering it adds to the conversation before it rendered with the
    generation prompt: the reply and the template's end-of-turn marker after it, without the
    role header and without the whitespace that separates it from the next message.
    ``last_only`` keeps only the last message's span (when it is the assistant's).

    >>> chatml = lambda ms, prompt: render_text(ms) + ("<|im_start|>assistant\\n" if prompt else "")
    >>> text, spans = assistant_spans([Message(Role.USER, "a"), Message(Role.ASSISTANT, "b")], chatml)
    >>> [text[s:e] for s, e in spans]
    ['b<|im_end|>']

    Raises:
        ConfigError: the template renders a conversation differently once it continues, adds no
            header for the assistant's reply, or a conversation starts with the assistant.
    """
    full = render(messages, False)
    spans = []
    for k, message in enumerate(messages):
        if message.role is not Role.ASSISTANT or (last_only and k != len(messages) - 1):
            continue
        if k == 0:
            raise ConfigError("a conversation to train on starts with an assistant message; put the "
                              "system or user message that prompted it first")
        before, after = render(messages[:k], True), render(messages[: k + 1], False)
        if before == render(messages[:k], False):
            raise _template_problem("adds no header for the assistant's reply (add_generation_prompt "
                                    "changes nothing)")
        if not after.startswith(before) or not full.startswith(after):
            raise _template_problem(f"renders the first {k + 1} messages differently once the "
                                    "conversation continues (the shorter rendering is not a prefix of "
                                    "the longer)")
        spans.append((len(before), len(before) + len(after[len(before):].rstrip())))
    return full, spans


def end_of_turn(render: Render) -> str:
    """The text ``render``'s template closes an assistant's reply with (``<|im_end|>`` for ChatML).

    >>> end_of_turn(lambda ms, prompt: render_text(ms) + ("<|im_start|>assistant\\n" if prompt else ""))
    '<|im_end|>'
    """
    reply = "x"
    text, [(start, end)] = assistant_spans([Message(Role.USER, "x"), Message(Role.ASSISTANT, reply)], render)
    closing = text[start:end]
    return closing[len(reply):] if closing.startswith(reply) else ""
