"""Sandbox benchmark: worker cold start, warm step round trip, validation time, throughput.

Run: ``.venv/bin/python benchmarks/sandbox_bench.py``. Prints a table, then one JSON
object as the last line. Targets on a 2-core machine: isolation "namespaces", warm
step round trip p50 <= 0.3 ms, validation p50 <= 0.5 s, >= 2,000 sandboxed steps/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time

from spadework.sandbox import InProcessSandbox, Sandbox, SandboxConfig
from spadework.sandbox.process import WorkerProcess
from spadework.validate import validate

SOURCE = '''
from spadework.envs import TextEnv


class GuessEnv(TextEnv):
    max_turns = 12

    def new_episode(self):
        self.secret = self.rng.randint(1, 1000)
        return "Guess a number from 1 to 1000."

    def apply(self, action):
        if not action.isdigit():
            return "Say a whole number.", 0.0, False
        guess = int(action)
        if guess == self.secret:
            return "Correct!", 1.0, True
        return ("Higher." if guess < self.secret else "Lower."), 0.0, False

    def solution(self):
        low, high, actions = 1, 1000, []
        while True:
            middle = (low + high) // 2
            actions.append(str(middle))
            if middle == self.secret:
                return actions
            low, high = (middle + 1, high) if middle < self.secret else (low, middle - 1)

    def hint(self):
        return "Halve the range that is left with every guess."
'''


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def step_times(env, steps: int) -> list[float]:
    env.reset(0)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        env.step("500")
        times.append(time.perf_counter() - start)
    return times


def cold_starts(sandbox: Sandbox, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        worker = WorkerProcess(sandbox.config, sandbox.isolation)
        times.append(time.perf_counter() - start)
        worker.kill()
    return times


def validations(sandbox, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        verdict = validate(SOURCE, sandbox)
        times.append(time.perf_counter() - start)
        if not verdict.valid:
            raise SystemExit(f"benchmark environment is invalid: {verdict.reason}")
    return times


def throughput(sandbox, envs: int, steps: int) -> float:
    handles = [sandbox.open(SOURCE) for _ in range(envs)]
    threads = [threading.Thread(target=step_times, args=(h, steps)) for h in handles]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    for handle in handles:
        handle.close()
    return envs * steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--validations", type=int, default=20)
    parser.add_argument("--pool", type=int, default=4)
    args = parser.parse_args()

    with Sandbox(SandboxConfig(pool_size=args.pool)) as sandbox:
        cold = cold_starts(sandbox, 10)
        with sandbox.open(SOURCE) as env:
            warm = step_times(env, args.steps)
        valid = validations(sandbox, args.validations)
        sandboxed_rate = throughput(sandbox, args.pool, args.steps // 2)
        isolation = sandbox.isolation.value
    with InProcessSandbox() as fake:
        inprocess = step_times(fake.open(SOURCE), args.steps)
        inprocess_rate = len(inprocess) / sum(inprocess)
        inprocess_valid = validations(fake, args.validations)

    result = {
        "isolation": isolation,
        "cold_start_p50_ms": round(statistics.median(cold) * 1e3, 2),
        "step_rtt_p50_ms": round(percentile(warm, 0.5) * 1e3, 4),
        "step_rtt_p95_ms": round(percentile(warm, 0.95) * 1e3, 4),
        "validate_p50_s": round(percentile(valid, 0.5), 4),
        "sandboxed_steps_per_s": round(sandboxed_rate),
        "inprocess_step_p50_ms": round(percentile(inprocess, 0.5) * 1e3, 4),
        "inprocess_steps_per_s": round(inprocess_rate),
        "inprocess_validate_p50_s": round(percentile(inprocess_valid, 0.5), 4),
    }
    width = max(map(len, result))
    print(f"{'figure':<{width}}  value")
    for name, value in result.items():
        print(f"{name:<{width}}  {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
