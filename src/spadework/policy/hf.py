"""HFPolicy: generation with a transformers model in this process, e.g. the learner's own.

When it wraps the learner's PEFT model it samples from exactly the weights being trained
(on-policy by construction, no sync); it is slow on a CPU. Conversations are rendered with
the tokenizer's own chat template (``policy.chat``); the tiny test model's byte tokenizer has
none and gets ChatML. Sampling is seeded per completion without touching the global random
state the learner checkpoints.

Loading a plain Hugging Face model and its tokenizer lives here too (``load_hf``), so the hf
backend needs nothing from the learner; ``learn.model.load_base`` builds on it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.errors import ConfigError, PolicyError
from spadework.policy.base import (
    Completion,
    Conversation,
    Message,
    Role,
    Sampling,
    Tools,
    ToolsPerConversation,
    tools_per_conversation,
)
from spadework.policy.batching import cut_at_stop
from spadework.policy.chat import end_of_turn, prompt_text, renderer
from spadework.policy.models import PRESETS, default_cache_dir, resolve_model
from spadework.policy.toolcalls import PROBE_TOOL, with_tools_in_system

TINY = "tiny"
SPECIALS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")
"""The byte tokenizer's special tokens (ChatML's), after the 256 byte values."""
HF_CACHE = "hf"
"""Folder under the model cache where dequantized copies of GGUF models are kept."""


class ByteTokenizer:
    """A real, trivial tokenizer: one id per UTF-8 byte, plus ChatML's special tokens; no template.

    >>> t = ByteTokenizer()
    >>> t.encode("<|im_start|>hi")
    [256, 104, 105]
    >>> t.decode(t.encode("<|im_end|>é"))
    '<|im_end|>é'
    """

    vocab_size = 256 + len(SPECIALS)
    eos_token_id = 256 + SPECIALS.index("<|im_end|>")
    _split = re.compile("(" + "|".join(re.escape(s) for s in SPECIALS) + ")")

    def encode(self, text: str) -> list[int]:
        """The UTF-8 bytes of ``text``, with each special token as one id above 255."""
        ids: list[int] = []
        for part in self._split.split(text):
            ids += [256 + SPECIALS.index(part)] if part in SPECIALS else list(part.encode("utf-8"))
        return ids

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids`` (bad UTF-8 replaced), special tokens as their names."""
        out, pending = [], bytearray()
        for i in ids:
            if i < 256:
                pending.append(i)
                continue
            out.append(pending.decode("utf-8", errors="replace"))
            pending = bytearray()
            out.append(SPECIALS[i - 256])
        return "".join(out) + pending.decode("utf-8", errors="replace")


class HFTokenizer:
    """A transformers tokenizer behind ``policy.chat.TemplatedTokenizer``.

    Attributes:
        inner: the transformers tokenizer.
        chat_template: its chat template, None when it has none (ChatML is used then).
        eos_token_id: the id that ends the assistant's turn: the template's end-of-turn token
            when it is one token (``<|im_end|>``, ``<|eot_id|>``, ``<end_of_turn>``), else the
            tokenizer's end-of-sequence id.
    """

    def __init__(self, tokenizer: Any):
        self.inner = tokenizer
        self.chat_template: str | None = getattr(tokenizer, "chat_template", None) or None
        self._renders_tools: bool | None = None
        self.eos_token_id = self._turn_end_id()

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``, without special tokens."""
        return list(self.inner.encode(text, add_special_tokens=False))

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids``."""
        return str(self.inner.decode(ids))

    def render_chat(
        self, messages: Sequence[Message], *, add_generation_prompt: bool, tools: Tools | None = None
    ) -> str:
        """``messages`` rendered by the tokenizer's own chat template, with ``tools`` as the template
        shows them (in the system message when the template ignores tools).

        Raises:
            ConfigError: the template refuses the conversation (e.g. it allows no system message).
        """
        if tools and not self.renders_tools:
            messages, tools = with_tools_in_system(messages, tools), None
        return self._apply(messages, add_generation_prompt, tools)

    @property
    def renders_tools(self) -> bool:
        """Whether the chat template shows the tools it is given (checked once, on a probe)."""
        if self._renders_tools is None:
            probe = [Message(Role.SYSTEM, "s"), Message(Role.USER, "u")]
            tool: dict[str, Any] = PROBE_TOOL  # a JSON schema (its literal infers too narrow to index)
            try:
                self._renders_tools = tool["function"]["name"] in self._apply(probe, True, [tool])
            except ConfigError:
                self._renders_tools = False
        return self._renders_tools

    def _apply(self, messages: Sequence[Message], add_generation_prompt: bool, tools: Tools | None) -> str:
        from jinja2 import TemplateError

        extra = {"tools": list(tools)} if tools else {}
        try:
            return str(self.inner.apply_chat_template([m.to_json() for m in messages], tokenize=False,
                                                      add_generation_prompt=add_generation_prompt, **extra))
        except TemplateError as exc:
            raise ConfigError(f"the model's chat template refuses the conversation ({exc}); use a model "
                              "whose template takes system, user, assistant (and, for tool worlds, tool) "
                              "messages") from None

    def encode_offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]] | None:
        """Ids of ``text`` and each id's characters; None for a slow tokenizer (no offsets)."""
        if not getattr(self.inner, "is_fast", False):
            return None
        encoded = self.inner(text, add_special_tokens=False, return_offsets_mapping=True)
        return list(encoded["input_ids"]), [(int(s), int(e)) for s, e in encoded["offset_mapping"]]

    def _turn_end_id(self) -> int | None:
        if self.chat_template:
            try:
                closing = self.encode(end_of_turn(renderer(self)))
            except ConfigError:
                closing = []
            if len(closing) == 1:
                return closing[0]
        im_end = self.inner.convert_tokens_to_ids("<|im_end|>")
        if im_end is not None and im_end != getattr(self.inner, "unk_token_id", None):
            return int(im_end)
        return self.inner.eos_token_id


@dataclass(frozen=True)
class LoadedModel:
    """A base model, its tokenizer, and where it came from (``gguf`` set when it has a GGUF twin)."""

    model: Any
    tokenizer: Any
    source: str
    gguf: Path | None = None


def tiny_model(seed: int = 0, vocab_size: int = ByteTokenizer.vocab_size) -> Any:
    """A tiny Qwen2-shaped causal LM with random weights (two layers, width 64)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768,
                         tie_word_embeddings=True, eos_token_id=ByteTokenizer.eos_token_id)
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config).float()


def tiny_tokenizer(template: str, specials: Sequence[str], corpus: Sequence[str], *, bos: str,
                   eos: str) -> HFTokenizer:
    """A tiny byte-level BPE fast tokenizer trained here on ``corpus`` (offline, for tests), with
    ``template`` as its chat template and ``specials`` as special tokens (``bos``, ``eos`` among them)."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=list(specials), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    core.train_from_iterator(list(corpus), trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=core, bos_token=bos, eos_token=eos)
    fast.chat_template = template
    return HFTokenizer(fast)


def compute_device() -> Any:
    """Where a model computes in one process: the first GPU when torch sees one, else the CPU."""
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def torch_dtype(name: str) -> Any:
    """The torch dtype of ``auto`` (bfloat16 on a GPU, else float32), ``float32`` or ``bfloat16``."""
    import torch

    if name == "auto":
        return torch.bfloat16 if torch.cuda.is_available() else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]


def hf_folder(gguf: Path, cache_dir: Path | None = None) -> Path:
    """Where the Hugging Face copy dequantized from ``gguf`` is kept (``learn.model.hf_copy`` makes it)."""
    return (cache_dir or default_cache_dir()) / HF_CACHE / f"{gguf.stem}-{gguf.stat().st_size}"


def load_pretrained(
    folder: Path, *, dtype: str = "auto", gguf_file: str | None = None
) -> tuple[Any, HFTokenizer]:
    """A causal LM and its tokenizer from a Hugging Face folder (or id), or from the GGUF file
    ``gguf_file`` in ``folder`` (dequantized in memory).

    Raises:
        PolicyError: nothing loadable there (the message holds transformers' reason).
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    extra = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        model = AutoModelForCausalLM.from_pretrained(str(folder), dtype=torch_dtype(dtype), **extra)
        tokenizer = AutoTokenizer.from_pretrained(str(folder), **extra)
    except OSError as exc:
        raise PolicyError(f"model {str(folder)!r} could not be loaded ({str(exc)[:300]}); give a Hugging "
                          "Face folder that exists here, or an id the machine can download") from None
    return model, HFTokenizer(tokenizer)


def load_hf(name: str, *, dtype: str = "auto", cache_dir: Path | None = None) -> LoadedModel:
    """The model and tokenizer ``name`` names, for the hf backend.

    ``name`` is ``tiny`` or ``tiny:SEED`` (the tiny random model and the byte tokenizer), a preset
    or ``.gguf`` path (its dequantized copy when ``learn.model.hf_copy`` has cached one, else the
    GGUF dequantized in memory), or a Hugging Face folder or model id.

    Raises:
        PolicyError: ``name`` names nothing loadable (the message says what is accepted).
    """
    if name == TINY or name.startswith(f"{TINY}:"):
        model = tiny_model(int(name.partition(":")[2] or 0)).to(torch_dtype(dtype))
        return LoadedModel(model, ByteTokenizer(), name)
    if name in PRESETS or name.endswith(".gguf"):
        gguf = resolve_model(name, cache_dir)
        folder = hf_folder(gguf, cache_dir)
        if (folder / "config.json").exists():
            return LoadedModel(*load_pretrained(folder, dtype=dtype), name, gguf)
        return LoadedModel(*load_pretrained(gguf.parent, dtype=dtype, gguf_file=gguf.name), name, gguf)
    if Path(name).is_dir() or "/" in name:  # a folder, or a Hugging Face model id (on a cluster)
        return LoadedModel(*load_pretrained(Path(name), dtype=dtype), name)
    raise PolicyError(f"hf model {name!r} is neither 'tiny', a preset ({', '.join(PRESETS)}), a .gguf "
                      "file nor a Hugging Face model folder or id")


class HFPolicy:
    """A transformers causal LM (optionally with a PEFT adapter) behind the policy protocol.

    Args:
        model: the model; a PEFT model generates with its adapter.
        tokenizer: has ``encode``, ``decode`` and ``eos_token_id`` (``HFTokenizer``, ``ByteTokenizer``);
            its own chat template, when it has one, renders the prompt.
        name: for logs.
    """

    def __init__(self, model: Any, tokenizer: Any, name: str = "hf", batch_size: int = 8):
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.batch_size = batch_size

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order, ``batch_size`` at a time in padded batches
        (``policy.hf_batch``); ``tools`` are rendered into each prompt. The i-th conversation
        samples with ``sampling.for_item(i)``'s seed, whatever shares its batch."""
        per = tools_per_conversation(tools, len(conversations))
        completions: list[Completion] = []
        for first in range(0, len(conversations), self.batch_size):
            numbers = range(first, min(first + self.batch_size, len(conversations)))
            completions += self._batch([conversations[i] for i in numbers],
                                       [sampling.for_item(i) for i in numbers], [per[i] for i in numbers])
        return completions

    def generate_one(
        self, conversation: Conversation, sampling: Sampling, tools: Tools | None = None
    ) -> Completion:
        """One completion of ``conversation``."""
        return self._batch([conversation], [sampling], [tools])[0]

    def _batch(self, conversations: Sequence[Conversation], samplings: Sequence[Sampling],
               tools: Sequence[Tools | None]) -> list[Completion]:
        import torch

        from spadework.policy.hf_batch import decode_padded

        start = time.perf_counter()
        prompts = [self.tokenizer.encode(prompt_text(c, self.tokenizer, t))
                   for c, t in zip(conversations, tools, strict=True)]
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                news = decode_padded(self.model, prompts, samplings, self.tokenizer.eos_token_id)
        finally:
            self.model.train(was_training)
        seconds = time.perf_counter() - start
        eos = self.tokenizer.eos_token_id
        completions = []
        for prompt, new, sampling in zip(prompts, news, samplings, strict=True):
            ended = bool(new) and new[-1] == eos
            text, stopped = cut_at_stop(self.tokenizer.decode(new[:-1] if ended else new), sampling.stop)
            completions.append(Completion(text, len(prompt), len(new), seconds,
                                          "stop" if ended or stopped else "length"))
        return completions

    def close(self) -> None:
        """Nothing to release."""
