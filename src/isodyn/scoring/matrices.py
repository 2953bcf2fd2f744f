"""Matrices as written: LaTeX (`\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}`, `bmatrix`, `matrix`,
`\\left[\\begin{array}{cc} ... \\end{array}\\right]`) or nested brackets of two rows or more
(`[[1, 2], [3, 4]]`, `((1, 2), (3, 4))`), read as rows of cell texts (pure functions). A determinant
(`vmatrix`) is a number, not a matrix: not read."""

from __future__ import annotations

import re
from collections.abc import Callable

_ENVIRONMENT = re.compile(
    r"^\s*(?:\\left\s*[\[(]\s*)?\\begin\{(?P<kind>[pbB]?matrix|array)\}(?:\{[lcr|\s]*\})?"
    r"(?P<body>(?:(?!\\begin|\\end).)*)\\end\{(?P=kind)\}\s*(?:\\right\s*[\])]\s*)?$",
    re.DOTALL,
)
_NESTED = (
    re.compile(r"^\s*\[\s*(\[[^\[\]]*\](?:\s*,\s*\[[^\[\]]*\])+)\s*\]\s*$"),
    re.compile(r"^\s*\(\s*(\([^()]*\)(?:\s*,\s*\([^()]*\))+)\s*\)\s*$"),
)
_ROW_BREAK = re.compile(r"\\\\(?:\[[^\]]*\])?")

Rows = tuple[tuple[str, ...], ...]


def matrix_rows(text: str) -> Rows | None:
    """The rows of a matrix written whole, or None: `(\\begin{pmatrix}...\\end{pmatrix})` in parentheses
    too; ragged rows are no matrix."""
    text = text.strip().strip("$").strip()
    if text.startswith("(") and text.endswith(")") and "\\begin" in text:
        text = text[1:-1]
    if match := _ENVIRONMENT.match(text):
        lines = [line for line in _ROW_BREAK.split(match.group("body")) if line.strip()]
        rows = tuple(tuple(cell.strip() for cell in line.split("&")) for line in lines)
    elif nested := next((m for m in (p.match(text) for p in _NESTED) if m), None):
        rows = tuple(
            tuple(cell.strip() for cell in row.split(","))
            for row in re.findall(r"[\[(]([^\[\]()]*)[\])]", nested.group(1))
        )
    else:
        return None
    if not rows or len({len(row) for row in rows}) != 1 or any(not cell for row in rows for cell in row):
        return None
    return rows if len(rows) * len(rows[0]) > 1 else None  # `[[12]]` is a wrapped answer, no matrix


def written_as_matrix(text: str) -> bool:
    """Written in a matrix's own notation: a LaTeX environment or nested square brackets."""
    return "\\begin" in text or text.lstrip().lstrip("$").lstrip().startswith("[[")


def as_tuples(rows: Rows) -> str | None:
    """`((1, 2), (3, 4))`: a matrix in plain text (as KOR-Bench writes one), which the readers of an
    answer keep whole; None when a cell holds a bracket or a comma (`\\sqrt[3]{x}`), which would not
    read back."""
    if any(re.search(r"[\[\](),]", cell) for row in rows for cell in row):
        return None
    return "(" + ", ".join("(" + ", ".join(row) + ")" for row in rows) + ")"


def in_latex(text: str) -> str:
    """A matrix written in brackets as LaTeX (`\\begin{pmatrix} 1 & 2 \\\\ 3 & 4
    \\end{pmatrix}`), for math-verify's parser; any other text as it is."""
    if not text.lstrip().startswith("[[") or (rows := matrix_rows(text)) is None:
        return text
    return "\\begin{pmatrix}" + " \\\\ ".join(" & ".join(row) for row in rows) + "\\end{pmatrix}"


def matrices_equal(a: Rows, b: Rows, cells_equal: Callable[[str, str], bool | None]) -> bool | None:
    """Same shape and every cell equal; None when a cell cannot be compared."""
    if len(a) != len(b) or len(a[0]) != len(b[0]):
        return False
    verdicts = [
        cells_equal(x, y)
        for row_a, row_b in zip(a, b, strict=True)
        for x, y in zip(row_a, row_b, strict=True)
    ]
    if any(v is False for v in verdicts):
        return False
    return None if any(v is None for v in verdicts) else True
