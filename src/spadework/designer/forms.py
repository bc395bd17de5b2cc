"""Mixing design forms by weight: which form each design of an iteration is asked for.

Pure: the forms follow from the weights, the batch size and the iteration's seed alone, so a
resumed or repeated run asks every design for the same form again.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from spadework.designer.prompts import DesignForm


def form_counts(weights: Mapping[DesignForm, float], count: int, seed: int) -> dict[DesignForm, int]:
    """How many of ``count`` designs each form gets: its share of the weights, rounded by the
    largest remainder method (each form gets the whole part of its quota, and the designs left
    over go to the largest fractional parts; the seed breaks ties between equal parts).

    >>> A, G, T = DesignForm.ANSWER, DesignForm.GAME, DesignForm.TOOL
    >>> form_counts({A: 0.5, T: 0.5}, 4, seed=0) == {A: 2, T: 2}
    True
    >>> form_counts({A: 3.0, G: 1.0, T: 1.0}, 6, seed=0) == {A: 4, G: 1, T: 1}  # quotas 3.6, 1.2, 1.2
    True
    >>> form_counts({T: 2.0}, 3, seed=5) == {T: 3}
    True
    >>> {form_counts({A: 1.0, T: 1.0}, 3, seed)[A] for seed in range(8)}  # a tie: the seed decides
    {1, 2}

    Raises:
        ValueError: no weights, a weight that is not a finite number above 0, or ``count < 0``.
    """
    _check(weights, count)
    total = sum(weights.values())
    quotas = {form: count * weight / total for form, weight in weights.items()}
    counts = {form: math.floor(quota) for form, quota in quotas.items()}
    order = sorted(weights)  # a fixed order, so the seed alone decides ties
    ties = random.Random(seed).sample(order, len(order))
    by_remainder = sorted(order, key=lambda f: (-(quotas[f] - counts[f]), ties.index(f)))
    for form in by_remainder[:count - sum(counts.values())]:
        counts[form] += 1
    return {form: counts[form] for form in weights}


def allocate_forms(weights: Mapping[DesignForm, float], count: int, seed: int) -> list[DesignForm]:
    """The form of each of ``count`` designs: ``form_counts`` of each form, in an order shuffled
    by ``seed`` (so no document is always given the same form).

    >>> weights = {DesignForm.ANSWER: 0.5, DesignForm.TOOL: 0.5}
    >>> forms = allocate_forms(weights, 4, seed=7)
    >>> sorted(f.value for f in forms), forms == allocate_forms(weights, 4, seed=7)
    (['answer', 'answer', 'tool', 'tool'], True)
    >>> [f.value for f in allocate_forms({DesignForm.GAME: 1.0}, 2, seed=0)]
    ['game', 'game']

    Raises:
        ValueError: as ``form_counts``.
    """
    counts = form_counts(weights, count, seed)
    forms = [form for form, n in counts.items() for _ in range(n)]
    random.Random(seed).shuffle(forms)
    return forms


def _check(weights: Mapping[DesignForm, float], count: int) -> None:
    if not weights:
        raise ValueError("no form weights given; give at least one form, e.g. {answer = 1.0}")
    bad = {str(f): w for f, w in weights.items() if not (math.isfinite(w) and w > 0)}
    if bad:
        raise ValueError(f"form weights must be numbers greater than 0, got {bad}; leave a form out "
                         "instead of giving it 0")
    if count < 0:
        raise ValueError(f"the number of designs must be 0 or more, got {count}")


def allocate_skills(skills: Sequence[str], weights: Sequence[float], count: int, seed: int,
                    start: int = 0) -> list[str | None]:
    """The skill each of ``count`` design requests names (``[designer] skills``): in turn from
    ``start`` (round robin across iterations) without weights, drawn by weight with ``seed`` with
    them; ``None`` for every request when there are no skills.

    >>> allocate_skills(["a", "b", "c"], [], 4, seed=0, start=2)
    ['c', 'a', 'b', 'c']
    >>> allocate_skills([], [], 2, seed=0)
    [None, None]
    >>> drawn = allocate_skills(["a", "b"], [1.0, 9.0], 200, seed=1)
    >>> 150 < drawn.count("b") < 200, drawn == allocate_skills(["a", "b"], [1.0, 9.0], 200, seed=1)
    (True, True)
    """
    if not skills:
        return [None] * count
    if weights:
        return list(random.Random(seed).choices(list(skills), weights=list(weights), k=count))
    return [skills[(start + k) % len(skills)] for k in range(count)]
