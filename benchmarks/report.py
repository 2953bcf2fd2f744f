"""How long `exp report` takes on a large run: a synthetic run of 2 models x 7 strategies x the
4 modalities (56 arms) x every registered seed (in the modalities it renders) x 22 variants, about
52,000 cells, reported whole (findings, DynaMath's tables, agreement, grader sensitivity, figures).

    python benchmarks/report.py [--against OTHER/src] [--rounds N] [--resamples N] [--variants N]
                                [--sections] [--kept] [--run DIR]

Rows are today's format (with `question`) and carry REAL replies: each cell gets a reply of the
real corpus (tests/corpus/real: the reply, its question, truth, answer type, choices, tolerance),
so grading it costs what grading real replies costs. Whether a cell is right comes from a made-up
model (a logistic chance of model + strategy + modality - seed difficulty): the metrics keep a
signal; the grader-sensitivity section re-grades every reply anyway.

Each round runs `exp report` in a fresh process; with `--against`, this isodyn (A) and the one in
OTHER/src (B, e.g. a `git worktree` of another commit) alternate on the same run, every run printed.
Before each run the run's verdicts.jsonl (grader verdicts kept by an earlier report) is deleted, so
every run is a first report; `--kept` keeps it instead (a report that finds the verdicts kept).

`--sections` builds the report in-process (a fresh process per round and side) and prints the
seconds of each part: reading the run, the findings and their summary figure, each registered
section, the wrong samples, the ambiguous examples, the legend, and rendering Markdown and HTML.
`--run DIR` writes the run into DIR (kept afterwards; reused when DIR/results.jsonl exists).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from isodyn.generators.base import SEEDS

try:
    from isodyn.runs.results import read_results, write_results
except ImportError:  # an isodyn from before runs/ (`--against` an older checkout runs this file)
    from isodyn.results import read_results, write_results  # type: ignore[no-redef]

STRATEGIES = {"zeroshot": 0.0, "cot3": 0.6, "antimem+cot3": 0.5, "permute+zeroshot": -0.2,
              "sc@5+cot3": 0.8, "variantdemo": 0.3, "selfdemo": 1.2}  # fmt: skip
MODALITIES = {"image": -0.7, "latex": 0.3, "code": 0.1, "story": 0.0}
MODELS = {"synthetic/strong": 0.6, "synthetic/weak": -0.6}  # made up: no model was asked
VARIANTS = 22
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "real"
VERDICTS_FILE = "verdicts.jsonl"  # where a report keeps each grader's verdicts (runs.verdict_book)


def real_replies() -> list[dict[str, Any]]:
    """The real corpus: each reply with its question's text, truth, answer type, choices, tolerance."""
    with gzip.open(CORPUS / "questions.jsonl.gz") as lines:
        questions = {q["item"]: q for q in map(json.loads, lines)}
    with gzip.open(CORPUS / "replies.jsonl.gz") as lines:
        replies = [r for r in map(json.loads, lines) if r["item"] in questions and r.get("reply")]
    return [
        {**questions[r["item"]], "reply": r["reply"], "bench_answer": r.get("bench_answer")} for r in replies
    ]


def _wrong_answer(source: dict[str, Any]) -> str:
    """An answer that is not the truth: the benchmark's own reading when it differs, else made up."""
    bench = source.get("bench_answer")
    if bench not in (None, "", source["truth"]):
        return str(bench)
    if source["answer_type"] == "multiple_choice":
        letters = "ABCDEFGHIJ"[: max(2, len(source["choices"]))]
        return next(letter for letter in letters if letter != source["truth"])
    return f"not {source['truth']}"


def synthetic_rows(seed: int = 7, variants: int = VARIANTS) -> list[dict[str, object]]:
    """results.jsonl rows: right with a logistic chance of model + strategy + modality - difficulty;
    each cell's reply, question and truth are a real reply's (picked by a hash of the cell)."""
    rng = np.random.default_rng(seed)
    replies = real_replies()
    seeds = [entry.value for entry in SEEDS.entries()]
    difficulty = {program.seed_id: rng.normal(0, 1) for program in seeds}
    rows: list[dict[str, object]] = []
    for model, model_bias in MODELS.items():
        for strategy, strategy_bias in STRATEGIES.items():
            for modality, modality_bias in MODALITIES.items():
                for program in seeds:
                    if modality not in {m.value for m in program.modalities}:
                        continue
                    for variant in range(variants):
                        z = model_bias + strategy_bias + modality_bias - difficulty[program.seed_id]
                        right = bool(rng.random() < 1 / (1 + np.exp(-(z + rng.normal(0, 0.6)))))
                        cell = f"{model}|{strategy}|{modality}|{program.seed_id}|{variant}"
                        pick = int(hashlib.sha256(cell.encode()).hexdigest()[:12], 16) % len(replies)
                        source = replies[pick]
                        tolerance = float(source["tolerance"]) if source.get("tolerance") else 0.0
                        rows.append({
                            "model": model, "strategy": strategy, "modality": modality,
                            "seed_id": program.seed_id, "variant": variant, "repeat": 0,
                            "topic": program.topic.value, "level": program.level.value,
                            "answer_type": source["answer_type"], "question": source["question"],
                            "choices": list(source["choices"]), "truth": source["truth"],
                            "abs_tol": tolerance, "rel_tol": 0.0,
                            "extracted": source["truth"] if right else _wrong_answer(source),
                            "correct": right, "reason": "ok", "method": "answer_line",
                            "ambiguity": "clear", "grader": "isodyn", "response": source["reply"],
                            "variation_types": [t.value for t in program.variation_types],
                        })  # fmt: skip
    return rows


def write_run(run_dir: Path, variants: int = VARIANTS) -> int:
    """The run in `run_dir` (reused when results.jsonl is already there); its number of cells."""
    results = run_dir / "results.jsonl"
    if results.exists():
        with results.open("rb") as lines:
            return sum(1 for _ in lines)
    rows = synthetic_rows(variants=variants)
    run_dir.mkdir(parents=True, exist_ok=True)
    with results.open("w") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    config = {"models": list(MODELS), "strategies": list(STRATEGIES), "modalities": list(MODALITIES),
              "variants": variants, "repeats": 1}  # fmt: skip
    (run_dir / "config.json").write_text(json.dumps(config))
    # rewritten as a run writes its rows (the current schema), so reading them is what a report pays
    write_results(results, read_results(run_dir).results)
    return len(rows)


def report_seconds(run_dir: Path, resamples: int, source: str | None) -> float:
    """One `exp report` in a fresh process, by this isodyn or by the one in `source`."""
    env = {**os.environ, "PYTHONPATH": source} if source else None
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "isodyn", "report", str(run_dir), f"resamples={resamples}"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(done.stderr)
    return time.perf_counter() - start


# ---- --sections: each part of build_report, timed in-process ----------------------------------------


def _timed(seconds: dict[str, float], name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start

    return run


def section_seconds(run_dir: Path, resamples: int) -> dict[str, float]:
    """Seconds of each part of one report of `run_dir`, built by `build_report` with its parts timed
    (the module's own functions wrapped, so the report is built exactly as `exp report` builds it)."""
    try:
        from isodyn.analysis import run_report as report
    except ImportError:  # before the module's name said its job
        from isodyn.analysis import report  # type: ignore[attr-defined,no-redef]
    from isodyn.analysis.metrics import Bootstrap

    seconds: dict[str, float] = {}
    start = time.perf_counter()
    run = read_results(run_dir)
    seconds["read run"] = time.perf_counter() - start
    sections = report.SECTIONS  # as build_report reads it, each section timed under its name
    report.SECTIONS = {name: _timed(seconds, f"section {name}", sections[name]) for name in sections}  # type: ignore[assignment]
    parts = ("encodable", "results_frame", "graded_cells", "run_baseline", "find", "sentences",
             "_wrong_samples", "ambiguous_examples", "legend")  # fmt: skip
    for name in parts:
        if hasattr(report, name):
            setattr(report, name, _timed(seconds, name, getattr(report, name)))
    report.plots.findings_summary = _timed(seconds, "findings summary figure", report.plots.findings_summary)
    extra: dict[str, Any] = {}
    book = None
    if hasattr(report, "VerdictBook"):  # kept verdicts (the release before it grades afresh)
        book = report.VerdictBook.read(run_dir / report.VERDICTS_FILE)
        extra["regrade"] = book.verdicts
    start = time.perf_counter()
    content = report.build_report(
        run.results, run.summary, run.config, run_dir.name, Bootstrap(resamples=resamples), **extra
    )
    seconds["build_report (whole)"] = time.perf_counter() - start
    for name, render in (("render markdown", report.render_markdown), ("render html", report.render_html)):
        start = time.perf_counter()
        render(content)
        seconds[name] = time.perf_counter() - start
    if book is not None:
        book.write(run_dir / report.VERDICTS_FILE)  # as write_report does: a --kept run finds it
    return seconds


def sections_in_process(run_dir: Path, resamples: int, source: str | None) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": source} if source else None
    command = [sys.executable, __file__, "--child", str(run_dir), "--resamples", str(resamples)]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode:
        raise SystemExit(done.stderr)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# ---- the command ----------------------------------------------------------------------------------


def option(arguments: list[str], name: str, default: str | None) -> str | None:
    if name not in arguments:
        return default
    at = arguments.index(name)
    value = arguments[at + 1]
    del arguments[at : at + 2]
    return value


def flag(arguments: list[str], name: str) -> bool:
    if name in arguments:
        arguments.remove(name)
        return True
    return False


def _print_sections(seconds: dict[str, dict[str, list[float]]]) -> None:
    names = list(dict.fromkeys(name for side in seconds.values() for name in side))
    sides = list(seconds)
    print("median s per part: " + "  ".join(f"{side:>8}" for side in sides))
    for name in names:
        values = "  ".join(
            f"{statistics.median(seconds[side][name]):8.2f}" if seconds[side].get(name) else f"{'-':>8}"
            for side in sides
        )
        print(f"  {name:40} {values}")


def main() -> None:
    arguments = sys.argv[1:]
    child = option(arguments, "--child", None)
    resamples = int(option(arguments, "--resamples", "10000") or 10_000)
    if child is not None:  # one --sections measurement, in this fresh process
        print(json.dumps(section_seconds(Path(child), resamples)))
        return
    other = option(arguments, "--against", None)
    rounds = int(option(arguments, "--rounds", "3") or 3)
    variants = int(option(arguments, "--variants", str(VARIANTS)) or VARIANTS)
    kept_dir = option(arguments, "--run", None)
    by_section, kept = flag(arguments, "--sections"), flag(arguments, "--kept")
    sources = {"A": None} if other is None else {"A": None, "B": str(Path(other).resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(kept_dir) if kept_dir else Path(tmp) / "run"
        cells = write_run(run_dir, variants)
        arms = len(MODELS) * len(STRATEGIES) * len(MODALITIES)
        print(f"{cells:,} cells in {arms} arms; A = this isodyn" + (f", B = {other}" if other else ""))
        print("verdicts kept from before" if kept else "first report: verdicts.jsonl deleted before each")
        print("round  side  " + ("build_report s" if by_section else "exp report s"))
        seconds: dict[str, list[float]] = {name: [] for name in sources}
        parts: dict[str, dict[str, list[float]]] = {name: {} for name in sources}
        for number in range(1, rounds + 1):
            order = list(sources.items()) if number % 2 else list(reversed(sources.items()))
            for name, source in order:
                if not kept:
                    (run_dir / VERDICTS_FILE).unlink(missing_ok=True)
                if by_section:
                    found = sections_in_process(run_dir, resamples, source)
                    for part, value in found.items():
                        parts[name].setdefault(part, []).append(value)
                    seconds[name].append(found["read run"] + found["build_report (whole)"])
                else:
                    seconds[name].append(report_seconds(run_dir, resamples, source))
                print(f"{number:5}  {name:4}  {seconds[name][-1]:12.1f}", flush=True)
        medians = {name: statistics.median(values) for name, values in seconds.items()}
        line = "   ".join(f"{name} {value:.1f} s" for name, value in medians.items())
        ratio = f"   A/B {medians['A'] / medians['B']:.3f}" if "B" in medians else ""
        print(f"median  {line}{ratio}")
        if by_section:
            _print_sections(parts)


if __name__ == "__main__":
    main()
