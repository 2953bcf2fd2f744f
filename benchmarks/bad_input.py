"""The bad-input tally: every case of `isodyn.testing.bad_input` through the real command line, plus
two integrity scenarios against the loopback stub (a damaged line then a resume; the same command
twice at once). Prints the counts the issue asks for and writes docs/bad-input.md.

    python benchmarks/bad_input.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.bad_input import Outcome, run_case
from isodyn.testing.bad_input_cases import CASES

DOCS = Path(__file__).resolve().parents[1] / "docs" / "bad-input.md"


def _one(case) -> Outcome:
    with tempfile.TemporaryDirectory() as tmp:
        return run_case(case, Path(tmp))


def _exp(*words: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "isodyn", *words]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _cells(run_dir: Path) -> list[tuple]:
    keys = ("model", "strategy", "modality", "seed_id", "variant", "repeat")
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return [tuple(r[k] for k in keys) for r in rows]


def integrity() -> dict[str, int]:
    """Rows lost and paid calls repeated in the two scenarios."""
    lost = repeated = 0
    gate = threading.Event()

    def reply(request: dict) -> ScriptedReply:
        gate.wait(timeout=60)
        return ScriptedReply(text=json.dumps({"solution": "s", "short answer": "A"}))

    with tempfile.TemporaryDirectory() as tmp, OpenAIStub(reply) as stub:
        root = Path(tmp)
        words = ["run", "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity",
                 "modalities=latex,code", "variants=6", f"out={root / 'runs'}", f"cache_dir={root / 'c'}",
                 "quiet=1"]  # fmt: skip
        first = subprocess.Popen([sys.executable, "-m", "isodyn", *words], stderr=subprocess.PIPE, text=True)
        while not stub.requests:
            time.sleep(0.05)
        _exp(*words)  # the same command while the first one runs
        gate.set()
        first.communicate(timeout=300)
        (run_dir,) = [p for p in (root / "runs").iterdir() if p.is_dir()]
        repeated += len(stub.requests) - len(set(_cells(run_dir)))
        lines = (run_dir / "results.jsonl").read_text().splitlines(keepends=True)
        finished = [json.loads(line) for line in lines[3:10]]
        (run_dir / "results.jsonl").write_text("".join([*lines[:2], "{damaged\n", *lines[3:10]]))
        summary = json.loads((run_dir / "summary.json").read_text())
        (run_dir / "summary.json").write_text(json.dumps({**summary, "complete": False}))
        asked = len(stub.requests)
        _exp(*words)
        now = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
        lost += sum(row not in now for row in finished)
        repeated += len(stub.requests) - asked
    return {"rows_lost": lost, "calls_repeated": repeated}


def _table(outcomes: list[Outcome]) -> str:
    lines = [
        "# Bad input and what it gets",
        "",
        "Written by `python benchmarks/bad_input.py` from the cases in",
        "`src/isodyn/testing/bad_input_cases.py`; `tests/test_bad_input.py` checks every row. Exit 2 is",
        "bad input (one line on stderr), 0 is a run or report that went on and said what it set aside.",
        "",
        "| case | command | exit | answer |",
        "| --- | --- | --- | --- |",
    ]
    for outcome in outcomes:
        words = " ".join(outcome.case.words).replace("{scratch}/", "").replace("|", "\\|")
        answer = (outcome.stderr.splitlines() or [""])[-1 if outcome.exit_code == 0 else 0]
        answer = answer.replace("|", "\\|").replace("/tmp/", "")[:160]
        lines.append(f"| {outcome.case.name} | `exp {words}` | {outcome.exit_code} | {answer} |")
    return "\n".join(lines) + "\n"


HAND_WRITTEN = "\n## Hostile input"  # from here on the page is written by hand, and kept


def _written_by_hand() -> str:
    """The hand-written part of the page (the hostile-input cases, each a test), kept as it is."""
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    at = text.find(HAND_WRITTEN)
    return text[at:] if at >= 0 else ""


def main() -> None:
    started = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(_one, CASES))
    errors = [o for o in outcomes if o.exit_code == 2]
    print(f"cases tried                 {len(outcomes)}")
    print(f"one-line errors (exit 2)    {sum(o.one_line for o in errors)} of {len(errors)}")
    print(f"went on and said so (0)     {sum(o.exit_code == 0 for o in outcomes)}")
    print(f"tracebacks                  {sum(o.traceback for o in outcomes)}")
    print(f"not as expected             {sum(not o.ok for o in outcomes)}")
    for key, value in integrity().items():
        print(f"{key.replace('_', ' '):<28}{value}")
    print(f"seconds                     {time.perf_counter() - started:.1f}")
    DOCS.write_text(_table(outcomes) + _written_by_hand(), encoding="utf-8")
    print(f"table: {DOCS}")


if __name__ == "__main__":
    main()
