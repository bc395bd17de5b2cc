"""Near-duplicate rejection: MinHash over normalised tokens, and the validator's ``novel`` check."""

from __future__ import annotations

import ast
import dataclasses
import itertools
import os
import subprocess
import sys

import pytest

from spadework.archive import EnvRecord
from spadework.designer import NoveltyIndex, checks_with_novelty, novel_check, run_index
from spadework.designer.novelty import signature, similarity, tokens
from spadework.envs.examples import example_paths
from spadework.errors import CheckFailed
from spadework.sandbox import InProcessSandbox
from spadework.validate import CHECKS, CheckContext, CheckResult, Outcome, Verdict, validate
from spadework.validate.checks import ValidatorConfig

EXAMPLES = {path.stem: path.read_text() for path in example_paths()}
GUESS = EXAMPLES["number_guess"]
RENAMES = {"secret": "target", "LOW": "MIN_VALUE", "HIGH": "MAX_VALUE", "guesses": "tries",
           "guess": "g", "low": "lo", "high": "hi", "parity": "kind", "NumberGuessEnv": "PickEnv"}


def renamed(code: str, names: dict[str, str]) -> str:
    """``code`` with identifiers renamed (strings untouched), rewritten from its syntax tree."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        for attribute in ("id", "attr", "name", "arg"):
            value = getattr(node, attribute, None)
            if isinstance(value, str) and value in names:
                setattr(node, attribute, names[value])
    return ast.unparse(tree)


RENAMED = renamed(GUESS, RENAMES)
RETUNED = RENAMED.replace("(10, 99)", "(1, 100)").replace("max_turns = 10", "max_turns = 12")


def test_the_variants_really_differ_from_the_original():
    assert "self.target" in RENAMED and "self.secret" not in RENAMED and "class PickEnv" in RENAMED
    assert "(1, 100)" in RETUNED and "max_turns = 12" in RETUNED


def test_renaming_leaves_the_tokens_unchanged():
    assert tokens(RENAMED) == tokens(GUESS)
    assert similarity(signature(RENAMED), signature(GUESS)) == 1.0


def test_renamed_and_retuned_copy_is_a_twin():
    index = NoveltyIndex()
    index.add(7, GUESS, "NumberGuessEnv")
    for name, code in EXAMPLES.items():
        if name != "number_guess":
            index.add(name, code)
    env_id, score = index.twin(RETUNED)
    assert env_id == 7
    assert score == 1.0  # other names and other numbers: the same game


def test_exact_copy_up_to_comments_has_similarity_one():
    index = NoveltyIndex()
    index.add(3, GUESS)
    copy = "# a copy\n" + GUESS.replace("    max_turns = 10", "    max_turns = 10  # ten")
    assert copy != GUESS and index.twin(copy) == (3, 1.0)


def test_different_examples_are_not_twins():
    signatures = {name: signature(code) for name, code in EXAMPLES.items()}
    for first, second in itertools.combinations(signatures, 2):
        assert similarity(signatures[first], signatures[second]) < 0.3, (first, second)
    index = NoveltyIndex()
    index.add("guess", GUESS)
    for name, code in EXAMPLES.items():
        if name != "number_guess":
            assert index.twin(code) is None, name


def test_similarity_estimates_follow_the_size_of_the_change():
    original = signature(GUESS)
    retold = RETUNED.replace("Guess it by replying with one", "Find it: answer with a single")
    small = similarity(original, signature(retold))
    larger = similarity(original, signature(retold.replace("Reply with one whole", "Say a single")))
    assert 1.0 > small > larger > 0.5


def test_signatures_agree_across_processes():
    code = ("from spadework.designer.novelty import signature\n"
            "print(signature('x = 1\\ny = x + 2', num_perm=8))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outputs) == 1
    assert outputs.pop().strip() == str(signature("x = 1\ny = x + 2", num_perm=8))


def test_settings_are_checked():
    with pytest.raises(ValueError, match="threshold"):
        NoveltyIndex(threshold=0.0)
    with pytest.raises(ValueError, match="num_perm"):
        NoveltyIndex(num_perm=0)
    assert NoveltyIndex().twin(GUESS) is None


def record(code: str, valid: bool, id: int) -> EnvRecord:
    outcome = Outcome.PASSED if valid else Outcome.FAILED
    verdict = Verdict((CheckResult("parse", outcome),), isolation="none", class_name="NumberGuessEnv")
    return dataclasses.replace(EnvRecord.new(code, verdict, origin="test"), id=id)


def test_from_records_indexes_only_valid_records():
    index = NoveltyIndex.from_records([record(GUESS, True, 4), record(EXAMPLES["coin_purse"], False, 5)])
    assert len(index) == 1 and 4 in index and 5 not in index
    assert index.name(4) == "NumberGuessEnv"
    assert index.twin(EXAMPLES["coin_purse"]) is None
    assert index.twin(RETUNED)[0] == 4


def test_novel_check_names_the_twin():
    index = NoveltyIndex()
    index.add(12, GUESS, "NumberGuessEnv")
    check = novel_check(index)
    assert check.name == "novel"
    check.run(CheckContext(EXAMPLES["coin_purse"], None, code=EXAMPLES["coin_purse"]))
    twin = r"too similar to environment #12 \(NumberGuessEnv\) \(similarity 1\.00\)"
    with pytest.raises(CheckFailed, match=twin):
        check.run(CheckContext(RETUNED, None, code=RETUNED))
    with pytest.raises(CheckFailed, match="no code to compare"):
        check.run(CheckContext("", None))


def test_checks_with_novelty_inserts_novel_after_static():
    names = [check.name for check in checks_with_novelty(NoveltyIndex())]
    assert names == ["parse", "static", "novel", *[c.name for c in CHECKS[2:]]]
    assert [c.name for c in CHECKS].count("novel") == 0


def test_validator_verdict_lists_the_novel_failure_with_the_twin_id():
    index = NoveltyIndex()
    index.add(21, GUESS, "NumberGuessEnv")
    reply = f"Here it is:\n```python\n{RETUNED}\n```\n"
    verdict = validate(reply, InProcessSandbox(), ValidatorConfig(), is_reply=True,
                       checks=checks_with_novelty(index))
    assert not verdict.valid
    assert verdict.failure.name == "novel"
    assert "#21" in verdict.failure.message and "similarity" in verdict.failure.message
    assert [c.outcome for c in verdict.checks[3:]] == [Outcome.SKIPPED] * (len(CHECKS) - 2)
    fresh = validate(EXAMPLES["coin_purse"], InProcessSandbox(), checks=checks_with_novelty(index))
    assert fresh.valid, fresh.reason
    assert [c.name for c in fresh.checks][2] == "novel"


def test_a_copy_padded_with_imports_and_comments_is_still_a_twin():
    """Seen from a small model: the prompt's example, with unused imports and the global random."""
    from spadework.designer.prompts import default_example

    example = default_example()
    padded = ("import random\nimport math\nimport re\nimport string\nfrom collections import deque\n"
              "from itertools import accumulate\nfrom functools import reduce\n\n"
              + example.replace("self.rng.randint", "random.randint"))
    index = NoveltyIndex()
    index.add("example:prompt", example, "CodeLockEnv")
    assert similarity(signature(padded), signature(example)) < index.threshold  # Jaccard alone misses it
    found = index.twin(padded)
    assert found is not None and found[0] == "example:prompt" and found[1] >= index.threshold
    for name, code in EXAMPLES.items():  # while other games stay apart
        assert index.twin(code) is None, name


def test_the_run_index_holds_the_tool_forms_example_and_only_its_copies_are_twins():
    from spadework.designer.prompts import DesignForm, default_example

    example = default_example(DesignForm.TOOL)
    copy = example.replace("ClinicBookingEnv", "HospitalEnv").replace("visits", "appointments")
    found = run_index([]).twin(copy)
    assert found is not None and found[0] == "example:prompt-tool"
    alone = NoveltyIndex()
    alone.add("example:prompt-tool", example)
    others = [default_example(DesignForm.ANSWER), default_example(DesignForm.GAME), *EXAMPLES.values()]
    assert all(alone.twin(code) is None for code in others)


def variants(count: int, seed: int = 0) -> list[str]:
    """Sources of many kinds: the scripted designer's families on random topics, the examples, the
    calibration environments, each sometimes renamed, retuned, padded or grown by a helper."""
    import random
    from pathlib import Path

    from spadework.policy import scripted_families

    rng = random.Random(seed)
    bases = [*EXAMPLES.values(), *(p.read_text() for p in sorted(
        (Path(scripted_families.__file__).parents[1] / "calibrate" / "envs").glob("*.py")))]
    makers = [getattr(scripted_families, n) for n in dir(scripted_families) if n.startswith("design_")]
    words = ["river", "castle", "orbit", "lantern", "harbour", "meadow", "comet", "forge", "glacier"]
    out = []
    for k in range(count):
        if k % 2:
            code = rng.choice(makers)(f"{rng.choice(words)} {rng.choice(words)}", rng)
        else:
            code = rng.choice(bases)
        if rng.random() < 0.3:
            code = code.replace("10", str(rng.randrange(2, 99)))
        if rng.random() < 0.3:
            code = "import math\nimport re\nfrom collections import deque\n" + code
        if rng.random() < 0.3:
            word = rng.choice(words)
            code += f"\n\ndef helper_{k}(items):\n    return sorted(items)[:{k % 7 + 1}] + ['{word}']\n"
        out.append(code)
    return out


def test_the_band_lookup_gives_the_answers_of_the_full_scan():
    """The index scores only the sources that share a band with the new one; on a few hundred
    archived sources of every kind, and new ones that copy, rename, retune, pad or differ, it
    finds exactly the twin a scan of every entry finds."""
    archived, queries = variants(300, seed=1), variants(200, seed=2)
    index = run_index([])
    for k, code in enumerate(archived):
        index.add(k, code, f"Env{k}")
    queries += [RETUNED, renamed(GUESS, RENAMES), *EXAMPLES.values()]
    answers = [(index.twin(code), index.scan(code)) for code in queries]
    assert all(twin == scan for twin, scan in answers)
    assert sum(twin is not None for twin, _ in answers) > 50 and sum(twin is None for twin, _ in answers) > 10


def test_an_overlay_sees_its_parent_and_keeps_its_own_additions():
    index = NoveltyIndex()
    index.add(1, GUESS, "NumberGuessEnv")
    batch = index.overlay()
    batch.add("i0-d0", EXAMPLES["coin_purse"], "CoinEnv")
    assert batch.twin(RETUNED)[0] == 1 and batch.twin(EXAMPLES["coin_purse"])[0] == "i0-d0"
    assert index.twin(EXAMPLES["coin_purse"]) is None and len(batch) == 2 and len(index) == 1
    assert batch.name(1) == "NumberGuessEnv" and "i0-d0" not in index


def test_the_run_index_is_built_from_stored_sketches_and_fills_missing_ones_once(tmp_path):
    from spadework.archive import Archive
    from spadework.designer.run_novelty import RunNovelty

    notes: list[str] = []
    with Archive.open(tmp_path) as archive:
        first = archive.add(record(GUESS, True, 0))
        archive.add(record(EXAMPLES["coin_purse"], False, 0))
        run = RunNovelty(archive, warn=notes.append)
        assert run.batch().twin(RETUNED)[0] == first.id
        assert len(notes) == 1 and "indexing 1 archived environments" in notes[0]
        stored = archive.sketch_rows(run.index.scheme)
        assert [row.id for row in stored] == [first.id]
        assert stored[0].signature == run.index.sketch_of(GUESS).to_bytes()
        again = RunNovelty(archive, warn=notes.append)
        assert again.batch().twin(RETUNED)[0] == first.id and len(notes) == 1  # no second note
