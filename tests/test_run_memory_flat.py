"""A run's memory does not grow with its grid (issue 39): it counts its rows instead of holding them,
starts no more cells than it lets into flight, and keeps only recent variants in memory."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path

from isodyn.cache.renders import RenderCache
from isodyn.experiments.cells import VARIANTS_HELD, RunMaterials
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.generators import get_seed
from isodyn.runs.config import parse_overrides
from isodyn.runs.record import CellResult
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

CONCURRENCY = 2
REPLY = '```json\n{"solution": "s", "short answer": "3"}\n```'


def _cell_results_alive() -> int:
    return sum(type(thing) is CellResult for thing in gc.get_objects())


def test_a_live_run_holds_neither_its_rows_nor_a_task_per_cell(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []  # (cells started, rows alive) as rows are recorded
    recorded = 0

    def on_row(result: CellResult, client: object) -> None:
        nonlocal recorded
        recorded += 1
        if recorded % 40 == 0:
            cells_started = [t for t in asyncio.all_tasks() if t.get_coro().__name__ == "guarded"]
            seen.append((len(cells_started), _cell_results_alive()))

    with OpenAIStub(lambda request: ScriptedReply(text=REPLY)) as stub:
        words = [
            f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "models=openai/stub",
            f"api_base={stub.base_url}", "seeds=dynamath_shifted_abs,isobench_parity",
            "modalities=latex,code", "variants=60", "quiet=1", f"concurrency={CONCURRENCY}",
        ]  # fmt: skip
        plan = plan_experiment(parse_overrides(words))
        cells = len(plan.grid.cells)
        outcome = asyncio.run(execute(plan, new_run_dir(plan.config), on_row=on_row))
    assert cells >= 150 and outcome.summary.cells == cells and outcome.summary.calls_made == cells
    assert len(seen) == cells // 40
    most_in_flight = CONCURRENCY * 2  # one model: the cells the runner lets into flight at once
    for tasks, rows in seen:
        assert tasks <= most_in_flight
        assert rows <= most_in_flight + 4  # the rows in flight, not every row recorded so far
    # the summary's counts come from the tally, and agree with the rows on disk
    gc.collect()
    assert _cell_results_alive() == 0  # nothing kept once the run is over, until asked for
    lines = [json.loads(line) for line in outcome.folder.results_file.read_text().splitlines()]
    assert outcome.summary.correct == sum(bool(row["correct"]) for row in lines)
    assert outcome.summary.graded == sum(row["reason"] == "ok" for row in lines)
    assert [result.to_row()["variant"] for result in outcome.results] == [row["variant"] for row in lines]


def test_run_materials_keep_only_recent_variants_in_memory(tmp_path: Path) -> None:
    seed = get_seed("dynamath_shifted_abs")
    materials = RunMaterials({seed.seed_id: seed}, 0, RenderCache(tmp_path / "renders"))
    first = materials.variant(seed.seed_id, 0)
    assert materials.variant(seed.seed_id, 0) is first  # a variant's other cells get the same object
    for index in range(1, VARIANTS_HELD + 1):
        materials.variant(seed.seed_id, index)
    assert materials.variant.cache_info().currsize == VARIANTS_HELD
    again = materials.variant(seed.seed_id, 0)  # pushed out: made again (from the disk memo), equal
    assert again is not first and again == first
