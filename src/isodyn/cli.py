"""The `exp` command: `exp run key=value ...`, `exp report RUN_DIR`, ...

Each command parses its words, calls its pipeline in `isodyn.commands` and prints what came back;
a pipeline's user-facing failure (an `IsodynError`) is printed as one line, with exit code 2.
"""

from __future__ import annotations

import errno
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from isodyn.errors import ConfigError, IsodynError
from isodyn.models.catalog import ModelError, collection_paused
from isodyn.terminal import cells as _cells  # the names `exp list` below uses
from isodyn.terminal import console, print_results_table, say, show_notice
from isodyn.terminal import stdout_console as _stdout_console

if TYPE_CHECKING:
    from isodyn.commands.cache import CacheOutcome

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


def fail(message: str) -> typer.Exit:
    """A one-line error and exit code 2 (bad input). The message is printed as written: it quotes
    what the user typed or what a model is called, where `[red]` or `[/]` is text, not style."""
    say("error:", "bold red", message)
    return typer.Exit(code=2)


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
            "base_seed, temperature, max_tokens, api_base, api_key_env, describer, vision, concurrency, rpm, "
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
    """Run the grid models x strategies x modalities x seeds x variants x repeats.

    A study file (`exp run study.toml`, or config=study.toml) holds the settings; key=value words
    after it override them. The same command after a crash, Ctrl-C or kill -9 resumes the unfinished
    run: finished cells are kept, nothing is called twice. A finished run is replayed from the cache
    into a new directory (its report is written again only when the results changed)."""
    with collection_paused():  # the run's modules: imported before its first call
        from isodyn.commands.run import DryRunEstimate, RunRequest, estimate_run, run_experiment
        from isodyn.run_screen import RunScreen, estimate_text, run_text

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
            f"every one of the {done.summary.attempted} cells failed; the reasons are in {done.log_path}",
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
    from isodyn.commands.search import SearchRequest, run_search
    from isodyn.search_screen import SearchScreen, search_text

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
        log = done.folder / "log.jsonl"
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


@app.command()
def cache(
    action: Annotated[str, typer.Argument(help="stats, clear, prune, repair or migrate")],
    settings: Annotated[
        list[str] | None, typer.Argument(help="cache_dir=DIR, older_than=30d (prune)")
    ] = None,
) -> None:
    """The reply cache and the cell memo: `stats` (entries, size, last run's hit rate), `clear`,
    `prune older_than=30d`, `repair` (check every store; set a damaged one aside), `migrate` (convert
    an older isodyn's cache, whose pickled values are no longer read, once)."""
    from isodyn.commands.cache import CacheRequest, cache_command

    try:
        outcome = cache_command(CacheRequest.from_words(action, settings or []))
    except IsodynError as exc:  # a folder that is no cache, a store this user may not read
        raise fail(str(exc)) from None
    for line in _cache_lines(outcome):
        console.print(line, highlight=False)


def _cache_lines(outcome: CacheOutcome) -> list[str]:
    from isodyn.commands.cache import CacheStats, Cleared, Migrated, NoCache, Pruned

    root = outcome.root
    if isinstance(outcome, Migrated):
        return [outcome.line()]
    if isinstance(outcome, NoCache):
        return [f"cache {root}: there is no cache there yet; nothing to {outcome.action}"]
    if isinstance(outcome, CacheStats):
        last = outcome.last_run
        rate = "–" if last is None or last.hit_rate is None else f"{100 * last.hit_rate:.1f}%"
        ran = f"{last.cache_hits} hits, {last.calls_made} calls, hit rate {rate}" if last else "none"
        return [
            f"cache {root}: {outcome.replies} replies, {outcome.reply_bytes / 1e6:.1f} MB; "
            f"{outcome.memo_cells} memoized cells, {outcome.memo_bytes / 1e6:.1f} MB; last run: {ran}"
        ]
    if isinstance(outcome, Pruned):
        return [
            f"removed {outcome.replies} replies older than {outcome.older_than / 86400:g} days and "
            f"{outcome.memo_cells} memoized cells from {root}"
        ]
    if isinstance(outcome, Cleared):
        note = f"; damaged store(s) deleted: {', '.join(outcome.deleted)}" if outcome.deleted else ""
        note += f"; not isodyn's, left alone: {', '.join(outcome.kept)}" if outcome.kept else ""
        removed = f"removed {outcome.replies} replies and {outcome.memo_cells} memoized cells from {root}"
        return [removed + note]
    moved = [f"{s.store}: {s.problem}; set aside as {s.moved_to.name}" for s in outcome.set_aside]
    return moved or [f"cache {root}: every store opens and checks clean"]


@app.command()
def report(
    words: Annotated[
        list[str],
        typer.Argument(
            help="RUN_DIR, or one or more tables (CSV/TSV/JSONL of per-variant correctness); "
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
    from isodyn.commands.report import ReportRequest, report_run
    from isodyn.terminal import progress_line
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
            help="RUN_DIR [RUN_DIR2] by=strategy|model|modality baseline=NAME resamples level seed"
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
        done = rescore_run(RescoreRequest.from_words(run_dir, settings or [], trust_run), show_notice)
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
        f"results: {done.results_path}\nreport:  {done.report_path}",
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
        done = judge_run(JudgeRequest.from_words(run_dir, settings or [], trust_run), show_notice)
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


@app.command()
def view(
    words: Annotated[
        list[str],
        typer.Argument(help="RUN_DIR port=8765 open=yes|no; or RUN_DIR export=FILE", show_default=False),
    ],
) -> None:
    """Browse a run in the browser, on 127.0.0.1 only, until Ctrl-C: filter and sort its cells, read a
    cell's transcript with the answer the grader read highlighted, compare arms on one variant, see a
    seed's variants across arms, and mark doubtful verdicts right or wrong (saved in RUN/marks.jsonl;
    results.jsonl is never changed). With export=FILE the marks are written as labelled replies in
    the grading corpus's layout (tests/corpus) and the command exits."""
    import webbrowser

    from isodyn.commands.view import ViewRequest, export_run, start_viewer
    from isodyn.textsafe import terminal_text

    try:
        request = ViewRequest.from_words(words)
        if request.export is not None:
            sys.stdout.write(terminal_text(export_run(request).summary()) + "\n")
            return
        server = start_viewer(request)
    except IsodynError as exc:
        raise fail(str(exc)) from None
    with server:
        try:  # Ctrl-C at any moment from here stops the viewer with exit 0
            sys.stdout.write(terminal_text(f"viewing {request.run_dir} at {server.url} (Ctrl-C to stop)\n"))
            sys.stdout.flush()
            if request.open_browser:
                webbrowser.open(server.url)
            server.serve_forever()
        except KeyboardInterrupt:
            sys.stdout.write("\nstopped\n")


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
