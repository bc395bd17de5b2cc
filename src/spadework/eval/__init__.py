"""Held-out evaluation: reasoning-gym tasks, textarena games, BFCL and HumanEval, none designed here.

``evaluate(policy, tasks, seeds, rollout)`` plays every (task, seed) item through
``run_plays``; ``eval_metrics`` names its accuracies for a run's metrics; ``spadework eval``
(``eval.command``) compares up to two policies and writes a JSON report.

In a training loop, every N iterations::

    result = evaluate(policy, DEFAULT_TASKS, range(8), eval_rollout(config))
    metrics.update(eval_metrics(result))
"""

from spadework.eval.runner import OVERALL, EvalResult, ItemResult, Tally, eval_metrics, eval_rollout, evaluate
from spadework.eval.stats import PairedStats, paired_comparison, wilson_interval
from spadework.eval.tasks import DEFAULT_TASKS, Suite, TaskOpener, TaskSpec, select_tasks

__all__ = ["DEFAULT_TASKS", "OVERALL", "EvalResult", "ItemResult", "PairedStats", "Suite", "Tally",
           "TaskOpener", "TaskSpec", "eval_metrics", "eval_rollout", "evaluate", "paired_comparison",
           "select_tasks", "wilson_interval"]
