"""The learner on several processes: ``accelerate launch`` (DDP, FSDP or DeepSpeed configs).

Rollouts run on the main process; every process holds a replica (or shard) of the learner.
Each update, the main process broadcasts the iteration's samples, every process takes its
share of the micro-batches, and the gradients are summed across processes, so the step equals
the one-process step on the whole batch.

``python -m spadework.learn.distributed --out FILE`` runs two updates of the tiny model on a
fixed batch and writes the loss and gradient norms; launched with ``accelerate launch
--multi_gpu --num_processes 2`` on a machine without GPUs it runs two CPU processes over gloo
and must write the same figures as ``--single``.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from spadework.learn.samples import TrainRole, TrainSample

WORLD_SIZE_ENV = "WORLD_SIZE"
RANK_ENV = "RANK"


def launched_processes() -> int:
    """How many processes ``accelerate launch`` (or torchrun) started; 1 when run directly."""
    return int(os.environ.get(WORLD_SIZE_ENV, "1"))


def is_follower() -> bool:
    """True in a learner process other than the main one: it trains, and does nothing else."""
    return launched_processes() > 1 and int(os.environ.get(RANK_ENV, "0")) != 0


class Channel:
    """The main process tells the followers what to do: ``restore``, ``update``, ``save``, ``stop``."""

    def __init__(self, accelerator: Any):
        self.accelerator = accelerator

    def _broadcast(self, message: dict[str, Any] | None) -> dict[str, Any] | None:
        from accelerate.utils import broadcast_object_list

        payload = [message]
        broadcast_object_list(payload, from_process=0)
        return payload[0]

    def send(self, kind: str, **fields: Any) -> None:
        """Broadcast a message of ``kind`` with ``fields`` to the followers (the main process sends)."""
        self._broadcast({"kind": kind, **fields})

    def receive(self) -> dict[str, Any]:
        """The next message the main process broadcast (followers only; the main process raises)."""
        message = self._broadcast(None)
        if message is None:
            raise ValueError("Channel.receive on the main process: the main process sends, followers receive")
        return message


def follow(learner: Any, channel: Channel) -> int:
    """A follower's whole life: do what the main process says until it says stop; the updates done."""
    done = 0
    while True:
        message = channel.receive()
        if message["kind"] == "stop":
            return done
        if message["kind"] == "restore":
            learner.load(Path(message["path"]))
        elif message["kind"] == "save":
            learner.save(Path(message["path"]))
        elif message["kind"] == "update":
            learner.update([TrainSample.from_json(s) for s in message["samples"]],
                           epochs=message.get("epochs"), min_tokens=message.get("min_tokens"),
                           max_mismatch_share=message.get("max_mismatch_share"))
            done += 1


def fixed_batch() -> list[TrainSample]:
    """Six byte-tokenised samples of both roles and different lengths (several micro-batches)."""
    from spadework.learn.model import ByteTokenizer
    from spadework.policy.base import Message, Role
    from spadework.rollout.tokens import render_tokens

    samples = []
    for k in range(6):
        role = TrainRole.DESIGNER if k % 2 else TrainRole.AGENT
        messages = [Message(Role.USER, f"task {k} " * (k + 1)),
                    Message(Role.ASSISTANT, f"answer {k * 7} " * (6 - k))]
        rendered = render_tokens(messages, ByteTokenizer())
        advantage = (-1.0) ** k * (k + 1) / 3
        samples.append(TrainSample(role, tuple(rendered.ids), tuple(rendered.mask), advantage, f"fixed-{k}"))
    return samples


def one_update(accelerator: Any = None) -> dict[str, float]:
    """One update of the tiny model (fixed seed) on ``fixed_batch`` (shared by broadcast)."""
    from spadework.learn.learner import Learner
    from spadework.learn.model import ByteTokenizer, tiny_model, with_lora
    from spadework.learn.settings import LearnerSettings

    model = with_lora(tiny_model(0), rank=4, alpha=8, dropout=0.0, targets=("q_proj", "v_proj"))
    settings = LearnerSettings(lr=1e-2, micro_batch_tokens=300, seed=0)
    learner = Learner(model, ByteTokenizer(), settings, accelerator)
    batch = fixed_batch()  # the same on every process here; in a run, the main process sends its own
    first = learner.update(batch)
    second = learner.update(batch)  # the step after the first shows the weights agree too
    return {"loss": first["learn/loss"], "grad_norm": first["learn/grad_norm"],
            "tokens": first["learn/tokens"], "second_grad_norm": second["learn/grad_norm"]}


def main(argv: list[str] | None = None) -> int:
    """A learner process of a distributed update (started by ``accelerate launch``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the main process writes its figures")
    parser.add_argument("--single", action="store_true", help="one process, no accelerate")
    args = parser.parse_args(argv)
    accelerator = None
    if not args.single:
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=not torch.cuda.is_available())  # CPU processes talk over gloo
    figures = one_update(accelerator)
    if accelerator is None or accelerator.is_main_process:
        processes = 1 if accelerator is None else accelerator.num_processes
        backend = None if accelerator is None else accelerator.state.backend
        report: dict[str, Any] = {**figures, "processes": processes, "backend": backend}
        args.out.write_text(json.dumps(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
