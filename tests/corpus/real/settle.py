"""Keep the real corpus's two ledgers in step with the rules (a developer's tool):

- `unsettled.txt`: rows nobody has read where the rules and the benchmark disagree; their verdict is
  unknown, so no test holds them. Rows only ever leave it: a row the rules now grade as the benchmark
  does leaves it; a settled row the rules now grade otherwise is a regression, listed and refused.
- `misses.tsv`: hand-read rows the rules still read otherwise than the reader, with the rules'
  reading; they run as strict expected failures, so a fix shows up.

    python tests/corpus/real/settle.py [--init]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.real import HERE, expected_correct, grade_all, load_labels, load_real, read_ids  # noqa: E402


def main(init: bool = False) -> int:
    labels = load_labels()
    graded = grade_all()
    unsettled_before = read_ids("unsettled.txt")
    unsettled, misses, regressions = [], [], []
    for row in load_real():
        found = graded[row.id]
        agrees = found.correct == expected_correct(row, labels)
        if row.id in labels:
            if not agrees:
                reading = f"read {found.extracted!r} by {found.method}" if found.found else "nothing found"
                misses.append(f"{row.id}\thuman: {labels[row.id].verdict}; rules: {reading}")
        elif not agrees:
            (unsettled if init or row.id in unsettled_before else regressions).append(row.id)
    if regressions:
        print(f"{len(regressions)} settled rows now graded otherwise (read them by hand):")
        print("\n".join(regressions[:50]))
        return 1
    (HERE / "unsettled.txt").write_text(
        "# rows nobody has read where the rules and the benchmark disagree (settle.py)\n"
        + "".join(f"{i}\n" for i in sorted(unsettled)), encoding="utf-8")  # fmt: skip
    (HERE / "misses.tsv").write_text(
        "# hand-read rows the rules still read otherwise (settle.py)\n" + "".join(f"{m}\n" for m in sorted(misses)),
        encoding="utf-8",
    )  # fmt: skip
    print(f"{len(unsettled)} unsettled, {len(misses)} known misses")
    return 0


if __name__ == "__main__":
    raise SystemExit(main("--init" in sys.argv))
