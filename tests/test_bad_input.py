"""Every case of the bad-input catalogue (`isodyn.testing.bad_input`): the exit code and the one-line
answer a careful tool gives, and never a traceback.

Most cases run `exp` in this process (starting an interpreter and importing litellm costs ~3 s a
case); every `SUBPROCESS_EVERY`-th case, and each one that cannot run in-process, goes through the
real command line in a fresh interpreter, so start-up and exit codes stay tested as users meet them.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import pytest

from isodyn.testing.bad_input import KEYS, Finished, in_subprocess, run_case
from isodyn.testing.bad_input_cases import CASES

SUBPROCESS_EVERY = 8


def test_the_catalogue_is_large_and_named_uniquely() -> None:
    assert len(CASES) >= 60
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    def invoke(words: list[str], env: dict[str, str], cwd: Path) -> Finished:
        for key in KEYS:
            monkeypatch.delenv(key, raising=False)
        monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["exp", *words])
        code = 0
        try:
            from isodyn import cli

            cli.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:  # what a user would see as a traceback
            out, err = capsys.readouterr()
            return Finished(1, out, err + traceback.format_exc())
        out, err = capsys.readouterr()
        return Finished(code, out, err)

    return invoke


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case.name for case in CASES])
def test_bad_input_gets_a_one_line_answer(index: int, tmp_path: Path, in_process) -> None:
    case = CASES[index]
    invoke = in_subprocess if index % SUBPROCESS_EVERY == 0 else in_process
    outcome = run_case(case, tmp_path, invoke)
    assert not outcome.traceback, outcome.stderr
    assert outcome.exit_code == case.exit_code, outcome.stderr
    assert outcome.says_it, f"expected {case.says!r} in: {outcome.stderr}"
    if case.exit_code == 2:
        assert outcome.one_line, outcome.stderr
