"""exp report / exp compare end to end: tables, figures, outside tables, and the HTML in Chromium."""

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from user_cli import exp


def synthetic_run(tmp_path: Path, seeds: int = 40, variants: int = 5) -> Path:
    """Two strategies on the same cells: `good` right about 80% of the time, `bad` about 40%."""
    rng = np.random.default_rng(0)
    rows = []
    for strategy, rate in (("good", 0.8), ("bad", 0.4)):
        for s in range(seeds):
            for v in range(variants):
                right = bool(rng.random() < rate)
                rows.append({
                    "model": "m", "strategy": strategy, "modality": "latex", "seed_id": f"seed{s:02d}",
                    "variant": v, "repeat": 0, "topic": ["algebra", "statistics"][s % 2],
                    "level": "high_school", "answer_type": "multiple_choice", "truth": "A",
                    "choices": ["Yes", "No"], "extracted": "A" if right else "B", "correct": right,
                    "reason": "ok", "variation_types": ["numerical_value"],
                    "transcript": [{"step": "answer", "messages": [{"role": "user", "content": "Q?"}],
                                    "response": "A" if right else "B"}],
                })  # fmt: skip
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run_dir / "config.json").write_text(json.dumps({"models": ["m"], "strategies": ["good", "bad"]}))
    return run_dir


def test_report_tables_intervals_and_figures(tmp_path) -> None:
    run_dir = synthetic_run(tmp_path)
    done = exp("report", str(run_dir), "resamples=2000", "level=0.9", "seed=3")
    assert done.returncode == 0, done.stderr
    md = (run_dir / "report.md").read_text()
    headings = (
        "Average-case accuracy A_avg (DynaMath Table 2)",
        "Worst-case accuracy A_wst (DynaMath Table 3)",
        "Reasoning robustness RR (DynaMath Table 7)",
        "By variation type",
        "Consistency",
    )
    for heading in headings:
        assert f"## {heading}" in md
    assert "| model | strategy | modality | ALL | AL | ST | HI |" in md
    good = next(line for line in md.splitlines() if line.startswith("| m | good | latex |") and "[" in line)
    low, high = map(float, re.search(r"\[([\d.]+), ([\d.]+)\]", good).groups())
    assert low < 80 < high + 10 and high - low < 30
    assert "90% cluster-bootstrap" in md
    for name in ("accuracy_by_topic", "rr", "correct_variants"):
        assert (run_dir / "figures" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    html = (run_dir / "report.html").read_text()
    assert "<table" in html and html.count("data:image/png;base64,") == 4  # the findings' summary first
    assert 'src="http' not in html and 'href="http' not in html  # standalone


def test_compare_finds_the_real_difference(tmp_path) -> None:
    run_dir = synthetic_run(tmp_path)
    done = exp("compare", str(run_dir), "by=strategy", "baseline=bad", "resamples=2000")
    assert done.returncode == 0, done.stderr
    md = (run_dir / "compare-by-strategy-vs-bad.md").read_text()
    sentence = next(line for line in md.splitlines() if line.startswith("- good beats bad by"))
    assert "after Holm" in sentence
    p = float(re.search(r"p = ([\d.e-]+) after Holm", sentence).group(1))
    assert p < 0.01
    assert (run_dir / "figures" / "forest-by-strategy-vs-bad.png").read_bytes().startswith(b"\x89PNG")


def test_compare_two_runs(tmp_path) -> None:
    first = synthetic_run(tmp_path)
    second = tmp_path / "run2"
    shutil.copytree(first, second)
    done = exp("compare", str(first), str(second), "resamples=500")
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "compare-run-vs-run2" / "compare-by-run.md").read_text()
    assert "+0.0 points" in md  # identical runs


def test_compare_bad_input(tmp_path) -> None:
    run_dir = synthetic_run(tmp_path)
    bad = exp("compare", str(run_dir), "by=colour")
    assert bad.returncode == 2 and "bad value for by: 'colour'" in bad.stderr
    bad = exp("compare", str(run_dir), "level=2")
    assert bad.returncode == 2 and "bad value for level" in bad.stderr


def test_report_from_long_form_table(tmp_path) -> None:
    table = tmp_path / "gpt-4o.csv"
    lines = ["seed_id,variant,correct,topic,level"]
    lines += [
        f"q{s},{v},{int((s + v) % 3 != 0)},Plane Geometry,high school" for s in range(6) for v in range(4)
    ]
    table.write_text("\n".join(lines) + "\n")
    done = exp("report", str(table), "resamples=500")
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "gpt-4o-report" / "report.md").read_text()
    # per seed: 3, 3, 2, 3, 3, 2 of 4 right -> A_avg = 16/24; no seed is right on all four
    assert "| gpt-4o | external | image | 66.7 [" in md
    assert "| PG |" in md.splitlines()[next(i for i, x in enumerate(md.splitlines()) if "Table 2" in x) + 4]


def test_report_from_dynamath_wide_form(tmp_path) -> None:
    table = tmp_path / "claude.csv"
    header = (
        "Question ID,"
        + ",".join(f"Variant {i}" for i in range(1, 11))
        + ",# of correct per question,Topic,Difficulty Level"
    )
    rows = [
        "1," + ",".join(["1"] * 10) + ",10,Algebra,high school",
        "2," + ",".join(["1"] * 5 + ["0"] * 5) + ",5,Statistics,elementary school",
    ]
    table.write_text("\n".join([header, *rows]) + "\n")
    done = exp("report", str(table), "resamples=500")
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "claude-report" / "report.md").read_text()
    overview = next(line for line in md.splitlines() if line.startswith("| claude | external | image | 20 |"))
    # two seeds are too few for an interval: the estimate and the count instead
    few = "(2 seeds, no interval)"
    assert overview.endswith(f"| 75.0 {few} | 50.0 {few} | 0.67 {few} |")
    assert "A sample of wrong answers" not in md  # outside tables carry no transcripts
    broken = tmp_path / "broken.csv"
    broken.write_text("\n".join([header, "1," + ",".join(["1"] * 10) + ",9,Algebra,high school"]) + "\n")
    bad = exp("report", str(broken))
    assert bad.returncode == 2 and "add up to 10" in bad.stderr


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_report_html_renders_in_headless_chromium(tmp_path) -> None:
    run_dir = synthetic_run(tmp_path)
    assert exp("report", str(run_dir), "resamples=500").returncode == 0
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]  # fmt: skip
    # The DOM after layout: tables are there and every embedded image decoded to a real size.
    script = (
        "<script>window.onload=()=>{const imgs=[...document.images];document.title="
        "'tables='+document.querySelectorAll('table').length+';imgs='+imgs.length+';decoded='+"
        "imgs.filter(i=>i.naturalWidth>100&&i.naturalHeight>100).length;}</script>"
    )
    probe = tmp_path / "probe.html"
    probe.write_text((run_dir / "report.html").read_text().replace("</body>", script + "</body>"))
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    title = re.search(r"<title>(tables=\d+;imgs=\d+;decoded=\d+)</title>", dom.stdout)
    assert title, dom.stdout[:500]
    counts = dict(part.split("=") for part in title.group(1).split(";"))
    assert int(counts["tables"]) >= 5 and int(counts["imgs"]) == 4 and counts["decoded"] == counts["imgs"]
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1200,1600", f"--screenshot={shot}",
                    (run_dir / "report.html").as_uri()], capture_output=True, timeout=120)  # fmt: skip
    assert shot.read_bytes().startswith(b"\x89PNG") and len(shot.read_bytes()) > 20_000
    assert base64  # (kept for readers: the images are embedded as base64 data URIs)
