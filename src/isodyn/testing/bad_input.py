"""A catalogue of bad input, each case run through the real command line (`python -m isodyn`).

Each `Case` builds its files in a scratch directory, names the words a user types, and says what a
careful tool does: the exit code and a phrase of the one-line answer. `run_case` runs it and reports
what happened: exit code, whether the answer was one line, whether a traceback escaped. The test
module `tests/test_bad_input.py` asserts every case; `benchmarks/bad_input.py` prints the tally and
writes the table in `docs/bad-input.md`. The cases themselves (`CASES`) are
`testing/bad_input_cases.py`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Setup = Callable[[Path], list[str]]  # makes files in the scratch directory; returns extra words

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE")


@dataclass(frozen=True)
class Case:
    name: str
    words: tuple[str, ...]
    exit_code: int
    says: str  # a phrase the answer contains (stderr)
    setup: Setup | None = None
    one_line: bool = True  # an error is one line


@dataclass
class Outcome:
    case: Case
    exit_code: int
    stderr: str
    traceback: bool = False
    one_line: bool = True
    says_it: bool = True
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.exit_code == self.case.exit_code
            and not self.traceback
            and self.says_it
            and (self.one_line or not self.case.one_line)
        )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Finished:
    """What one command line did: its exit code and what it printed."""

    exit_code: int
    stdout: str
    stderr: str


Invoke = Callable[[list[str], dict[str, str], Path], Finished]  # words, environment, working folder


def in_subprocess(words: list[str], env: dict[str, str], cwd: Path) -> Finished:
    """`python -m isodyn WORDS` in a fresh interpreter: the real command line, start-up included."""
    done = subprocess.run(
        [sys.executable, "-m", "isodyn", *words],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )
    return Finished(done.returncode, done.stdout, done.stderr)


def run_case(case: Case, scratch: Path, invoke: Invoke = in_subprocess) -> Outcome:
    """Run one case in `scratch` (made empty by the caller) and say what happened."""
    extra = case.setup(scratch) if case.setup else []
    words = [w.format(scratch=scratch, port=closed_port()) for w in case.words] + extra
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    done = invoke(words, env, scratch)
    stderr = done.stderr.strip()
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    return Outcome(
        case,
        done.exit_code,
        stderr,
        traceback="Traceback" in stderr or "Traceback" in done.stdout,
        one_line=done.exit_code == 0 or (len(errors) == 1 and len(lines) <= 2),
        says_it=case.says.lower() in stderr.lower(),
    )
