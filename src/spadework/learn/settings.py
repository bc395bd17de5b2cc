"""The learner's settings and modes (no torch here: configs and CLIs import this cheaply)."""

from __future__ import annotations

from dataclasses import dataclass

from spadework.kinds import Aggregation as Aggregation
from spadework.kinds import AttemptChoice as AttemptChoice
from spadework.kinds import ServerKind as ServerKind


@dataclass(frozen=True)
class LearnerSettings:
    """How the learner updates (``config.LearnSection`` fills it).

    Attributes:
        lr, weight_decay: AdamW's.
        clip_low, clip_high: the PPO ratio is clipped to [1 - clip_low, 1 + clip_high].
        aggregation: how token losses become the batch loss.
        kl_coef: weight of the KL to the base model (adapter disabled); 0 skips its forward pass.
        max_grad_norm: gradients are clipped to this global norm.
        micro_batch_tokens: the most padded tokens in one forward/backward (gradient accumulation).
        epochs: passes over the batch per update (more than one makes the clip matter).
        min_tokens: a batch with fewer trained tokens takes no step (``learn/skipped``): Adam's
            first steps move every weight by about ``lr`` whatever the batch, so a handful of
            tokens would move the adapter as far as thousands do.
        seed: torch's seed for the adapter's initialisation and dropout.
        tis_cap: samples that carry the log-probabilities of the policy that wrote them (a
            designer's window, trained when it closes) are weighted per token by
            ``min(pi_now / pi_then, tis_cap)`` (truncated importance sampling); 0: not weighted.
    """

    lr: float = 1e-4
    weight_decay: float = 0.0
    clip_low: float = 0.2
    clip_high: float = 0.2
    aggregation: Aggregation = Aggregation.TOKEN_MEAN
    kl_coef: float = 0.0
    max_grad_norm: float = 1.0
    micro_batch_tokens: int = 2048
    epochs: int = 1
    min_tokens: int = 0
    seed: int = 0
    tis_cap: float = 2.0


@dataclass(frozen=True)
class TrainerSettings:
    """What the loop's trainer needs besides the model (``engines`` fills it from ``[learn]``).

    Attributes:
        learner: how each update is made.
        lora_rank, lora_alpha, lora_dropout, lora_targets: the adapter's shape.
        designer: train the designer too (False: the frozen-designer ablation).
        designer_attempt: which of a design's replies the designer is trained on.
        max_sample_tokens: longer samples are cut.
        keep_checkpoints: the newest checkpoints kept in the run directory.
    """

    learner: LearnerSettings = LearnerSettings()
    lora_rank: int = 8
    lora_alpha: float = 16.0
    lora_dropout: float = 0.0
    lora_targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    designer: bool = True
    designer_attempt: AttemptChoice = AttemptChoice.FIRST
    max_sample_tokens: int = 3072
    keep_checkpoints: int = 2


