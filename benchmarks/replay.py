"""Replay speed: a fully cached rerun of 10,000 cells (scoring and result writing included), in
cells per second, next to diskcache's raw read rate on the same cache.

    python benchmarks/replay.py [variants]
    python benchmarks/replay.py [variants] --against OTHER/src [--rounds N]

The cache is filled by a run whose model calls are replaced by an instant fake (this benchmark is
about the replay path, not the network); the rerun is timed in a fresh process, as a user would
rerun a finished experiment. With `--against`, this isodyn (A) and the isodyn whose source folder
is named (B, another checkout's `src`) each fill a cache of their own (their stores' formats may
differ: an older isodyn's are pickled), rerun it once untimed, then rerun it alternately, timed;
every run is printed, then the medians.
Without it, `exp run` is also timed as a whole command (interpreter start to exit), quiet and with
its end-of-run table, checking that a cached rerun does not import litellm.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import isodyn.experiments.llm as llm
import isodyn.experiments.runner as runner
from isodyn.cache.folder import Stores
from isodyn.cache.stores import open_store
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.models.requests import Reply
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir

WORDS = [
    "models=openai/bench", "api_base=http://127.0.0.1:9/v1", "seeds=isobench_parity,isobench_connectivity",
    "modalities=latex,code,story", "quiet=1",
]  # fmt: skip

RERUNS = 3

TIMED = """
import asyncio, json, sys, time
started = time.perf_counter()
try:
    from isodyn.runs.config import parse_overrides
    from isodyn.runs.rundir import new_run_dir
except ImportError:  # an isodyn from before runs/ (`--against` an older checkout)
    from isodyn.experiments.config import parse_overrides
    from isodyn.experiments.rundir import new_run_dir
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
plan = plan_experiment(parse_overrides(json.loads(sys.argv[1])))
planned = time.perf_counter()
outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
done = time.perf_counter()
print(json.dumps({"cells": outcome.summary["cells"], "calls": outcome.summary["calls_made"],
                  "plan_s": planned - started, "run_s": done - planned, "total_s": done - started}))
"""


FILL = """
import asyncio, json, sys
import isodyn.experiments.llm as llm
import isodyn.experiments.runner as runner
from isodyn.cache.stores import open_store
from isodyn.models.requests import Reply
from isodyn.experiments.plan import plan_experiment
try:
    from isodyn.runs.config import parse_overrides
    from isodyn.runs.rundir import new_run_dir
except ImportError:  # an isodyn from before runs/
    from isodyn.experiments.config import parse_overrides
    from isodyn.experiments.rundir import new_run_dir

async def instant(request, timeout_s=None, api_key_env=None):
    return Reply(text='{"solution": "s", "short answer": "A"}', prompt_tokens=10, completion_tokens=5)

llm.call_litellm = instant
runner.preflight = lambda model, api_base: None
plan = plan_experiment(parse_overrides(json.loads(sys.argv[1])))
outcome = asyncio.run(runner.execute(plan, new_run_dir(plan.config)))
assert outcome.summary["errors"] == 0, "the fill failed: a rerun would have nothing to replay"
"""


async def instant(request, timeout_s=None, api_key_env=None) -> Reply:
    return Reply(text='{"solution": "s", "short answer": "A"}', prompt_tokens=10, completion_tokens=5)


def in_process(script: str, words: list[str], source: str | None) -> subprocess.CompletedProcess[str]:
    """`script` run by this isodyn (the one on this interpreter's path) or by the one in `source`."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": source or here}
    return subprocess.run([sys.executable, "-c", script, json.dumps(words)], capture_output=True, text=True,
                          env=env)  # fmt: skip


def rerun(words: list[str], source: str | None = None) -> dict[str, float]:
    """One cached rerun in a fresh process, by this isodyn or by the one in `source`."""
    timed = in_process(TIMED, words, source)
    if timed.returncode:
        raise SystemExit(timed.stderr)
    result: dict[str, float] = json.loads(timed.stdout)
    assert result["calls"] == 0, timed.stderr
    return result


def whole_command(words: list[str], quiet: bool) -> float:
    """`exp run` as a user types it, timed around the process (interpreter start, planning, the
    rerun, the table unless quiet, the report decision); litellm must not be imported."""
    chosen = [w for w in words if not w.startswith("quiet=")] + [f"quiet={int(quiet)}"]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "isodyn", "run", *chosen], capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    assert " litellm\n" not in done.stderr, "a cached rerun imported litellm"
    return seconds


def side_by_side(words: dict[str, list[str]], other: str, rounds: int) -> None:
    """A (this isodyn) and B (`other`) alternately, each on the cache it filled; every run printed."""
    runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    sources = {"A": None, "B": other}
    for name, source in sources.items():
        filled = in_process(FILL, words[name], source)
        if filled.returncode:
            raise SystemExit(filled.stderr[-2000:])
        rerun(words[name], source)  # untimed: fills this code's replay memo
    print(f"A = this isodyn, B = {other}")
    print("round  side  run phase s  whole process s")
    for number in range(1, rounds + 1):
        for name, source in sources.items() if number % 2 else reversed(sources.items()):
            result = rerun(words[name], source)
            runs[name].append(result)
            print(f"{number:5}  {name:4}  {result['run_s']:11.2f}  {result['total_s']:15.2f}")
    for phase in ("run_s", "total_s"):
        a, b = (statistics.median(r[phase] for r in runs[side]) for side in "AB")
        print(f"median {phase:8} A {a:.2f} s   B {b:.2f} s   A/B {a / b:.3f}")


def main() -> None:
    arguments = sys.argv[1:]
    other, rounds = None, 5
    if "--against" in arguments:
        at = arguments.index("--against")
        other = str(Path(arguments[at + 1]).resolve())
        del arguments[at : at + 2]
    if "--rounds" in arguments:
        at = arguments.index("--rounds")
        rounds = int(arguments[at + 1])
        del arguments[at : at + 2]
    variants = int(arguments[0]) if arguments else 2500
    with tempfile.TemporaryDirectory() as tmp:
        words = [
            *WORDS,
            f"variants={variants}",
            f"out={Path(tmp) / 'runs'}",
            f"cache_dir={Path(tmp) / 'cache'}",
        ]
        if other:
            sides = {
                side: [*WORDS, f"variants={variants}", f"out={Path(tmp) / side / 'runs'}",
                       f"cache_dir={Path(tmp) / side / 'cache'}"]
                for side in "AB"
            }  # fmt: skip
            side_by_side(sides, other, rounds)
            return
        llm.call_litellm = instant  # the fill needs no server
        runner.preflight = lambda model, api_base: None  # nor a server to probe
        started = time.perf_counter()
        plan = plan_experiment(parse_overrides(words))
        fill = asyncio.run(execute(plan, new_run_dir(plan.config)))
        fill_s = time.perf_counter() - started
        assert fill.summary["errors"] == 0, "the fill failed: a rerun would have nothing to replay"
        reruns = []
        for _ in range(RERUNS):  # this machine's speed wanders; the best of a few is the code's
            reruns.append(rerun(words))
        replay = min(reruns, key=lambda r: r["run_s"])
        median_run_s = sorted(r["run_s"] for r in reruns)[len(reruns) // 2]
        store = open_store(Stores(Path(tmp) / "cache").responses)
        keys = list(store.iterkeys())
        started = time.perf_counter()
        for key in keys:
            store.get(key)
        raw = len(keys) / (time.perf_counter() - started)
        store.close()
        commands = {quiet: [whole_command(words, quiet) for _ in range(RERUNS)] for quiet in (True, False)}
    cells = replay["cells"]
    print(f"cells                                   {cells}")
    fill_rate, run_rate = fill.summary["cells"] / fill_s, cells / replay["run_s"]
    print(f"fill run (instant fake model)           {fill_s:.2f} s   {fill_rate:,.0f} cells/s")
    print(
        f"cached rerun, run phase                 {replay['run_s']:.2f} s   {run_rate:,.0f} cells/s "
        f"(best of {RERUNS}; median {cells / median_run_s:,.0f} cells/s)"
    )
    print(
        f"cached rerun, whole process             {replay['total_s']:.2f} s   "
        f"{cells / replay['total_s']:,.0f} cells/s (imports, seeds, planning: {replay['plan_s']:.2f} s)"
    )
    print(f"raw diskcache reads                     {raw:,.0f} reads/s")
    for quiet, runs in commands.items():
        said = ", ".join(f"{r:.2f}" for r in runs)
        median = statistics.median(runs)
        print(f"exp run, whole command, quiet={int(quiet)}      {said} s (median {median:.2f} s)")


if __name__ == "__main__":
    main()
