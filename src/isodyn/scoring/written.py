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
