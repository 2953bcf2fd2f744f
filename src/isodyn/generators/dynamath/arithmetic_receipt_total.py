"""The amount to pay on a shop receipt that lists quantities, unit prices and a promotion.

Real-life-context variation: the shop (grocery, stationery, café, hardware), its items, the currency
and the kind of promotion: a percentage off the whole purchase, a fixed amount off above a threshold
(which may not be reached), a percentage off one item, or "buy 2, get 1 free" on one item. Prices are
chosen so every discount is a whole number of cents.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import blank, png
from isodyn.modalities.formatting import cents_answer, fmt_money, join_words

SHOPS: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {
    "grocery": (
        "FRESHMART",
        (
            ("Bread", 245),
            ("Milk", 129),
            ("Apples (bag)", 350),
            ("Cheese", 475),
            ("Eggs (dozen)", 320),
            ("Orange juice", 289),
            ("Rice (1 kg)", 199),
        ),
    ),
    "stationery": (
        "PAPER PLUS",
        (
            ("Notebook", 345),
            ("Pen", 120),
            ("Glue stick", 185),
            ("Ruler", 150),
            ("Markers (set)", 560),
            ("Eraser", 75),
            ("Folder", 230),
        ),
    ),
    "cafe": (
        "CORNER CAFE",
        (
            ("Latte", 385),
            ("Tea", 240),
            ("Muffin", 295),
            ("Bagel", 260),
            ("Sandwich", 650),
            ("Cookie", 145),
            ("Hot chocolate", 340),
        ),
    ),
    "hardware": (
        "FIXIT HARDWARE",
        (
            ("Screws (box)", 465),
            ("Tape", 315),
            ("Light bulb", 275),
            ("Hammer", 1290),
            ("Paint brush", 530),
            ("Glue", 360),
            ("Batteries (4)", 620),
        ),
    ),
}
CURRENCIES = ("$", "€", "£")
KINDS = ("pct_total", "amount_off", "pct_item", "bogo")


def promo_text(p: dict) -> str:
    cur = p["currency"]
    if p["kind"] == "pct_total":
        return f"{p['pct']}% off the whole purchase"
    if p["kind"] == "amount_off":
        return f"{fmt_money(p['off'], cur)} off purchases of {fmt_money(p['threshold'], cur)} or more"
    if p["kind"] == "pct_item":
        return f"{p['pct']}% off every {p['items'][p['target']][0]}"
    return f"{p['items'][p['target']][0]}: buy 2, get the 3rd free"


def subtotal(p: dict) -> int:
    return sum(q * c for _, q, c in p["items"])


def discount(p: dict) -> int:
    kind = p["kind"]
    if kind == "pct_total":
        return subtotal(p) * p["pct"] // 100
    if kind == "amount_off":
        return p["off"] if subtotal(p) >= p["threshold"] else 0
    _, q, c = p["items"][p["target"]]
    if kind == "pct_item":
        return q * c * p["pct"] // 100
    return (q // 3) * c


def _exact(p: dict) -> bool:
    kind = p["kind"]
    if kind == "pct_total":
        return subtotal(p) * p["pct"] % 100 == 0
    if kind == "pct_item":
        _, q, c = p["items"][p["target"]]
        return q * c * p["pct"] % 100 == 0
    return True


def solution_text(p: dict) -> str:
    cur = p["currency"]
    steps = ["First add up the items (quantity times unit price):"]
    for name, q, c in p["items"]:
        steps.append(f"  {name}: {q} x {fmt_money(c, cur)} = {fmt_money(q * c, cur)}")
    sub = subtotal(p)
    steps.append(
        f"Subtotal: {' + '.join(fmt_money(q * c, cur) for _, q, c in p['items'])} = {fmt_money(sub, cur)}."
    )
    d = discount(p)
    kind = p["kind"]
    if kind == "pct_total":
        steps.append(
            f"The promotion takes {p['pct']}% off everything: {p['pct']}% of {fmt_money(sub, cur)} = "
            f"{fmt_money(d, cur)}."
        )
    elif kind == "amount_off":
        if d:
            steps.append(
                f"The subtotal {fmt_money(sub, cur)} is at least {fmt_money(p['threshold'], cur)}, so "
                f"{fmt_money(d, cur)} is taken off."
            )
        else:
            steps.append(
                f"The subtotal {fmt_money(sub, cur)} is less than {fmt_money(p['threshold'], cur)}, so the "
                "promotion does not apply."
            )
    else:
        name, q, c = p["items"][p["target"]]
        if kind == "pct_item":
            steps.append(
                f"Only the {name} line is discounted: {p['pct']}% of {fmt_money(q * c, cur)} = "
                f"{fmt_money(d, cur)}."
            )
        else:
            free = q // 3
            steps.append(
                f"{q} {name}: every third one is free, so {free} of them cost nothing: {free} x "
                f"{fmt_money(c, cur)} = {fmt_money(d, cur)} off."
            )
    steps.append(f"Total to pay: {fmt_money(sub, cur)} - {fmt_money(d, cur)} = {fmt_money(sub - d, cur)}.")
    steps.append(f"Answer: {cents_answer(sub - d)}")
    return "\n".join(steps)


class ReceiptTotal(SeedProgram):
    seed_id = "dynamath_receipt_total"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.REAL_LIFE_CONTEXT, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "shop": VariationType.REAL_LIFE_CONTEXT,
        "currency": VariationType.REAL_LIFE_CONTEXT,
        "kind": VariationType.REAL_LIFE_CONTEXT,
        "items": VariationType.NUMERICAL_VALUE,
        "pct": VariationType.NUMERICAL_VALUE,
        "off": VariationType.NUMERICAL_VALUE,
        "threshold": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # shops x item subsets x quantities x price jitter x promotions x currencies
    variant_space = 4 * 35 * 4**4 * 20 * 12 * 3

    def sample(self, rng: np.random.Generator) -> Draw:
        shop = str(rng.choice(list(SHOPS)))
        title, catalogue = SHOPS[shop]
        currency = str(rng.choice(CURRENCIES))
        kind = KINDS[int(rng.integers(len(KINDS)))]
        while True:
            n = int(rng.integers(3, 6))
            picks = sorted(int(i) for i in rng.choice(len(catalogue), size=n, replace=False))
            items = []
            for i in picks:
                name, base = catalogue[i]
                price = base + 5 * int(rng.integers(-6, 7))
                items.append([name, int(rng.integers(1, 5)), int(price)])
            p: dict[str, Any] = {
                "shop": shop,
                "store": title,
                "currency": currency,
                "kind": kind,
                "items": items,
            }
            if kind in ("pct_total", "pct_item"):
                p["pct"] = int(rng.choice([10, 20, 25, 50] if kind == "pct_item" else [5, 10, 15, 20, 25]))
            if kind in ("pct_item", "bogo"):
                p["target"] = int(rng.integers(n))
                if kind == "bogo":
                    items[p["target"]][1] = int(rng.integers(3, 7))
            if kind == "amount_off":
                sub = subtotal(p)
                p["off"] = int(rng.choice([300, 500, 1000]))
                # The threshold is sometimes just above the subtotal, so the promotion does not apply.
                p["threshold"] = int((sub // 500 + (1 if rng.random() < 0.35 else 0)) * 500)
                if p["threshold"] < 1000 or p["off"] >= p["threshold"]:
                    continue
            if _exact(p):
                break
        p["date"] = f"{int(rng.integers(1, 29)):02d}/{int(rng.integers(1, 13)):02d}/2025"
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("items", "kind", "pct", "off", "threshold", "target")

    def redraw(self, params: dict[str, Any]) -> Draw:
        question = "How much does the customer pay in total for this purchase after the promotion?"
        return Draw(
            params=params,
            question=question,
            answer=cents_answer(subtotal(params) - discount(params)),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        name, _, _ = params["items"][int(rng.integers(len(params["items"])))]
        other = int(rng.integers(2, 9))
        said = (
            f"The customer had first picked up {other} of the {name} but put {other - 1} of them back on "
            "the shelf before reaching the till, which is already reflected on the receipt.",
            f"The shop's {params['kind'].replace('_', ' ')} promotion has run for {other} weeks.",
            f"{other} other customers were waiting in line behind this one.",
            f"The receipt was printed on the shop's till number {other}.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        scaled = {**params, "items": [[name, q, c * factor] for name, q, c in params["items"]]}
        for key in ("off", "threshold"):
            if key in params:
                scaled[key] = params[key] * factor
        return scaled

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        prices = [c / 100 for _, _, c in params["items"]]
        return (*prices, *(params[k] / 100 for k in ("off", "threshold") if k in params))

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Other shops' item names, and sometimes one that suggests a discount that is not there.
        pool = [name for _, (_, items) in SHOPS.items() for name, _ in items]
        names = [str(n) for n in rng.choice(pool, size=len(params["items"]), replace=False)]
        if rng.random() < 0.5:
            names[int(rng.integers(len(names)))] = "Free gift wrap"
        titles = [title for title, _ in SHOPS.values() if title != params["store"]]
        items = [[new, q, c] for new, (_, q, c) in zip(names, params["items"], strict=True)]
        return {**params, "items": items, "store": str(rng.choice(titles))}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        cur = p["currency"]
        if modality is Modality.IMAGE:
            n = len(p["items"])
            height = 3.75 + 0.42 * n

            def draw(ax: Axes) -> None:
                blank(ax, (0, 4.6), (0, height))
                ax.add_patch(
                    Rectangle((0.1, 0.05), 4.4, height - 0.1, facecolor="#fbfbf6", edgecolor="0.3", lw=1.2)
                )
                y = height - 0.45
                ax.text(2.3, y, p["store"], ha="center", fontsize=15, fontweight="bold", family="monospace")
                y -= 0.4
                ax.text(2.3, y, f"Date: {p['date']}", ha="center", fontsize=11, family="monospace")
                y -= 0.35
                ax.plot([0.3, 4.3], [y, y], color="black", ls="--", lw=1)
                y -= 0.38
                for label, x, ha in (
                    ("QTY", 0.3, "left"),
                    ("ITEM", 0.95, "left"),
                    ("UNIT PRICE", 4.3, "right"),
                ):
                    ax.text(x, y, label, ha=ha, fontsize=11, fontweight="bold", family="monospace")
                for name, q, c in p["items"]:
                    y -= 0.42
                    ax.text(0.45, y, str(q), ha="center", fontsize=12, family="monospace")
                    ax.text(0.95, y, name, ha="left", fontsize=12, family="monospace")
                    ax.text(4.3, y, fmt_money(c, cur), ha="right", fontsize=12, family="monospace")
                y -= 0.3
                ax.plot([0.3, 4.3], [y, y], color="black", ls="--", lw=1)
                y -= 0.45
                ax.text(0.3, y, "PROMOTION:", fontsize=11, fontweight="bold", family="monospace")
                y -= 0.38
                ax.text(0.3, y, promo_text(p), fontsize=11, family="monospace")
                y -= 0.5
                ax.text(0.3, y, "TOTAL TO PAY:", fontsize=12, fontweight="bold", family="monospace")
                ax.text(4.3, y, "?", ha="right", fontsize=14, fontweight="bold", family="monospace")

            image = png(draw, size=(4.8, height + 0.2))
            text = (
                "The image shows a shop receipt with the quantity and unit price of each item and the "
                f"shop's promotion.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            bought = join_words([f"{q} x {name} at {fmt_money(c, cur)} each" for name, q, c in p["items"]])
            story = (
                f"A customer shops at {p['store'].title()} on {p['date']} and buys {bought}. The shop's "
                f"promotion that day is: {promo_text(p)}."
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
