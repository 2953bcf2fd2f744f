"""Prompt templates (jinja2 files, one per template, beside the code that uses them) and the answer
format every prompt asks for: DynaMath's JSON with a `short answer` (`scoring.json_answer` reads it)."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

ANSWER_KEY = "short answer"
SOLUTION_KEY = "solution"


def format_answer(solution: str, short_answer: str, indent: int | None = None) -> str:
    """A reply in the requested format (the inverse of `json_answer`): what a strategy that builds
    its own reply (DSPy) returns, and the example the prompt shows."""
    return json.dumps({SOLUTION_KEY: solution, ANSWER_KEY: short_answer}, ensure_ascii=False, indent=indent)


# The example of the format shown in every prompt (DynaMath Appendix C.1, published wording).
ANSWER_EXAMPLE = format_answer("[Detailed step-by-step explanation]", "[Concise Answer]", indent=2)


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.PackageLoader("isodyn.strategies", "templates"),
                jinja2.PackageLoader("isodyn.scoring", "templates"),
            ]
        ),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # prompts are plain text, not HTML
        auto_reload=False,  # templates ship with the package; no stat() of the file per prompt
    )
    # the one answer format, so the prompt asks for exactly what the graders read
    environment.globals.update(
        answer_key=ANSWER_KEY, solution_key=SOLUTION_KEY, answer_example=ANSWER_EXAMPLE
    )
    return environment


@cache
def _template(name: str) -> jinja2.Template:
    return _environment().get_template(name)


def render_template(name: str, **values: Any) -> str:
    return _template(name).render(**values).strip()


# The folders of the prompt templates (loaded above): what a model is asked, word for word.
PROMPT_TEMPLATES = ("strategies/templates", "scoring/templates")


def files_digest(folders: tuple[str, ...], suffixes: tuple[str, ...]) -> hashlib._Hash:
    """A SHA-256 of the names and bytes of the package's files under `folders` (more may be added)."""
    root = Path(__file__).parent  # the package's folder
    digest = hashlib.sha256()
    paths = (p for folder in folders for p in (root / folder).rglob("*") if p.suffix in suffixes)
    for path in sorted(p for p in paths if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest


@cache
def prompt_digest() -> str:
    """SHA-256 of the prompt templates: runs with the same one asked their models in the same words."""
    return files_digest(PROMPT_TEMPLATES, (".j2",)).hexdigest()
