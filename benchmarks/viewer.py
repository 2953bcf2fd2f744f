"""How quickly `exp view` opens a large run: a synthetic run of 50,000 cells (replies of 1-2 kB,
one call's transcript each, image cells holding an image hash) viewed in headless Chromium.

Each round starts `exp view RUN open=no` in a fresh process and measures, from that start until the
first page of rows is painted: with a cold index (its file in the cache folder removed) and with the
cached one (read once results.jsonl's SHA-256 is found to match), alternating. Then it opens cells
from the list: click to the cell's reply shown. Every round's figures are printed. Targets (2
cores): first render under 2 s, a cell under 200 ms.

python benchmarks/viewer.py [cells] [rounds]
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from isodyn.cache.folder import Stores
from isodyn.core import AnswerType, Modality
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell, CellResult, Labels, Outcome, Status
from isodyn.runs.results import Call, write_results
from isodyn.scoring import Question, Score
from isodyn.view.index import index_path

WORDS = (
    "the angle triangle so we find that therefore compute sum of both sides equals slope line point "
    "value area radius circle graph median mean function derivative at where since because given let "
    "then thus hence check again substitute into equation"
).split()
MODELS = ("gpt-4o", "claude-3-5-sonnet")
STRATEGIES = ("zeroshot", "cot3", "isocb", "isosp", "permute+sc@5")
MODALITIES = tuple(m.value for m in Modality)
TOPICS = ("algebra", "statistics", "plane_geometry", "graph_theory", "arithmetic")


def reply_text(rng: random.Random, answer: str, size: int) -> str:
    """A reasoning reply of about `size` characters that ends with an answer line."""
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS) if rng.random() > 0.1 else str(rng.randint(1, 99))
        words.append(word)
        length += len(word) + 1
        if rng.random() < 0.06:
            words.append(".\n")
    return " ".join(words) + f"\n\nFinal answer: {answer}"


def synthetic_results(cells: int, seed: int = 0) -> list[CellResult]:
    """`cells` cells over 2 models x 5 strategies x 4 modalities x seeds x 5 variants."""
    rng = random.Random(seed)
    per_seed = len(MODELS) * len(STRATEGIES) * len(MODALITIES) * 5
    seeds = max(1, cells // per_seed)
    out: list[CellResult] = []
    for s in range(seeds):
        seed_id = f"seed{s:04d}"
        for variant in range(5):
            truth = str(rng.randint(1, 60))
            question = f"Seed {s} variant {variant}: what is the value of x in the figure? " * 3
            for model in MODELS:
                for strategy in STRATEGIES:
                    for modality in MODALITIES:
                        right = rng.random() < 0.6
                        answer = truth if right else str(int(truth) + rng.randint(1, 9))
                        reply = reply_text(rng, answer, rng.randint(1000, 2000))
                        content: list[dict[str, object]] = [{"type": "text", "text": question}]
                        if modality == "image":
                            digest = f"sha256:{rng.getrandbits(256):064x}"
                            content.append({"type": "image_url", "image_url": {"url": digest}})
                        messages = [{"role": "user", "content": content}]
                        call = Call(step="answer", model=model, messages=messages,
                                    key=f"{rng.getrandbits(64):016x}", cache_hit=True, response=reply,
                                    prompt_tokens=300, completion_tokens=400)  # fmt: skip
                        score = Score(right, answer, "ok", "answer_line", "clear")
                        out.append(CellResult(
                            cell=Cell(model, strategy, Modality(modality), seed_id, variant),
                            asked=Question(truth, AnswerType.INT, text=question),
                            labels=Labels(TOPICS[s % len(TOPICS)], "high_school"),
                            outcome=Outcome(Status.OK), scores={"isodyn": score}, decided_by="isodyn",
                            response=reply, calls=(call,),
                        ))  # fmt: skip
    return out[:cells]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def first_render(page: object, run_dir: Path, cold: bool) -> tuple[float, subprocess.Popen[bytes], str]:
    """Seconds from starting `exp view` to the first page of rows painted; the server and its URL."""
    cache = run_dir.parent / "cache"  # the viewer's cache folder, not the user's
    if cold:
        index_path(RunFolder(run_dir), Stores(cache).view_index).unlink(missing_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "isodyn", "view", str(run_dir), f"port={port}", "open=no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "ISODYN_CACHE_DIR": str(cache)},
    )  # fmt: skip
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.05):
                break
        except OSError:
            if server.poll() is not None:
                raise RuntimeError("exp view stopped before serving") from None
            time.sleep(0.01)
    page.goto(url)  # type: ignore[attr-defined]
    page.wait_for_selector("#rows tr.row")  # type: ignore[attr-defined]
    return time.perf_counter() - start, server, url


def open_cells(page: object, count: int) -> list[float]:
    """Milliseconds from a click on a row to that cell's reply shown, for `count` rows."""
    figures = []
    for n in range(count):
        rows = page.query_selector_all("#rows tr.row")  # type: ignore[attr-defined]
        row = rows[(n * 7) % len(rows)]
        cell_id = row.get_attribute("data-id")
        start = time.perf_counter()
        row.click()
        page.wait_for_selector(f"#reply[data-id='{cell_id}']")  # type: ignore[attr-defined]
        figures.append(1000 * (time.perf_counter() - start))
        page.go_back()  # type: ignore[attr-defined]
        page.wait_for_selector("#rows tr.row")  # type: ignore[attr-defined]
    return figures


def main() -> None:
    cells = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="isodyn-viewer-"))
    run_dir = folder / "run"
    run_dir.mkdir()
    made = time.perf_counter()
    write_results(run_dir / "results.jsonl", synthetic_results(cells))
    (run_dir / "config.json").write_text("{}")
    size = (run_dir / "results.jsonl").stat().st_size
    print(
        f"{cells:,} cells, results.jsonl {size / 1e6:.0f} MB, written in {time.perf_counter() - made:.1f} s"
    )
    cold_times, cached_times, cell_times = [], [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            for number in range(1, rounds + 1):
                for cold in (True, False):
                    page = browser.new_page(viewport={"width": 1280, "height": 800})
                    seconds, server, _ = first_render(page, run_dir, cold)
                    try:
                        opened = open_cells(page, 5) if not cold else []
                    finally:
                        server.terminate()
                        server.wait()
                        page.close()
                    (cold_times if cold else cached_times).append(seconds)
                    cell_times.extend(opened)
                    kind = "cold index  " if cold else "cached index"
                    shown = (
                        "" if cold else "; open a cell: " + ", ".join(f"{ms:.0f}" for ms in opened) + " ms"
                    )
                    print(f"round {number} {kind}: first render {seconds:.2f} s{shown}", flush=True)
            browser.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        f"median: first render cold {statistics.median(cold_times):.2f} s, cached "
        f"{statistics.median(cached_times):.2f} s; open a cell {statistics.median(cell_times):.0f} ms "
        f"(max {max(cell_times):.0f} ms)"
    )


if __name__ == "__main__":
    main()
