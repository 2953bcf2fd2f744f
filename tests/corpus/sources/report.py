"""Per-source figures of the rules against each benchmark's own verdict (a developer's tool).

    python tests/corpus/sources/report.py                 # a Markdown table per source
    python tests/corpus/sources/report.py --misses mmlu_pro --limit 20

Columns: rows read by hand (blind to every verdict; labels.tsv), verdicts right against the expected
verdict (hand-read where read, else the benchmark's label), none found of the rows that commit to an
answer (hand-read correct or wrong, or unread), and wrong clear (an answer read, the verdict not the
expected one); then, of the rows with a benchmark label: agree (isodyn's verdict equals the label),
none found, wrong clear (an answer was read and the verdict disagrees with the label), and on the
rows the label calls right, the share isodyn calls right. Dev sources get a row per model; the
transfer source (TRANSFER) only its aggregate, and `--misses` refuses it (exit 2): its replies are
not read while developing rules.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from corpus.sources import (
    Graded,
    Row,
    commits,
    expected_correct,
    grade_source,
    load_labels,
    load_source,
    sources,
    transfer_source,
)

HEADER = (
    "| {key} | rows | hand-read | right | none found (of rows that commit) | wrong clear | labelled "
    "| agree with label | none found | wrong clear vs label | right when label right |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def tally(rows: list[Row], graded: dict[str, Graded]) -> Counter:
    """Against the expected verdict (hand-read where read, else the label) and against the label."""
    labels = load_labels()
    c: Counter = Counter()
    for row in rows:
        found = graded[row.id]
        c["rows"] += 1
        c["read"] += row.id in labels
        expected = expected_correct(row, labels)
        if expected is not None:
            c["expected"] += 1
            c["right"] += found.correct == expected
            c["wrong_clear_expected"] += found.found and found.correct != expected
            if commits(row, labels):
                c["commits"] += 1
                c["none_committing"] += not found.found
        if row.label is None:
            continue
        c["labelled"] += 1
        c["agree"] += found.correct == row.label
        c["none"] += not found.found
        c["wrong_clear"] += found.found and found.correct != row.label
        if row.label:
            c["label_right"] += 1
            c["right_when_right"] += found.correct
    return c


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part})" if whole else "-"


def table_row(name: str, c: Counter) -> str:
    n, e = c["labelled"], c["expected"]
    return (
        f"| {name} | {c['rows']} | {c['read']} | {_share(c['right'], e)} "
        f"| {_share(c['none_committing'], c['commits'])} | {_share(c['wrong_clear_expected'], e)} "
        f"| {n} | {_share(c['agree'], n)} | {_share(c['none'], n)} "
        f"| {_share(c['wrong_clear'], n)} | {_share(c['right_when_right'], c['label_right'])} |"
    )


def source_table(name: str, transfer: bool) -> str:
    rows = list(load_source(name))
    graded = grade_source(name)
    lines = [f"\n### {name}{' (transfer source: aggregate only)' if transfer else ''}\n",
             HEADER.format(key="model")]  # fmt: skip
    if not transfer:
        by_model: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            by_model[row.model].append(row)
        lines += [table_row(model, tally(part, graded)) for model, part in sorted(by_model.items())]
    lines.append(table_row("**all**", tally(rows, graded)))
    return "\n".join(lines)


def misses(name: str, limit: int) -> int:
    if name == transfer_source():
        print(f"{name} is the transfer source: its replies are not shown", file=sys.stderr)
        return 2
    if name not in sources():
        print(f"no source {name!r}; sources: {', '.join(sources())}", file=sys.stderr)
        return 2
    graded, labels = grade_source(name), load_labels()
    shown = 0
    for row in load_source(name):
        found, expected = graded[row.id], expected_correct(row, labels)
        if expected is None or found.correct == expected or shown >= limit:
            continue
        shown += 1
        tail = row.reply[-400:].replace("\n", "\\n")
        read = labels.get(row.id)
        by_hand = f" | read {read.verdict} {read.answer!r} ({read.note})" if read else ""
        print(f"## {row.id}\nlabel {row.label}{by_hand} | truth {row.truth!r} | type {row.answer_type} | "
              f"isodyn {found.extracted!r} via {found.method} | bench {row.bench_answer!r}\n"
              f"choices {list(row.choices)}\n...{tail}\n")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", metavar="SOURCE")
    parser.add_argument("--limit", type=int, default=30)
    args = parser.parse_args(argv)
    if args.misses:
        return misses(args.misses, args.limit)
    transfer = transfer_source()
    for name in sources():
        print(source_table(name, name == transfer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
