"""Replay speed: a fully cached rerun, in cells per second (scoring and result writing included).

    python benchmarks/replay.py [variants]

The first run fills a fresh cache from the loopback OpenAI-compatible stub; the second is timed
and must make zero calls. Prints one line per figure.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from isodyn.experiments.config import parse_overrides
from isodyn.experiments.runner import execute, new_run_dir, plan_experiment
from isodyn.testing import OpenAIStub


def run_once(words: list[str]) -> tuple[dict, float]:
    started = time.perf_counter()
    plan = plan_experiment(parse_overrides(words))
    outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
    return outcome.summary, time.perf_counter() - started


def main() -> None:
    variants = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp, OpenAIStub() as stub:
        words = [
            "models=openai/stub",
            f"api_base={stub.base_url}",
            "vision=yes",
            f"variants={variants}",
            "concurrency=32",
            f"out={Path(tmp) / 'runs'}",
            f"cache_dir={Path(tmp) / 'cache'}",
            "quiet=1",
        ]
        cold, cold_s = run_once(words)
        warm, warm_s = run_once(words)
    assert warm["calls_made"] == 0, warm
    print(f"cells                  {warm['cells']}")
    print(f"cold run (stub calls)  {cold_s:.2f} s  {cold['cells'] / cold_s:,.0f} cells/s")
    print(f"cached rerun           {warm_s:.2f} s  {warm['cells'] / warm_s:,.0f} cells/s")


if __name__ == "__main__":
    main()
