"""Beyond accuracy: how consistent a model's answers are (pure functions of graded cells).

- repetition consistency RC (DynaMath Eq. 3): for each variant, the share of K repeats that give
  the variant's modal answer, averaged over variants; `Ans(i, j)` is read as the modal answer;
- the spread of A_avg over repeats (DynaMath Appendix H.7): A_avg per repeat, its sample variance;
- consistent failures (Section 4.3): seeds right on some variant in every repeat and wrong on another
  variant with RC = 1 (the same wrong answer every time);
- memorization: seeds whose variants have different truths but get one and the same answer;
- circular consistency (Appendix H.8): with `permute`, answers mapped back to the original options
  agree across rotations.

Answers are compared through `answer_key` (option letter, number to 3 decimals, folded text); an
unreadable answer is its own value ("none").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from isodyn.runs.schema import Column
from isodyn.scoring.keys import answer_key

VARIANT = (Column.seed_id, Column.variant)  # one variant of a seed, over its repeats
NONE_KEY = "none"
_LETTERS = "ABCDEFGHIJ"


def keyed(graded: pd.DataFrame) -> pd.DataFrame:
    """Graded cells with an `answer` column holding the canonical answer key."""
    out = graded.copy()
    keys: dict[tuple[str | None, str, tuple[str, ...]], str] = {}  # replies repeat their answers
    answers = []
    for extracted, answer_type, choices in zip(
        out[Column.extracted], out[Column.answer_type], out.get(Column.choices, [()] * len(out)), strict=True
    ):
        # pandas turns a missing answer into NaN; only strings are answers
        asked = (extracted if isinstance(extracted, str) else None, answer_type, tuple(choices or ()))
        if asked not in keys:
            keys[asked] = answer_key(*asked) or NONE_KEY
        answers.append(keys[asked])
    out["answer"] = answers
    return out


def _modal_share(answers: pd.Series) -> float:
    return float(answers.value_counts().iloc[0] / len(answers))


def repetition_consistency(graded: pd.DataFrame) -> float:
    """Mean over variants of the share of repeats giving the modal answer (needs >= 2 repeats)."""
    frame = keyed(graded)
    groups = frame.groupby(list(VARIANT))["answer"]
    shares = [_modal_share(g) for _, g in groups if len(g) >= 2]
    return float(sum(shares) / len(shares)) if shares else math.nan


def accuracy_over_repeats(graded: pd.DataFrame) -> dict[str, float]:
    """A_avg of each repeat (seed-weighted) and their sample variance, in percentage points."""
    correct = graded[Column.correct].astype(float)
    per_repeat = (
        correct.groupby([graded[Column.repeat], graded[Column.seed_id]])
        .mean()
        .groupby(level=Column.repeat)
        .mean()
        * 100
    )
    if len(per_repeat) < 2:
        return {"repeats": len(per_repeat), "A_avg_var_pp2": math.nan, "A_avg_sd_pp": math.nan}
    variance = float(per_repeat.var(ddof=1))
    return {"repeats": len(per_repeat), "A_avg_var_pp2": variance, "A_avg_sd_pp": math.sqrt(variance)}


def consistent_failures(graded: pd.DataFrame) -> int | None:
    """Seeds right on some variant in every repeat, and wrong with one same answer on another."""
    frame = keyed(graded)
    if frame.groupby(list(VARIANT)).size().max() < 2:
        return None  # needs repeats
    count = 0
    for _, seed in frame.groupby(Column.seed_id):
        per_variant = seed.groupby(Column.variant).agg(
            always_right=(Column.correct, "all"), never_right=(Column.correct, lambda c: not c.any()),
            answers=("answer", "nunique"),
        )  # fmt: skip
        stuck_wrong = per_variant["never_right"] & (per_variant["answers"] == 1)
        count += bool(per_variant["always_right"].any() and stuck_wrong.any())
    return count


def memorization(graded: pd.DataFrame) -> dict[str, Any]:
    """Seeds (with variants of at least two different truths) that get one identical answer everywhere."""
    frame = keyed(graded)
    eligible = memorized = 0
    examples = []
    for seed_id, seed in frame.groupby(Column.seed_id):
        if seed[Column.truth].nunique() < 2:
            continue
        eligible += 1
        modal = seed.groupby(Column.variant)["answer"].agg(lambda a: a.value_counts().index[0])
        if modal.nunique() == 1 and modal.iloc[0] != NONE_KEY:
            memorized += 1
            examples.append(seed_id)
    rate = memorized / eligible if eligible else math.nan
    return {"eligible_seeds": eligible, "memorized_seeds": memorized, "rate": rate, "seeds": examples}


def _original_option(row: pd.Series) -> str:
    order = (row.get(Column.notes) or {}).get("choice_order")
    if row["answer"] == NONE_KEY or not order or row["answer"] not in _LETTERS:
        return row["answer"]
    return str(order[_LETTERS.index(row["answer"])])


def circular_consistency(graded: pd.DataFrame) -> dict[str, float]:
    """For permuted multiple choice: do rotations pick the same original option (and the right one)?"""
    frame = keyed(graded)
    if Column.notes not in frame:
        return {"variants": 0, "circular_consistency": math.nan, "circular_accuracy": math.nan}
    has_order = frame[Column.notes].map(lambda n: bool((n or {}).get("choice_order")))
    if not has_order.any():
        return {"variants": 0, "circular_consistency": math.nan, "circular_accuracy": math.nan}
    frame = frame[has_order].copy()
    frame["original"] = frame.apply(_original_option, axis=1)
    groups = frame.groupby(list(VARIANT))
    consistency = groups["original"].agg(_modal_share)
    accuracy = groups[Column.correct].all()
    return {
        "variants": len(consistency),
        "circular_consistency": float(consistency.mean()),
        "circular_accuracy": float(accuracy.mean()),
    }


def _modal_answers(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """Per group of `keys`: its size, the count of its most frequent `column` value (`top`) and that
    value (`modal`; of equally frequent ones the first in row order, as `value_counts` picks it)."""
    positioned = frame[[*keys, column]].assign(_position=np.arange(len(frame)))
    counted = positioned.groupby([*keys, column], sort=False)["_position"].agg(["size", "min"]).reset_index()
    counted = counted.sort_values([*keys, "size", "min"], ascending=[True] * len(keys) + [False, True])
    first = counted.drop_duplicates(subset=keys, keep="first").set_index(keys)
    sizes = counted.groupby(keys, sort=True)["size"].sum()
    return pd.DataFrame({"size": sizes, "top": first["size"], "modal": first[column]})


def consistency_by_arm(graded: pd.DataFrame, arm: list[str]) -> pd.DataFrame:
    """For each arm (the groups of `arm`, sorted), what the per-arm functions above give of its graded
    cells, from grouped passes over the whole table: `repeats`, `A_avg_sd_pp`, `RC`,
    `consistent_failures` (None without repeats), `memorized_seeds`, `eligible_seeds` and
    `circular_consistency`."""
    frame = keyed(graded)
    frame = frame.dropna(subset=arm)
    seed, variant = [*arm, Column.seed_id], [*arm, *VARIANT]
    correct = frame[Column.correct].astype(float)
    per_repeat = correct.groupby([frame[k] for k in [*arm, Column.repeat, Column.seed_id]]).mean()
    per_repeat = per_repeat.groupby(level=list(range(len(arm) + 1))).mean() * 100
    spread = per_repeat.groupby(level=list(range(len(arm)))).agg(["size", lambda v: v.var(ddof=1)])
    spread.columns = ["repeats", "var"]
    modal = _modal_answers(frame, variant, "answer")
    repeated = modal[modal["size"] >= 2]
    rc = (repeated["top"] / repeated["size"]).groupby(level=list(range(len(arm)))).mean()
    by_variant = frame.groupby(variant, sort=True).agg(
        always_right=(Column.correct, "all"), any_right=(Column.correct, "any"),
        answers=("answer", "nunique"),
    )  # fmt: skip
    by_variant["stuck_wrong"] = ~by_variant["any_right"] & (by_variant["answers"] == 1)
    by_seed = by_variant.groupby(level=list(range(len(seed))))[["always_right", "stuck_wrong"]].any()
    failing = (by_seed["always_right"] & by_seed["stuck_wrong"]).groupby(level=list(range(len(arm)))).sum()
    most_repeats = modal["size"].groupby(level=list(range(len(arm)))).max()
    truths = frame.groupby(seed, sort=True)[Column.truth].nunique()
    modal_per_seed = modal["modal"].groupby(level=list(range(len(seed))))
    one_answer = (modal_per_seed.nunique() == 1) & (modal_per_seed.first() != NONE_KEY)
    eligible = truths >= 2
    memorized = eligible & one_answer.reindex(truths.index, fill_value=False)
    per_arm = list(range(len(arm)))
    eligible_seeds = eligible.groupby(level=per_arm).sum()
    memorized_seeds = memorized.groupby(level=per_arm).sum()
    circular = _circular_by_arm(frame, arm)
    rows = []
    for key in spread.index:
        repeats = int(spread.at[key, "repeats"])
        variance = float(spread.at[key, "var"]) if repeats >= 2 else math.nan
        rows.append({
            "key": key, "repeats": repeats,
            "A_avg_sd_pp": math.sqrt(variance) if not math.isnan(variance) else math.nan,
            "RC": float(rc[key]) if key in rc.index else math.nan,
            "consistent_failures": int(failing[key]) if most_repeats[key] >= 2 else None,
            "memorized_seeds": int(memorized_seeds[key]),
            "eligible_seeds": int(eligible_seeds[key]),
            "circular_consistency": circular.get(key, math.nan),
        })  # fmt: skip
    return pd.DataFrame.from_records(rows)


def _circular_by_arm(frame: pd.DataFrame, arm: list[str]) -> dict[Any, float]:
    """`circular_consistency`'s share per arm, of the cells with a recorded option order."""
    if Column.notes not in frame:
        return {}
    orders = [(n or {}).get("choice_order") for n in frame[Column.notes]]
    has_order = pd.Series([bool(o) for o in orders], index=frame.index)
    if not has_order.any():
        return {}
    kept = frame[has_order].copy()
    kept["original"] = [
        answer if answer == NONE_KEY or answer not in _LETTERS else str(order[_LETTERS.index(answer)])
        for answer, order in zip(kept["answer"], [o for o in orders if o], strict=True)
    ]
    modal = _modal_answers(kept, [*arm, *VARIANT], "original")
    shares = (modal["top"] / modal["size"]).groupby(level=list(range(len(arm)))).mean()
    return {key: float(value) for key, value in shares.items()}
