"""Text forms read as written for their medium: no article slips ("a orange", "an red"), no "there
are 1", and no text form pointing at a picture it does not have."""

from __future__ import annotations

import re

import pytest

from isodyn.core import Modality
from isodyn.generators import all_seeds

VARIANTS = 30
SLIPS = (
    re.compile(r"(?<![\w$\\{])a (?=[aeio][a-z])(?!one\b)"),  # "a orange" (a one-to-one is right)
    re.compile(r"(?<![\w$\\{])an (?=[bcdfgjklmnpqrstvwxz][a-z])"),  # "an red"
    re.compile(r"\bthere are 1 \w+"),  # "there are 1 connected components"
    re.compile(r"\b0 parts are\b"),  # "0 parts are purple" (no part is)
    re.compile(r"\bon the map\b"),  # a story of towns and roads has no map
    re.compile(r"\b(?:shown|given) (?:in|by|on) the (?:picture|image|figure|table)\b"),  # not a picture
)


def near(text: str, found: re.Match[str]) -> str:
    return text[max(0, found.start() - 50) : found.end() + 20]


@pytest.mark.parametrize("seed_id", sorted(all_seeds()))
def test_text_forms_have_no_slips(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        texts = [("solution", variant.solution)]
        texts += [
            (m.value, seed.representation(variant, m).text)
            for m in seed.modalities
            if m is not Modality.IMAGE
        ]
        for where, text in texts:
            for slip in SLIPS:
                found = slip.search(text)
                assert found is None, (
                    f"{seed_id}/{index} {where}: ...{near(text, found)}..."
                )


# Outside math mode a LaTeX form writes prose only: a measured quantity ("8 cm"), a signed number
# ("-5", which LaTeX sets as a hyphen) or a Unicode symbol standing in for a LaTeX one belongs in $...$.
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\begin\{(tabular|array)\}.*?\\end\{\1\}", re.S)
OUTSIDE_MATH = (
    re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:mm|cm|km|m|kg|g|s|N|J|V|Hz|mol|mL|°|cm²|m/s)(?![\w/])"),
    re.compile(r"(?<![\w-])-\d"),
    re.compile(r"[π∠≤≥×√]"),
)
# "$AB = 5$ cm": the unit belongs inside, upright ($AB = 5\,\text{cm}$)
UNIT = re.compile(r"\s?(?:mm|cm|km|m|kg|g|s|N|J|V|Hz|mol|mL|°)(?![\w/])")


def unit_after_math(text: str) -> re.Match[str] | None:
    """A unit written just after a math span (spans paired left to right, as LaTeX pairs them)."""
    for span in MATH.finditer(text):
        if unit := UNIT.match(text, span.end()):
            return unit
    return None



# Table captions name things ("100 m sprint times", "Fruit sold (40 kg)"): prose, not quantities to read.
CAPTION_BEFORE_TABLE = re.compile(r"^[^\n]*\n\n\\begin\{tabular\}", re.M)


def latex_prose(text: str, question: str) -> str:
    """The seed's own LaTeX text: without the question (shared by every modality), math and captions."""
    body = text.replace(question, "")
    body = CAPTION_BEFORE_TABLE.sub(r"\\begin{tabular}", body)
    return MATH.sub(" ", body)


@pytest.mark.parametrize(
    "seed_id", sorted(s for s, seed in all_seeds().items() if Modality.LATEX in seed.modalities)
)
def test_latex_forms_keep_quantities_in_math_mode(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        text = seed.representation(variant, Modality.LATEX).text.replace(variant.question, "")
        unit = unit_after_math(text)
        assert unit is None, f"{seed_id}/{index}: ...{near(text, unit)}..."
        prose = latex_prose(text, variant.question)
        for rule in OUTSIDE_MATH:
            found = rule.search(prose)
            assert found is None, f"{seed_id}/{index}: ...{near(prose, found)}..."


def test_latex_prose_check_catches_the_old_wording() -> None:
    old = "Its height h = 24 cm and slant height l = 25 cm.\n\nWhat is r?"
    assert OUTSIDE_MATH[0].search(latex_prose(old, "What is r?"))
    assert OUTSIDE_MATH[1].search(latex_prose("for $x$ from -5 to 5", ""))
    assert OUTSIDE_MATH[2].search(latex_prose("for x from -π/2 to π/2", ""))
    assert unit_after_math("Its edges are $AB = 6$ cm, $AD = 4$ cm")
    assert not unit_after_math("the sets $S$ and $B$; $g = 9.8\\,\\text{m/s}^2$ and $s$ more")
    new = "Its height is $h = 24\\,\\text{cm}$ and its slant height is $l = 25\\,\\text{cm}$."
    assert not any(rule.search(latex_prose(new, "")) for rule in OUTSIDE_MATH)


# The prose around a code form calls its data by what it is in code (a list, a dictionary), never by
# a picture's name. (Code comments may say what the data stand for: "points of a scatter plot".)
PICTURE_NOUNS = re.compile(r"\b(?:table|image|picture|chart|plot|diagram)s?\b", re.I)


@pytest.mark.parametrize(
    "seed_id", sorted(s for s, seed in all_seeds().items() if Modality.CODE in seed.modalities)
)
def test_code_forms_do_not_name_a_picture(seed_id: str) -> None:
    seed = all_seeds()[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        prose = re.sub(r"```.*?```", " ", seed.representation(variant, Modality.CODE).text, flags=re.S)
        found = PICTURE_NOUNS.search(prose)
        assert found is None, f"{seed_id}/{index}: ...{near(prose, found)}..."
