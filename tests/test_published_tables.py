"""Published result tables read as published: DynaMath's per-variant tables say `correct` / `fail`,
carry a per-question total, and end with summary rows and blank rows; several files give one report
with a row per model. The figures are checked against an independent count."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from isodyn.analysis.external import ExternalTableError, read_tables

TOPICS = ("Plane Geometry", "Algebra", "Statistics")
WORDS = {True: ("correct", "Correct", "CORRECT", "✓", "1", "true", "yes"),
         False: ("fail", "Fail", "incorrect", "wrong", "✗", "0", "false", "no")}  # fmt: skip


def published(path: Path, verdicts: dict[int, list[bool]], rng: random.Random, words: bool = True) -> None:
    """A table in DynaMath's published layout, with its summary rows, blank rows and stray columns."""
    header = ["Question ID", *(f"Variant {i}" for i in range(1, 11)), "# of correct per question",
              "Topic", "Difficulty Level", "Notes"]  # fmt: skip
    lines = [",".join(header)]
    for qid, row in verdicts.items():
        cells = [rng.choice(WORDS[v]) if words else str(int(v)) for v in row]
        topic = TOPICS[qid % len(TOPICS)]
        lines.append(",".join([str(qid), *cells, str(sum(row)), topic, "high school", "x"]))
    per_variant = [sum(row[i] for row in verdicts.values()) for i in range(10)]
    lines.append(",".join(["# of correct per variant", *map(str, per_variant), "", "", "", ""]))
    lines.append(",".join(["A_avg", f"{sum(per_variant) / (10 * len(verdicts)):.3f}", *[""] * 13]))
    lines += [","] * 5  # blank rows, as spreadsheets export them
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def draw(rng: random.Random, questions: int) -> dict[int, list[bool]]:
    return {q: [rng.random() < 0.6 for _ in range(10)] for q in range(1, questions + 1)}


def expected_a_avg(verdicts: dict[int, list[bool]]) -> float:
    return sum(sum(row) / 10 for row in verdicts.values()) / len(verdicts)


def expected_a_wst(verdicts: dict[int, list[bool]]) -> float:
    return sum(all(row) for row in verdicts.values()) / len(verdicts)


def test_a_published_table_is_read_as_published(tmp_path: Path) -> None:
    rng = random.Random(3)
    verdicts = draw(rng, 12)
    verdicts[5] = [True] * 10  # a seed right on every variant, so A_wst is not zero
    table = tmp_path / "gpt-4o.csv"
    published(table, verdicts, rng)
    read = read_tables([table])
    assert len(read.results) == 120
    assert read.notes == [
        "gpt-4o.csv: 7 row(s) that are not questions skipped ('# of correct per variant', 'A_avg')"
    ]
    by_cell = {(r.seed_id, r.variant): r.correct for r in read.results}
    assert all(by_cell[(str(q), i)] is row[i] for q, row in verdicts.items() for i in range(10))
    assert {r.model for r in read.results} == {"gpt-4o"}


def test_the_report_of_several_tables_has_a_row_per_model(tmp_path: Path) -> None:
    rng = random.Random(7)
    tables = {}
    for model in ("gpt-4o", "claude", "gemini"):
        verdicts = draw(rng, 10)
        verdicts[2] = [True] * 10
        published(tmp_path / f"{model}.csv", verdicts, rng, words=model != "gemini")
        tables[model] = verdicts
    paths = [str(tmp_path / f"{model}.csv") for model in tables]
    done = subprocess.run([sys.executable, "-m", "isodyn", "report", *paths, "resamples=200"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("row(s) that are not questions skipped") == 3
    overview: dict[str, str] = {}
    for line in done.stdout.splitlines():  # the first table is the overview
        if line.startswith("| ") and " | external | image | " in line:
            overview.setdefault(line.split(" | ")[0].strip("| "), line)
    assert set(overview) == set(tables)
    for model, verdicts in tables.items():
        cells = overview[model].split(" | ")
        assert cells[3] == "100"  # graded cells
        assert cells[7].startswith(f"{100 * expected_a_avg(verdicts):.1f} [")
        assert cells[8].startswith(f"{100 * expected_a_wst(verdicts):.1f} [")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Question ID,Variant 1,Variant 2\n1,correct,maybe\n", "cannot read 'maybe'"),
        ("Question ID,Variant 1,Variant 2\n# of correct per variant,1,1\n,,\n", "no question rows"),
        ("", "cannot read it as a table"),
    ],
)
def test_tables_that_cannot_be_read_say_why(tmp_path: Path, content: str, message: str) -> None:
    table = tmp_path / "t.csv"
    table.write_text(content)
    with pytest.raises(ExternalTableError, match=message):
        read_tables([table])
