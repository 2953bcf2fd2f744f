"""The `exp` command: `exp run key=value ...`, `exp report RUN_DIR`, ...

Each command parses its words, calls its pipeline in `isodyn.commands` and prints what came back;
a pipeline's user-facing failure (an `IsodynError`) is printed as one line, with exit code 2.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Annotated

import typer

from isodyn.cli.browse import cache, list_, view
from isodyn.cli.failure import fail, os_problem
from isodyn.cli.terminal import console, print_results_table, say, show_notice
from isodyn.errors import ConfigError, IsodynError
from isodyn.models.catalog import collection_paused
from isodyn.runs.folder import RunFolder

# Markdown: help text is wrapped as paragraphs at any width (rich's own mode keeps every line break
# of a docstring) and `[/MODALITY]` in a parameter's help is text, not a style tag.
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="isodyn: robustness experiments.",
    rich_markup_mode="markdown",
)


# `exp rescore` and `exp judge`: a run folder's own settings are someone else's unless trusted.
TrustRun = Annotated[
    bool,
    typer.Option(
        "--trust-run",
        help="let the judge use the server (api_base) and cache (cache_dir) the run's config.json names",
    ),
]


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


@app.command(context_settings={"allow_extra_args": False})
def run(
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="[STUDY.toml] key=value settings: models, strategies, modalities, seeds, variants, repeats, "
            "renders (exp list renders), perturbations (exp list perturbations), base_seed, temperature, "
            "max_tokens, api_base, api_key_env, describer, vision, concurrency, rpm, "
            "tpm, max_retries, timeout, max_cost, dry_run, out, cache_dir, quiet, grader, judge, batch, "
            "batch_size, batch_wait, batch_fallback, shard",
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
    """Run the grid models x strategies x modalities x seeds x variants x repeats (x render profiles of
    the pictures x perturbations of the questions, when asked).

    A study file (`exp run study.toml`, or config=study.toml) holds the settings; key=value words
    after it override them. The same command after a crash, Ctrl-C or kill -9 resumes the unfinished
    run: finished cells are kept, nothing is called twice. A finished run is replayed from the cache
    into a new directory (its report is written again only when the results changed)."""
    with collection_paused():  # the run's modules: imported before its first call
        from isodyn.cli.run_screen import RunScreen, estimate_text, run_text
        from isodyn.commands.run import DryRunEstimate, RunRequest, estimate_run, run_experiment

    screen = RunScreen()
    try:
        study, words = _study_and_words(settings or [])
        request = RunRequest.from_words(words, study, trust_study)
        done = estimate_run(request, screen) if request.config.dry_run else run_experiment(request, screen)
    except IsodynError as exc:  # said while the progress bars are still up, as they stopped
        raise fail(str(exc)) from None
    finally:
        screen.close()
    if isinstance(done, DryRunEstimate):
        console.print(estimate_text(done, request.config), highlight=False)
        return
    if not request.config.quiet:
        print_results_table(done.results)
    console.print(run_text(done, request.config))
    if done.summary.all_failed:
        say(
            "error:", "bold red",
            f"every one of the {done.summary.attempted} cells failed; "
            f"the reasons are in {done.folder.log_file}",
        )  # fmt: skip
        raise typer.Exit(code=1)


@app.command(context_settings={"allow_extra_args": False})
def search(
    settings: Annotated[
        list[str] | None,
        typer.Argument(
            help="key=value settings: budget (calls per seed and searcher, default 50), searcher "
            "(guided, random, both), confirm (fresh repeats a failure must fail again, default 2), baseline "
            "(DynaMath's variants asked first, default 10), transfer (models the hard set is asked to), "
            "search_seed; and a run's models, strategies, modalities, seeds, temperature, max_tokens, "
            "api_base, api_key_env, vision, concurrency, max_cost, out, cache_dir, quiet, grader, ...",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Search each seed's variants for those the model answers wrongly, within a budget of calls.

    Writes out/search-STAMP-ID/: trials.jsonl, report.md (worst case against variants tried, what the
    failures share, DynaMath's 10 variants against the search), and hardset/ (the confirmed failing
    variants: `exp run dataset=out/search-.../hardset` asks exactly those). The same command again
    asks the same variants and replays every call from the cache."""
    from isodyn.cli.search_screen import SearchScreen, search_text
    from isodyn.commands.search import SearchRequest, run_search

    screen = SearchScreen()
    try:
        request = SearchRequest.from_words(settings or [])
        screen.quiet = request.config.quiet
        done = run_search(request, screen)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    finally:
        screen.close()
    console.print(search_text(done), highlight=False, markup=False)
    if done.totals.all_failed:
        log = RunFolder(done.folder).log_file
        say("error:", "bold red", f"every call of the search failed; the reasons are in {log}")
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
    from isodyn.datasets.kinds import describe as describe_dataset
    from isodyn.datasets.kinds import split_spec

    try:
        lines = describe_dataset(dataset)
        kind, path = split_spec(dataset)
        if check and kind.name == "dynamath-programs":
            from isodyn.datasets.dynamath_programs import check_environment

            lines += check_environment(path)
    except (IsodynError, OSError) as exc:  # an OSError as it says itself: the path the user typed
        raise fail(str(exc)) from None
    sys.stdout.write("\n".join(lines) + "\n")


app.command()(cache)  # `exp cache`, `exp view` and `exp list` are in cli_browse.py


@app.command()
def report(
    words: Annotated[
        list[str],
        typer.Argument(
            help="RUN_DIR, an inspect log (LOG.eval), or one or more tables (CSV/TSV/JSONL of "
            "per-variant correctness); "
            "resamples=10000 level=0.95 seed=0 grader=isodyn|dynamath|mmmath|strict-json "
            "baseline=STRATEGY[/MODALITY] (default zeroshot/image)"
        ),
    ],
) -> None:
    """Write report.md and a standalone report.html for a run (or outside results tables) and print
    the Markdown. A table may be long form (seed_id, variant, correct, ...) or DynaMath's published
    wide form (correct/fail cells, totals and summary rows are read as published); several tables
    give one report with a row per model. With grader=NAME the run's saved replies are graded by that
    grader first (nothing is called). The report opens with its findings: per model the best and
    worst arm and the modality gap, each against the baseline arm (baseline=)."""
    from isodyn.analysis.run_report import UnsafeOutputError
    from isodyn.cli.terminal import progress_line
    from isodyn.commands.report import ReportRequest, report_run
    from isodyn.textsafe import terminal_text

    try:
        with progress_line() as progress:
            done = report_run(ReportRequest.from_words(words), show_notice, progress)
    except UnsafeOutputError as exc:  # a link in the run folder leading out of it, named safely
        raise fail(terminal_text(str(exc))) from None
    except IsodynError as exc:
        raise fail(str(exc)) from None
    # the report quotes replies: no escape sequence or bidi control in them reaches the terminal
    sys.stdout.write(terminal_text(done.markdown))
    shown = terminal_text(f"report: {done.path}\nhtml:   {done.html}")
    console.print(shown, highlight=False, markup=False)


@app.command()
def compare(
    words: Annotated[
        list[str],
        typer.Argument(
            help="RUN_DIR [RUN_DIR2] (or inspect logs, LOG.eval) by=strategy|model|modality baseline=NAME "
            "resamples level seed"
        ),
    ],
) -> None:
    """Paired statistical comparison of strategies, models or modalities within a run, or of two runs
    on the same cells: intervals, McNemar, sign-flip permutation, Holm; table, forest plot, sentences."""
    from isodyn.commands.compare import CompareRequest, compare_runs

    try:
        done = compare_runs(CompareRequest.from_words(words), show_notice)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(done.markdown)
    console.print(f"report: {done.path}\nhtml:   {done.html}", highlight=False, markup=False)


@app.command()
def export(
    words: Annotated[list[str], typer.Argument(help="inspect RUN_DIR [out=PATH.eval|PATH.json]")],
) -> None:
    """Write a run as another tool's log: `exp export inspect RUN_DIR` writes an inspect log (one
    sample per cell: messages, reply, every grader's score, usage) beside the run, which `inspect view`
    opens and `exp report` reads back."""
    from isodyn.commands.export import ExportRequest, export_run
    from isodyn.textsafe import terminal_text

    try:
        done = export_run(ExportRequest.from_words(words))
    except IsodynError as exc:
        raise fail(str(exc)) from None
    console.print(
        terminal_text(f"{done.cells} cells -> {done.path} (inspect log, status {done.status})"),
        highlight=False, markup=False,
    )  # fmt: skip


@app.command()
def merge(
    words: Annotated[
        list[str], typer.Argument(help="RUN_DIR... (the runs of shard=1/N .. N/N) out=DIR cache_dir=DIR")
    ],
) -> None:
    """Join the runs of one experiment's shards (`exp run shard=i/N` on N machines) into the run one
    machine would have made, named so that `exp run` with the same settings and no shard finds it;
    store every reply they hold in the cache (default: yours), so a rerun here calls nothing."""
    from isodyn.commands.merge import MergeRequest, merge_runs
    from isodyn.textsafe import terminal_text

    try:
        done = merge_runs(MergeRequest.from_words(words), show_notice)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    console.print(terminal_text(done.text()), highlight=False, markup=False)


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
    trust_run: TrustRun = False,
) -> None:
    """Re-grade a finished run's saved replies with new settings; no call to the models under test.

    Writes a new run directory beside it (results, summary, report). With judge=MODEL, replies the
    rules found ambiguous or without an answer are read by that model (cached calls) and compared by
    the same rules; audit=N also sends N random clear verdicts to the judge and reports agreement.
    """
    from isodyn.commands.rescore import RescoreRequest, rescore_run

    try:
        request = RescoreRequest.from_words(RunFolder(run_dir), settings or [], trust_run)
        done = rescore_run(request, show_notice)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    print_results_table(done.results)
    audit_line = ""
    if done.audit is not None:
        audit = done.audit
        audit_line = (
            f"\naudit: rules and judge agree on {audit.agreement:.1%} of {audit.sampled} clear "
            f"verdicts; Cohen's kappa {audit.kappa:.2f} [{audit.kappa_low:.2f}, {audit.kappa_high:.2f}]; "
            f"{audit.disagreements} disagreements in summary.json"
        )
    console.print(
        f"grader {done.grader}: {done.changed_verdicts} verdicts changed; {done.judged} replies sent "
        f"to the judge, judge calls {done.judge_calls.calls_made}{audit_line}\n"
        f"results: {done.folder.results_file}\nreport:  {done.folder.report_file}",
        highlight=False,
        markup=False,  # the run's folder name, and an interval in brackets
    )


@app.command()
def judge(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `exp run`")],
    settings: Annotated[
        list[str] | None,
        typer.Argument(help="judge=MODEL (required), all=1, api_base, cache_dir, concurrency"),
    ] = None,
    trust_run: TrustRun = False,
) -> None:
    """Process evaluation (MM-MATH 3.3): a judge names the first wrong step of each wrong solution
    and its error type; writes RUN_DIR/process.jsonl and RUN_DIR/process.md."""
    from isodyn.commands.judge import JudgeRequest, judge_run

    try:
        done = judge_run(JudgeRequest.from_words(RunFolder(run_dir), settings or [], trust_run), show_notice)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(done.report)
    console.print(
        f"{done.judged} solutions judged: {done.calls_made} calls, {done.cache_hits} cache hits, "
        f"${done.cost_usd:.4f}",
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
    from isodyn.commands.generate import generate_dataset, generate_request

    try:
        done = generate_dataset(generate_request(settings or []))
    except IsodynError as exc:
        raise fail(str(exc)) from None
    console.print(
        f"{done.items} items, {done.images} images from {done.seeds} seeds -> {done.items_path}"
        + "".join(f"\ncontact sheet: {p}" for p in done.contact_sheets),
        highlight=False,
    )


app.command()(view)
app.command("list")(list_)


def main() -> None:
    """`exp`: every command's expected failure (bad input, a run in use, a damaged cache, a folder it
    cannot write, a full disk) ends here as one line on stderr and exit code 2, so no command can
    forget one. Ctrl-C is left to typer (exit 130, no traceback); anything else is a bug, and shows
    its traceback."""
    try:
        app()
    except sqlite3.DatabaseError as exc:  # a store that opened but fails on reading
        say(
            "error:", "bold red",
            f"the cache is damaged ({exc}); run `exp cache repair` to set the damaged store aside, "
            "or `exp cache clear`",
        )  # fmt: skip
        sys.exit(2)
    except IsodynError as exc:  # every user-facing error, whichever command let it through
        say("error:", "bold red", str(exc))
        sys.exit(2)
    except OSError as exc:  # PermissionError, a full disk, a read-only file system, out= a file...
        say("error:", "bold red", os_problem(exc))
        sys.exit(2)


if __name__ == "__main__":
    main()
