"""The learner's settings and modes: the ``[learn]`` section, and the learner's and trainer's
settings made from it (no torch here: configs and CLIs import this cheaply).

Each setting is defined once: ``UpdateSettings`` (how each update is made) and ``AdapterSettings``
(the adapter, what it is trained on, what is kept) hold the section's fields the learner and the
trainer read, ``LearnModel`` those the engines read; ``LearnSection`` is all three (and the sync
server); ``LearnerSettings`` and ``TrainerSettings`` add what a run gives besides (the seed, the
learner's settings).
"""

from __future__ import annotations

from pydantic import Field

from spadework.kinds import Aggregation as Aggregation
from spadework.kinds import AttemptChoice as AttemptChoice
from spadework.kinds import ServerKind as ServerKind
from spadework.settings_base import Section


class UpdateSettings(Section):
    """How the learner updates, as ``[learn]`` sets it."""

    lr: float = Field(1e-4, gt=0, description="AdamW learning rate")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay")
    clip_low: float = Field(0.2, ge=0, lt=1, description="PPO ratio clip below 1")
    clip_high: float = Field(0.2, ge=0, description="PPO ratio clip above 1")
    aggregation: Aggregation = Field(Aggregation.TOKEN_MEAN, description="token_mean or sequence_mean")
    kl_coef: float = Field(0.0, ge=0, description="KL to the base model, adapter disabled (0: not computed)")
    max_grad_norm: float = Field(1.0, gt=0, description="gradients are clipped to this global norm")
    micro_batch_tokens: int = Field(2048, ge=64, description="padded tokens per forward/backward (gradient "
                                    "accumulation)")
    epochs: int = Field(1, ge=1, le=16, description="passes over each batch (more than one makes the clip "
                        "matter)")
    min_tokens: int = Field(0, ge=0, description="a batch with fewer trained tokens takes no step "
                            "(Adam moves the weights as far for 8 tokens as for 8,000)")
    mismatch_logp: float = Field(20.0, gt=0.0, description="a trained token the learner gives a log-prob "
                                 "below -this is one the engine could not have sampled from the same weights "
                                 "(counted in learn/mismatch_share)")
    max_mismatch_share: float = Field(0.002, ge=0.0, le=1.0, description="a batch with a larger share of "
                                      "such tokens takes no step (learn/refused): the engine and the learner "
                                      "disagree (a chat template, special tokens or weights that differ), "
                                      "and an update on it breaks the adapter; 1: never refused")
    tis_cap: float = Field(2.0, ge=0.0, description="a designer window's samples, trained when it closes "
                           "(designer.regenerate_every > 1), are weighted per token by min(pi_now / pi_then, "
                           "tis_cap): truncated importance sampling for the agent's updates in between "
                           "(0: off)")


class LearnerSettings(UpdateSettings):
    """How the learner updates: the ``[learn]`` section's update settings and the seed.

    >>> settings = LearnSection(lr=0.01).into(LearnerSettings, seed=3)
    >>> settings.lr, settings.seed
    (0.01, 3)
    """

    seed: int = Field(0, description="torch's seed for the adapter's initialisation and dropout (a run "
                      "gives its run.seed)")


class AdapterSettings(Section):
    """The adapter, which of the designer's replies it is trained on, and the checkpoints kept,
    as ``[learn]`` sets them."""

    designer: bool = Field(True, description="train the designer too (off: the frozen-designer ablation)")
    designer_attempt: AttemptChoice = Field(AttemptChoice.FIRST, description="first, final or all replies")
    lora_rank: int = Field(8, ge=1, le=256, description="LoRA rank")
    lora_alpha: float = Field(16.0, gt=0, description="LoRA alpha (the update is scaled by alpha / rank)")
    lora_dropout: float = Field(0.0, ge=0.0, lt=1.0, description="dropout on the LoRA path")
    lora_targets: tuple[str, ...] = Field(("q_proj", "k_proj", "v_proj", "o_proj"), min_length=1,
                                          description="projections that get an adapter")
    init_adapter: str | None = Field(None, description="a checkpoint (or adapter) folder the adapter starts "
                                     "from, of the same model and shape, e.g. another run's warm start; "
                                     "None: a fresh adapter")
    max_sample_tokens: int = Field(3072, ge=64, description="longer samples are cut")
    keep_checkpoints: int = Field(2, ge=2, description="newest checkpoints kept in the run directory (2 at "
                                  "least: the newest is written before its iteration is committed)")


class TrainerSettings(AdapterSettings):
    """What the loop's trainer needs besides the model: the ``[learn]`` section's adapter settings
    and the learner's settings."""

    learner: LearnerSettings = Field(LearnerSettings(), description="how each update is made")


class LearnModel(Section):
    """Whether a run trains, and the model its learner loads, as ``[learn]`` sets them (the
    engines read these; the learner is handed the model)."""

    enabled: bool = Field(False, description="train both roles after every iteration (--train)")
    model: str = Field("policy", description="'policy' (the served weights), a preset, a .gguf, "
                       "a Hugging Face folder, or 'tiny' (a random test model)")
    dtype: str = Field("auto", pattern="^(auto|float32|bfloat16)$",
                       description="auto: bfloat16 on a GPU, float32 on a CPU")


class WarmStart(Section):
    """The supervised warm start before the first iteration, as ``[learn]`` sets it: the agent's
    adapter trained on demonstrations, tool worlds played by their own ``solution()`` in the way the
    agent is asked to call (``rollout.demonstrate``)."""

    warm_start: int = Field(0, ge=0, le=32, description="passes over the demonstrations before the first "
                            "iteration (0: no warm start)")
    warm_start_batch: int = Field(2, ge=1, le=256, description="demonstrations a warm-start step (one epoch, "
                                  "min_tokens not applied)")
    warm_start_seeds: int = Field(4, ge=1, le=64, description="seeds each world is demonstrated on (none of "
                                  "the evaluation's reserved seeds)")
    warm_start_worlds: str | None = Field(None, description="the worlds demonstrated: a folder of "
                                          "environment files or 'examples' (only tool worlds are); None: "
                                          "designer.fixed_pool")


class LearnSection(UpdateSettings, AdapterSettings, LearnModel, WarmStart):
    """The LoRA learner of both roles (``[learn]``, ``--train``): its fields are those of the
    model, the adapter, the update and the warm start, and how updates reach a server."""

    sync_server: ServerKind | None = Field(None, description="with policy.kind = 'openai': vllm or sglang "
                                           "(adapter hot-load endpoints), or llama-cpp (spadework runs "
                                           "llama.cpp's server on policy.base_url, restarted per update)")

    def trainer_settings(self, seed: int) -> TrainerSettings:
        """The trainer's settings; ``seed`` seeds the adapter's start.

        >>> LearnSection(lr=0.01, lora_rank=4).trainer_settings(seed=3).learner.lr
        0.01
        """
        return self.into(TrainerSettings, learner=self.into(LearnerSettings, seed=seed))
