"""The `exp` command: `exp run key=value ...`, `exp report RUN_DIR`."""

from __future__ import annotations

import asyncio
import errno
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from isodyn.experiments.config import (
    ConfigError,
    parse_overrides,
    refuse_study_key,
    repeated_key,
    study_words,
)
from isodyn.models.catalog import ModelError

if TYPE_CHECKING:
    from isodyn.results import CellResult

app = typer.Typer(add_completion=False, no_args_is_help=True, help="isodyn: robustness experiments.")
# Markup off for every print: what is printed quotes settings, paths, model names and replies, where
# `[red]` or `[/]` is text (styles are given as rich Text objects instead).
console = Console(stderr=True, soft_wrap=True, markup=False)


_HELD: list[Any] = []  # locks this process keeps until it ends (a dropped lock object unlocks)


def fail(message: str) -> typer.Exit:
    """A one-line error and exit code 2 (bad input). The message is printed as written: it quotes
    what the user typed or what a model is called, where `[red]` or `[/]` is text, not style."""
    _say("error:", "bold red", message)
    return typer.Exit(code=2)


def _say(label: str, style: str, text: str) -> None:
    """A styled label, then `text` exactly as given: rich markup is never read from the text, since
    it may hold a user's setting, a path, a model's name or anything a file said."""
    console.print(Text.assemble((label, style), " ", text), soft_wrap=True)


def _cells(*values: Any) -> list[Text]:
    """A table row shown as written (a rich Table reads markup from plain strings)."""
    return [Text(str(value)) for value in values]


def _progress(quiet: bool) -> Progress:
    columns = [
        TextColumn("{task.description}", style="bold", markup=False),  # a model's name, as named
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "hits {task.fields[hits]}  in flight {task.fields[in_flight]}  errors {task.fields[errors]}  "
            "${task.fields[cost]:.4f}"
        ),
        TimeRemainingColumn(),
    ]
    return Progress(*columns, console=console, disable=quiet, transient=False, refresh_per_second=4)


def _print_table(results: list[CellResult]) -> None:
    from isodyn.analysis.metrics import robustness_table
    from isodyn.analysis.tables import format_value
    from isodyn.results import results_frame

    frame = robustness_table(results_frame(results))
    table = Table(title="DynaMath robustness (A in %)")
    for column in ("model", "strategy", "modality", "graded", "skipped", "A_avg", "A_wst", "RR"):
        table.add_column(column, overflow="fold")
    for record in frame.to_dict("records"):
        table.add_row(
            *_cells(
                record["model"],
                record["strategy"],
                record["modality"],
                record["graded"],
                record["skipped"],
                *(format_value(record[k], percent=k != "RR") for k in ("A_avg", "A_wst", "RR")),
            )
        )
    _stdout_console().print(table)


def _say_what_was_loaded(plan: Any) -> None:
    """For a `dataset=` run: what the release holds, and anything in it read with a caveat."""
    from isodyn.generators.release import ReleasedItem, release_summary

    released = {k: s for k, s in plan.seeds.items() if isinstance(s, ReleasedItem)}
    for line in release_summary(released):
        _say("dataset:", "bold", line)


def _warn_unseen_images(plan: Any) -> None:
    """vision=auto on a model litellm does not know skips every image cell: say so before the run."""
    from isodyn.core import Modality

    if plan.config.vision != "auto" or Modality.IMAGE not in plan.config.modalities:
        return
    for name, info in plan.models.items():
        if not info.vision and not info.known_to_litellm:
            _say(
                "warning:", "bold yellow",
                f"{name} is not in litellm's model table, so its image cells will be skipped; "
                f"add vision={name} (or vision=yes) if it reads images",
            )  # fmt: skip


def _study_and_words(settings: list[str]) -> tuple[Path | None, list[str]]:
    """The study file named (a `.toml` word, or config=FILE) and the other words."""
    study = None
    words = []
    for word in settings:
        key, sep, value = word.partition("=")
        if (not sep and word.endswith(".toml")) or (sep and key.strip() == "config"):
            if study is not None:
                raise ConfigError("name one study file")
            study = Path(value if sep else word).expanduser()
        else:
            words.append(word)
    return study, words


def _warn_identical_samples(plan: Any) -> None:
    """sc@k at temperature 0 asks a hosted model k times the same thing (the embedded model varies
    its seed per sample instead): say so, since the vote then only costs k times as much."""
    from isodyn.models.catalog import is_local

    voting = [name for name in plan.strategies if "sc@" in name]
    hosted = [m for m in plan.models if not is_local(m)]
    if voting and hosted and plan.config.temperature == 0:
        _say(
            "warning:", "bold yellow",
            f"{voting[0]} at temperature 0 sends {hosted[0]} identical requests; "
            "set temperature=0.7 (or so) for distinct samples",
        )  # fmt: skip


def _warn_about(run: Any) -> None:
    """One line on rows a reader set aside (damaged lines, duplicate cells), when there are any,
    and one on damaged judgements in the run's process.jsonl (which its report reads)."""
    from isodyn.analysis.process import read_judgements

    for problems in (run.problems(), read_judgements(run.directory / "process.jsonl").problems()):
        if problems:
            _say("warning:", "bold yellow", f"{run.directory}: {problems}")


def _stdout_console() -> Console:
    """The terminal's width on a terminal; wide when piped, so no header or id is folded. Markup
    off: its tables hold names and ids from runs and config files, shown as written."""
    return Console(markup=False) if sys.stdout.isatty() else Console(width=240, markup=False)


@app.command(context_settings={"allow_extra_args": False})
def run(
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="[STUDY.toml] key=value settings: models, strategies, modalities, seeds, variants, repeats, "
            "base_seed, temperature, max_tokens, api_base, api_key_env, describer, vision, concurrency, rpm, "
            "tpm, max_retries, timeout, max_cost, dry_run, out, cache_dir, quiet, grader",
            show_default=False,
        ),
    ] = None,
    trust_study: Annotated[
        bool,
        typer.Option(
            "--trust-study",
            help="let the study file send a key (api_key_env) to the server it names (api_base)",
        ),
    ] = False,
) -> None:
    """Run the grid models x strategies x modalities x seeds x variants x repeats.

    A study file (`exp run study.toml`, or config=study.toml) holds the settings; key=value words
    after it override them. The same command after a crash, Ctrl-C or kill -9 resumes the unfinished
    run: finished cells are kept, nothing is called twice. A finished run is replayed from the cache
    into a new directory."""
    from isodyn.analysis.report import write_report
    from isodyn.experiments.runlock import RunInUse, RunLock
    from isodyn.experiments.runner import (
        ModelUnavailable,
        dry_run,
        execute,
        open_run_dir,
        plan_experiment,
        run_lock_path,
    )

    try:
        study, words = _study_and_words(settings or [])
        twice = repeated_key(words)
        if twice:
            raise ConfigError(f"{twice} is given twice; give it once")
        from_study = study_words(study) if study else []
        config = parse_overrides([*from_study, *words])
        if study is not None and not trust_study:
            refuse_study_key(study, from_study, words, config)
        plan = plan_experiment(config)
    except (ConfigError, ModelError) as exc:
        raise fail(str(exc)) from None
    _warn_identical_samples(plan)
    _say_what_was_loaded(plan)
    _warn_unseen_images(plan)
    if config.dry_run:
        estimate = asyncio.run(dry_run(plan))
        console.print(
            f"{estimate['cells']} cells ({len(plan.models)} models x {len(plan.strategies)} strategies x "
            f"{len(config.modalities)} modalities x {len(plan.seeds)} seeds x {config.variants} variants x "
            f"{config.repeats} repeats, less what seeds cannot render); {estimate['cached_cells']} cached "
            f"({100 * estimate['cached_share']:.0f}%), {estimate['skipped_cells']} to be skipped; "
            f"{estimate['calls_needed']} calls needed, "
            f"estimated cost ${estimate['estimated_cost_usd']:.4f} (upper estimate: prompt characters / 3 + "
            "max_tokens at "
            "litellm's prices). Nothing was called or written.",
            highlight=False,
        )
        return
    try:  # held until this process ends: a second `exp run` of the same run stops here
        _HELD.append(RunLock(run_lock_path(config)).acquire())
    except (RunInUse, OSError) as exc:
        raise fail(str(exc)) from None
    try:
        run_dir, done = open_run_dir(config)
    except OSError as exc:  # out cannot be written after all (a read-only disk, a full one)
        raise fail(f"cannot write the run directory under {config.out}: {exc.strerror or exc}") from None
    if done:
        resuming = f"resuming {run_dir}: {len(done)} cells already finished"
        console.print(resuming, highlight=False, markup=False)
    if study is not None:  # the file as it was used, read again within its bound (never a FIFO)
        from isodyn.experiments.config import read_study

        try:
            (run_dir / "study.toml").write_text(read_study(study), encoding="utf-8")
        except ConfigError as exc:
            raise fail(str(exc)) from None
    per_model = {m: {"done": 0, "errors": 0, "cost": 0.0} for m in plan.models}
    totals = {m: sum(c.model == m for c in plan.grid.cells) for m in plan.models}
    for result in done:
        per_model[result.model]["done"] += 1
    with _progress(config.quiet) as progress:
        tasks = {
            m: progress.add_task(
                m, total=totals[m], completed=int(per_model[m]["done"]), hits=0, in_flight=0, errors=0,
                cost=0.0,
            )
            for m in plan.models
        }
        hits_before = {m: 0 for m in plan.models}

        def on_row(result: CellResult, client: Any) -> None:
            model = result.model
            state = per_model[model]
            state["errors"] += result.reason.startswith("error")
            state["cost"] += result.cost_usd
            hits_before[model] += bool(result.cache_hit)
            gate = client.gates.get(model)
            progress.update(
                tasks[model], advance=1, hits=hits_before[model], errors=state["errors"], cost=state["cost"],
                in_flight=gate.in_flight if gate else 0,
            )  # fmt: skip

        try:
            outcome = asyncio.run(execute(plan, run_dir, on_row, done))
        except ModelUnavailable as exc:
            raise fail(f"{exc} (finished cells are kept in {run_dir})") from None
    report = write_report(run_dir, outcome.results)
    if not config.quiet:
        _print_table(outcome.results)
    summary = outcome.summary
    said = Text(
        f"{summary['cells']} cells: {summary['calls_made']} calls, {summary['cache_hits']} cache hits, "
        f"{summary['retries']} retries, {summary['skipped']} skipped, {summary['errors']} errors, "
        f"${summary['cost_usd']:.4f}, {summary['seconds']:.1f} s"
    )  # a Text, not markup: the paths below are the user's out=
    if summary["left_undone"]:
        said.append(f"\n{summary['left_undone']} cells left undone", style="bold yellow")
        said.append(
            f" (max_cost ${config.max_cost}); run the same command with a larger max_cost to finish them"
        )
    said.append(f"\nresults: {run_dir}/results.jsonl\nlog:     {run_dir}/log.jsonl\nreport:  {report}")
    console.print(said)
    attempted = summary["cells"] - summary["skipped"]
    if attempted and summary["errors"] == attempted:
        _say(
            "error:", "bold red",
            f"every one of the {attempted} cells failed; the reasons are in {run_dir}/log.jsonl",
        )  # fmt: skip
        raise typer.Exit(code=1)


@app.command()
def describe(
    dataset: Annotated[str, typer.Argument(help="a dataset= value: PATH or PREFIX:PATH (exp list datasets)")],
    check: Annotated[
        bool, typer.Option("--check", help="dynamath-programs: run each seed once and say what fails here")
    ] = False,
) -> None:
    """Say what a dataset folder or file is and what it holds, before any run. With --check on
    DynaMath's seed programs: which seeds run on this machine, and what the others need."""
    from isodyn.generators.datasets import describe as describe_dataset
    from isodyn.generators.datasets import split_spec
    from isodyn.generators.release import ReleaseError

    try:
        lines = describe_dataset(dataset)
        kind, path = split_spec(dataset)
        if check and kind.name == "dynamath-programs":
            from isodyn.generators.dynamath_programs import check_environment

            lines += check_environment(path)
    except (ReleaseError, OSError) as exc:
        raise fail(str(exc)) from None
    sys.stdout.write("\n".join(lines) + "\n")


@app.command()
def cache(
    action: Annotated[str, typer.Argument(help="stats, clear, prune or repair")],
    settings: Annotated[
        list[str] | None, typer.Argument(help="cache_dir=DIR, older_than=30d (prune)")
    ] = None,
) -> None:
    """The reply cache and the cell memo: `stats` (entries, size, last run's hit rate), `clear`,
    `prune older_than=30d`, `repair` (check every store; set a damaged one aside)."""

    import math

    from isodyn.cache import ResponseCache
    from isodyn.cache.stores import CacheDamaged, has_store, owned
    from isodyn.experiments.config import ConfigError, default_cache_dir, parse_key_values
    from isodyn.experiments.memo import memo_store
    from isodyn.results import read_json

    def duration(value: str) -> float:
        units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
        if not value or value[-1] not in units:
            raise ValueError("use a number with s, m, h or d, e.g. 30d")
        seconds = float(value[:-1]) * units[value[-1]]
        if not (math.isfinite(seconds) and seconds > 0):  # -30d would remove everything, nan nothing
            raise ValueError("must be a positive, finite age, e.g. 30d")
        return seconds

    try:
        chosen = parse_key_values(settings or [], {"cache_dir": Path, "older_than": duration})
        if action not in ("stats", "clear", "prune", "repair"):
            raise ConfigError(f"unknown cache action {action!r}; valid: stats, clear, prune, repair")
        if action == "prune" and "older_than" not in chosen:
            raise ConfigError("prune needs older_than=DURATION, e.g. older_than=30d")
    except ConfigError as exc:
        raise fail(str(exc)) from None
    root = chosen.get("cache_dir", default_cache_dir())
    try:  # only isodyn's own cache is read or changed; nothing is created here
        if not owned(root):
            console.print(f"cache {root}: there is no cache there yet; nothing to {action}", highlight=False)
            return
    except CacheDamaged as exc:  # not a cache, or not this user's to read
        raise fail(str(exc)) from None
    if action == "clear":
        _clear_cache(root)
        return
    if action == "repair":
        _repair_cache(root)
        return
    try:
        store = ResponseCache(root / "responses") if has_store(root / "responses") else None
        # the cell memo holds copies of replies
        memo = memo_store(root) if has_store(root / "replays") else None
    except CacheDamaged as exc:
        raise fail(str(exc)) from None
    try:
        if action == "stats":
            last = read_json(root / "last_run.json")
            rate = "–" if not last or last.get("hit_rate") is None else f"{100 * last['hit_rate']:.1f}%"
            console.print(
                f"cache {root}: {len(store) if store else 0} replies, "
                f"{store.volume() / 1e6 if store else 0:.1f} MB; {len(memo) if memo else 0} memoized cells, "
                f"{memo.volume() / 1e6 if memo else 0:.1f} MB; last run: "
                + (
                    f"{last.get('cache_hits')} hits, {last.get('calls_made')} calls, hit rate {rate}"
                    if last
                    else "none"
                ),
                highlight=False,
            )
        else:
            count = store.prune(chosen["older_than"]) if store else 0
            cells = memo.clear() if memo else 0  # an entry may hold a pruned reply; reruns rebuild them
            console.print(
                f"removed {count} replies older than {chosen['older_than'] / 86400:g} days and {cells} "
                f"memoized cells from {root}",
                highlight=False,
            )
    finally:
        for opened in (store, memo):
            if opened is not None:
                opened.close()


def _clear_cache(root: Path) -> None:
    """Empty the reply cache and the cell memo of isodyn's cache `root`; a store that cannot even be
    opened has its own files deleted, so clear always works (drawings in `renders` are kept: they
    are not replies). Nothing isodyn did not make is removed, and a store it cannot read for want of
    permission is no damaged one: nothing is deleted then."""
    from isodyn.cache.stores import CacheDamaged, CacheUnreadable, has_store, open_store, remove_store

    counts = {"responses": 0, "replays": 0}
    deleted: list[str] = []
    kept: list[str] = []
    for name in counts:
        directory = root / name
        if not has_store(directory):
            kept += [name] if directory.exists() or directory.is_symlink() else []
            continue
        try:
            with open_store(directory) as store:
                counts[name] = store.clear()
        except CacheUnreadable as exc:
            raise fail(str(exc)) from None
        except PermissionError as exc:
            raise fail(f"cannot read the cache: permission denied ({directory}: {exc.strerror})") from None
        except (CacheDamaged, sqlite3.DatabaseError, OSError):
            kept += [f"{name}/{left}" for left in remove_store(directory)]
            deleted.append(name)
    note = f"; damaged store(s) deleted: {', '.join(deleted)}" if deleted else ""
    note += f"; not isodyn's, left alone: {', '.join(kept)}" if kept else ""
    console.print(
        f"removed {counts['responses']} replies and {counts['replays']} memoized cells from {root}{note}",
        highlight=False,
    )


def _repair_cache(root: Path) -> None:
    """Check every store; set each damaged one aside (renamed, kept) so the next run starts afresh.
    Every store is checked before any is moved: a store this user may not read is no damaged one,
    and then nothing is set aside."""
    from isodyn.cache.stores import STORES, CacheUnreadable, has_store, set_aside, store_problem

    try:
        problems = {name: store_problem(root / name) for name in STORES if has_store(root / name)}
    except CacheUnreadable as exc:
        raise fail(str(exc)) from None
    found = False
    for name, problem in problems.items():
        if problem:
            found = True
            moved = set_aside(root / name)
            console.print(f"{root / name}: {problem}; set aside as {moved.name}", highlight=False)
    if not found:
        console.print(f"cache {root}: every store opens and checks clean", highlight=False)


def _bootstrap_parsers() -> dict[str, Any]:
    from isodyn.experiments.config import positive_int

    def level(value: str) -> float:
        number = float(value)
        if not 0 < number < 1:
            raise ValueError("must be between 0 and 1, e.g. 0.95")
        return number

    return {"resamples": positive_int, "level": level, "seed": int}


def _split_words(words: list[str]) -> tuple[list[Path], list[str]]:
    """Positional paths and key=value settings, in any order."""
    return [Path(w) for w in words if "=" not in w], [w for w in words if "=" in w]


@app.command()
def report(
    words: Annotated[
        list[str],
        typer.Argument(
            help="RUN_DIR, or one or more tables (CSV/TSV/JSONL of per-variant correctness); "
            "resamples=10000 level=0.95 seed=0 grader=isodyn|dynamath|mmmath|strict-json"
        ),
    ],
) -> None:
    """Write report.md and a standalone report.html for a run (or outside results tables) and print
    the Markdown. A table may be long form (seed_id, variant, correct, ...) or DynaMath's published
    wide form (correct/fail cells, totals and summary rows are read as published); several tables
    give one report with a row per model. With grader=NAME the run's saved replies are graded by that
    grader first (nothing is called)."""
    from isodyn.analysis.external import ExternalTableError, read_tables
    from isodyn.analysis.metrics import Bootstrap
    from isodyn.analysis.report import write_report
    from isodyn.experiments.config import ConfigError, grader_name, parse_key_values
    from isodyn.experiments.regrade import rescore
    from isodyn.results import read_results, write_results
    from isodyn.scoring import Tolerance

    sources, settings = _split_words(words)
    try:
        chosen = parse_key_values(settings, {**_bootstrap_parsers(), "grader": grader_name})
        grader = chosen.pop("grader", None)
        bootstrap = Bootstrap(**chosen)
        if not sources:
            raise ConfigError("name a run directory or one or more result tables")
        if len(sources) > 1 or sources[0].is_file():
            if not all(p.is_file() for p in sources):
                raise ConfigError("several sources must all be result tables (files), not run directories")
            tables = read_tables(sources)
            for note in tables.notes:
                _say("note:", "bold yellow", note)
            results = tables.results
            first = sources[0]
            stem = first.stem if len(sources) == 1 else f"{first.stem}-and-{len(sources) - 1}-more"
            run_dir = first.with_name(f"{stem}-report")
            run_dir.mkdir(exist_ok=True)
            write_results(run_dir / "results.jsonl", results)
        else:
            run = read_results(sources[0])
            _warn_about(run)
            results, run_dir = run.results, sources[0]
    except (ConfigError, ExternalTableError, FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from None
    if grader is not None:
        results = rescore(results, Tolerance(), grader)
    from isodyn.analysis.report import UnsafeOutputError
    from isodyn.textsafe import terminal_text

    try:
        path = write_report(run_dir, results, bootstrap)
    except UnsafeOutputError as exc:  # a link in the run folder leading out of it
        raise fail(terminal_text(str(exc))) from None
    # the report quotes replies: no escape sequence or bidi control in them reaches the terminal
    sys.stdout.write(terminal_text(path.read_text(encoding="utf-8")))
    shown = terminal_text(f"report: {path}\nhtml:   {path.with_suffix('.html')}")
    console.print(shown, highlight=False, markup=False)


@app.command()
def compare(
    words: Annotated[
        list[str],
        typer.Argument(
            help="RUN_DIR [RUN_DIR2] by=strategy|model|modality baseline=NAME resamples level seed"
        ),
    ],
) -> None:
    """Paired statistical comparison of strategies, models or modalities within a run, or of two runs
    on the same cells: intervals, McNemar, sign-flip permutation, Holm; table, forest plot, sentences."""
    import pandas as pd

    from isodyn.analysis.compare import compare as compare_table
    from isodyn.analysis.compare import comparison_content
    from isodyn.analysis.metrics import Bootstrap
    from isodyn.analysis.report import write_content
    from isodyn.experiments.config import ConfigError, parse_key_values
    from isodyn.results import read_results, results_frame

    paths, settings = _split_words(words)
    parsers = {**_bootstrap_parsers(), "by": str, "baseline": str}
    try:
        chosen = parse_key_values(settings, parsers)
        if len(paths) not in (1, 2):
            raise ConfigError("give one run directory (compare within it) or two (compare the runs)")
        by = chosen.pop("by", "run" if len(paths) == 2 else "strategy")
        if by not in ("strategy", "model", "modality", "run"):
            raise ConfigError(f"bad value for by: {by!r}; valid: strategy, model, modality, run")
        baseline = chosen.pop("baseline", None)
        bootstrap = Bootstrap(**chosen)
        runs = [read_results(p) for p in paths]
        for run in runs:
            _warn_about(run)
        frames = [results_frame(run.results).assign(run=run.directory.name) for run in runs]
    except (ConfigError, FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from None
    table = compare_table(pd.concat(frames, ignore_index=True), by, baseline, bootstrap)
    if len(paths) == 2:
        out = paths[0].parent / f"compare-{paths[0].name}-vs-{paths[1].name}"
        out.mkdir(exist_ok=True)
    else:
        out = paths[0]
    title = f"Paired comparison by {by}: " + " vs ".join(p.name for p in paths)
    path = write_content(out, comparison_content(table, title, by, bootstrap), f"compare-{by}")
    sys.stdout.write(path.read_text(encoding="utf-8"))
    console.print(f"report: {path}\nhtml:   {path.with_suffix('.html')}", highlight=False, markup=False)


def _regrade_parsers() -> dict[str, Any]:
    from isodyn.experiments.config import grader_name, non_negative_float, positive_int

    return {
        "abs_tol": non_negative_float,
        "rel_tol": non_negative_float,
        "judge": str,
        "api_base": str,
        "cache_dir": Path,
        "concurrency": positive_int,
        "all": lambda v: v.lower() in ("1", "true", "yes"),
        "grader": grader_name,
        "audit": positive_int,
    }


@app.command()
def rescore(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `exp run`")],
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="grader=isodyn|dynamath|mmmath|strict-json, abs_tol, rel_tol, judge=MODEL, audit=N, "
            "api_base, cache_dir, concurrency"
        ),
    ] = None,
) -> None:
    """Re-grade a finished run's saved replies with new settings; no call to the models under test.

    Writes a new run directory beside it (results, summary, report). With judge=MODEL, replies the
    rules found ambiguous or without an answer are read by that model (cached calls) and compared by
    the same rules; audit=N also sends N random clear verdicts to the judge and reports agreement.
    """
    import asyncio
    import json
    from datetime import UTC, datetime

    from isodyn.analysis.report import write_report
    from isodyn.experiments.config import ConfigError, default_cache_dir, parse_key_values
    from isodyn.experiments.regrade import (
        audit_rules,
        llm_extract,
        open_client,
        rescore,
    )
    from isodyn.results import read_results, write_results
    from isodyn.scoring import DEFAULT_GRADER, DYNAMATH_ABS_TOLERANCE, Tolerance

    try:
        chosen = parse_key_values(settings or [], _regrade_parsers())
        run = read_results(run_dir)
        _warn_about(run)
        config, results = run.config, run.results
        judge = _checked_judge(chosen, config) if "judge" in chosen else None
        if "audit" in chosen and judge is None:
            raise ConfigError("audit=N needs judge=MODEL: the judge is what the rules are checked against")
    except (ConfigError, ModelError, FileNotFoundError) as exc:
        raise fail(str(exc)) from None
    tolerance = Tolerance(chosen.get("abs_tol", DYNAMATH_ABS_TOLERANCE), chosen.get("rel_tol", 0.0))
    grader = chosen.get("grader", DEFAULT_GRADER)
    regraded = rescore(results, tolerance, grader)
    judge_calls = {"calls_made": 0, "cache_hits": 0, "cost_usd": 0.0}
    audit = None
    if judge:
        client, store = open_client(judge.cache_dir or default_cache_dir())
        try:
            if "audit" in chosen:
                audit = asyncio.run(audit_rules(regraded, judge, client, tolerance, chosen["audit"]))
            regraded = asyncio.run(llm_extract(regraded, judge, client, tolerance))
        finally:
            store.close()
        judge_calls = {
            "calls_made": client.calls_made,
            "cache_hits": client.cache_hits,
            "cost_usd": client.cost_usd,
        }
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
    while out.exists():  # two rescores in the same second
        stamp += "x"
        out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
    try:
        out.mkdir(parents=True)
    except FileExistsError:  # another process took the name between the check and now
        stamp += "y"
        out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
        out.mkdir()
    rescore_settings = {
        "grader": grader,
        "abs_tol": tolerance.absolute,
        "rel_tol": tolerance.relative,
        "judge": chosen.get("judge"),
        "audit": chosen.get("audit"),
    }
    (out / "config.json").write_text(
        json.dumps({**config, "grader": grader, "rescore": rescore_settings}, indent=2, allow_nan=False)
        + "\n"
    )
    write_results(out / "results.jsonl", regraded)
    reasons = [r.reason for r in regraded]
    summary = {
        "cells": len(regraded),
        "graded": reasons.count("ok"),
        "extraction_failed": reasons.count("extraction_failed"),
        "correct": sum(bool(r.correct) for r in regraded),
        "changed_verdicts": sum(a.correct != b.correct for a, b in zip(results, regraded, strict=True)),
        "judged": sum(r.judge_extract is not None for r in regraded),
        "judge": judge_calls,
        "rescored_from": str(run_dir),
    }
    if audit is not None:
        summary["audit"] = audit
    (out / "summary.json").write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n")
    report = write_report(out, regraded)
    _print_table(regraded)
    audit_line = ""
    if audit is not None:
        audit_line = (
            f"\naudit: rules and judge agree on {audit['agreement']:.1%} of {audit['sampled']} clear "
            f"verdicts; Cohen's kappa {audit['kappa']:.2f} "
            f"[{audit['kappa_low']:.2f}, {audit['kappa_high']:.2f}]; "
            f"{len(audit['disagreements'])} disagreements in summary.json"
        )
    console.print(
        f"grader {grader}: {summary['changed_verdicts']} verdicts changed; {summary['judged']} replies sent "
        f"to the judge, judge calls {judge_calls['calls_made']}{audit_line}\n"
        f"results: {out}/results.jsonl\nreport:  {report}",
        highlight=False,
        markup=False,  # the run's folder name, and an interval in brackets
    )


def _checked_judge(chosen: dict[str, Any], config: dict[str, Any]) -> Any:
    from isodyn.experiments.regrade import JudgeSettings
    from isodyn.models.catalog import describe_model, missing_api_key

    api_base = chosen.get("api_base", config.get("api_base"))
    describe_model(chosen["judge"], api_base)
    missing = missing_api_key(chosen["judge"], api_base)
    if missing:
        raise ModelError(f"judge {chosen['judge']!r} needs the environment variable {missing}")
    cache_dir = chosen.get("cache_dir") or (Path(config["cache_dir"]) if config.get("cache_dir") else None)
    return JudgeSettings(chosen["judge"], api_base, cache_dir, chosen.get("concurrency", 4))


@app.command()
def judge(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `exp run`")],
    settings: Annotated[
        list[str] | None,
        typer.Argument(help="judge=MODEL (required), all=1, api_base, cache_dir, concurrency"),
    ] = None,
) -> None:
    """Process evaluation (MM-MATH 3.3): a judge names the first wrong step of each wrong solution
    and its error type; writes RUN_DIR/process.jsonl and RUN_DIR/process.md."""
    import asyncio

    from isodyn.analysis.process import render_process_report
    from isodyn.experiments.config import ConfigError, default_cache_dir, parse_key_values
    from isodyn.experiments.regrade import open_client, process_evaluate, write_jsonl
    from isodyn.results import read_results

    try:
        chosen = parse_key_values(settings or [], _regrade_parsers())
        if "judge" not in chosen:
            raise ConfigError("judge=MODEL is required, e.g. judge=gpt-4o")
        run = read_results(run_dir)
        _warn_about(run)
        config, results = run.config, run.results
        settings_ = _checked_judge(chosen, config)
    except (ConfigError, ModelError, FileNotFoundError) as exc:
        raise fail(str(exc)) from None
    client, store = open_client(settings_.cache_dir or default_cache_dir())
    try:
        records = asyncio.run(process_evaluate(results, settings_, client, bool(chosen.get("all"))))
    finally:
        store.close()
    write_jsonl(run_dir / "process.jsonl", records)
    report = render_process_report(records, run_dir.name)
    (run_dir / "process.md").write_text(report, encoding="utf-8")
    sys.stdout.write(report)
    console.print(
        f"{len(records)} solutions judged: {client.calls_made} calls, {client.cache_hits} cache hits, "
        f"${client.cost_usd:.4f}",
        highlight=False,
    )


@app.command()
def generate(
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="task=ID[,ID] topic=T[,T] n=N (or variants=N) out=DIR contact_sheet=1 "
            "base_seed workers cache_dir"
        ),
    ] = None,
) -> None:
    """Write a dataset of variants (items.jsonl + images/) from the chosen seeds, balanced per class
    for classification tasks; contact_sheet=1 adds one PNG per topic tiling a few items of each seed."""
    import json

    from isodyn.experiments.config import (
        ConfigError,
        bounded_int,
        default_cache_dir,
        parse_key_values,
        positive_int,
    )
    from isodyn.generators.dataset import (
        DatasetRequest,
        build_dataset,
        check_size,
        default_workers,
        select_seeds,
    )

    def names(value: str) -> tuple[str, ...]:
        return tuple(v.strip() for v in value.split(",") if v.strip())

    parsers = {
        "task": names, "topic": names, "n": positive_int, "variants": positive_int, "out": Path,
        "contact_sheet": lambda v: v.lower() in ("1", "true", "yes"), "base_seed": int,
        "workers": bounded_int(1, 256), "cache_dir": Path,  # workers are processes: bounded
    }  # fmt: skip
    try:
        chosen = parse_key_values(settings or [], parsers)
        if "out" not in chosen:
            raise ConfigError("out=DIR is required")
        seeds = select_seeds(chosen.get("task", ()), chosen.get("topic", ()))
        check_size(len(seeds), chosen.get("n", chosen.get("variants", 10)))  # before any work
    except (ConfigError, KeyError) as exc:
        raise fail(str(exc.args[0] if isinstance(exc, KeyError) else exc)) from None
    request = DatasetRequest(
        seed_ids=tuple(seeds),
        variants=chosen.get("n", chosen.get("variants", 10)),
        base_seed=chosen.get("base_seed", 0),
        out=chosen["out"],
        cache_dir=chosen.get("cache_dir", default_cache_dir()),
        workers=chosen.get("workers", default_workers()),
        contact_sheet=chosen.get("contact_sheet", False),
    )
    summary = build_dataset(request)
    (request.out / "dataset.json").write_text(json.dumps({**summary, "seeds": list(seeds)}, indent=2) + "\n")
    console.print(
        f"{summary['items']} items, {summary['images']} images from {len(seeds)} seeds "
        f"-> {request.out}/items.jsonl" + "".join(f"\ncontact sheet: {p}" for p in summary["contact_sheets"]),
        highlight=False,
    )


# DynaMath Table 1: share of its 501 seeds per topic.
DYNAMATH_TOPIC_SHARE = {
    "solid_geometry": 3.0, "puzzle_test": 3.4, "arithmetic": 5.2, "scientific_figure": 9.0,
    "graph_theory": 9.6, "algebra": 10.2, "plane_geometry": 15.4, "analytic_geometry": 19.4,
    "statistics": 25.0,
}  # fmt: skip


@app.command("list")
def list_(
    what: Annotated[
        str, typer.Argument(help="strategies, modifiers, seeds, graders, metrics, datasets or models")
    ],
) -> None:
    """Describe what can be plugged in, each list read from its registry: the strategies and
    modifiers (source, calls per cell, modalities), the seed programs, the graders, the report's
    metric sections, the dataset kinds; or the model names."""
    from isodyn.registry import KINDS, registry_of

    if what == "models":  # not a plug-in kind: names from the config files
        from isodyn.models.aliases import aliases, config_files

        try:
            table_of = aliases()
        except ModelError as exc:
            raise fail(str(exc)) from None
        files = ", ".join(str(p) for p in config_files())
        table = Table(title=f"Model names (extend or override them in [models] of {files})")
        for column in ("name", "litellm id", "reads images", "from"):
            table.add_column(column, overflow="fold")
        for name, alias in table_of.items():
            sees = "as litellm says" if alias.vision is None else ("yes" if alias.vision else "no")
            table.add_row(*_cells(name, alias.model, sees, alias.source))
        _stdout_console().print(table)
        return
    # The kinds each word lists: `strategies` shows the bases and the modifiers they compose with.
    lists: dict[str, tuple[str, ...]] = {
        "strategies": ("strategies", "modifiers"),
        "seeds": ("seeds",),
        "generators": ("seeds",),
    }
    lists.update({kind: (kind,) for kind in KINDS if kind not in lists})
    if what not in lists:
        raise fail(f"cannot list {what!r}; valid: {', '.join([*lists, 'models'])}")
    tables = [_list_registry(kind) for kind in lists[what]]
    if "seeds" in lists[what]:
        from collections import Counter

        counts = Counter(seed.topic.value for seed in registry_of("seeds").values())
        dynamath = sum(counts[t] for t in DYNAMATH_TOPIC_SHARE)
        topics = Table(title="Seeds per topic, next to DynaMath's Table 1")
        for column in ("topic", "seeds", "share of DynaMath-topic seeds", "DynaMath share"):
            topics.add_column(column)
        for topic, count in sorted(counts.items()):
            share = f"{100 * count / dynamath:.1f}%" if topic in DYNAMATH_TOPIC_SHARE and dynamath else "–"
            reference = f"{DYNAMATH_TOPIC_SHARE[topic]:.1f}%" if topic in DYNAMATH_TOPIC_SHARE else "–"
            topics.add_row(*_cells(topic, count, share, reference))
        tables.append(topics)
    _stdout_console().print(*tables)


def _list_registry(kind: str) -> Table:
    """One plug-in kind's table: a row per registered entry, in the registry's order. Every kind is
    listed by this one loop; `isodyn.listing` says which cells an entry shows."""
    from isodyn.listing import listing_of
    from isodyn.registry import registry_of

    shown = listing_of(kind)
    table = Table(title=shown.title)
    for column in shown.columns:
        table.add_column(column, overflow="fold")
    for entry in registry_of(kind).entries():
        table.add_row(*_cells(*shown.row(entry)))
    return table


# The project's errors whose message is meant for the user, by module and name. A class can only
# be raised once its module is loaded, so none is imported just to be caught (`exp list` stays fast).
USER_ERRORS = (
    ("isodyn.experiments.config", "ConfigError"),
    ("isodyn.models.catalog", "ModelError"),
    ("isodyn.models.local", "LocalModelUnavailable"),
    ("isodyn.generators.release", "ReleaseError"),
    ("isodyn.analysis.external", "ExternalTableError"),
    ("isodyn.analysis.report", "UnsafeOutputError"),
    ("isodyn.strategies.compose", "StrategyError"),
    ("isodyn.experiments.runlock", "RunInUse"),
    ("isodyn.experiments.runner", "ModelUnavailable"),
    ("isodyn.cache.stores", "CacheDamaged"),
    ("isodyn.results", "NewerRun"),
)


def _user_errors() -> tuple[type[BaseException], ...]:
    loaded = (getattr(sys.modules[m], name, None) for m, name in USER_ERRORS if m in sys.modules)
    return tuple(error for error in loaded if isinstance(error, type))


def os_problem(exc: OSError) -> str:
    """The operating system's refusal as one line: what, and on which file. A full disk anywhere in
    the chain (a write failed, then the cleanup's write failed too) is named as such."""
    chain: list[BaseException] = []
    at: BaseException | None = exc
    while at is not None and at not in chain:
        chain.append(at)
        at = at.__cause__ or at.__context__
    full = next((e for e in chain if isinstance(e, OSError) and e.errno == errno.ENOSPC), None)
    if isinstance(full, OSError):
        where = f" writing {full.filename}" if full.filename else ""
        return f"the disk is full (no space left on the device){where}; free some space and run it again"
    files = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
    what = exc.strerror or str(exc) or type(exc).__name__
    return f"{files}: {what}" if files else what


def main() -> None:
    """`exp`: every command's expected failure (bad input, a run in use, a damaged cache, a folder it
    cannot write, a full disk) ends here as one line on stderr and exit code 2, so no command can
    forget one. Ctrl-C is left to typer (exit 130, no traceback); anything else is a bug, and shows
    its traceback."""
    try:
        app()
    except sqlite3.DatabaseError as exc:  # a store that opened but fails on reading
        _say(
            "error:", "bold red",
            f"the cache is damaged ({exc}); run `exp cache repair` to set the damaged store aside, "
            "or `exp cache clear`",
        )  # fmt: skip
        sys.exit(2)
    except _user_errors() as exc:  # CacheDamaged: raised where a store is opened, by any command
        _say("error:", "bold red", str(exc))
        sys.exit(2)
    except OSError as exc:  # PermissionError, a full disk, a read-only file system, out= a file...
        _say("error:", "bold red", os_problem(exc))
        sys.exit(2)


if __name__ == "__main__":
    main()
