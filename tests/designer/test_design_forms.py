"""Mixing design forms by weight: exact shares by the largest remainder, fixed by the seed."""

from __future__ import annotations

from collections import Counter

import pytest

from spadework.designer.forms import allocate_forms, form_counts
from spadework.designer.prompts import DesignForm

A, G, T = DesignForm.ANSWER, DesignForm.GAME, DesignForm.TOOL


@pytest.mark.parametrize(("weights", "count", "expected"), [
    ({A: 0.5, T: 0.5}, 4, {A: 2, T: 2}),
    ({A: 0.5, T: 0.5}, 0, {A: 0, T: 0}),
    ({A: 0.75, T: 0.25}, 4, {A: 3, T: 1}),
    ({A: 3.0, T: 1.0}, 8, {A: 6, T: 2}),  # weights need not add up to 1
    ({A: 0.2, G: 0.3, T: 0.5}, 10, {A: 2, G: 3, T: 5}),
    ({A: 0.7, G: 0.2, T: 0.1}, 3, {A: 2, G: 1, T: 0}),  # quotas 2.1, 0.6, 0.3: the largest remainder wins
    ({A: 0.15, G: 0.05, T: 0.8}, 4, {A: 1, G: 0, T: 3}),  # quotas 0.6, 0.2, 3.2: the one left over to 0.6
])
def test_counts_follow_the_weights_by_the_largest_remainder(weights, count, expected):
    for seed in range(5):
        assert form_counts(weights, count, seed) == expected


def test_ties_are_broken_by_the_seed_so_no_form_is_always_favoured():
    # quotas 4/3 each: one design each, and the one left over to a form the seed picks
    splits = {tuple(form_counts({A: 1.0, G: 1.0, T: 1.0}, 4, seed).values()) for seed in range(40)}
    assert splits == {(2, 1, 1), (1, 2, 1), (1, 1, 2)}


@pytest.mark.parametrize("count", range(13))
def test_every_form_gets_its_quota_rounded_down_or_up(count):
    weights = {A: 0.45, G: 0.15, T: 0.4}
    for seed in range(5):
        counts = form_counts(weights, count, seed)
        assert sum(counts.values()) == count
        for form, weight in weights.items():
            assert count * weight - 1 < counts[form] < count * weight + 1


def test_allocation_is_deterministic_from_the_seed_and_shuffled():
    weights = {A: 0.5, T: 0.5}
    assert allocate_forms(weights, 6, seed=11) == allocate_forms(weights, 6, seed=11)
    orders = {tuple(allocate_forms(weights, 6, seed)) for seed in range(20)}
    assert len(orders) > 1  # the places differ between iterations
    assert all(Counter(order) == {A: 3, T: 3} for order in orders)  # the shares never do


def test_a_single_form_is_every_design():
    assert allocate_forms({T: 0.3}, 5, seed=2) == [T] * 5
    assert allocate_forms({A: 1.0}, 0, seed=2) == []


@pytest.mark.parametrize(("weights", "count", "message"), [
    ({}, 3, "no form weights given"),
    ({A: 0.0, T: 1.0}, 3, "form weights must be numbers greater than 0, got {'answer': 0.0}"),
    ({A: float("inf")}, 3, "greater than 0, got {'answer': inf}"),
    ({A: 1.0}, -1, "the number of designs must be 0 or more, got -1"),
])
def test_bad_weights_are_refused(weights, count, message):
    with pytest.raises(ValueError, match=message.replace("{", r"\{").replace("}", r"\}")):
        allocate_forms(weights, count, seed=0)
