"""Grade every real reply by isodyn's rules and set the verdicts beside the benchmark's and the
hand-read labels (a developer's tool; the tests hold the same checks).

    python tests/corpus/real/survey.py [--split dev|test|all] [--dump FILE] [--sample N]

Prints, per source and model, how often isodyn agrees with the benchmark's verdict and with the
hand-read labels; `--dump` writes the rows of the split where isodyn and the benchmark disagree and
no label exists yet (JSON lines, for reading by hand). The test split is only ever scored, never
dumped for tuning.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.real import grade_row, load_labels, load_real, test_split


def _line(name: str, c: Counter) -> str:
    n = max(c["n"], 1)
    shares = f"agree={c['agree'] / n:.3f} none={c['none'] / n:.3f}"
    return f"{name} n={c['n']:6} {shares} read={c['read']} right={c['right']}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    parser.add_argument("--dump")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--model")
    args = parser.parse_args()
    rows = load_real()
    frozen = test_split() if (Path(__file__).parent / "test_split.txt").is_file() else frozenset()
    if args.split == "dev":
        rows = tuple(r for r in rows if r.id not in frozen)
    elif args.split == "test":
        rows = tuple(r for r in rows if r.id in frozen)
    if args.model:
        rows = tuple(r for r in rows if args.model in r.model)
    if args.sample:
        rows = tuple(random.Random(0).sample(rows, min(args.sample, len(rows))))
    labels = load_labels()
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    dumped = []
    for row in rows:
        found = grade_row(row)
        key = (row.source, row.asked.answer_type)
        table[key]["n"] += 1
        table[key]["agree"] += found.correct == row.bench_correct
        table[key]["none"] += not found.found
        label = labels.get(row.id)
        if label is not None:
            table[key]["read"] += 1
            table[key]["right"] += found.correct == (label.verdict == "correct")
        elif found.correct != row.bench_correct and args.split != "test":
            dumped.append({
                "id": row.id, "question": row.asked.question[-1500:], "choices": row.asked.choices,
                "truth": row.asked.truth, "reply": row.reply, "bench_answer": row.bench_answer,
                "bench_correct": row.bench_correct, "isodyn": found.extracted, "isodyn_method": found.method,
                "isodyn_correct": found.correct, "isodyn_found": found.found,
            })  # fmt: skip
    total: Counter = Counter()
    for key, counts in sorted(table.items()):
        total.update(counts)
        print(_line(f"{key[0]:10} {key[1]:16}", counts))
    print(_line(f"{'all':27}", total))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for item in dumped:
                out.write(json.dumps(item, ensure_ascii=False) + "\n")
        print(f"{len(dumped)} disagreements without a label written to {args.dump}")


if __name__ == "__main__":
    main()
