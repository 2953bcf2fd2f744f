"""`exp search`: look for the variants of each seed a model answers wrongly, within a budget of calls.

`run_search` plans the units (models x strategies x modalities x seeds, checked like a run), makes the
search folder (`out/search-STAMP-ID/`), runs the rounds (search/engine.py), asks the hard set to the
`transfer=` models, and writes what was found: trials.jsonl (one trial per line), results.jsonl (every
cell, as a run writes them), hardset/ (the confirmed failing variants, a dataset `exp run dataset=`
reads), report.md with figures/worst-case.png, and search.json (the settings and the counts).

A second search with the same settings asks the same variants: every call replays from the cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from isodyn.atomic import write_atomic
from isodyn.core import NO_PERTURBATION, JsonObject
from isodyn.errors import ConfigError, IsodynError
from isodyn.experiments.plan import Plan, plan_experiment
from isodyn.experiments.runner import ModelUnavailable
from isodyn.generators.tape import Genome
from isodyn.models.catalog import is_local
from isodyn.runs.config import ExperimentConfig, parse_key_values, parse_overrides
from isodyn.runs.setting_values import bounded_int
from isodyn.search.engine import SearchRounds, SearchSettings
from isodyn.search.searchers import searchable
from isodyn.search.trials import Searcher, Trial, TrialStatus, Unit

# What `exp search` adds to a run's settings, and the run settings it decides itself.
_SEARCHERS = {
    "guided": (Searcher.GUIDED,),
    "random": (Searcher.RANDOM,),
    "both": (Searcher.GUIDED, Searcher.RANDOM),
}
_NOT_FOR_SEARCH = {
    "variants": "the search chooses the variants (budget= says how many calls each seed gets)",
    "repeats": "a failure is asked again on fresh repeats (confirm=)",
    "dataset": "a search draws new variants from seed programs; name them with seeds=",
    "shard": "a search adapts to what it found; run one search per seed set instead",
    "batch": "a search waits for each round's answers before it chooses the next variants",
    "dry_run": "a search spends at most budget= calls per seed and searcher, and max_cost= caps its cost",
}
REFERENCE_VARIANTS = 100  # plain random variants per seed whose number sizes the found set is set against


def _searchers(value: str) -> tuple[Searcher, ...]:
    if value not in _SEARCHERS:
        raise ConfigError(f"must be one of {', '.join(_SEARCHERS)}")
    return _SEARCHERS[value]


def _models(value: str) -> tuple[str, ...]:
    return parse_overrides([f"models={value}"]).models


_PARSERS: dict[str, Any] = {
    "budget": bounded_int(1, 100_000),
    "searcher": _searchers,
    "confirm": bounded_int(0, 20),
    "baseline": bounded_int(0, 1000),
    "transfer": _models,
    "search_seed": bounded_int(0, 2**31),
}


@dataclass(frozen=True)
class SearchRequest:
    config: ExperimentConfig  # the run settings (variants and repeats are the search's own)
    settings: SearchSettings

    @classmethod
    def from_words(cls, words: Sequence[str]) -> SearchRequest:
        """`exp search key=value ...`: the search's own keys, then a run's; ConfigError on a bad word."""
        own = [w for w in words if w.partition("=")[0].strip() in _PARSERS]
        rest = [w for w in words if w not in own]
        for word in rest:
            key = word.partition("=")[0].strip()
            if key in _NOT_FOR_SEARCH:
                raise ConfigError(f"{key}= is not a setting of exp search: {_NOT_FOR_SEARCH[key]}")
        values = parse_key_values(own, _PARSERS)
        if "searcher" in values:
            values["searchers"] = values.pop("searcher")
        config = parse_overrides([*rest, "variants=1", "repeats=1"])
        if config.perturbations != (NO_PERTURBATION,):  # else left out of every cell, silently
            raise ConfigError(
                "perturbations= is not a setting of exp search: it looks for failing variants of the "
                "seeds themselves (renders= may vary how their pictures are drawn)"
            )
        settings = SearchSettings(**values)
        clash = set(settings.transfer) & set(config.models)
        if clash:
            raise ConfigError(f"transfer={sorted(clash)[0]} is also searched (models=); name another model")
        return cls(config, settings)


@dataclass(frozen=True)
class SearchTotals:
    units: int
    trials: int
    confirmed: int
    calls: int  # calls the trials made, cached or not
    calls_made: int  # calls sent to a model (not from the cache)
    cost_usd: float
    undone: int  # trials max_cost left unasked
    complete: bool
    errors: int = 0  # trials whose calls failed
    skipped: int = 0  # trials not asked (no vision, a strategy that does not apply)

    @property
    def all_failed(self) -> bool:
        """Every trial that was asked ended in an error (there was at least one)."""
        asked = self.trials - self.skipped
        return asked > 0 and self.errors == asked


@dataclass(frozen=True)
class SearchResult:
    folder: Path
    trials: list[Trial]
    totals: SearchTotals
    report: Path
    hardset: Path


class SearchHooks:
    """What a caller sees while a search goes; every method does nothing unless overridden."""

    def notice(self, line: str) -> None:
        """A warning before the search starts."""

    def started(self, units: int, most_calls: int, folder: Path) -> None:
        """The search begins: `most_calls` is the most it can spend (budget x units x searchers +
        baseline and transfer asks with their confirmations)."""

    def trial(self, trial: Trial) -> None:
        """A trial finished."""

    def finished(self) -> None:
        """The last trial is in; the hard set and the report are written next."""


class SearchStopped(IsodynError):
    """A model cannot be called at all; the finished trials are kept in the search folder."""


def run_search(request: SearchRequest, hooks: SearchHooks | None = None) -> SearchResult:
    hooks = hooks or SearchHooks()
    config, settings = request.config, request.settings
    planned = replace(config, models=config.models + settings.transfer)
    plan = plan_experiment(planned)
    folder = _new_folder(config, settings)
    _write_search_json(folder, request)
    lines = (folder / "trials.jsonl").open("a", encoding="utf-8")

    def on_trial(trial: Trial) -> None:
        lines.write(json.dumps(trial.to_json(), allow_nan=False) + "\n")
        lines.flush()
        hooks.trial(trial)

    for line in _notices(plan, settings):
        hooks.notice(line)
    rounds = SearchRounds(plan, settings, folder, on_trial)
    units = [u for u in rounds.units() if u.model in config.models]
    searches = rounds.searches(units)
    hooks.started(len(units), _most_calls(units, settings), folder)
    try:
        trials = asyncio.run(_search_then_transfer(rounds, searches, settings))
    except ModelUnavailable as exc:
        raise SearchStopped(f"{exc} (finished trials are kept in {folder})") from exc
    finally:
        lines.close()
    hooks.finished()
    hardset = folder / "hardset"
    _write_outputs(plan, settings, folder, trials, hardset)
    totals = _totals(units, trials, rounds)
    _write_search_json(folder, request, totals)
    return SearchResult(folder, trials, totals, folder / "report.md", hardset)


async def _search_then_transfer(
    rounds: SearchRounds, searches: list[Any], settings: SearchSettings
) -> list[Trial]:
    trials = list(await rounds.run(searches))
    if settings.transfer:
        transfers = rounds.fixed_searches(_transfer_units(trials, settings))
        trials = list(await rounds.run(transfers))
    return trials


def _transfer_units(trials: list[Trial], settings: SearchSettings) -> dict[Unit, list[tuple[Genome, str]]]:
    """Each transfer model's units: the hard set of the same strategy, modality and seed, every
    confirmed variant once (under each render profile it was confirmed under), in the order found."""
    found: dict[tuple[str, Any, str], dict[tuple[str, str], tuple[Genome, str]]] = {}
    for trial in trials:
        if trial.status is TrialStatus.CONFIRMED and trial.searcher is not Searcher.TRANSFER:
            u = trial.unit
            found.setdefault((u.strategy, u.modality, u.seed_id), {}).setdefault(
                (trial.genome.key(), trial.render), (trial.genome, trial.render)
            )
    return {
        Unit(model, strategy, modality, seed_id): list(genomes.values())
        for model in settings.transfer
        for (strategy, modality, seed_id), genomes in found.items()
    }


def _notices(plan: Plan, settings: SearchSettings) -> list[str]:
    """What the user should know before the search spends anything."""
    lines = [
        f"{seed} cannot be shown as {modality.value}: not searched"
        for seed, modality in plan.grid.not_renderable
    ]
    hosted = [m for m in plan.config.models if not is_local(m)]
    if settings.confirm and hosted and plan.config.temperature == 0:
        lines.append(
            f"at temperature 0 the {settings.confirm} confirming repeats send {hosted[0]} the same request "
            "again: they only catch a provider's own nondeterminism; set temperature=0.7 (or so) to test "
            "whether a failure is a fluke of sampling"
        )
    if Searcher.GUIDED in settings.searchers:
        lines += [
            f"{s} is read from files: random search only"
            for s, seed in plan.seeds.items()
            if not searchable(seed)
        ]
    return lines


def _most_calls(units: list[Unit], settings: SearchSettings) -> int:
    per_unit = settings.budget * len(settings.searchers) + settings.baseline * (1 + settings.confirm)
    return len(units) * per_unit


def _new_folder(config: ExperimentConfig, settings: SearchSettings) -> Path:
    identity = hashlib.sha256(
        json.dumps([config.to_json(), settings.to_json()], sort_keys=True, default=str).encode()
    ).hexdigest()[:12]
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = config.out / f"search-{stamp}-{identity}"
    while folder.exists():
        stamp += "x"
        folder = config.out / f"search-{stamp}-{identity}"
    folder.mkdir(parents=True)
    return folder


def _write_search_json(folder: Path, request: SearchRequest, totals: SearchTotals | None = None) -> None:
    """search.json: the settings (at the start), then with the totals (at the end)."""
    data: JsonObject = {"settings": request.settings.to_json(), "run": request.config.to_json()}
    if totals is not None:
        data["totals"] = totals.__dict__
    text = json.dumps(data, indent=2, allow_nan=False, default=str) + "\n"
    write_atomic(folder / "search.json", text.encode())


def _totals(units: list[Unit], trials: list[Trial], rounds: SearchRounds) -> SearchTotals:
    return SearchTotals(
        units=len(units),
        trials=len(trials),
        confirmed=sum(t.confirmed for t in trials),
        calls=sum(t.calls for t in trials),
        calls_made=rounds.calls_made,
        cost_usd=round(rounds.cost_usd, 6),
        undone=rounds.undone,
        complete=rounds.undone == 0,
        errors=sum(t.status is TrialStatus.ERROR for t in trials),
        skipped=sum(t.status is TrialStatus.SKIPPED for t in trials),
    )


def _write_outputs(
    plan: Plan, settings: SearchSettings, folder: Path, trials: list[Trial], hardset: Path
) -> None:
    """The hard set, and the report with its figure (filled in by search/search_report.py)."""
    from isodyn.search.hardset import write_hardset

    searched = [t for t in trials if t.searcher is not Searcher.TRANSFER]
    write_hardset(hardset, searched, plan.seeds)
    reference = {
        seed_id: [seed.variant(i, plan.config.base_seed).params for i in range(REFERENCE_VARIANTS)]
        for seed_id, seed in plan.seeds.items()
    }
    declared = {
        seed_id: {k: v.value for k, v in seed.param_variation.items()} for seed_id, seed in plan.seeds.items()
    }
    write_report(folder, settings, trials, reference, declared)


def write_report(
    folder: Path,
    settings: SearchSettings,
    trials: list[Trial],
    reference: dict[str, list[dict[str, Any]]],
    declared: dict[str, dict[str, str]],
) -> Path:
    """report.md and figures/worst-case.png (the curves drawn once, for the report to show)."""
    from isodyn.search.analysis import all_curves
    from isodyn.search.search_report import SearchReportInput, draw_curves, search_report

    (folder / "figures").mkdir(exist_ok=True)
    # one bootstrap for the figure and the report's table: the same bands in both
    curves = all_curves(trials, seed=settings.search_seed)
    figure = draw_curves(curves, folder / "figures" / "worst-case.png")
    shown = tuple((name, json.dumps(value) if not isinstance(value, str) else value)
                  for name, value in settings.to_json().items())  # fmt: skip
    text = search_report(
        SearchReportInput(
            trials,
            reference,
            shown,
            str(figure.relative_to(folder)),
            budget=settings.budget,
            seed=settings.search_seed,
            declared=declared,
            curves=curves,
        )
    )
    report = folder / "report.md"
    write_atomic(report, text.encode())
    return report
