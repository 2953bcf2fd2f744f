"""Remake the README's pictures of the report and the viewer from a run of the loopback stub.

    python docs/images/make_screenshots.py      # needs Debian's chromium

The run is made here, offline: `exp generate` draws the variants, the loopback stub answers them
(`oracle_from_items`) with an accuracy set per representation for each of two made-up models,
`stub/strong` and `stub/weak`, and `exp run`, `exp report` and `exp view` do the rest as a user runs
them. The pictures show what isodyn makes of a run; the numbers in them are the stub's settings,
not any real model's results, and the README's captions say so.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path
from typing import Any

from isodyn.commands.view import ViewRequest, start_viewer
from isodyn.runs.folder import RunFolder
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import oracle_from_items

HERE = Path(__file__).resolve().parent
SEEDS = ("dynamath_line_equation", "dynamath_venn_count", "dynamath_stem_leaf_mean", "isobench_parity",
         "dynamath_bar_extreme", "dynamath_point_distance", "dynamath_pie_percent")  # fmt: skip
# Each made-up model's share of right answers, by representation.
ACCURACY = {
    "openai/stub/strong": {"image": 0.55, "latex": 0.9, "code": 0.8, "story": 0.75},
    "openai/stub/weak": {"image": 0.3, "latex": 0.65, "code": 0.5, "story": 0.55},
}
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--virtual-time-budget=5000")  # fmt: skip


def exp(*words: str) -> None:
    done = subprocess.run([sys.executable, "-m", "isodyn", *words], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"exp {words[0]} failed: {done.stderr.strip()}")


def screenshot(url: str, out: Path, profile: Path) -> None:
    chromium = shutil.which("chromium") or sys.exit("needs chromium (apt-get install chromium)")
    subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,800",
                    f"--screenshot={out}", url], capture_output=True, timeout=120, check=True)  # fmt: skip
    print(f"wrote {out}")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:  # the viewer, on loopback
        return json.load(answer)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        data, cache, runs = root / "data", root / "cache", root / "runs"
        exp("generate", f"task={','.join(SEEDS)}", "n=8", f"out={data}", f"cache_dir={cache}")
        items = [json.loads(line) for line in (data / "items.jsonl").read_text().splitlines()]
        oracles = {model: oracle_from_items(items, accuracy, seed=n, style="prose")
                   for n, (model, accuracy) in enumerate(ACCURACY.items())}  # fmt: skip

        def answer(request: dict[str, Any]) -> ScriptedReply:
            return oracles[f"openai/{request['model']}"](request)

        with OpenAIStub(answer) as stub:
            exp("run", f"models={','.join(ACCURACY)}", f"api_base={stub.base_url}", "vision=yes",
                f"seeds={','.join(SEEDS)}", "strategies=zeroshot,cot3", "modalities=image,latex,code,story",
                "variants=8", f"cache_dir={cache}", f"out={runs}", "quiet=1")  # fmt: skip
        (run_dir,) = runs.iterdir()
        exp("report", str(run_dir))
        screenshot((run_dir / "report.html").as_uri(), HERE / "report-first-screen.png", root / "profile")
        server = start_viewer(ViewRequest(RunFolder(run_dir), port=0))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            base = server.url.rstrip("/")
            screenshot(f"{base}/#/cells?modality=image&verdict=wrong", HERE / "viewer-list.png", root / "p2")
            cells = get_json(f"{base}/api/cells?modality=image&strategy=zeroshot&verdict=wrong")["rows"]
            screenshot(f"{base}/#/cell/{cells[0]['id']}", HERE / "viewer-cell.png", root / "p3")
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
