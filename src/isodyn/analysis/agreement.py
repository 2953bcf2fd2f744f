"""Agreement across representations: does one item get the same answer as an image and as text? (pure)

Two representations with the same accuracy can be right on the same items or on opposite ones;
accuracy cannot tell them apart. Following SEAM (Tang et al., "SEAM: Semantically Equivalent Across
Modalities Benchmark for Vision-Language Models", COLM 2025, arXiv 2508.18179), per model and
strategy and for each pair of representations (modalities) in the run, on the items (seed, variant,
repeat) graded in both:

- agreement: the share of items whose two answers agree: both right, or both wrong with the same
  extracted answer (`same_answer`: the same option, numbers within the cell's tolerance, else equal
  normalized strings); a missing answer never agrees (SEAM counts an unextracted answer as a
  disagreement too);
- chance: the agreement expected if the two representations were answered independently, from their
  accuracies p and q alone,

      chance = p·q + (1 − p)(1 − q)·c̄

  where c is the chance that two wrong answers to an item coincide: 1/(k − 1) for multiple choice with
  k options (a wrong answer spread evenly over the k − 1 wrong options), 0 for a free-form answer; c̄
  is its mean over the items. With p = q and four options this is SEAM's random baseline
  p² + (1 − p)²/3 (their code: CSSLab/SEAM, code/plots/acc_vs_agr.py);
- flips: the items right in the first representation and wrong in the second, and the reverse, with
  McNemar's exact p on those two counts (items, not seeds: the test ignores clustering).

Agreement, p, q and c̄ are means over seeds of per-seed means (seeds weigh equally, as in DynaMath's
A_avg); both intervals come from the same percentile cluster-bootstrap resamples of seeds. A pair is
ordered text before image (`first`, `second`), so "right first only" reads "right as text, wrong as
image".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from isodyn.analysis.columns import ITEM
from isodyn.analysis.metrics import Bootstrap, graded_cells
from isodyn.analysis.stats import Interval, mcnemar_exact, percentile_interval, resample_means
from isodyn.analysis.tables import format_value
from isodyn.core import AnswerType, Modality
from isodyn.runs.schema import Column
from isodyn.scoring import Tolerance
from isodyn.scoring.answer_match import choice_letter, parse_number

# What one item needs from each of its two cells, and what stands in when a table lacks a column.
_CELL_COLUMNS: dict[str, Any] = {
    Column.correct: False,
    Column.extracted: None,
    Column.answer_type: None,
    Column.choices: None,
    Column.abs_tol: Tolerance().absolute,
    Column.rel_tol: Tolerance().relative,
    Column.percent_question: False,
}
# Per-seed means of these item columns are what the bootstrap resamples.
_PER_ITEM = ("agree", "right_first", "right_second", "coincide")


@dataclass(frozen=True)
class PairAgreement:
    """One model and strategy on one pair of representations, over the items graded in both."""

    model: str
    strategy: str
    first: str  # the text-like representation of the pair, when it has one
    second: str
    items: int
    seeds: int
    accuracy_first: float  # seed-weighted, on the shared items (0..1)
    accuracy_second: float
    agreement: Interval  # share of items whose answers agree (0..1)
    chance: Interval  # agreement expected from the two accuracies alone
    first_only: int  # items right in `first` and wrong in `second`
    second_only: int
    p_mcnemar: float


def _answer_text(value: object) -> str | None:
    """An extracted answer as text; None when there is none (pandas turns a missing one into NaN)."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value


def _answer_type(value: object) -> AnswerType:
    try:
        return AnswerType(str(value))
    except ValueError:
        return AnswerType.TEXT  # an outside table without answer types: compare as text


def _choices(value: object) -> tuple[str, ...]:
    if isinstance(value, list | tuple | np.ndarray):
        return tuple(str(c) for c in value)
    return ()


def _flag(value: object) -> bool:
    return isinstance(value, bool | np.bool_) and bool(value)


def _normalized(text: str) -> str:
    return " ".join(text.strip().strip("$").split()).rstrip(".").casefold()


def _finite(value: object, default: float) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def same_answer(
    first: object,
    second: object,
    answer_type: object = AnswerType.TEXT,
    choices: Sequence[str] = (),
    tolerance: Tolerance = Tolerance(),  # noqa: B008 - immutable
    percent_question: bool = False,
) -> bool:
    """Whether two extracted answers to one item are the same answer: the same option (letter or
    option text) for multiple choice, numbers within `tolerance` when both read as numbers, else
    equal normalized strings (whitespace, surrounding `$`, a final period and case ignored). A
    missing answer is the same as nothing, not even another missing answer."""
    a, b = _answer_text(first), _answer_text(second)
    if a is None or b is None:
        return False
    if _answer_type(answer_type) is AnswerType.MULTIPLE_CHOICE:
        letters = choice_letter(a, tuple(choices)), choice_letter(b, tuple(choices))
        if letters[0] is not None and letters[1] is not None:
            return letters[0] == letters[1]
    x, y = parse_number(a, percent_question), parse_number(b, percent_question)
    if x is not None and y is not None:
        return tolerance.close(x, y) or tolerance.close(y, x)  # `close` scales by its second value
    return _normalized(a) == _normalized(b)


def coincidence_chance(answer_type: object, choices: Sequence[str] = ()) -> float:
    """The chance that two independent wrong answers coincide: 1/(k − 1) for multiple choice with k
    options, 0 for a free-form answer (a wrong number or expression rarely repeats by chance)."""
    if _answer_type(answer_type) is AnswerType.MULTIPLE_CHOICE and len(choices) >= 2:
        return 1 / (len(choices) - 1)
    return 0.0


def chance_agreement(p: Any, q: Any, coincide: Any) -> Any:
    """p·q + (1 − p)(1 − q)·c: both right, or both wrong on the same answer, answered independently
    (floats or numpy arrays alike)."""
    return p * q + (1 - p) * (1 - q) * coincide


def _cells(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.assign(**{str(c): d for c, d in _CELL_COLUMNS.items() if c not in frame.columns})
    return out[[*ITEM, *_CELL_COLUMNS]].drop_duplicates(subset=list(ITEM), keep="last")


def paired_items(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """The items graded in both representations, one line each: `seed_id`, `right_first`,
    `right_second`, `agree` (their answers agree) and `coincide` (the chance two wrong answers do)."""
    return _paired(_cells(first), _cells(second))


def _paired(first: pd.DataFrame, second: pd.DataFrame) -> pd.DataFrame:
    """`paired_items` of two tables `_cells` made. Only the items both got wrong are compared answer
    by answer; the chance that two wrong answers coincide is worked out once per kind of question."""
    both = first.merge(second, on=list(ITEM), suffixes=("_1", "_2"))
    columns = [Column.seed_id.value, *_PER_ITEM]
    if both.empty:
        return pd.DataFrame(columns=columns)
    right_1 = np.array([bool(v) for v in both[f"{Column.correct}_1"]])
    right_2 = np.array([bool(v) for v in both[f"{Column.correct}_2"]])
    agree = right_1 & right_2
    types, choices = both[f"{Column.answer_type}_1"].tolist(), both[f"{Column.choices}_1"].tolist()
    wrong = np.flatnonzero(~(right_1 | right_2))
    picked = {column: both[column].to_numpy()[wrong].tolist() for column in _COMPARED}
    for index, at in enumerate(wrong):
        row = {column: values[index] for column, values in picked.items()}
        agree[at] = same_answer(*_compared(row, types[at], _choices(choices[at])))
    chance: dict[tuple[str, int], float] = {}
    coincide = [
        chance.setdefault((str(kind), _count(options)), coincidence_chance(kind, _choices(options)))
        for kind, options in zip(types, choices, strict=True)
    ]
    return pd.DataFrame({
        columns[0]: both[Column.seed_id].to_numpy(), "agree": agree.astype(float),
        "right_first": right_1.astype(float), "right_second": right_2.astype(float),
        "coincide": np.array(coincide, dtype=float),
    })  # fmt: skip


def _count(options: object) -> int:
    return len(options) if isinstance(options, list | tuple | np.ndarray) else 0


_COMPARED = [f"{column}_{i}" for column in (Column.extracted, Column.abs_tol, Column.rel_tol,
             Column.percent_question) for i in (1, 2)]  # fmt: skip


def _compared(row: dict[str, Any], answer_type: object, choices: tuple[str, ...]) -> tuple[Any, ...]:
    """`same_answer`'s arguments for one item's two cells (`_COMPARED`'s columns of its line)."""
    tolerance = Tolerance(
        max(_finite(row[f"{Column.abs_tol}_{i}"], Tolerance().absolute) for i in (1, 2)),
        max(_finite(row[f"{Column.rel_tol}_{i}"], Tolerance().relative) for i in (1, 2)),
    )
    return (row[f"{Column.extracted}_1"], row[f"{Column.extracted}_2"], answer_type, choices, tolerance,
            _flag(row[f"{Column.percent_question}_1"]))  # fmt: skip


def pair_agreement(
    items: pd.DataFrame, model: str, strategy: str, first: str, second: str, bootstrap: Bootstrap
) -> PairAgreement:
    """Agreement and chance agreement with their cluster-bootstrap intervals, the flips and McNemar's p,
    from `paired_items`."""
    per_seed = items.groupby(Column.seed_id)[list(_PER_ITEM)].mean().to_numpy(dtype=float)
    agree, p, q, coincide = per_seed.mean(axis=0)
    draws = resample_means(per_seed, bootstrap.resamples, np.random.default_rng(bootstrap.seed))
    right_1, right_2 = items["right_first"].astype(bool), items["right_second"].astype(bool)
    first_only, second_only = int((right_1 & ~right_2).sum()), int((~right_1 & right_2).sum())
    return PairAgreement(
        model=model, strategy=strategy, first=first, second=second, items=len(items),
        seeds=len(per_seed), accuracy_first=float(p), accuracy_second=float(q),
        agreement=Interval(float(agree), *percentile_interval(draws[:, 0], bootstrap.level)),
        chance=Interval(
            float(chance_agreement(p, q, coincide)),
            *percentile_interval(chance_agreement(draws[:, 1], draws[:, 2], draws[:, 3]), bootstrap.level),
        ),
        first_only=first_only, second_only=second_only, p_mcnemar=mcnemar_exact(first_only, second_only),
    )  # fmt: skip


def _text_first(modality: str) -> tuple[int, int, str]:
    """Text representations first (in `Modality` order), then unknown ones, then visual ones."""
    known = list(Modality)
    try:
        member = Modality(modality)
    except ValueError:
        return (1, 0, modality)
    return (2 if member.visual else 0, known.index(member), modality)


def agreement_rows(frame: pd.DataFrame, bootstrap: Bootstrap | None = None) -> list[PairAgreement]:
    """Every model × strategy × pair of its representations with items graded in both."""
    bootstrap = bootstrap or Bootstrap()
    if frame.empty:
        return []
    graded = graded_cells(frame)
    rows = []
    for (model, strategy), group in graded.groupby([Column.model, Column.strategy], sort=True):
        modalities = sorted(map(str, group[Column.modality].unique()), key=_text_first)
        cells = {m: _cells(group[group[Column.modality] == m]) for m in modalities}
        for first, second in combinations(modalities, 2):
            items = _paired(cells[first], cells[second])
            if not items.empty:
                rows.append(pair_agreement(items, str(model), str(strategy), first, second, bootstrap))
    return rows


def _p_value(p: float) -> str:
    if math.isnan(p):
        return "–"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _interval_text(interval: Interval, seeds: int) -> str:
    return format_value(interval.estimate, interval.low, interval.high, seeds=seeds)


def agreement_table(frame: pd.DataFrame, bootstrap: Bootstrap | None = None) -> pd.DataFrame:
    """`agreement_rows` as the report prints them (agreement and chance in %)."""
    records = []
    for pair in agreement_rows(frame, bootstrap):
        seeds = pair.seeds
        records.append(
            {
                Column.model.value: pair.model,
                Column.strategy.value: pair.strategy,
                "pair (1st / 2nd)": f"{pair.first} / {pair.second}",
                "items": pair.items,
                "seeds": seeds,
                "accuracy 1st / 2nd": (
                    f"{format_value(pair.accuracy_first)} / {format_value(pair.accuracy_second)}"
                ),
                "agreement": _interval_text(pair.agreement, seeds),
                "chance": _interval_text(pair.chance, seeds),
                "right 1st only": pair.first_only,
                "right 2nd only": pair.second_only,
                "McNemar p": _p_value(pair.p_mcnemar),
            }
        )
    return pd.DataFrame.from_records(records)


def caption(bootstrap: Bootstrap) -> str:
    """The table's caption, in one line."""
    return (
        "Share of items (seed, variant, repeat) graded in both representations whose answers agree "
        "(both right, or both wrong with the same answer; a missing answer never agrees), next to "
        "chance = p·q + (1−p)(1−q)·c̄ from the two accuracies p, q alone (c = 1/(k−1) for k options, "
        f"0 for free form; SEAM, arXiv 2508.18179), in % with {bootstrap.level:.0%} cluster-bootstrap "
        "intervals over seeds; right 1st only / 2nd only: items right in one representation and wrong "
        "in the other, with McNemar's exact p."
    )
