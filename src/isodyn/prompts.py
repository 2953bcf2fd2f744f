"""Prompt templates: jinja2 files, one per template, beside the code that uses them."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2


@cache
def _environment() -> jinja2.Environment:
    from isodyn.scoring.json_answer import ANSWER_EXAMPLE, ANSWER_KEY, SOLUTION_KEY

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
