"""The reply corpus: realistic model replies with a careful human's verdict, in JSON lines.

- `written.jsonl`: replies written to imitate current models' free-form styles (the eight patterns of
  issue 13 and more), labelled before the grading rules they test were written;
- `smollm2.jsonl`: real replies of the embedded model (SmolLM2-135M-Instruct) to isodyn's own text
  questions, labelled by hand.

Each line: id, source, pattern, answer_type, question, choices, truth, percent_question, reply,
verdict (correct / wrong / none), answer (the committed answer as read, null for none), note.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
FILES = ("written.jsonl", "smollm2.jsonl")
VERDICTS = ("correct", "wrong", "none")


@dataclass(frozen=True)
class CorpusReply:
    id: str
    source: str
    pattern: str
    answer_type: str
    question: str
    choices: tuple[str, ...]
    truth: str
    percent_question: bool
    reply: str
    verdict: str
    answer: str | None
    note: str


def load_corpus() -> list[CorpusReply]:
    found = []
    for name in FILES:
        path = HERE / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                data = json.loads(line)
                found.append(
                    CorpusReply(
                        id=data["id"],
                        source=data["source"],
                        pattern=data["pattern"],
                        answer_type=data["answer_type"],
                        question=data["question"],
                        choices=tuple(data["choices"]),
                        truth=str(data["truth"]),
                        percent_question=bool(data.get("percent_question")),
                        reply=data["reply"],
                        verdict=data["verdict"],
                        answer=data.get("answer"),
                        note=data.get("note", ""),
                    )
                )
    return found


def summary_lines(corpus: list[CorpusReply]) -> list[str]:
    """The corpus's size and its share per source, pattern, answer type and verdict."""
    if not corpus:
        return ["reply corpus: empty"]
    total = len(corpus)

    def shares(counter: Counter[str]) -> str:
        return ", ".join(f"{k} {v} ({100 * v / total:.0f}%)" for k, v in counter.most_common())

    return [
        f"reply corpus: {total} replies with human verdicts; {agreement_line(corpus)}",
        "  by source: " + shares(Counter(r.source for r in corpus)),
        "  by pattern: " + shares(Counter(r.pattern for r in corpus)),
        "  by answer type: " + shares(Counter(r.answer_type for r in corpus)),
        "  by verdict: " + shares(Counter(r.verdict for r in corpus)),
    ]


def agreement_line(corpus: list[CorpusReply]) -> str:
    """How often the default grader's verdict (right or not) matches the human's, per source."""
    from isodyn.scoring import score

    parts = []
    for source in sorted({r.source for r in corpus}):
        chosen = [r for r in corpus if r.source == source]
        agree = sum(
            score(r.reply, r.truth, r.answer_type, r.choices, percent_question=r.percent_question,
                  question=r.question).correct == (r.verdict == "correct")
            for r in chosen
        )  # fmt: skip
        parts.append(f"{source} {100 * agree / len(chosen):.1f}%")
    return "isodyn grader's verdicts agree with the human's: " + ", ".join(parts)
