"""Batched generation against one conversation after another, on the same prompts.

For each model: the engine as it was (llama-cpp-python's ``Llama.create_chat_completion``, one
conversation after another, greedy) on ``--prompts`` conversations, then the batched engine
(``EmbeddedPolicy``, continuous batching) at each ``--parallel`` count on the same conversations.
Per setting: aggregate generated tokens/s (generated tokens over the wall time of the whole batch,
prompts included) and prompt tokens/s (the same batch with ``max_tokens = 1``: prompt tokens over
its wall time), ``speedup``: generated tokens/s against the one-after-another engine's, and
``identical``: how many greedy replies equal those of the first ``--parallel`` count (1: each
conversation decoded alone), where batched matrix products may differ in the last bits.
The prompts share a short system block and differ after it, as an iteration's plays do.
With ``--server URL --server-model NAME`` the same prompts also go to an OpenAI-compatible server
(a vLLM CPU build beside the embedded engine, say) through ``OpenAIPolicy`` with as many requests
in flight as each ``--parallel`` count, measured the same way.

    python benchmarks/batch_bench.py [--models qwen2.5-coder-0.5b qwen2.5-coder-1.5b]
        [--parallel 1 2 4 8 16 32] [--prompts 32] [--max-tokens 64]
        [--server http://127.0.0.1:8011/v1 --server-model qwen05]

Prints a table, then one JSON object as the last line. Run it alone: two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from spadework.policy import Message, Role, Sampling
from spadework.policy.embedded import GGUF_TEMPLATE_FORMAT, EmbeddedPolicy
from spadework.policy.llama_cpu import avoid_amx_repack
from spadework.policy.models import resolve_model
from spadework.policy.openai import OpenAIPolicy

SYSTEM = "You are a careful assistant. Work the task out step by step, then give the answer."
TASKS = ("Sum the digits of {n}.", "List three prime numbers greater than {n}.",
         "Explain in two sentences why {n} is or is not even.", "Write {n} in binary and in hexadecimal.",
         "A train travels {n} km in 2 hours. What is its speed?",
         "Write a Python function that returns the {n}th Fibonacci number.",
         "Name {n} animals that live in the sea, one line each.", "Count down from {n} to 1 in words.")


def conversations(count: int) -> list[list[Message]]:
    return [[Message(Role.SYSTEM, SYSTEM), Message(Role.USER, TASKS[i % len(TASKS)].format(n=17 + 3 * i))]
            for i in range(count)]


def one_after_another(model: str, prompts: list[list[Message]], max_tokens: int) -> dict[str, float]:
    """The engine as it was: one chat completion after another in a single llama.cpp context."""
    import llama_cpp

    avoid_amx_repack()
    llm = llama_cpp.Llama(model_path=str(resolve_model(model)), n_ctx=4096, n_threads=os.cpu_count(),
                          verbose=False)
    llm.chat_format = GGUF_TEMPLATE_FORMAT
    figures = {}
    for label, tokens in (("gen", max_tokens), ("prompt", 1)):
        start, made, read = time.perf_counter(), 0, 0
        for conversation in prompts:
            answer = llm.create_chat_completion(messages=[m.to_json() for m in conversation], temperature=0.0,
                                                max_tokens=tokens, seed=0)
            made += answer["usage"]["completion_tokens"]
            read += answer["usage"]["prompt_tokens"]
            llm.reset()  # a fresh prompt each time, as the batched engine's first read of it
        seconds = time.perf_counter() - start
        figures[f"{label}_s"] = round(seconds, 2)
        figures["gen_tok_s" if label == "gen" else "prompt_tok_s"] = round((made if label == "gen" else read)
                                                                           / seconds, 2)
        figures["generated" if label == "gen" else "prompt_tokens"] = made if label == "gen" else read
    llm.close()
    return figures


def batched(model: str, prompts: list[list[Message]], max_tokens: int,
            parallel: int) -> tuple[dict[str, float], list[str]]:
    """The batched engine's figures at ``parallel`` sequences, and its greedy replies."""
    return measured(EmbeddedPolicy(model, n_ctx=1024, parallel=parallel), prompts, max_tokens, parallel)


def measured(policy, prompts: list[list[Message]], max_tokens: int,
             parallel: int) -> tuple[dict[str, float], list[str]]:
    """A policy's figures on the prompts (``parallel`` recorded as given), and its greedy replies."""
    figures: dict[str, float] = {"parallel": getattr(policy, "parallel", parallel)}
    texts: list[str] = []
    try:
        for label, tokens in (("gen", max_tokens), ("prompt", 1)):
            if hasattr(policy, "scheduler"):
                policy.scheduler.forget_all()
            start = time.perf_counter()
            completions = policy.generate(prompts, Sampling(temperature=0.0, max_tokens=tokens))
            seconds = time.perf_counter() - start
            made = sum(c.completion_tokens for c in completions)
            read = sum(c.prompt_tokens - c.cached_tokens for c in completions)
            figures[f"{label}_s"] = round(seconds, 2)
            if label == "gen":
                figures.update(gen_tok_s=round(made / seconds, 2), generated=made)
                texts = [c.text for c in completions]
            else:
                figures.update(prompt_tok_s=round(read / seconds, 2), prompt_tokens=read)
    finally:
        policy.close()
    return figures, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    parser.add_argument("--parallel", nargs="+", type=int, default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--server", help="an OpenAI-compatible server's /v1 address, measured as well")
    parser.add_argument("--server-model", default="default", help="the model name the server serves")
    args = parser.parse_args()
    prompts = conversations(args.prompts)
    result: dict[str, dict] = {}
    for model in args.models + ([f"server:{args.server_model}"] if args.server else []):
        served = model.startswith("server:")
        base = result[args.models[0]]["one_after_another"] if served else one_after_another(
            model, prompts, args.max_tokens)
        print(f"  {model} one after another: {base}", flush=True)
        rows, first = {}, None
        for p in args.parallel:
            if served:
                rows[str(p)], texts = measured(OpenAIPolicy(args.server, args.server_model, concurrency=p),
                                               prompts, args.max_tokens, p)
            else:
                rows[str(p)], texts = batched(model, prompts, args.max_tokens, p)
            first = first or texts
            rows[str(p)]["identical"] = sum(a == b for a, b in zip(first, texts, strict=True))
            print(f"  {model} parallel {p}: {rows[str(p)]}", flush=True)
        speedup = {p: round(row["gen_tok_s"] / base["gen_tok_s"], 2) for p, row in rows.items()}
        result[model] = {"one_after_another": base, "batched": rows, "speedup": speedup}
        print(f"{model}: one after another {base['gen_tok_s']} gen tok/s, "
              f"{base['prompt_tok_s']} prompt tok/s")
        for p, row in rows.items():
            print(f"  parallel {p:>2}: {row['gen_tok_s']:>7} gen tok/s  "
                  f"{row['prompt_tok_s']:>7} prompt tok/s  "
                  f"speedup {speedup[p]}x  ({row['generated']} tokens in {row['gen_s']} s, "
                  f"{row['identical']} of {args.prompts} replies as at {args.parallel[0]})")
    print(json.dumps({"prompts": args.prompts, "max_tokens": args.max_tokens, "models": result}))


if __name__ == "__main__":
    main()
