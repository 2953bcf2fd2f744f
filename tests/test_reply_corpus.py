"""Every reply of the corpus is graded as the careful human did (tests/corpus, kept apart from the
rules' own unit tests; a rule is never tuned to one case without the general pattern beside it).

A human's "correct" must be graded right; "wrong" (a committed answer that is not the truth) must be
graded wrong with an answer read (reason `ok`); "none" (no committed answer) must be graded
`extraction_failed`, never right.

`tests/corpus/known_misses.tsv` is the ledger of replies the rules still read otherwise than the
human, each with the reason; they run as strict expected failures, so a rule that fixes one shows
up (remove it from the ledger) and a reply that starts failing anew fails the suite.
"""

from __future__ import annotations

import pytest

from corpus import HERE, VERDICTS, load_corpus
from isodyn.scoring import score

CORPUS = load_corpus()
EXPECTED = {"correct": (True, "ok"), "wrong": (False, "ok"), "none": (False, "extraction_failed")}


def known_misses() -> dict[str, str]:
    path = HERE / "known_misses.tsv"
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {key: reason for key, reason in rows}


MISSES = known_misses()


def test_corpus_is_large_and_covers_every_pattern() -> None:
    written = [r for r in CORPUS if r.source == "written"]
    real = [r for r in CORPUS if r.source == "smollm2"]
    assert len(written) >= 500 and len(real) >= 150
    for pattern in (
        "answer_first", "paraphrase", "yes_no_statement", "answer_sentence", "last_number_not_answer",
        "several_options", "incidental_words", "markup",
    ):  # fmt: skip
        assert sum(r.pattern == pattern for r in written) >= 40, pattern
    assert all(r.verdict in VERDICTS for r in CORPUS)
    assert {r.answer_type for r in CORPUS} == {"multiple_choice", "float", "int", "text"}
    assert set(MISSES) <= {r.id for r in CORPUS}, "the ledger names replies the corpus does not have"


def graded(item) -> tuple[bool, str]:
    result = score(item.reply, item.truth, item.answer_type, item.choices,
                   percent_question=item.percent_question, question=item.question)  # fmt: skip
    return result.correct, result.reason


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(r, marks=pytest.mark.xfail(reason=MISSES[r.id], strict=True)) if r.id in MISSES else r
        for r in CORPUS
    ],
    ids=[r.id for r in CORPUS],
)
def test_corpus_reply_is_graded_as_a_human_grades_it(item) -> None:
    assert graded(item) == EXPECTED[item.verdict], item.note
