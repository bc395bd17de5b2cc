"""How often the designer's environments are valid: one batch per form, with a real policy.

Designs one environment per document (the run's corpus, sampled as ``spadework run`` samples it)
in the given form, with up to ``--attempts`` attempts each, validates every reply in the real
sandbox (novelty included), and prints each design's attempts with the check that failed and its
message, then valid first attempts and valid after retries. The last line is one JSON object.

    python benchmarks/design_bench.py [--form tool] [--designs 6] [--attempts 3] [--temperature 0.3]
                                      [--set policy.model=qwen2.5-coder-0.5b] [--replies DIR]
                                      [--policy RUN_DIR/checkpoints/warm-start]

``--policy`` designs with a checkpoint's adapter (as ``spadework eval --policy`` names one; its run's
config, with ``--set`` on top): whether training one role changed what the other writes.

``--set designer.second_solver=true`` asks the answer form for ``solve(observation)`` and validates
with the validator's ``second_solver`` check.

``--replies DIR`` keeps every reply as DIR/<design>-a<attempt>.md (for reading what failed).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from spadework.config import parse_assignment
from spadework.corpus import CorpusSampler, cut_to_budget, open_corpus
from spadework.designer import DesignRequest, DesignSettings, MemoryDigest, design_batch, run_index
from spadework.designer.prompts import DesignForm
from spadework.engines import open_sandbox, sampling
from spadework.eval.command import with_overrides
from spadework.eval.policies import load_eval_policy, parse_policy_spec
from spadework.validate import ValidatorConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--form", choices=[f.value for f in DesignForm], default="tool",
                        help="the form asked for")
    parser.add_argument("--designs", type=int, default=6, help="documents, one design each")
    parser.add_argument("--attempts", type=int, default=3, help="first attempt plus retries")
    parser.add_argument("--temperature", type=float, default=0.3, help="the designer's sampling temperature")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help="any config field (e.g. policy.model=qwen2.5-coder-0.5b)")
    parser.add_argument("--replies", type=Path, help="keep every reply in this folder")
    parser.add_argument("--policy", default="base", help="'base' or a checkpoint, as spadework eval takes")
    args = parser.parse_args()

    overrides = dict(parse_assignment(text) for text in args.sets)
    spec = with_overrides(parse_policy_spec(args.policy), None, overrides)
    config = spec.config
    designer = config.designer
    corpus_sampler = CorpusSampler(open_corpus(config.corpus.path), seed=config.run.seed)
    drawn = [corpus_sampler.sample() for _ in range(args.designs)]
    form = DesignForm(args.form)
    budget = config.corpus.max_doc_tokens
    requests = [DesignRequest(f"d{k}", replace(d, text=cut_to_budget(d.text, budget)), form)
                for k, d in enumerate(drawn)]
    policy = load_eval_policy(spec)
    role = designer.sampling.model_copy(update={"temperature": args.temperature})
    settings = DesignSettings(sampling=sampling(role, seed=config.run.seed), max_attempts=args.attempts,
                              novelty=run_index([], threshold=designer.novelty_threshold),
                              temperature_step=designer.repair_temperature_step, retry=designer.retry,
                              validator=ValidatorConfig(second_solver=designer.second_solver))
    start = time.perf_counter()
    with open_sandbox(config) as sandbox:  # the [sandbox] section (--set sandbox.docstring_hint=false)
        designs = design_batch(policy, sandbox, requests, MemoryDigest(), settings)
    seconds = time.perf_counter() - start

    failures: Counter[str] = Counter()
    for design in designs:
        print(f"{design.design_id} ({design.document_id}, {design.domain}):")
        for attempt in design.attempts:
            failed = attempt.verdict.failure
            where = "valid" if failed is None else f"{failed.name}: {failed.message[:160]}"
            if failed is not None:
                failures[failed.name] += 1
            print(f"  attempt {attempt.attempt}: {attempt.verdict.class_name or '-'} {where}")
            if args.replies:
                args.replies.mkdir(parents=True, exist_ok=True)
                (args.replies / f"{design.design_id}-a{attempt.attempt}.md").write_text(attempt.reply)
    first = sum(d.attempts[0].verdict.valid for d in designs)
    valid = sum(d.valid for d in designs)
    print(f"{args.form}: {first} of {len(designs)} valid at the first attempt, {valid} after retries, "
          f"{seconds:.0f} s; failed checks: {dict(failures)}")
    print(json.dumps({"form": args.form, "model": config.policy.model, "policy": args.policy,
                      "designs": len(designs), "valid_first": first, "valid": valid,
                      "attempts": args.attempts, "temperature": args.temperature,
                      "seconds": round(seconds, 1), "failed_checks": dict(failures)}))


if __name__ == "__main__":
    main()
