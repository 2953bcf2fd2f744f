"""The dry run (`dry_run=1`): what a grid would cost, how much of it the cache holds, and no call or
written file. It opens what a run opens (`runner.open_parts`), with a scratch folder for drawings."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from isodyn.cache.folder import Stores
from isodyn.experiments.batch_jobs import estimate_batch_cost
from isodyn.experiments.cells import run_cell
from isodyn.experiments.llm import estimate_cost
from isodyn.experiments.plan import Plan
from isodyn.experiments.runner import open_parts
from isodyn.models.requests import ModelRequest, Reply
from isodyn.runs.record import Status


async def dry_run(plan: Plan) -> dict[str, Any]:
    """Grid size, cached share and a cost estimate, without a call or a written file."""
    # Nothing is written: drawings go to a scratch directory, and a missing reply cache is not made.
    scratch = tempfile.TemporaryDirectory(prefix="isodyn-dry-run-")
    responses, drafts = Stores(plan.config.cache_dir).responses, Stores(Path(scratch.name))
    parts = open_parts(plan, responses if responses.is_dir() else drafts.responses, drafts.renders)
    client = parts.client
    uncached_calls, estimate, cached_cells, skipped_cells = 0, 0.0, 0, 0
    cached_calls = 0
    per_model: dict[str, dict[str, float]] = {}  # calls needed and their cost live and at batch prices

    async def estimated(request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        nonlocal uncached_calls, estimate, cached_calls
        reply, key = client.cached(request, hashed)
        if reply is not None:
            cached_calls += 1
            return reply, key, True
        uncached_calls += 1
        cost = estimate_cost(request)
        estimate += cost
        tally = per_model.setdefault(request.model, dict.fromkeys(("calls", "live_usd", "batch_usd"), 0.0))
        tally["calls"] += 1
        tally["live_usd"] += cost
        tally["batch_usd"] += estimate_batch_cost(request)
        return Reply(text=""), key, False

    try:
        for cell in plan.grid.cells:
            result = await run_cell(plan, cell, parts.materials, client, Path("."), estimated)
            skipped = result.outcome.status is Status.SKIPPED
            skipped_cells += skipped
            cached_cells += bool(result.cache_hit) and not skipped  # a skipped cell is no cached one
    finally:
        parts.close()
        scratch.cleanup()
    cells = len(plan.grid.cells)
    share = cached_cells / cells if cells else 0.0
    return {
        "cells": cells,
        "cached_cells": cached_cells,
        "skipped_cells": skipped_cells,
        "cached_share": share,
        "calls_needed": uncached_calls,
        "estimated_cost_usd": round(estimate, 4),
        "cached_calls": cached_calls,
        "per_model": {
            model: {
                "calls_needed": int(t["calls"]),
                "estimated_cost_usd": round(t["live_usd"], 6),
                "batch_cost_usd": round(t["batch_usd"], 6),
            }
            for model, t in sorted(per_model.items())
        },
    }
