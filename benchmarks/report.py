"""How long `exp report` takes on a large run: a synthetic run of 2 models x 7 strategies x the
4 modalities x every registered seed (in the modalities it renders) x 3 variants, about 7,000 cells,
reported whole (findings, DynaMath's tables, agreement, grader sensitivity, figures).

    python benchmarks/report.py [--against OTHER/src] [--rounds N] [--resamples N]

Each round runs `exp report` in a fresh process; with `--against`, this isodyn (A) and the one in
OTHER/src (B, e.g. a `git worktree` of another commit) alternate on the same run, every run printed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from isodyn.generators.base import SEEDS

STRATEGIES = {"zeroshot": 0.0, "cot3": 0.6, "antimem+cot3": 0.5, "permute+zeroshot": -0.2,
              "sc@5+cot3": 0.8, "variantdemo": 0.3, "selfdemo": 1.2}  # fmt: skip
MODALITIES = {"image": -0.7, "latex": 0.3, "code": 0.1, "story": 0.0}
MODELS = {"synthetic/strong": 0.6, "synthetic/weak": -0.6}  # made up: no model was asked
VARIANTS = 3


def synthetic_rows(seed: int = 7) -> list[dict[str, object]]:
    """results.jsonl rows: right with a logistic chance of model + strategy + modality - difficulty."""
    rng = np.random.default_rng(seed)
    seeds = [entry.value for entry in SEEDS.entries()]
    difficulty = {program.seed_id: rng.normal(0, 1) for program in seeds}
    rows: list[dict[str, object]] = []
    for model, model_bias in MODELS.items():
        for strategy, strategy_bias in STRATEGIES.items():
            for modality, modality_bias in MODALITIES.items():
                for program in seeds:
                    if modality not in {m.value for m in program.modalities}:
                        continue
                    for variant in range(VARIANTS):
                        z = model_bias + strategy_bias + modality_bias - difficulty[program.seed_id]
                        right = bool(rng.random() < 1 / (1 + np.exp(-(z + rng.normal(0, 0.6)))))
                        answer = "A" if right else "B"
                        reply = f"Working through {program.seed_id} step by step.\nFinal answer: {answer}"
                        rows.append({
                            "model": model, "strategy": strategy, "modality": modality,
                            "seed_id": program.seed_id, "variant": variant, "repeat": 0,
                            "topic": program.topic.value, "level": program.level.value,
                            "answer_type": "multiple_choice", "truth": "A", "choices": ["1", "2", "3", "4"],
                            "extracted": answer, "correct": right, "reason": "ok", "method": "answer_line",
                            "ambiguity": "clear", "grader": "isodyn", "response": reply,
                            "variation_types": [t.value for t in program.variation_types],
                        })  # fmt: skip
    return rows


def write_run(run_dir: Path) -> int:
    rows = synthetic_rows()
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = {"models": list(MODELS), "strategies": list(STRATEGIES), "modalities": list(MODALITIES),
              "variants": VARIANTS, "repeats": 1}  # fmt: skip
    (run_dir / "config.json").write_text(json.dumps(config))
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


def option(arguments: list[str], name: str, default: str | None) -> str | None:
    if name not in arguments:
        return default
    at = arguments.index(name)
    value = arguments[at + 1]
    del arguments[at : at + 2]
    return value


def main() -> None:
    arguments = sys.argv[1:]
    other = option(arguments, "--against", None)
    rounds = int(option(arguments, "--rounds", "3") or 3)
    resamples = int(option(arguments, "--resamples", "10000") or 10_000)
    sources = {"A": None} if other is None else {"A": None, "B": str(Path(other).resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        cells = write_run(run_dir)
        print(f"{cells:,} cells; A = this isodyn" + (f", B = {other}" if other else ""))
        print("round  side  exp report s")
        seconds: dict[str, list[float]] = {name: [] for name in sources}
        for number in range(1, rounds + 1):
            order = list(sources.items()) if number % 2 else list(reversed(sources.items()))
            for name, source in order:
                seconds[name].append(report_seconds(run_dir, resamples, source))
                print(f"{number:5}  {name:4}  {seconds[name][-1]:12.1f}", flush=True)
        medians = {name: statistics.median(values) for name, values in seconds.items()}
        line = "   ".join(f"{name} {value:.1f} s" for name, value in medians.items())
        ratio = f"   A/B {medians['A'] / medians['B']:.3f}" if "B" in medians else ""
        print(f"median  {line}{ratio}")


if __name__ == "__main__":
    main()
