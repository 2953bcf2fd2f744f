"""Every case of the bad-input catalogue (`isodyn.testing.bad_input`) through the real command line:
the exit code and the one-line answer a careful tool gives, and never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from isodyn.testing.bad_input import CASES, run_case


def test_the_catalogue_is_large_and_named_uniquely() -> None:
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_gets_a_one_line_answer(case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    assert not outcome.traceback, outcome.stderr
    assert outcome.exit_code == case.exit_code, outcome.stderr
    assert outcome.says_it, f"expected {case.says!r} in: {outcome.stderr}"
    if case.exit_code == 2:
        assert outcome.one_line, outcome.stderr
