"""Build `cases.jsonl` from Math-Verify's own tests (github.com/huggingface/Math-Verify).

The test files are read as source with `ast` (never imported or run): every
`@pytest.mark.parametrize` row of a test whose arguments include a gold, a prediction and an expected
verdict becomes one case, with the comparison settings its test passes to Math-Verify (`match_types`,
`precision`, `strict`, `allow_set_relation_comp`: the literal keyword values of the `compare_strings`
call in the test body, else the row's own value for a parametrized setting, else the defaults of
`compare_strings`; a test calling `parse`/`verify` directly has Math-Verify's defaults).

Usage: python tests/corpus/math_verify/build.py GIT_DIR [COMMIT]
(GIT_DIR is a clone or bare git directory of huggingface/Math-Verify; COMMIT defaults to HEAD.)
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FILES = (
    "tests/test_all.py",
    "tests/test_boxed.py",
    "tests/test_numina_cases.py",
    "tests/test_open_thoughts.py",
    "tests/test_strict.py",
    "tests/test_yujianll.py",
)
GOLD, PRED, EXPECTED = "gold", "pred", ("expected", "result")
SETTINGS = ("match_types", "precision", "strict", "allow_set_relation_comp")
# `compare_strings` in tests/test_all.py; a bare `verify(parse(gold), parse(pred))` has its own defaults.
COMPARE_DEFAULTS: dict[str, Any] = {
    "match_types": ["latex", "expr"],
    "precision": 6,
    "strict": True,
    "allow_set_relation_comp": False,
}
# `parse()` reads LaTeX and expressions; `verify()` rounds to 6 places, strictly: as `compare_strings`
LIBRARY_DEFAULTS: dict[str, Any] = dict(COMPARE_DEFAULTS)


@dataclass(frozen=True)
class Case:
    gold: str
    prediction: str
    expected: bool
    test: str
    file: str
    match_types: list[str]
    precision: int
    strict: bool
    allow_set_relation_comp: bool


def _git_show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _parametrize(function: ast.FunctionDef) -> tuple[list[str], list[ast.expr]] | None:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "pytest.mark.parametrize":
            names = [n.strip() for n in ast.literal_eval(decorator.args[0]).split(",")]
            rows = decorator.args[1]
            assert isinstance(rows, ast.List | ast.Tuple)
            return names, list(rows.elts)
    return None


def _call_settings(function: ast.FunctionDef) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings of the body's `compare_strings` call: literal ones, and ones taken from a row."""
    literal: dict[str, Any] = {}
    from_row: dict[str, str] = {}
    calls = [
        n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n.func) == "compare_strings"
    ]
    if not calls:
        return dict(LIBRARY_DEFAULTS), {}
    for keyword in calls[0].keywords:
        if keyword.arg in SETTINGS:
            if isinstance(keyword.value, ast.Name):
                from_row[keyword.arg] = keyword.value.id
            else:
                literal[keyword.arg] = ast.literal_eval(keyword.value)
    return {**COMPARE_DEFAULTS, **literal}, from_row


def _literal(node: ast.expr) -> Any:
    """A row's value; an f-string (`f"{math.sqrt(17):.15f}"`) is evaluated with `math` alone in scope."""
    if isinstance(node, ast.Tuple):
        return tuple(_literal(element) for element in node.elts)
    if isinstance(node, ast.JoinedStr):
        return eval(compile(ast.Expression(node), "<row>", "eval"), {"__builtins__": {}, "math": math})
    return ast.literal_eval(node)


def _asserted_calls(function: ast.FunctionDef, path: str) -> list[Case]:
    """`assert compare_strings("gold", "pred", ...) == 1` written out in a test without parameters."""
    out = []
    for node in ast.walk(function):
        if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)):
            continue
        call, (expected,) = node.test.left, node.test.comparators
        if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "compare_strings"):
            continue
        settings = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg in SETTINGS}
        gold, pred = (ast.literal_eval(arg) for arg in call.args[:2])
        out.append(
            Case(
                gold,
                pred,
                bool(ast.literal_eval(expected)),
                function.name,
                path,
                **{**COMPARE_DEFAULTS, **settings},
            )
        )
    return out


def cases_of(source: str, path: str) -> list[Case]:
    out = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef):
            continue
        if (found := _parametrize(function)) is None:
            out += _asserted_calls(function, path)
            continue
        names, rows = found
        expected_name = next((n for n in EXPECTED if n in names), None)
        if GOLD not in names or PRED not in names or expected_name is None:
            continue
        settings, from_row = _call_settings(function)
        for row in rows:
            values = dict(zip(names, _literal(row), strict=True))
            row_settings = {**settings, **{k: values[v] for k, v in from_row.items()}}
            out.append(
                Case(
                    gold=values[GOLD],
                    prediction=values[PRED],
                    expected=bool(values[expected_name]),
                    test=function.name,
                    file=path,
                    **row_settings,
                )
            )
    return out


def main(git_dir: str, commit: str = "HEAD") -> None:
    resolved = subprocess.run(
        ["git", "--git-dir", git_dir, "rev-parse", commit], check=True, capture_output=True, text=True
    ).stdout.strip()
    cases = [case for path in FILES for case in cases_of(_git_show(git_dir, resolved, path), path)]
    with open(HERE / "cases.jsonl", "w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps(asdict(case), ensure_ascii=False) + "\n")
    (HERE / "LICENSE").write_text(_git_show(git_dir, resolved, "LICENCE"), encoding="utf-8")
    print(f"{len(cases)} cases from {resolved}")


if __name__ == "__main__":
    main(*sys.argv[1:])
