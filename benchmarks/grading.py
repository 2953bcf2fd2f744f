"""Grading speed on real replies: the replies of the real corpus (tests/corpus/real: MathVista and
MATH-Vision logs, 1-3 kB prompts with tables, matrices and options) graded with their questions as
asked (targets: at least 2,500 replies per second on one core, 5,000 on 2 cores, and under 50 ms for
the slowest single reply), plus a few hostile ones (1 MB of prose, a wall of braces, unclosed boxes,
and issue 38's numbers: a power tower, a 351-digit fraction, a factorial and a binomial of huge
numbers, which no grader may evaluate).

Rounds alternate the isodyn grader with the question as asked (A) and without it (B), fresh
processes per round so no round inherits another's caches; every round is printed. Then A on 2 cores:
the same replies split over two worker processes, wall-clock replies per second. Replies per second
are given over all replies and after the first 1,000 (which also pay for loading sympy and
math-verify, once per process: the after-warm-up figure is a long run's steady rate). The slowest
reply is given over all replies, after the first 1,000, and after those without the replies during
which a full (generation-2) collection of the cyclic garbage collector ran.

python benchmarks/grading.py [replies] [rounds]
"""

from __future__ import annotations

import gc
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = [
    "The function is odd. " * 50_000,
    "{" * 100_000,
    "\\boxed{" * 50_000,
    "answer is " * 50_000,
    "a" * 200_000 + "!",
    "\\boxed{9^{9^{9^{9}}}}",
    "The answer is 1" + "0" * 350 + "/3.",
    "The answer is $(10^{100})!$.",
    "\\boxed{\\binom{10^9}{10^8}}",
]


def items(count: int) -> list[dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from corpus.real import load_real

    rows = list(load_real())
    random.Random(0).shuffle(rows)  # every source, model and answer type in any prefix
    base = [
        {"id": r.id, "reply": r.reply, "truth": r.asked.truth, "answer_type": r.asked.answer_type,
         "choices": r.asked.choices, "question": r.asked.question, "tolerance": r.asked.tolerance}
        for r in rows
    ]  # fmt: skip
    out = []
    for i in range(count):
        item = dict(base[i % len(base)])
        shift = i // len(base)
        if shift:  # a different text per copy: every number moved by the copy's index
            item["reply"] = re.sub(r"\d+", lambda m, s=shift: str(int(m.group()) + s), item["reply"])
        out.append(item)
    for j, reply in enumerate(HOSTILE):
        out[j * 997 % len(out)] = {**out[j * 997 % len(out)], "reply": reply}  # 997: a prime, no collision
    return out


WARM_UP = 1_000  # the first replies also pay for loading sympy and math-verify (once per process)


def one_round(mode: str, count: int, part: int = 0, parts: int = 1) -> None:
    """Grade this process's share of `count` replies and print one JSON line of figures; `mode` is
    `question` (as asked) or `no-question`."""
    from isodyn.scoring import Tolerance, score

    batch = items(count)[part::parts]
    slowest, slowest_id, slowest_warm, slowest_no_gc = 0.0, "", 0.0, 0.0
    full_collections = []  # a pause of the cyclic collector is not grading work: measured apart
    gc.callbacks.append(lambda phase, info: full_collections.append(1) if info["generation"] == 2 else None)
    started = time.perf_counter()
    warm_at = started
    for number, item in enumerate(batch):
        if number == WARM_UP:
            warm_at = time.perf_counter()
        collected = len(full_collections)
        t0 = time.perf_counter()
        tolerance = Tolerance(absolute=item["tolerance"]) if item["tolerance"] else Tolerance()
        question = item["question"] if mode == "question" else ""
        score(
            item["reply"], item["truth"], item["answer_type"], item["choices"], tolerance, question=question
        )
        took = time.perf_counter() - t0
        if took > slowest:
            slowest, slowest_id = took, item["id"] if len(item["reply"]) < 50_000 else "hostile"
        if number >= WARM_UP:
            slowest_warm = max(slowest_warm, took)
            if len(full_collections) == collected:
                slowest_no_gc = max(slowest_no_gc, took)
    total = time.perf_counter() - started
    figures = {"mode": mode, "replies": len(batch), "seconds": round(total, 2),
               "per_second": round(len(batch) / total),
               "per_second_after_warm_up": round((len(batch) - WARM_UP) / (started + total - warm_at)),
               "slowest_ms": round(1000 * slowest, 1),
               "slowest": slowest_id, "slowest_after_warm_up_ms": round(1000 * slowest_warm, 1),
               "slowest_after_warm_up_without_full_gc_ms": round(1000 * slowest_no_gc, 1),
               "full_gc_runs": len(full_collections) // 2}  # fmt: skip
    print(json.dumps(figures))


def two_cores(mode: str, count: int) -> None:
    """The same replies split over two worker processes (2 cores): wall-clock replies per second."""
    started = time.perf_counter()
    workers = [
        subprocess.Popen([sys.executable, __file__, "--round", mode, str(count), str(part), "2"],
                         stdout=subprocess.PIPE, text=True)
        for part in range(2)
    ]  # fmt: skip
    outputs = [w.communicate()[0].strip() for w in workers]
    wall = time.perf_counter() - started
    print(json.dumps({"mode": mode, "workers": 2, "replies": count, "wall_seconds": round(wall, 2),
                      "per_second": round(count / wall)}))  # fmt: skip
    for line in outputs:
        print("  " + line)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--round":
        extra = [int(v) for v in sys.argv[4:6]]
        one_round(sys.argv[2], int(sys.argv[3]), *extra)
        return
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print(
        f"{count} real replies per round, {rounds} rounds alternating with the question (A) and without (B)"
    )
    for r in range(rounds):
        order = ("question", "no-question") if r % 2 == 0 else ("no-question", "question")
        for mode in order:
            done = subprocess.run(
                [sys.executable, __file__, "--round", mode, str(count)], capture_output=True, text=True
            )
            print(done.stdout.strip() or done.stderr.strip()[-500:])
    print("on 2 cores (two worker processes, each grading half), with the question:")
    two_cores("question", count)


if __name__ == "__main__":
    main()
