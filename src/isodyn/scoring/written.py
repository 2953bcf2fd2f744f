"""How an answer is written, apart from what it says: presentation stripped (`$`, `**`, `\\boxed{}`,
`\\text{}`), text normalized for comparison, and whether a text is mathematics short enough for a
symbolic parse (pure functions)."""

from __future__ import annotations

import re
from functools import lru_cache

_LATEX_TEXT = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_WHOLE_BOX = re.compile(r"^\\(?:boxed|fbox)\s*\{(.*)\}$", re.DOTALL)


def _unwrap(text: str) -> str:
    """Strip presentation around an answer: `$`, `\\(...\\)`, `**bold**`, `\\boxed{}`, `\\text{}`."""
    text = text.strip()
    for _ in range(3):  # wrappers nest: `$\boxed{\text{B}}$`
        before = text
        text = text.strip("*").strip()  # bold around the answer; `x**2` inside stays
        text = re.sub(r"^\\\(|\\\)$|^\\\[|\\\]$", "", text).strip()
        text = text.strip("$").strip()
        if match := _WHOLE_BOX.match(text):
            text = match.group(1).strip()
        if text == before:
            break
    return _LATEX_TEXT.sub(r"\1", text)


@lru_cache(maxsize=8192)  # options and short answers recur in every cell of a run
def _normalize_text(text: str) -> str:
    text = _unwrap(text).replace("$", "").replace("**", "")
    text = re.sub(r"\s*([:=,+])\s*", r"\1 ", text)  # `\sqrt{2} : 1` is `\sqrt{2}: 1`
    return re.sub(r"\s+", " ", text.strip().strip(".").strip()).casefold()


_WORDY = re.compile(
    r"\b(?!(?:sin|cos|tan|log|ln|exp|sqrt|pi|frac|infty|cup|cap|le|ge|leq|geq|neq|in)\b)[A-Za-z]{3,}\b"
)


def _math_like(text: str) -> bool:
    """Short enough, bracketed sanely enough and free of prose, to be worth a symbolic parse
    (math-verify can spend its whole timeout on `((((((...`, and milliseconds on any sentence)."""
    plain = re.sub(r"\\(?:begin|end)\{\w+\*?\}|\\[A-Za-z]+", "", text)  # `\\begin{pmatrix}` is no prose
    return len(text) <= 200 and sum(text.count(b) for b in "([{") <= 24 and not _WORDY.search(plain)


_GREEK = (
    "alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|rho"
    "|sigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Sigma|Phi|Psi|Omega"
)
_GREEK_LETTER = re.compile(rf"\\(?:{_GREEK})(?![A-Za-z])")
_TEXT_WRAPPER = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mbox)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\(?:begin|end)\s*\{\w+\*?\}|\\[A-Za-z]+")
_KNOWN_NAME = re.compile(
    r"(?<![A-Za-z])(?:(?:arc)?(?:sin|cos|tan|sec|csc|cot)h?|log|ln|exp|sqrt|pi|e|i|inf|infty|infinity)(?![A-Za-z])"
)


def has_variable(text: str) -> bool:
    """Whether mathematics names an unknown, a letter standing alone (`x`, `2T`, `\\theta`), not only
    numbers, constants and functions (`\\arcsin(\\frac{1}{\\sqrt5})`, `2\\pi`, `e^2`); words (`or`,
    `cm`) and text in `\\text{}` are no unknowns."""
    text = _GREEK_LETTER.sub(" v ", _TEXT_WRAPPER.sub(" ", text))
    text = _KNOWN_NAME.sub(" ", _COMMAND.sub(" ", text))
    return bool(re.search(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", text))
