"""The search report's sections on what the failures share: the explanations, the number sizes against
random variants, the transfer to other models and the variation types a failure depends on.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from isodyn.analysis.markdown import markdown_table
from isodyn.search.analysis import VariationEffect
from isodyn.search.explanations import MIN_EACH, CategoryFeature, Explanation, Feature, NumberFeature
from isodyn.search.number_sizes import NumberSizes, Quantiles
from isodyn.search.report_cells import arm_columns, arm_text, cut_text, estimate_text, number_text, share_text
from isodyn.search.transfer import Transfer
from isodyn.textsafe import markdown_text


def _feature_row(feature: Feature) -> dict[str, str]:
    if isinstance(feature, NumberFeature):
        return {
            "feature": feature.name,
            "in failures": f"median {feature.median_failed:.4g}",
            "in passes": f"median {feature.median_passed:.4g}",
            "effect": f"AUC {feature.auc:.2f} ({feature.direction} in failures)",
        }
    assert isinstance(feature, CategoryFeature)
    return {
        "feature": f"{feature.name} = {cut_text(feature.value, 40)}",
        "in failures": f"{feature.share_failed:.0%} of {feature.failed}",
        "in passes": f"{feature.share_passed:.0%} of {feature.passed}",
        "effect": f"+{feature.effect * 100:.0f} points",
    }


def _explanation(explanation: Explanation) -> list[str]:
    lines = [
        f"### {markdown_text(explanation.unit.label())}",
        "",
        f"{explanation.failures} confirmed failures, {explanation.passes} passes.",
        "",
        markdown_table(pd.DataFrame([_feature_row(f) for f in explanation.features])),
        "",
    ]
    if explanation.tweaks:
        tweaks = pd.DataFrame(
            [
                {
                    "draw": t.position,
                    "mutations": t.tried,
                    "pass → failure": t.broke,
                    "failure → pass": t.repaired,
                }
                for t in explanation.tweaks
            ]
        )
        lines += [
            "Draws the guided search changed, and what changing them did:",
            "",
            markdown_table(tweaks),
            "",
        ]
    return lines


def explanations_section(explanations: Sequence[Explanation]) -> list[str]:
    lines = [
        "## What the failures share",
        "",
        "Per unit, the params of its confirmed failures against its passed variants (baseline, random and "
        "guided trials pooled; flukes and unclear replies are neither). Numbers: medians and AUC, the "
        "chance that a failure's value exceeds a pass's (0.5: no difference); categories: the value most "
        "over-represented in failures. Descriptive, not causal: guided search crowds near failures.",
        "",
    ]
    said = [e for e in explanations if e.enough and e.features]
    for explanation in said:
        lines += _explanation(explanation)
    few = [e for e in explanations if not e.enough and e.failures]
    none = [e for e in explanations if not e.failures]
    flat = [e for e in explanations if e.enough and not e.features]
    lines.append(
        f"{len(said)} units explained; {len(few)} had too few confirmed failures or passes to say "
        f"(fewer than {MIN_EACH} each); {len(none)} had no confirmed failure"
        + (f"; in {len(flat)} no parameter varied between failures and passes." if flat else ".")
    )
    return [*lines, ""]


def _quantiles(q: Quantiles) -> str:
    return f"{number_text(q.q10, 2)} / {number_text(q.q50, 2)} / {number_text(q.q90, 2)}"


def sizes_section(sizes: Sequence[NumberSizes], referenced: bool) -> list[str]:
    lines = [
        "## Number sizes",
        "",
        "A variant's number size is its largest |number|; shown as log10(1 + size), quantiles 10 / 50 / "
        "90. Each confirmed failure is placed within plain random variants of its own seed (mid-rank "
        "percentile; 0.5: no bigger than random); the mean over failures has a cluster-bootstrap "
        "interval over seeds.",
        "",
    ]
    if not referenced:
        return [*lines, "_(no random variants were given to compare with)_", ""]
    if not sizes:
        return [*lines, "_(no confirmed failures)_", ""]
    rows = [
        {
            **arm_columns(s.arm),
            "failures": s.failures,
            "seeds": s.seeds,
            "failures' sizes": _quantiles(s.failed),
            "random variants' sizes": _quantiles(s.reference),
            "mean percentile": estimate_text(s.percentile, s.seeds),
            "left out (no reference)": s.unreferenced,
        }
        for s in sizes
    ]
    lines += [markdown_table(pd.DataFrame(rows)), ""]
    lines += [f"- In {arm_text(s.arm)}: {s.verdict}." for s in sizes]
    return [*lines, ""]


def _transfer_sentence(transfer: Transfer) -> str:
    source = markdown_text(transfer.source) if transfer.source is not None else "an unknown model"
    target = markdown_text(transfer.target)
    sentence = (
        f"- {transfer.failed} of {transfer.asked} hard variants found on {source} "
        f"({share_text(transfer.failed, transfer.asked)}) also failed on {target}"
    )
    failing, covered = transfer.target_failing_seeds, transfer.covered_seeds
    if failing is not None and covered is not None:
        sentence += (
            f"; they cover {covered} of the {failing} seeds the search on {target} itself failed on "
            f"({share_text(covered, failing)})"
        )
    return sentence + "."


def transfers_section(transfers: Sequence[Transfer]) -> list[str]:
    lines = [
        "## Transfer",
        "",
        "The hard set asked to a second model: the share that fails there too (confirmed the same way) "
        "and, when the second model was searched itself, the share of its failing seeds the set found.",
        "",
    ]
    if not transfers:
        return [*lines, "_(no transfer trials)_", ""]
    lines += [_transfer_sentence(t) for t in transfers]
    rows = [
        {
            "found on": t.source or "–",
            "asked to": t.target,
            "strategy": t.strategy,
            "modality": t.modality.value,
            "hard variants": t.asked,
            "failed": t.failed,
            "share": share_text(t.failed, t.asked),
            "flukes": t.flukes,
            "unclear": t.unclear,
            "own failing seeds covered": "–"
            if t.target_failing_seeds is None
            else f"{t.covered_seeds} of {t.target_failing_seeds}",
        }
        for t in transfers
    ]
    return [*lines, "", markdown_table(pd.DataFrame(rows)), ""]


def variation_effects_section(effects: Sequence[VariationEffect]) -> list[str]:
    lines = [
        "## Which variation types the failures depend on",
        "",
        "The guided search changes one draw of a confirmed failure at a time; grouped by the variation type "
        "of the params each change touched (the seed's own declaration), how often the changed variant "
        "still failed and how often it passed. A type whose changes mostly pass is one the failure depends "
        "on. Seeds that declare no variation types are not listed.",
        "",
    ]
    if not effects:
        return [*lines, "_(no decided changes of a confirmed failure)_", ""]
    table = pd.DataFrame(
        [
            {
                "unit": e.unit.label(),
                "variation type": e.variation,
                "changes": e.changes,
                "still failing": e.still_failing,
                "passed": e.passed,
                "passed share": number_text(e.repair_rate, 2),
            }
            for e in effects
        ]
    )
    return [*lines, markdown_table(table), ""]
