"""Keep the real corpus's two ledgers in step with the rules (a developer's tool):

- `unsettled.txt`: rows nobody has read where the rules and the benchmark disagree; their verdict is
  unknown, so no test holds them. Rows only ever leave it: a row the rules now grade as the benchmark
  does leaves it; a settled row the rules now grade otherwise is a regression, listed and refused.
- `misses.tsv`: hand-read rows the rules still read otherwise than the reader, with the rules'
  reading; they run as strict expected failures, so a fix shows up. A hand-read row leaves it when the
  rules read it right, and enters it only when it is newly read (listed in `labels_new.txt`, which the
  reader empties after a settle); a row read right before and wrong now is a regression, refused.

    python tests/corpus/real/settle.py [--init]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.real import HERE, expected_correct, grade_all, load_labels, load_real, read_ids


def main(init: bool = False) -> int:
    labels = load_labels()
    # hand-read rows graded right when the ledger was last written: every labelled row not in it
    graded_right_before = set(labels) - set(read_ids("misses.tsv")) - set(read_ids("labels_new.txt"))
    graded = grade_all()
    unsettled_before = read_ids("unsettled.txt")
    misses_before = read_ids("misses.tsv")
    unsettled, misses, regressions = [], [], []
    for row in load_real():
        found = graded[row.id]
        agrees = found.correct == expected_correct(row, labels)
        if row.id in labels:
            if not agrees and (init or row.id in misses_before or row.id not in graded_right_before):
                reading = f"read {found.extracted!r} by {found.method}" if found.found else "nothing found"
                misses.append(f"{row.id}\thuman: {labels[row.id].verdict}; rules: {reading}")
            elif not agrees:
                regressions.append(row.id)  # a hand-read row the rules graded right now graded wrong
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
        "# hand-read rows the rules still read otherwise (settle.py)\n"
        + "".join(f"{m}\n" for m in sorted(misses)),
        encoding="utf-8",
    )  # fmt: skip
    print(f"{len(unsettled)} unsettled, {len(misses)} known misses")
    return 0


if __name__ == "__main__":
    raise SystemExit(main("--init" in sys.argv))
