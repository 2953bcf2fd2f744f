"""Peak memory of `exp run` as a whole command, live and cached, on grids of a given size.

    python benchmarks/memory.py [--cells 2009,100000] [--rounds 1] [--against OTHER/src] [--latency 0]
    python benchmarks/memory.py --cells 300 --rounds 1          # a smoke check

The grid is vs_inspect.py's (`seeds=all modalities=latex,code,story`, one model `openai/bench` on the
counting stub, `concurrency=64`), its variants chosen to come near each `--cells`. Per size and
round: a live run on a fresh cache, then a cached rerun of the same grid on the cache it filled,
each a fresh process timed from start to exit; peak RSS is GNU time's (the command alone). With
`--against OTHER/src` (e.g. a `git worktree` of another commit), this isodyn (A) and that one (B)
alternate run by run on the same grid (A first in odd rounds), each on a cache of its own. Every run
is printed: wall seconds, calls the stub saw, CPU seconds and peak RSS; then the medians.

Each live run writes its report, as `exp run` does; the cached rerun sits beside it, as in a user's
project folder, and its rows equal the live run's, so it writes none (that report stands).
Only the loopback stub is called, with a dummy key.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vs_inspect import GRID, RSS_TOOL, Stub, child_env, timed


@dataclass(frozen=True)
class Measured:
    version: str  # "A" (this isodyn) or "B" (--against)
    cells: int
    mode: str  # live or cached
    wall_s: float
    calls: int
    cpu_s: float
    rss_mb: float


def variants_for(cells: int, api_base: str) -> tuple[int, int]:
    """The variants that bring the benchmark grid near `cells` (97 cells per variant), and the
    cells the grid then has."""
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    with tempfile.TemporaryDirectory(prefix="memory-plan-") as folder:
        scratch = [f"out={folder}/runs", f"cache_dir={folder}/cache"]
        words = [*GRID, f"api_base={api_base}", "variants=1", *scratch]
        per_variant = len(plan_experiment(parse_overrides(words)).grid.cells)
    variants = max(1, round(cells / per_variant))
    return variants, variants * per_variant


def run_once(stub: Stub, tmp: Path, source: Path | None, words: list[str], cache: Path) -> tuple[float, dict]:
    env = child_env({"PYTHONPATH": str(source)} if source else {})
    out = tmp / "runs"
    command = [sys.executable, "-m", "isodyn", "run", *words, f"out={out}", f"cache_dir={cache}"]
    return timed(command, tmp, env, stub)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="2009,100000", help="comma-separated grid sizes")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--against", type=Path, help="another isodyn's src folder (B)")
    parser.add_argument("--latency", type=float, default=0.0, help="the stub's seconds per reply")
    arguments = parser.parse_args()
    if not os.access(RSS_TOOL, os.X_OK):
        sys.exit(f"memory.py: {RSS_TOOL} (GNU time: CPU time, peak RSS) is missing: apt-get install time")
    if arguments.against and not (arguments.against / "isodyn").is_dir():
        sys.exit(f"memory.py: {arguments.against} holds no isodyn package (give a checkout's src folder)")
    versions: dict[str, Path | None] = {"A": None}
    if arguments.against:
        versions["B"] = arguments.against.resolve()
    asked = [int(word) for word in arguments.cells.split(",")]
    measured: list[Measured] = []
    stub = Stub(arguments.latency)
    latency_ms = arguments.latency * 1000
    print(f"{os.cpu_count()} cores; stub latency {latency_ms:.0f} ms; {arguments.rounds} rounds")
    print(f"{'round':>5}  {'ver':3}  {'cells':>6}  {'mode':6}  {'wall s':>7}  {'calls':>6}  {'CPU s':>6}  "
          f"{'peak RSS MB':>11}")  # fmt: skip
    sizes: list[int] = []
    try:
        for near in asked:
            variants, size = variants_for(near, stub.url)
            sizes.append(size)
            words = [*GRID, f"api_base={stub.url}", f"variants={variants}", "concurrency=64"]
            for number in range(1, arguments.rounds + 1):
                order = list(versions) if number % 2 else list(versions)[::-1]
                for name in order:
                    with tempfile.TemporaryDirectory(prefix="memory-") as folder:
                        tmp = Path(folder)
                        for mode in ("live", "cached"):
                            wall, seen = run_once(stub, tmp, versions[name], words, tmp / "cache")
                            calls = int(seen["calls"] or 0)
                            run = Measured(name, size, mode, wall, calls, seen["cpu_s"], seen["rss_mb"])
                            measured.append(run)
                            print(f"{number:>5}  {name:3}  {size:>6}  {mode:6}  {wall:7.2f}  {run.calls:>6}  "
                                  f"{run.cpu_s:6.1f}  {run.rss_mb:11.0f}", flush=True)  # fmt: skip
    finally:
        stub.close()
    print("\nmedians (peak RSS MB, wall s):")
    for size in sizes:
        for mode in ("live", "cached"):
            parts = []
            for name in versions:
                runs = [m for m in measured if (m.version, m.cells, m.mode) == (name, size, mode)]
                if runs:
                    rss = statistics.median(m.rss_mb for m in runs)
                    wall = statistics.median(m.wall_s for m in runs)
                    parts.append(f"{name} {rss:.0f} MB {wall:.2f} s")
            print(f"  {size:>6} cells {mode:6}  " + "  |  ".join(parts))


if __name__ == "__main__":
    main()
