"""Change from a purchase: price tags and the notes/coins handed over are pictured.

Real-life-context variation: the buyer, the items on sale, the currency (dollars, euros, pounds, each
with its own notes and coins) and the way of paying; numerical: the prices, quantities and payment. The
payment is always "sensible": no note could be left out and still cover the cost.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyBboxPatch

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import blank, png
from isodyn.modalities.formatting import article, cents_answer, fmt_money, join_words

# symbol -> (notes in cents, coins in cents)
CURRENCIES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "$": ((100, 500, 1000, 2000), ()),
    "€": ((500, 1000, 2000, 5000), (100, 200)),
    "£": ((500, 1000, 2000), (100, 200)),
}
ITEMS = (
    ("notebook", "notebooks", 245),
    ("pen", "pens", 115),
    ("sandwich", "sandwiches", 425),
    ("juice", "juices", 180),
    ("comic", "comics", 350),
    ("apple", "apples", 65),
    ("ticket", "tickets", 550),
    ("cupcake", "cupcakes", 275),
    ("keyring", "keyrings", 195),
    ("map", "maps", 320),
)
BUYERS = ("Lena", "Omar", "Sofia", "Ben", "Aiko", "Mateo", "Priya", "Jonas")
PLACES = ("the school fair", "a corner shop", "the museum shop", "a market stall", "the station kiosk")


def cost(p: dict) -> int:
    return sum(q * c for _, _, q, c in p["items"])


def money_text(cents: int, cur: str) -> str:
    """Notes and coins the way they are printed: `$20`, `€2`, `50p`."""
    return f"{cur}{cents // 100}" if cents % 100 == 0 else fmt_money(cents, cur)


def bought_text(p: dict) -> str:
    return join_words([f"{q} {one if q == 1 else many}" for one, many, q, _ in p["items"]])


def paid_text(p: dict) -> str:
    cur = p["currency"]
    counts: dict[int, int] = {}
    for v in p["payment"]:
        counts[v] = counts.get(v, 0) + 1
    scale = p.get("scale", 1)  # a magnitude perturbation scales the notes and coins too
    kind = {v: ("note" if v // scale in CURRENCIES[cur][0] else "coin") for v in counts}
    parts = [
        f"{'one' if n == 1 else n} {money_text(v, cur)} {kind[v]}{'s' if n > 1 else ''}"
        for v, n in sorted(counts.items(), reverse=True)
    ]
    return join_words(parts)


def solution_text(p: dict) -> str:
    cur = p["currency"]
    lines = [f"{q} x {fmt_money(c, cur)} = {fmt_money(q * c, cur)}" for _, _, q, c in p["items"]]
    total = cost(p)
    paid = sum(p["payment"])
    steps = [
        "Cost of each kind of item (quantity times price): " + "; ".join(lines) + ".",
        f"Total cost: {' + '.join(fmt_money(q * c, cur) for _, _, q, c in p['items'])} = "
        f"{fmt_money(total, cur)}.",
        f"Money handed over: {' + '.join(money_text(v, cur) for v in p['payment'])} = "
        f"{fmt_money(paid, cur)}.",
        f"Change: {fmt_money(paid, cur)} - {fmt_money(total, cur)} = {fmt_money(paid - total, cur)}.",
        f"Answer: {cents_answer(paid - total)}",
    ]
    return "\n".join(steps)


def _payments(total: int, cur: str) -> list[tuple[int, ...]]:
    """Multisets of up to three notes/coins that cover `total` and from which nothing can be dropped."""
    notes, coins = CURRENCIES[cur]
    denoms = notes + coins
    out = []
    for k in (1, 2, 3):
        for combo in itertools.combinations_with_replacement(sorted(denoms, reverse=True), k):
            s = sum(combo)
            if s > total and all(s - v < total for v in combo):
                out.append(combo)
    return out


class MoneyChange(SeedProgram):
    seed_id = "dynamath_money_change"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.REAL_LIFE_CONTEXT, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "currency": VariationType.REAL_LIFE_CONTEXT,
        "buyer": VariationType.REAL_LIFE_CONTEXT,
        "place": VariationType.REAL_LIFE_CONTEXT,
        "items": VariationType.NUMERICAL_VALUE,
        "payment": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # item pairs/triples x prices x quantities x payments x currencies (names and places cosmetic)
    variant_space = 160 * 13**2 * 9 * 4 * 3

    def sample(self, rng: np.random.Generator) -> Draw:
        cur = str(rng.choice(list(CURRENCIES)))
        while True:
            n = int(rng.choice([2, 2, 3]))
            picks = sorted(int(i) for i in rng.choice(len(ITEMS), size=n, replace=False))
            items = []
            for i in picks:
                one, many, base = ITEMS[i]
                items.append([one, many, int(rng.integers(1, 4)), base + 5 * int(rng.integers(-6, 7))])
            p: dict[str, Any] = {"currency": cur, "items": items}
            options = _payments(cost(p), cur)
            if options:
                break
        payment = [int(v) for v in options[int(rng.integers(len(options)))]]
        p.update(
            {
                "payment": payment,
                "buyer": str(rng.choice(BUYERS)),
                "place": str(rng.choice(PLACES)),
            }
        )
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("items", "payment")

    def redraw(self, params: dict[str, Any]) -> Draw:
        cur, buyer = params["currency"], params["buyer"]
        question = (
            f"{buyer} buys {bought_text(params)} at {params['place']} and pays with this money. How much "
            f"change, in {cur}, should {buyer} get back?"
        )
        return Draw(
            params=params,
            question=question,
            answer=cents_answer(sum(params["payment"]) - cost(params)),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        buyer, place = params["buyer"], params["place"]
        one, many, _, _ = params["items"][int(rng.integers(len(params["items"])))]
        k = int(rng.integers(2, 9))
        said = (
            f"{buyer} has been saving pocket money for {k} weeks.",
            f"The {many} at {place} are restocked every {k} days.",
            f"{buyer} came to {place} with {k} friends, who did not buy anything.",
            f"The price tags at {place} were written by hand {k} days ago.",
            f"{buyer} has bought {article(one)} {one} there before, {k} months ago.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # Prices and the notes and coins handed over all times factor: the payment stays "sensible"
        # (no note could be dropped), and `scale` keeps telling notes from coins.
        return {
            **params,
            "items": [[one, many, q, c * factor] for one, many, q, c in params["items"]],
            "payment": [v * factor for v in params["payment"]],
            "scale": params.get("scale", 1) * factor,
        }

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(c / 100 for *_, c in params["items"]) + tuple(v / 100 for v in params["payment"])

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Other buyers, places and goods; sometimes an item called "free", which it is not.
        pool = [(one, many) for one, many, _ in ITEMS] + [("free sticker", "free stickers")]
        picks = rng.choice(len(pool), size=len(params["items"]), replace=False)
        items = [[*pool[int(k)], q, c] for k, (_, _, q, c) in zip(picks, params["items"], strict=True)]
        buyer = str(rng.choice([b for b in BUYERS if b != params["buyer"]]))
        place = str(rng.choice([pl for pl in PLACES if pl != params["place"]]))
        return {**params, "items": items, "buyer": buyer, "place": place}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        cur = p["currency"]
        if modality is Modality.IMAGE:
            n = len(p["items"])
            notes = [v * p.get("scale", 1) for v in CURRENCIES[cur][0]]

            def draw(ax: Axes) -> None:
                blank(ax, (0, 9), (0, 5))
                ax.text(0.2, 4.7, "Prices", fontsize=13, fontweight="bold", va="center")
                w = 8.6 / n
                for k, (one, _, _, c) in enumerate(p["items"]):
                    x = 0.2 + k * w
                    ax.add_patch(
                        FancyBboxPatch(
                            (x + 0.1, 2.95),
                            w - 0.4,
                            1.45,
                            boxstyle="round,pad=0,rounding_size=0.15",
                            facecolor="#fff4c2",
                            edgecolor="#8a6d00",
                            lw=1.6,
                        )
                    )
                    ax.add_patch(Circle((x + 0.35, 4.15), 0.08, facecolor="white", edgecolor="#8a6d00"))
                    ax.text(x + (w - 0.2) / 2, 3.95, one.capitalize(), ha="center", va="center", fontsize=13)
                    ax.text(
                        x + (w - 0.2) / 2,
                        3.35,
                        fmt_money(c, cur),
                        ha="center",
                        va="center",
                        fontsize=16,
                        fontweight="bold",
                    )
                ax.text(0.2, 2.45, "Paid with", fontsize=13, fontweight="bold", va="center")
                x = 0.3
                for v in sorted(p["payment"], reverse=True):
                    if v in notes:
                        ax.add_patch(
                            FancyBboxPatch(
                                (x, 0.35),
                                2.2,
                                1.6,
                                boxstyle="round,pad=0,rounding_size=0.08",
                                facecolor="#cfe8cf",
                                edgecolor="#2d6a2d",
                                lw=2,
                            )
                        )
                        ax.add_patch(Circle((x + 1.1, 1.15), 0.5, facecolor="#a9d3a9", edgecolor="#2d6a2d"))
                        ax.text(
                            x + 1.1,
                            1.15,
                            money_text(v, cur),
                            ha="center",
                            va="center",
                            fontsize=16,
                            fontweight="bold",
                            color="#1e4d1e",
                        )
                        ax.text(
                            x + 0.2,
                            1.75,
                            money_text(v, cur),
                            ha="left",
                            va="center",
                            fontsize=10,
                            color="#1e4d1e",
                        )
                        x += 2.5
                    else:
                        ax.add_patch(
                            Circle((x + 0.65, 1.15), 0.65, facecolor="#e3c565", edgecolor="#7a5c00", lw=2)
                        )
                        ax.text(
                            x + 0.65,
                            1.15,
                            money_text(v, cur),
                            ha="center",
                            va="center",
                            fontsize=14,
                            fontweight="bold",
                        )
                        x += 1.6

            image = png(draw, size=(7.6, 4.4))
            text = (
                "The image shows the price tags of the items on sale (price per item) and the notes and "
                f"coins handed over to pay.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            prices = join_words(
                [f"{article(one)} {one} costs {fmt_money(c, cur)}" for one, _, _, c in p["items"]]
            )
            story = f"At {p['place']}, {prices}. {p['buyer']} hands over {paid_text(p)}."
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
