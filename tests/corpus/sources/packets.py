"""Blind reading packets for a source (a developer's tool): the rows where the rules and the benchmark's
label disagree or the rules find nothing, plus a random sample of agreeing rows, shuffled, with no
verdict inside; readers follow tests/corpus/real/READING_GUIDE.md and their lines go to labels.tsv.
Prints only counts, so the transfer source can be read by others without its rows reaching the
developer of the rules.

    python tests/corpus/sources/packets.py zeroeval 150 3   # source, agreeing rows sampled, packets
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.sources import Row, load_source
from corpus.sources.report import grade_source

OUT = Path("/tmp/packets")


def _packet_line(row: Row) -> str:
    lettered = [f"({chr(65 + i)}) {c}" for i, c in enumerate(row.choices)]
    fields = {"id": row.id, "question": row.question, "answer_type": row.answer_type, "choices": lettered,
              "truth": row.truth, "tolerance": row.tolerance, "reply": row.reply}  # fmt: skip
    return json.dumps(fields) + "\n"


def main(name: str, agreeing: int, packets: int) -> None:
    rows = load_source(name)
    graded = grade_source(name)
    labelled = [r for r in rows if r.label is not None]
    hard = [r for r in labelled if graded[r.id].correct != r.label or not graded[r.id].found]
    easy = [r for r in labelled if r not in hard]
    rng = random.Random(37)
    chosen = hard + rng.sample(easy, min(agreeing, len(easy)))
    rng.shuffle(chosen)
    OUT.mkdir(exist_ok=True)
    for k in range(packets):
        with (OUT / f"{name}-{k}.jsonl").open("w", encoding="utf-8") as out:
            out.writelines(_packet_line(row) for row in chosen[k::packets])
    print(name, "hard", len(hard), "sampled agreeing", len(chosen) - len(hard), "packets", packets)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
