"""How soon the first request of a fresh grid reaches the server: from `exp run` starting to the stub's
first chat completion, this checkout against another one (the previous release), alternating.

    python benchmarks/first_call.py --base /tmp/base-checkout [--rounds 5] [--cells 2000]
    python benchmarks/first_call.py --rounds 3                 # this checkout alone

The grid is vs_inspect.py's (`models=openai/bench seeds=all modalities=latex,code,story`, variants
chosen to come near `--cells`), on a fresh cache and a fresh `out` each run, against the counting
stub (`python -m isodyn.testing LATENCY --timing`) in a process of its own. Each run is a fresh
process started here (`python -m isodyn run ...`, the checkout's `src` first on PYTHONPATH); the
stub is asked every 20 ms whether a call arrived, and once one has, the run is stopped (the rest of
the grid is not what this measures). Every run is printed, then the medians per side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_inspect import GRID, Stub, child_env

HERE = Path(__file__).resolve().parents[1]
POLL_S = 0.02
GIVE_UP_S = 60.0
DRAIN_S = 1.0


def variants_for(cells: int) -> int:
    """Variants that bring the grid nearest `cells` (its size per variant, from this checkout's plan)."""
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    with tempfile.TemporaryDirectory(prefix="first-call-plan-") as folder:
        words = [
            *GRID,
            "api_base=http://127.0.0.1:9/v1",
            "variants=1",
            f"out={folder}/o",
            f"cache_dir={folder}/c",
        ]
        per_variant = len(plan_experiment(parse_overrides(words)).grid.cells)
    return max(1, round(cells / per_variant))


def first_call(checkout: Path, stub: Stub, words: list[str], tmp: Path) -> float | None:
    """Seconds from starting `exp run` to the stub's first call (None: no call within GIVE_UP_S)."""
    env = child_env({"PYTHONPATH": str(checkout / "src")})
    command = [
        sys.executable,
        "-m",
        "isodyn",
        "run",
        *words,
        f"out={tmp / 'runs'}",
        f"cache_dir={tmp / 'cache'}",
    ]
    stub.take()
    time.sleep(DRAIN_S)  # what the previous run (stopped) still had on its way is answered now...
    stub.take()  # ...and not counted: count from here
    with open(os.devnull, "wb") as quiet:
        started = time.monotonic()  # the stub's clock (CLOCK_MONOTONIC)
        process = subprocess.Popen(command, cwd=tmp, env=env, stdout=quiet, stderr=quiet)
        try:
            while time.monotonic() - started < GIVE_UP_S:
                seen = stub.take()
                if seen["first"] is not None:
                    return float(seen["first"]) - started
                if process.poll() is not None:
                    return None
                time.sleep(POLL_S)
            return None
        finally:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base", type=Path, help="another checkout (e.g. a worktree of the previous release)"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cells", type=int, default=2000, help="about this many cells")
    parser.add_argument("--latency", type=float, default=0.2, help="the stub's seconds per reply")
    parser.add_argument("--connections", type=int, default=64)
    arguments = parser.parse_args()
    sides = {"this": HERE, **({"base": arguments.base.resolve()} if arguments.base else {})}
    variants = variants_for(arguments.cells)
    stub = Stub(arguments.latency)
    words = [*GRID, f"api_base={stub.url}", f"variants={variants}", f"concurrency={arguments.connections}"]
    print(f"{os.cpu_count()} cores; {' '.join(words[:-2])} variants={variants}; "
          + "; ".join(f"{name}: {path}" for name, path in sides.items()))  # fmt: skip
    print(f"{'round':>5}  {'side':5}  {'first call s':>12}")
    times: dict[str, list[float]] = {name: [] for name in sides}
    try:
        for number in range(1, arguments.rounds + 1):
            order = list(sides) if number % 2 else list(sides)[::-1]
            for name in order:
                with tempfile.TemporaryDirectory(prefix="first-call-") as folder:
                    seconds = first_call(sides[name], stub, words, Path(folder))
                if seconds is not None:
                    times[name].append(seconds)
                shown = f"{seconds:12.2f}" if seconds is not None else f"{'no call':>12}"
                print(f"{number:5}  {name:5}  {shown}", flush=True)
    finally:
        stub.close()
    for name, seen in times.items():
        if seen:
            print(f"{name}: median {statistics.median(seen):.2f} s, min {min(seen):.2f} s, "
                  f"max {max(seen):.2f} s over {len(seen)} runs")  # fmt: skip


if __name__ == "__main__":
    main()
