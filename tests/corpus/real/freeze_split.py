"""Draw the frozen test split of the real-reply corpus (run once, before any rule was changed
against the corpus; kept in test_split.txt and never drawn again).

Stratified by source, model, answer type and whether isodyn's rules (as they stood) agreed with the
benchmark's verdict: the same share of every stratum, at least one row of each.

    python tests/corpus/real/freeze_split.py [rows]
"""

from __future__ import annotations

import math
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.real import HERE, grade_row, load_real


def main(size: int = 2000) -> None:
    target = HERE / "test_split.txt"
    if target.exists():
        raise SystemExit(f"{target} exists: the test split is frozen")
    rows = load_real()
    strata: dict[tuple, list[str]] = defaultdict(list)
    for row in rows:
        agrees = grade_row(row).correct == row.bench_correct
        strata[(row.source, row.model, row.asked.answer_type, agrees)].append(row.id)
    share = size / len(rows)
    rng = random.Random(20261126)
    chosen = []
    for key in sorted(strata):
        ids = sorted(strata[key])
        chosen += rng.sample(ids, max(1, math.floor(len(ids) * share + rng.random())))
    target.write_text("".join(f"{i}\n" for i in sorted(chosen)), encoding="utf-8")
    print(f"{len(chosen)} of {len(rows)} rows frozen in {target.name} ({len(strata)} strata)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
