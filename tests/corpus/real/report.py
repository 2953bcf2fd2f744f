"""The figures of docs/grading.md: on the frozen test split, verdicts right by the rules and by the
benchmark's own extraction, and none found, per source, model and answer type (a developer's tool).

    python tests/corpus/real/report.py > /tmp/tables.md

A row's verdict is the hand-read one where it was read, else the benchmark's (every test row where
the rules and the benchmark disagreed, or the rules found nothing, when the split was frozen was read
by hand, and 200 agreeing rows besides). "Commits" is the hand-read verdict correct or wrong, and
every unread row (those the rules and the benchmark read alike).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.real import expected_correct, grade_all, load_labels, load_real, test_split


def main() -> None:
    labels, frozen, graded = load_labels(), test_split(), grade_all()
    tables: dict[str, dict[str, Counter]] = {"source": defaultdict(Counter), "model": defaultdict(Counter),
                                             "answer type": defaultdict(Counter)}  # fmt: skip
    for row in load_real():
        if row.id not in frozen:
            continue
        found, truth = graded[row.id], expected_correct(row, labels)
        label = labels.get(row.id)
        commits = label is None or label.verdict != "none"
        keys = {
            "source": row.source,
            "model": f"{row.source}: {row.model}",
            "answer type": row.asked.answer_type,
        }
        for table, key in keys.items():
            for name in (key, "all"):
                c = tables[table][name]
                c["rows"] += 1
                c["rules"] += found.correct == truth
                c["bench"] += row.bench_correct == truth
                c["commits"] += commits
                c["none"] += commits and not found.found
    for table, counts in tables.items():
        print(f"\n| {table} | rows | rules right | benchmark right | none found (of rows that commit) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for name, c in sorted(counts.items(), key=lambda kv: (kv[0] == "all", kv[0])):
            label = f"**{name}**" if name == "all" else name
            print(f"| {label} | {c['rows']} | {c['rules'] / c['rows']:.1%} | {c['bench'] / c['rows']:.1%} "
                  f"| {c['none'] / max(c['commits'], 1):.1%} ({c['none']}/{c['commits']}) |")  # fmt: skip


if __name__ == "__main__":
    main()
