"""Grading speed on every real reply: the real-reply corpus (tests/corpus/real) and the per-source
replies (tests/corpus/sources), each graded once on one core by `isodyn.scoring.score` with its question
as asked (issue 37's target: at least 2,000 replies per second, the slowest reply under 50 ms).

Prints replies per second (over all replies, and after the first 1,000, which also pay for loading
sympy and math-verify), the p50 / p99 / max time per reply, the same per source, and the 10 slowest
replies with their times (a transfer-source reply is named by its source only: its rows are not shown).

python benchmarks/grading_speed.py [--limit N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 1_000


@dataclass(frozen=True)
class Reply:
    id: str
    source: str
    reply: str
    truth: str
    answer_type: str
    choices: tuple[str, ...]
    question: str
    tolerance: float | None


def replies() -> list[Reply]:
    sys.path.insert(0, str(ROOT / "tests"))
    from corpus.real import load_real
    from corpus.sources import load_source, sources

    found = [
        Reply(r.id, r.source, r.reply, r.asked.truth, r.asked.answer_type, r.asked.choices,
              r.asked.question, r.asked.tolerance)
        for r in load_real()
    ]  # fmt: skip
    for name in sources():
        found += [
            Reply(r.id, r.source, r.reply, r.truth, r.answer_type, r.choices, r.question, r.tolerance)
            for r in load_source(name)
        ]
    random.Random(0).shuffle(found)  # every source in any prefix, and in the warm-up
    return found


def grade_all(rows: list[Reply]) -> list[float]:
    from isodyn.scoring import Tolerance, score

    seconds = []
    for row in rows:
        tolerance = Tolerance(absolute=row.tolerance) if row.tolerance else Tolerance()
        start = time.perf_counter()
        score(row.reply, row.truth, row.answer_type, row.choices, tolerance, question=row.question)
        seconds.append(time.perf_counter() - start)
    return seconds


def spread(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{len(seconds) / sum(seconds):,.0f} replies/s, p50 {1e3 * statistics.median(ordered):.2f} ms, "
        f"p99 {1e3 * p99:.2f} ms, max {1e3 * ordered[-1]:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="grade only the first N replies")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from corpus.sources import transfer_source

    rows = replies()
    rows = rows[: args.limit] if args.limit else rows
    wall = time.perf_counter()
    seconds = grade_all(rows)
    wall = time.perf_counter() - wall
    print(f"{len(rows):,} replies on one core in {wall:.1f} s: {len(rows) / wall:,.0f} replies/s (wall)")
    print(f"- all: {spread(seconds)}")
    print(f"- after the first {WARM_UP:,}: {spread(seconds[WARM_UP:])}")
    for source in sorted({r.source for r in rows}):
        print(f"- {source}: {spread([s for r, s in zip(rows, seconds, strict=True) if r.source == source])}")
    transfer = transfer_source()
    print("\n10 slowest replies:")
    for seconds_taken, row in sorted(zip(seconds, rows, strict=True), key=lambda p: -p[0])[:10]:
        name = f"({transfer}: transfer source, not shown)" if row.source == transfer else row.id
        print(f"- {1e3 * seconds_taken:.1f} ms  {name}")


if __name__ == "__main__":
    main()
