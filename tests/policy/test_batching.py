"""BatchScheduler over a FAKE decoder: continuous batching, stops, overflow, shared prefixes,
interruption. The fake checks every batch as llama.cpp would see it (positions follow what each
slot holds) and counts passes over the weights (runs of consecutive slots, as llama.cpp groups
a non-unified cache's sequences)."""

from __future__ import annotations

import pytest

from spadework.policy.batching import BatchScheduler, FinishReason, SequenceRequest
from spadework.policy.fake_decoder import FakeDecoder


def request(prompt, max_tokens=50, **kwargs) -> SequenceRequest:
    return SequenceRequest(prompt=tuple(prompt), max_tokens=max_tokens, **kwargs)


def counted(start, stop):
    return " ".join(str(t) for t in range(start, stop)) + " "


def test_a_batch_gives_what_one_at_a_time_gives_in_fewer_steps():
    requests = [request([5, 6, 90]), request([1, 2, 3, 80], max_tokens=4), request([7, 95]),
                request(range(20, 60))]
    alone = BatchScheduler(FakeDecoder(slots=1)).run(requests)
    decoder = FakeDecoder(slots=4)
    scheduler = BatchScheduler(decoder)
    together = scheduler.run(requests)
    assert [r.text for r in together] == [r.text for r in alone]
    assert [r.text for r in together] == [counted(91, 100), counted(81, 85), counted(96, 100),
                                          counted(60, 100)]
    assert [r.finish_reason for r in together] == [FinishReason.STOP, FinishReason.LENGTH,
                                                   FinishReason.STOP, FinishReason.STOP]
    assert [r.completion_tokens for r in together] == [9, 4, 4, 40]
    assert scheduler.stats.steps < sum(r.completion_tokens for r in together)
    assert scheduler.stats.largest_batch > 4 and decoder.live_samplers == 0


def test_a_freed_slot_goes_to_the_next_waiting_request_while_the_others_still_generate():
    decoder = FakeDecoder(slots=2)
    requests = [request([1, 98]), request([1, 10], max_tokens=60), request([200, 201, 90])]
    results = BatchScheduler(decoder).run(requests)
    assert [r.completion_tokens for r in results] == [1, 60, 9]
    # the third request's prompt is read in the same batch as the second's next token
    third_prompt = [b for b in decoder.batches if any(token == 201 for _, token, _, _ in b)]
    assert third_prompt and any(len({slot for slot, *_ in b}) == 2 for b in third_prompt)


def test_a_stop_string_ends_one_sequence_mid_batch_and_its_text_ends_before_it():
    results = BatchScheduler(FakeDecoder()).run([request([1, 50], stop=("54",)), request([1, 60])])
    assert results[0].text == "51 52 53 " and results[0].finish_reason is FinishReason.STOP
    assert results[1].text == counted(61, 100)


def test_a_prompt_that_does_not_fit_fails_alone_and_a_full_context_ends_a_reply():
    decoder = FakeDecoder(n_ctx=64)
    results = BatchScheduler(decoder).run([request(range(1, 70)), request([1, 2], 99), request(range(1, 60))])
    assert results[0].finish_reason is FinishReason.CONTEXT and results[0].text == ""
    assert (results[1].finish_reason, results[1].completion_tokens) == (FinishReason.LENGTH, 64 - 2)
    assert results[1].text == counted(3, 3 + 62)
    assert (results[2].finish_reason, results[2].completion_tokens) == (FinishReason.LENGTH, 64 - 59)
    [empty] = BatchScheduler(decoder).run([request([])])
    assert (empty.text, empty.finish_reason) == ("", FinishReason.STOP)
    assert all(len(held) <= 64 for held in decoder.held)


def test_a_shared_prefix_is_computed_once_and_the_waiting_request_copies_it():
    shared = list(range(1, 201))
    scheduler = BatchScheduler(FakeDecoder())
    first, second = scheduler.run([request([*shared, 40, 41], 99), request([*shared, 70, 71], 99)])
    assert (first.text, second.text) == (counted(42, 100), counted(72, 100))
    assert second.cached_tokens == 200 and first.cached_tokens == 0
    assert scheduler.stats.prefilled_tokens == 204 - 200 + 200
    assert scheduler.stats.copies == 1


def test_the_next_turn_reads_only_its_new_tokens_from_a_slot_or_the_prompt_cache():
    def turns(cache_bytes):
        scheduler = BatchScheduler(FakeDecoder(slots=2), cache_bytes=cache_bytes)
        starts = [[*range(k * 100 + 101, k * 100 + 180), 50] for k in range(3)]
        firsts = scheduler.run([request(s, max_tokens=3) for s in starts])
        nexts = [[*s, *(int(t) for t in f.text.split()), 7, 8] for s, f in zip(starts, firsts, strict=True)]
        return scheduler.run([request(n, max_tokens=2) for n in nexts])

    with_cache = turns(1 << 20)
    without = turns(0)
    # three episodes, two slots: with the cache every next turn reuses all but its new tokens
    assert [r.cached_tokens for r in with_cache] == [82, 82, 82]
    assert sorted(r.cached_tokens for r in without)[0] == 0
    assert [r.text for r in with_cache] == [r.text for r in without]


def test_busy_slots_stay_consecutive_so_each_step_is_one_pass():
    decoder = FakeDecoder(slots=4)
    lengths = [3, 30, 5, 40, 8, 20]
    scheduler = BatchScheduler(decoder)
    results = scheduler.run([request([1, 10], max_tokens=n) for n in lengths])
    assert [r.completion_tokens for r in results] == lengths
    assert decoder.passes == len(decoder.batches)
    assert scheduler.stats.moves > 0


def test_an_interruption_leaves_the_scheduler_usable_and_its_results_unchanged():
    requests = [request([1, 2, 3, 40]), request(range(5, 90)), request([9, 60], max_tokens=7)]
    expected = BatchScheduler(FakeDecoder(slots=2)).run(requests)
    decoder = FakeDecoder(slots=2, interrupt_at=5)
    scheduler = BatchScheduler(decoder, cache_bytes=1 << 20)
    with pytest.raises(KeyboardInterrupt):
        scheduler.run(requests)
    assert decoder.live_samplers == 0 and all(slot.job is None for slot in scheduler.slots)
    again = scheduler.run(requests)
    assert [(r.text, r.finish_reason) for r in again] == [(r.text, r.finish_reason) for r in expected]


def test_seeds_are_per_sequence_whatever_shares_the_batch():
    hot = [request([1, 10], temperature=0.7, seed=s, max_tokens=5) for s in (3, 4)]
    alone = [BatchScheduler(FakeDecoder()).run([r])[0].text for r in hot]
    mixed = BatchScheduler(FakeDecoder()).run([request([2, 50]), *hot, request([3, 20])])
    assert [r.text for r in mixed[1:3]] == alone == ["12 14 16 18 20 ", "11 12 13 14 15 "]


def test_forget_all_drops_every_state():
    decoder = FakeDecoder(slots=2)
    scheduler = BatchScheduler(decoder, cache_bytes=1 << 20)
    scheduler.run([request(range(1, 80), max_tokens=2) for _ in range(3)])
    scheduler.forget_all()
    assert not scheduler.cache and all(not held for held in decoder.held)
    [again] = scheduler.run([request(range(1, 80), max_tokens=2)])
    assert again.cached_tokens == 0


def test_a_move_of_a_sequence_that_has_read_nothing_yet_leaves_no_old_cells_behind():
    """The prefill budget runs out before the third slot's turn; the second sequence ends at once,
    so the third, which has read nothing yet, is moved into the second's slot: what that slot held
    must be gone (llama.cpp keeps a slot's cells when an empty state is loaded into it)."""
    decoder = FakeDecoder(slots=3)
    scheduler = BatchScheduler(decoder, prefill_chunk=40)
    results = scheduler.run([request(range(1, 31), max_tokens=20), request(range(40, 50), max_tokens=1),
                             request(range(60, 90), max_tokens=3)])
    assert [r.text for r in results] == [counted(31, 51), "50 ", counted(90, 93)]
    assert scheduler.stats.moves >= 1


def test_common_prefix_agrees_with_counting_token_by_token():
    import random

    from spadework.policy.batching import common_prefix

    rng = random.Random(0)
    for _ in range(500):
        first = [rng.randrange(3) for _ in range(rng.randrange(12))]
        second = first[: rng.randrange(len(first) + 1)] + [rng.randrange(3) for _ in range(rng.randrange(5))]
        pairs = zip(first, second, strict=False)
        naive = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(first), len(second)))
        assert common_prefix(first, tuple(second)) == naive


def test_a_saved_state_chosen_as_the_source_survives_the_save_that_makes_room_for_another():
    """One slot, a prompt cache with room for one state: the next turn of the first conversation
    comes from the cache, and saving the slot's state (the second conversation's) drops it."""
    scheduler = BatchScheduler(FakeDecoder(slots=1), cache_bytes=8 * 90)
    starts = [[*range(101 + 100 * k, 180 + 100 * k), 50] for k in range(2)]
    firsts = scheduler.run([request(s, max_tokens=3) for s in starts])
    nexts = [[*s, *(int(t) for t in f.text.split()), 7, 8] for s, f in zip(starts, firsts, strict=True)]
    seconds = scheduler.run([request(n, max_tokens=2) for n in nexts])
    assert [r.text for r in seconds] == ["9 10 ", "9 10 "]
    assert seconds[0].cached_tokens == 82 and len(scheduler.cache) == 1


def test_a_slot_taken_for_a_short_shared_prefix_saves_what_it_held():
    """One slot, two conversations sharing only a system block: the second takes the slot for its
    shared block, and the first's whole state goes to the prompt cache for its next turn."""
    scheduler = BatchScheduler(FakeDecoder(slots=1), cache_bytes=1 << 20)
    system = list(range(200, 220))
    starts = [[*system, *range(300 + 100 * k, 380 + 100 * k), 50] for k in range(2)]
    firsts = scheduler.run([request(s, max_tokens=3) for s in starts])
    nexts = [[*s, *(int(t) for t in f.text.split()), 7, 8] for s, f in zip(starts, firsts, strict=True)]
    seconds = scheduler.run([request(n, max_tokens=2) for n in nexts])
    assert [r.cached_tokens for r in seconds] == [len(starts[0]) + 2] * 2
