"""The `exp` commands that look after or show what is already there, registered on the `exp` app by
`isodyn.cli` in its command order: `exp cache` (the reply cache and the cell memo), `exp view` (a
run in the browser) and `exp list` (what can be plugged in, and the model names).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from isodyn.cli.failure import fail
from isodyn.cli.terminal import cells as _cells  # the names `exp list` below uses
from isodyn.cli.terminal import console
from isodyn.cli.terminal import stdout_console as _stdout_console
from isodyn.errors import IsodynError
from isodyn.models.catalog import ModelError

if TYPE_CHECKING:
    from isodyn.commands.cache import CacheOutcome


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
            where = request.folder.path
            sys.stdout.write(terminal_text(f"viewing {where} at {server.url} (Ctrl-C to stop)\n"))
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


def list_(
    what: Annotated[
        str,
        typer.Argument(help="strategies, modifiers, seeds, graders, metrics, datasets, renders or models"),
    ],
) -> None:
    """Describe what can be plugged in, each list read from its registry: the strategies and
    modifiers (source, calls per cell, modalities), the seed programs, the graders, the report's
    metric sections, the dataset kinds, the render profiles (with isodyn.toml's); or the model names."""
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
    try:
        tables = [_list_registry(kind) for kind in lists[what]]
    except IsodynError as exc:  # a user's isodyn.toml that defines a bad render profile
        raise fail(str(exc)) from None
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
    listed by this one loop; `isodyn.cli.listing` says which cells an entry shows."""
    import importlib

    from isodyn.cli.listing import listing_of
    from isodyn.registry import registry_of

    shown = listing_of(kind)
    table = Table(title=shown.title)
    for column in shown.columns:
        table.add_column(column, overflow="fold")
    entries = list(registry_of(kind).entries())
    if shown.more is not None:
        module, function = shown.more.split(":")
        entries += getattr(importlib.import_module(module), function)()
    for entry in entries:
        table.add_row(*_cells(*shown.row(entry)))
    return table
