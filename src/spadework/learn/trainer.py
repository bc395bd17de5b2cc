"""What the loop calls to learn: samples → update → checkpoint → sync, and restore on resume.

``Trainer`` owns the learner, the tokenizer its samples are rendered with, and the weight
sync to the engine. Everything it needs to continue after a crash is in its checkpoints.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spadework.designer import Design
from spadework.learn.checkpoint import (
    LOOP_STATE_FILE,
    START,
    WARM_START,
    checkpoints,
    named_folder,
    start_source,
    write_checkpoint,
    write_named,
)
from spadework.learn.distributed import Channel
from spadework.learn.learner import Learner
from spadework.learn.model import LoadedModel, load_adapter_weights, with_lora
from spadework.learn.samples import (
    TrainSample,
    agent_samples,
    demonstration_samples,
    designer_samples,
    rendered_designs,
)
from spadework.learn.settings import TrainerSettings
from spadework.learn.sync import WeightSync
from spadework.outcomes import DesignOutcome
from spadework.rollout import Episode


@dataclass
class Trainer:
    """The loop's learning edge.

    Attributes:
        learner: updates the LoRA adapter.
        tokenizer: renders samples (the learner model's own).
        settings: the adapter, what is trained, how many checkpoints are kept.
        sync: sends each new adapter to the engine.
        run_dir: where checkpoints go.
    """

    learner: Learner
    tokenizer: Any
    settings: TrainerSettings
    sync: WeightSync
    run_dir: Path
    channel: Channel | None = None
    """Under ``accelerate launch``: how the main process drives the other learner processes."""

    @classmethod
    def build(cls, base: LoadedModel, settings: TrainerSettings, sync: WeightSync, run_dir: Path,
              accelerator: Any = None) -> Trainer:
        """A trainer of a LoRA adapter on ``base`` (with a channel to followers under ``accelerator``)."""
        model = with_lora(base.model, rank=settings.lora_rank, alpha=settings.lora_alpha,
                          dropout=settings.lora_dropout, targets=settings.lora_targets)
        if settings.init_adapter:  # in every learner process, before any shards it
            load_adapter_weights(model, start_source(run_dir, settings.init_adapter), rank=settings.lora_rank,
                                 alpha=settings.lora_alpha, targets=settings.lora_targets)
        learner = Learner(model, base.tokenizer, settings.learner, accelerator)
        channel = Channel(accelerator) if accelerator is not None else None
        return cls(learner, base.tokenizer, settings, sync, run_dir, channel)

    def designer_samples(self, designs: Sequence[Design],
                         outcomes: Sequence[DesignOutcome]) -> list[TrainSample]:
        """The designer's samples of a window closed in the iteration that opened it: the chosen
        replies of its designs with their advantages (none when the designer is frozen)."""
        if not self.settings.designer:
            return []
        return designer_samples(designs, outcomes, self.tokenizer, choice=self.settings.designer_attempt,
                                max_tokens=self.settings.max_sample_tokens)

    def remember(self, designs: Sequence[Design]) -> list[TrainSample]:
        """The designer's samples of a window that closes later, rendered now, each with the
        log-probs of the policy that wrote it (``TrainSample.behaviour``; with ``tis_cap`` 0, or
        under several learner processes, without them: not corrected). Paid with ``with_advantages``
        when the window closes."""
        if not self.settings.designer:
            return []
        samples = rendered_designs(designs, self.tokenizer, choice=self.settings.designer_attempt,
                                   max_tokens=self.settings.max_sample_tokens)
        if not samples or not self.settings.learner.tis_cap or self.channel is not None:
            return samples
        behaviour = self.learner.logprobs(samples)
        return [replace(s, behaviour=logp) for s, logp in zip(samples, behaviour, strict=True)]

    def samples(self, designer: Sequence[TrainSample], outcomes: Sequence[DesignOutcome],
                episodes: Sequence[Episode], replayed: Sequence[DesignOutcome] = ()) -> list[TrainSample]:
        """This iteration's samples: the ``designer``'s (a closing window's, already paid; none
        otherwise) and the agent's on the environments played, new and ``replayed`` (their
        outcomes: the agent learns from a replay, the designer does not)."""
        agent = agent_samples([*outcomes, *replayed], episodes, self.tokenizer,
                              max_tokens=self.settings.max_sample_tokens)
        return [*designer, *agent]

    def train(self, designer: Sequence[TrainSample], outcomes: Sequence[DesignOutcome],
              episodes: Sequence[Episode], replayed: Sequence[DesignOutcome] = ()) -> dict[str, float]:
        """One update on the iteration's samples (``samples``); its ``learn/...`` metrics."""
        return self._update(self.samples(designer, outcomes, episodes, replayed))

    def _update(self, samples: Sequence[TrainSample], *, epochs: int | None = None,
                min_tokens: int | None = None, max_mismatch_share: float | None = None) -> dict[str, float]:
        """One update here and in every other learner process (``Learner.update``'s overrides)."""
        if self.channel is not None:
            self.channel.send("update", samples=[s.to_json() for s in samples], epochs=epochs,
                              min_tokens=min_tokens, max_mismatch_share=max_mismatch_share)
        return self.learner.update(samples, epochs=epochs, min_tokens=min_tokens,
                                   max_mismatch_share=max_mismatch_share)

    def warm_start(self, demonstrations: Sequence[Episode], passes: int, batch: int) -> dict[str, float]:
        """The supervised warm start: ``passes`` over the solved ``demonstrations``
        (``demonstration_samples``) in a seeded order, a step of one epoch every ``batch`` of them
        (``min_tokens`` does not apply: a demonstration is short and every one is right); then
        checkpointed (``checkpoints/warm-start``) and served. Its metrics, ``warm_start/...``: the
        counts, the seconds its steps took, the last step's KL to the base, and the demonstrations'
        mean token log-probability in the first pass and in the last (before each step: how well
        they came to be fitted)."""
        limit = self.settings.max_sample_tokens
        samples = demonstration_samples(demonstrations, self.tokenizer, max_tokens=limit)
        order = random.Random(self.settings.learner.seed)
        steps: list[list[dict[str, float]]] = []
        for _ in range(passes if samples else 0):
            shuffled = order.sample(samples, len(samples))
            steps.append([self._update(shuffled[i:i + batch], epochs=1, min_tokens=0,
                                       max_mismatch_share=1.0)  # demonstrations: no engine sampled them
                          for i in range(0, len(shuffled), batch)])
        summary = {"warm_start/demonstrations": float(len(demonstrations)),
                   "warm_start/solved": float(sum(e.solved for e in demonstrations)),
                   "warm_start/samples": float(len(samples)), "warm_start/passes": float(passes),
                   "warm_start/steps": float(sum(len(p) for p in steps)),
                   "warm_start/trained_tokens": float(sum(s.trained_tokens for s in samples))}
        if not steps:
            return summary
        summary["warm_start/token_logp_first_pass"] = token_logp(steps[0])
        summary["warm_start/token_logp_last_pass"] = token_logp(steps[-1])
        summary["warm_start/update_s"] = sum(step["learn/update_s"] for p in steps for step in p)
        if "learn/kl" in steps[-1][-1]:
            summary["warm_start/kl"] = steps[-1][-1]["learn/kl"]
        self.publish(write_named(self.run_dir, WARM_START, self._save, summary))
        return summary

    def start(self) -> Path | None:
        """A new run's first adapter: with ``init_adapter``, the weights ``build`` loaded are saved
        as ``checkpoints/start`` (what the run began from, whatever becomes of the folder named)
        and served; its folder. A fresh adapter needs neither (None)."""
        if not self.settings.init_adapter:
            return None
        folder = write_named(self.run_dir, START, self._save, {"init_adapter": self.settings.init_adapter})
        self.publish(folder)
        return folder

    def restore_warm_start(self) -> dict[str, float] | None:
        """Load and serve the warm start's checkpoint; its metrics, or None when there is none."""
        folder = named_folder(self.run_dir, WARM_START)
        if not folder.is_dir():
            return None
        self._load(folder)
        return json.loads((folder / LOOP_STATE_FILE).read_text(encoding="utf-8"))

    def _save(self, folder: Path) -> None:
        if self.channel is not None:  # the other processes take part in gathering shards
            self.channel.send("save", path=str(folder))
        self.learner.save(folder)

    def _load(self, folder: Path) -> None:
        if self.channel is not None:
            self.channel.send("restore", path=str(folder))
        self.learner.load(folder)
        self.publish(folder)

    def checkpoint(self, iteration: int, loop_state: dict[str, Any]) -> Path:
        """Write the iteration's checkpoint (before the iteration is committed)."""
        keep = self.settings.keep_checkpoints
        return write_checkpoint(self.run_dir, iteration, self._save, loop_state, keep=keep)

    def publish(self, checkpoint: Path) -> dict[str, float]:
        """Make the engine serve the checkpoint's adapter."""
        return self.sync.publish(checkpoint, self.learner.peft_model)

    def restore(self, iteration: int) -> dict[str, Any] | None:
        """Load iteration ``iteration``'s checkpoint and serve it; its loop state, or None when the
        run has no checkpoint of that iteration (it was not trained then; ``require_checkpoint`` refuses
        a trained one): the adapter starts fresh."""
        folder = checkpoints(self.run_dir).get(iteration)
        if folder is None:
            return None
        self._load(folder)
        return json.loads((folder / LOOP_STATE_FILE).read_text(encoding="utf-8"))

    def close(self) -> None:
        """Tell the other learner processes (if any) that the run is over; stop what the sync runs."""
        if self.channel is not None:
            self.channel.send("stop")
            self.channel = None
        close = getattr(self.sync, "close", None)
        if close is not None:
            close()


def token_logp(steps: Sequence[dict[str, float]]) -> float:
    """The mean token log-probability of the steps' trained tokens (each step's ``learn/token_logp``
    weighted by its ``learn/tokens``).

    >>> token_logp([{"learn/token_logp": -2.0, "learn/tokens": 10.0},
    ...             {"learn/token_logp": -1.0, "learn/tokens": 30.0}])
    -1.25
    """
    tokens = sum(step["learn/tokens"] for step in steps)
    return sum(step["learn/token_logp"] * step["learn/tokens"] for step in steps) / tokens if tokens else 0.0
