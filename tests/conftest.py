import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import settings

from user_cli import NO_KEYS

# Property tests draw the same examples on every run, so CI cannot pass one day and fail the next on
# luck. HYPOTHESIS_PROFILE=explore draws fresh ones (run it now and then; fix what it finds).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=300)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No test reads a user's cache, and no test can reach a hosted API with a real key."""
    monkeypatch.setenv("ISODYN_CACHE_DIR", str(tmp_path / "default-cache"))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in NO_KEYS:
        monkeypatch.delenv(name, raising=False)


@dataclass
class Done:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Any]:
    """`exp ARGS` in this process (no interpreter to start, litellm imported once): its exit code,
    stdout and stderr. An exception that escapes `main()` (a traceback for a user) fails the test."""

    def run(*args: str) -> Done:
        monkeypatch.setattr(sys, "argv", ["exp", *args])
        code = 0
        try:
            from isodyn import cli

            cli.main()  # a run releases its lock when it returns or fails: nothing is left held
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        out, err = capsys.readouterr()
        return Done(code, out, err)

    yield run


def pytest_terminal_summary(terminalreporter) -> None:
    """The reply corpus's size and shares per pattern, printed with every test run (issue 13)."""
    from corpus import load_corpus, summary_lines

    for line in summary_lines(load_corpus()):
        terminalreporter.write_line(line)
    real = __import__("sys").modules.get("test_real_replies")
    for line in getattr(real, "SUMMARY", []):  # filled when the real-reply test ran
        terminalreporter.write_line(line)
