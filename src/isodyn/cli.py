"""The `exp` command: `exp run key=value ...`, `exp report RUN_DIR`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from isodyn.experiments.config import ConfigError, parse_overrides
from isodyn.models.catalog import ModelError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="isodyn: robustness experiments.")
console = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """A one-line error and exit code 2 (bad input)."""
    console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _progress(total: int, quiet: bool) -> Progress:
    columns = [
        TextColumn("[bold]cells"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "calls {task.fields[calls]}  cache hits {task.fields[hits]}  errors {task.fields[errors]}"
        ),
        TimeRemainingColumn(),
    ]
    return Progress(*columns, console=console, disable=quiet, transient=False)


def _print_table(rows: list[dict[str, Any]]) -> None:
    from isodyn.analysis.metrics import robustness_table

    frame = robustness_table(rows)
    table = Table(title="DynaMath robustness (A in %)")
    for column in ("model", "strategy", "modality", "graded", "skipped", "A_avg", "A_wst", "RR"):
        table.add_column(column, overflow="fold")
    for record in frame.to_dict("records"):
        table.add_row(
            record["model"],
            record["strategy"],
            record["modality"],
            str(record["graded"]),
            str(record["skipped"]),
            *(_fmt(record[k], percent=k != "RR") for k in ("A_avg", "A_wst", "RR")),
        )
    Console().print(table)


def _fmt(value: float, percent: bool) -> str:
    if value != value:  # NaN: nothing graded
        return "–"
    return f"{100 * value:.1f}" if percent else f"{value:.2f}"


@app.command(context_settings={"allow_extra_args": False})
def run(
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="key=value settings: models, strategies, modalities, seeds, variants, repeats, base_seed, "
            "temperature, max_tokens, api_base, vision, concurrency, out, cache_dir, quiet",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run the grid models x strategies x modalities x seeds x variants x repeats."""
    from isodyn.analysis.report import write_report
    from isodyn.experiments.runner import execute, new_run_dir, plan_experiment

    try:
        config = parse_overrides(settings or [])
        plan = plan_experiment(config)
    except (ConfigError, ModelError) as exc:
        raise fail(str(exc)) from None
    run_dir = new_run_dir(config)
    with _progress(len(plan.grid.cells), config.quiet) as progress:
        task = progress.add_task("run", total=len(plan.grid.cells), calls=0, hits=0, errors=0)
        errors = 0

        def on_row(row: dict[str, Any], client: Any) -> None:
            nonlocal errors
            errors += row["reason"].startswith("error")
            progress.update(task, advance=1, calls=client.calls_made, hits=client.cache_hits, errors=errors)

        outcome = asyncio.run(execute(plan, run_dir, on_row))
    report = write_report(run_dir, outcome.rows)
    _print_table(outcome.rows)
    summary = outcome.summary
    console.print(
        f"{summary['cells']} cells: {summary['calls_made']} calls, {summary['cache_hits']} cache hits, "
        f"{summary['skipped']} skipped, {summary['errors']} errors, ${summary['cost_usd']:.4f}, "
        f"{summary['seconds']:.1f} s\nresults: {run_dir}/results.jsonl\nreport:  {report}",
        highlight=False,
    )


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a run directory written by `exp run`")]) -> None:
    """Write RUN_DIR/report.md (A_avg, A_wst, RR per model, strategy and modality) and print it."""
    from isodyn.analysis.report import write_report
    from isodyn.experiments.runner import load_rows

    try:
        rows = load_rows(run_dir)
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    path = write_report(run_dir, rows)
    sys.stdout.write(path.read_text(encoding="utf-8"))


@app.command("list")
def list_(what: Annotated[str, typer.Argument(help="strategies or seeds")]) -> None:
    """Describe the strategies (source, calls per cell, modalities) or the seed programs."""
    if what == "strategies":
        from isodyn.strategies import BASES, MODIFIERS

        table = Table(title="Base strategies (compose with modifiers: antimem+cot3, permute+sc@5+isosp)")
        for column in ("name", "what it does", "source", "calls per cell", "modalities"):
            table.add_column(column, overflow="fold")
        for name, cls in sorted(BASES.items()):
            accepted = "all" if cls.modalities is None else ", ".join(sorted(m.value for m in cls.modalities))
            table.add_row(name, cls.summary, cls.source, cls.calls_per_cell, accepted)
        modifiers = Table(title="Modifiers")
        for column in ("name", "what it does", "source", "calls per cell"):
            modifiers.add_column(column, overflow="fold")
        for name, cls in sorted(MODIFIERS.items()):
            modifiers.add_row(name, cls.summary, cls.source, cls.calls_per_cell)
        from isodyn.strategies.modifiers import SelfConsistency

        modifiers.add_row("sc@k", SelfConsistency.summary, SelfConsistency.source, "k x the base")
        Console().print(table, modifiers)
    elif what == "seeds":
        from isodyn.generators import all_seeds

        table = Table(title="Seed programs")
        for column in ("seed", "topic", "level", "answer type", "variation types", "modalities"):
            table.add_column(column, overflow="fold")
        for seed_id, seed in all_seeds().items():
            table.add_row(
                seed_id,
                seed.topic.value,
                seed.level.value,
                seed.answer_type.value,
                ", ".join(v.value for v in seed.variation_types),
                ", ".join(m.value for m in seed.modalities),
            )
        Console().print(table)
    else:
        raise fail(f"cannot list {what!r}; valid: strategies, seeds")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
