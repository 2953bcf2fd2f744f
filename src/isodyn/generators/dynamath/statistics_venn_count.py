"""Statistics: how many elements lie in a set expression, read from a Venn diagram with region counts.

Two or three sets in a universal set U; every region (and the outside) shows its count. The question
is a set expression in union, intersection and difference (a symbolic substitution from one variant
to the next), over sets whose letters come from the context (students' sports, drinks, languages,
pets, or plain A, B, C).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.circle_charts import venn_png
from isodyn.modalities.formatting import join_words, latex_table

# population noun, topic for the title, verb, [(letter, object)] for three sets (two-set variants use two)
_CONTEXTS = (
    ("elements", "", "are in", [("A", "A"), ("B", "B"), ("C", "C")]),
    ("students", "sports they play", "play", [("S", "soccer"), ("B", "basketball"), ("T", "tennis")]),
    ("customers", "drinks they like", "like", [("T", "tea"), ("C", "coffee"), ("J", "juice")]),
    ("employees", "languages they speak", "speak", [("F", "French"), ("G", "German"), ("S", "Spanish")]),
    ("families", "pets they own", "own", [("D", "a dog"), ("C", "a cat"), ("F", "fish")]),
)
_TEMPLATES = {
    2: (
        r"X \cap Y", r"X \cup Y", r"X \setminus Y", r"U \setminus (X \cup Y)",
        r"(X \cup Y) \setminus (X \cap Y)", r"U \setminus X",
    ),
    3: (
        r"X \cap Y \cap Z", r"X \cup Y \cup Z", r"(X \cap Y) \setminus Z", r"X \setminus (Y \cup Z)",
        r"(X \cup Y) \cap Z", r"X \cap (Y \cup Z)", r"(X \cup Y) \setminus Z",
        r"U \setminus (X \cup Y \cup Z)", r"(X \cap Y) \cup (Y \cap Z)", r"Y \setminus X",
    ),
}  # fmt: skip
_TOKEN = re.compile(r"\\cup|\\cap|\\setminus|[()]|[A-Z]")


def regions(k: int) -> list[tuple[int, ...]]:
    """All membership tuples, outside (all zeros) first."""
    return [tuple(int(b) for b in bits) for bits in np.ndindex(*(2,) * k)]


def region_name(bits: tuple[int, ...], letters: list[str]) -> str:
    """A region in set notation, e.g. `(A \\cap B) \\setminus C` or `U \\setminus (A \\cup B)`."""
    cup, cap = " \\cup ", " \\cap "
    ins = [x for x, b in zip(letters, bits, strict=True) if b]
    outs = [x for x, b in zip(letters, bits, strict=True) if not b]
    union_out = outs[0] if len(outs) == 1 else "(" + cup.join(outs) + ")"
    if not ins:
        return "U \\setminus " + union_out
    core = cap.join(ins)
    if not outs:
        return core
    return (f"({core})" if len(ins) > 1 else core) + " \\setminus " + union_out


def region_phrase(bits: tuple[int, ...], verb: str, objects: list[str]) -> str:
    """What the members of one region do, e.g. `play soccer and tennis but not basketball`."""
    ins = [o for o, b in zip(objects, bits, strict=True) if b]
    outs = [o for o, b in zip(objects, bits, strict=True) if not b]
    if not ins:
        return (
            f"{verb} neither {objects[0]} nor {objects[1]}"
            if len(objects) == 2
            else f"{verb} none of " + join_words(objects).replace(", and ", ", or ")
        )
    if not outs:
        return f"{verb} {join_words(ins)}"
    return f"{verb} {join_words(ins)} but not " + " or ".join(outs)


def evaluate(expr: str, letters: list[str], k: int) -> set[tuple[int, ...]]:
    """The regions an expression covers (a left-to-right parser over region sets)."""
    universe = set(regions(k))
    tokens = _TOKEN.findall(expr)
    pos = 0

    def operand() -> set[tuple[int, ...]]:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            val = chain()
            pos += 1  # ")"
            return val
        if tok == "U":
            return set(universe)
        i = letters.index(tok)
        return {r for r in universe if r[i]}

    def chain() -> set[tuple[int, ...]]:
        nonlocal pos
        val = operand()
        while pos < len(tokens) and tokens[pos] != ")":
            op = tokens[pos]
            pos += 1
            rhs = operand()
            val = val | rhs if op == r"\cup" else val & rhs if op == r"\cap" else val - rhs
        return val

    return chain()


def _counts(params: dict) -> dict[tuple[int, ...], int]:
    return {tuple(r): c for r, c in zip(regions(params["k"]), params["counts"], strict=True)}


def solution_text(params: dict) -> str:
    k, letters, expr = params["k"], params["letters"], params["expr"]
    counts = _counts(params)
    covered = sorted(evaluate(expr, letters, k), key=lambda r: (-sum(r), [-b for b in r]))
    parts = [f"${region_name(r, letters)}$: {counts[r]}" for r in covered]
    total = sum(counts[r] for r in covered)
    steps = [
        f"Each number in the diagram counts the {params['noun']} in one region only.",
        f"The set ${expr}$ is made of {len(covered)} region{'s' if len(covered) != 1 else ''}: "
        + "; ".join(parts)
        + ".",
        (
            f"Adding them: {' + '.join(str(counts[r]) for r in covered)} = {total}."
            if len(covered) > 1
            else f"That single region holds {total}."
        ),
        f"Answer: {total}",
    ]
    return "\n".join(steps)


class VennCount(SeedProgram):
    seed_id = "dynamath_venn_count"
    topic = Topic.STATISTICS
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.SYMBOLIC_SUBSTITUTION,
        VariationType.REAL_LIFE_CONTEXT,
    )
    param_variation = {
        "context": VariationType.REAL_LIFE_CONTEXT,
        "counts": VariationType.NUMERICAL_VALUE,
        "expr": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.STORY)
    # 5 contexts x (6 x 2 + 10 x 6 expression placements) x 13^(4 or 8) counts
    variant_space = 10**9

    def sample(self, rng: np.random.Generator) -> Draw:
        ctx = int(rng.integers(len(_CONTEXTS)))
        noun, _, _, sets = _CONTEXTS[ctx]
        k = 3 if rng.random() < 0.65 else 2
        letters = [s[0] for s in sets[:k]]
        template = _TEMPLATES[k][int(rng.integers(len(_TEMPLATES[k])))]
        roles = [letters[i] for i in rng.permutation(k)]
        expr = template
        for placeholder, name in zip("XYZ", roles, strict=False):
            expr = expr.replace(placeholder, name)
        counts = [int(rng.integers(0, 11))] + [int(rng.integers(1, 16)) for _ in range(2**k - 1)]
        params = {"context": ctx, "noun": noun, "k": k, "letters": letters, "expr": expr, "counts": counts}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("k", "letters", "expr", "counts")

    def redraw(self, params: dict[str, Any]) -> Draw:
        k, letters, expr = params["k"], params["letters"], params["expr"]
        total = sum(_counts(params)[r] for r in evaluate(expr, letters, k))
        question = f"How many {params['noun']} are in the set ${expr}$?"
        return Draw(params, question, str(total), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        noun, letters = params["noun"], params["letters"]
        _, topic, _, sets = _CONTEXTS[params["context"]]
        x = int(rng.integers(params["k"]))
        n = int(rng.integers(2, 13))
        said = [
            f"The diagram was drawn with circles of radius {n} cm.",
            f"The counts were written into the diagram {n} days after they were collected.",
            f"The circle for ${letters[x]}$ was drawn first.",
            f"A similar diagram was made {n} years ago for a different group of {noun}.",
        ]
        if topic:
            said.append(f"The survey about the {topic} took {n} minutes for each of the {noun}.")
            said.append(f"In the diagram the letter ${letters[x]}$ stands for {sets[x][1]}.")
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        return {**params, "counts": [c * factor for c in params["counts"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(c) for c in params["counts"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        k, letters, noun = p["k"], p["letters"], p["noun"]
        _, topic, verb, sets = _CONTEXTS[p["context"]]
        objects = [o for _, o in sets[:k]]
        counts = _counts(p)
        total = sum(p["counts"])
        if topic:
            labels = [f"{x}: {o}" for x, o in zip(letters, objects, strict=True)]
            title = f"A survey of {total} {noun}: {topic}"
            defs = " " + "; ".join(
                f"${x}$ is the set of {noun} who {verb} {o}" for x, o in zip(letters, objects, strict=True)
            )
            defs += "."
        else:
            labels, title, defs = letters, f"Sets {join_words(letters)} in U ({total} elements)", ""
        if modality is Modality.IMAGE:
            png = venn_png(labels, counts, counts[(0,) * k], title)
            text = (
                f"The image shows a Venn diagram of the sets {join_words(letters)} inside the universal set "
                f"$U$ of {total} {noun}.{defs} Each number is the count of {noun} in that region alone; the "
                f"number outside the circles counts those in none of the sets.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        # Regions in reading order: one set only, two sets, all sets, then none.
        order = sorted(counts, key=lambda r: (0 if any(r) else 1, sum(r), [-b for b in r]))
        if modality is Modality.LATEX:
            rows = [(f"${region_name(r, letters)}$", counts[r]) for r in order]
            table = latex_table(["Region", "Count"], rows)
            text = (
                f"A universal set $U$ of {total} {noun} contains the sets {join_words(letters)}.{defs} The "
                f"regions of their Venn diagram (which do not overlap) have these counts:\n\n{table}\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.STORY:
            singular = "is in" if verb == "are in" else verb + "s"
            parts = [
                f"{counts[r]} {region_phrase(r, singular if counts[r] == 1 else verb, objects)}"
                for r in order
            ]
            intro = (
                f"A survey asked {total} {noun} about the {topic}."
                if topic
                else f"A collection has {total} {noun}."
            )
            story = f"{intro} Of them, " + "; ".join(parts) + "." + defs
            text = f"{story}\n\n{variant.question}"
            return Representation(modality, text, extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
