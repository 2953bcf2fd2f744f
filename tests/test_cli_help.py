"""Every command's help reads as written: wrapped as paragraphs at the terminal's width, never broken
mid-sentence where the source docstring happened to break its lines (issue 38)."""

from __future__ import annotations

import itertools
import re

import pytest
from typer.testing import CliRunner

from isodyn.cli import app

COMMANDS = sorted(c.name or c.callback.__name__.rstrip("_") for c in app.registered_commands if c.callback)
WIDTHS = (80, 120)


def render(args: list[str], width: int) -> list[str]:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(width), "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def premature_breaks(rows: list[tuple[str, int, bool]]) -> list[str]:
    """Rows are (text, room, continues): the text of a wrapped line, the columns it had, and whether
    the next row goes on with the same paragraph. A line broke too early when the next row's first
    word would have fit after it: greedy wrapping breaks only where the next word does not fit."""
    broken = []
    for (text, room, continues), (following, _, _) in itertools.pairwise(rows):
        if continues and following.split() and len(text) + 1 + len(following.split()[0]) <= room:
            broken.append(f"{text!r} then {following.split()[0]!r}")
    return broken


def description_rows(lines: list[str], width: int) -> list[tuple[str, int, bool]]:
    """The lines between `Usage:` and the first panel: paragraphs padded by one column each side."""
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    texts = [line[1:].rstrip() for line in lines[start:end]]
    return [(text, width - 2, bool(text) and i + 1 < len(texts) and bool(texts[i + 1]))
            for i, text in enumerate(texts)]  # fmt: skip


def panel_rows(lines: list[str]) -> list[tuple[str, int, bool]]:
    """The rows of the Commands panel: `│ name  text │`, a command's text going on in the rows below
    whose name column is blank."""
    start = next(i for i, line in enumerate(lines) if line.startswith("╭─ Commands"))
    body = [line[1:-1] for line in lines[start + 1 :] if line.startswith("│")]
    first = re.match(r"\s*\S+\s+", body[0])
    assert first is not None
    column = first.end()  # where the first command's text starts
    rows = []
    for i, inner in enumerate(body):
        text = inner[column:].rstrip()
        following_continues = i + 1 < len(body) and not body[i + 1][:column].strip()
        rows.append((text, len(inner) - 1 - column, following_continues))
    return rows


@pytest.mark.parametrize("width", WIDTHS)
def test_exp_help_lists_commands_without_broken_sentences(width: int) -> None:
    lines = render([], width)
    rows = panel_rows(lines)
    assert len([r for r in rows if r[0]]) >= len(COMMANDS)
    assert premature_breaks(rows) == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_help_wraps_as_paragraphs(command: str, width: int) -> None:
    lines = render([command], width)
    rows = description_rows(lines, width)
    assert any(text for text, _, _ in rows), f"exp {command} --help shows no description"
    assert premature_breaks(rows) == []


def test_the_check_finds_a_sentence_broken_mid_line() -> None:
    """The check itself: the old rendering (a line break kept from the docstring) is caught."""
    rows = [
        ("A study file holds the settings; key=value words", 78, True),
        ("after it override them.", 78, False),
    ]
    assert premature_breaks(rows) == ["'A study file holds the settings; key=value words' then 'after'"]
