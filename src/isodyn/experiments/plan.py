"""Planning a run: every name the user typed checked, the seeds, strategies and models resolved, and the grid
expanded, before anything is written or called (`plan_experiment`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from isodyn.cache.stores import store_conflict
from isodyn.core import DEFAULT_RENDER, DEMO_INDEX_START, Modality
from isodyn.datasets import ReleaseError
from isodyn.datasets.kinds import load_dataset
from isodyn.errors import ConfigError
from isodyn.experiments.grid import MAX_CELLS, Grid, Showings, expand_grid, grid_size
from isodyn.experiments.shard import shard_grid
from isodyn.generators import SeedProgram, all_seeds
from isodyn.generators.perturb import parse_perturbation
from isodyn.modalities.profiles import DEFAULT_PROFILE, RenderProfile, resolve_profiles
from isodyn.models.catalog import ModelError, ModelInfo
from isodyn.models.remembered import RememberedModels
from isodyn.runs.config import ExperimentConfig, vision_override
from isodyn.strategies import (
    ComposedStrategy,
    StrategyError,
    parse_strategy,
)

# `exp run` with no seeds named: a small grid that finishes in minutes on the embedded model.
DEFAULT_SEEDS = ("dynamath_shifted_abs", "isobench_parity", "isobench_connectivity")


@dataclass(frozen=True)
class Plan:
    """A checked experiment, ready to run: nothing in it can fail for a reason the user typed."""

    config: ExperimentConfig
    seeds: dict[str, SeedProgram]
    strategies: dict[str, ComposedStrategy]  # by canonical name
    models: dict[str, ModelInfo]
    describer: ModelInfo | None
    grid: Grid
    # what litellm said of the models, for the run to keep in its cache (a dry run writes nothing)
    remembered: RememberedModels | None = None
    judge: ModelInfo | None = None  # the model that reads what the rules could not (`judge=`)
    # a dry run's models whose key is not set, with the variables they need (a real run stops instead)
    missing_keys: dict[str, str] = field(default_factory=dict)
    # the render profiles of `renders=` by name (built-in, registered or from isodyn.toml)
    renders: dict[str, RenderProfile] = field(default_factory=lambda: {DEFAULT_RENDER: DEFAULT_PROFILE})

    @property
    def showings(self) -> Showings:
        return showings_of(self.config)


def _alias_of(config: ExperimentConfig, model: str) -> tuple[str, str, str] | None:
    """(the short name, its vision fact, where it was defined) when `model` came from an alias."""
    for name, target, vision, source in config.aliases:
        if target == model:
            return name, vision, source
    return None


def _checked_model(name: str, config: ExperimentConfig, known: RememberedModels) -> ModelInfo:
    alias = _alias_of(config, name)
    vision = vision_override(config, name)
    if vision == "auto" and alias and alias[1]:
        vision = alias[1]  # the alias table says whether it reads images
    try:
        info = known.describe(name, config.api_base, vision)  # type: ignore[arg-type]
    except ModelError as exc:
        if alias:
            raise ModelError(f"{exc} (alias {alias[0]!r} from {alias[2]})") from None
        raise
    return info


def _missing_keys(config: ExperimentConfig, known: RememberedModels) -> dict[str, str]:
    """Each model of the run (judge and describer too) whose key is not set, with the variables it
    needs. Only a real run stops on one: a dry run sends nothing and says them instead."""
    names = dict.fromkeys([*config.models, *filter(None, (config.describer, config.judge))])
    missing = {name: known.missing_key(name, config.api_base) for name in names}
    found = {name: variables for name, variables in missing.items() if variables}
    if found and not config.dry_run:
        name, variables = next(iter(found.items()))
        raise ModelError(f"model {name!r} needs the environment variable {variables}; set it and run again")
    return found


def _checked_strategies(config: ExperimentConfig) -> dict[str, ComposedStrategy]:
    strategies = {}
    for spec in config.strategies:
        try:
            strategy = parse_strategy(spec)
        except StrategyError as exc:
            raise ConfigError(str(exc)) from exc
        accepted = strategy.modalities
        if accepted is not None and not accepted.intersection(config.modalities):
            needed = ", ".join(sorted(m.value for m in accepted))
            chosen = ", ".join(m.value for m in config.modalities)
            raise ConfigError(f"strategy {strategy.name} needs the {needed} modality; chosen: {chosen}")
        strategies[strategy.name] = strategy
    return strategies


def _checked_seeds(config: ExperimentConfig) -> dict[str, SeedProgram]:
    if config.dataset is not None:
        keys = () if config.seeds == ("all",) else config.seeds
        try:
            released = load_dataset(config.dataset, keys)
        except ReleaseError as exc:
            raise ConfigError(str(exc)) from exc
        available = next(iter(released.values())).variant_space
        if config.variants > available:
            raise ConfigError(f"variants={config.variants}, but {config.dataset} has {available} trials")
        return released
    known_seeds = all_seeds()
    chosen = tuple(known_seeds) if config.seeds == ("all",) else config.seeds or DEFAULT_SEEDS
    unknown = [s for s in chosen if s not in known_seeds]
    if unknown:
        raise ConfigError(f"unknown seed {unknown[0]!r}; valid: {', '.join(known_seeds)}")
    if config.variants > DEMO_INDEX_START:
        raise ConfigError(f"variants must be at most {DEMO_INDEX_START} (higher indices are demonstrations)")
    return {s: known_seeds[s] for s in chosen}


def _checked_directory(path: Path, setting: str) -> None:
    """`path` is a directory, or can be made one, that this process may write in."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{setting}={path} is a file; name a directory")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{setting}={path}: cannot write in {existing}")


def _checked_cache(root: Path) -> None:
    """The cache's store names in `root` are free or isodyn's (checked only: a dry run writes nothing)."""
    try:
        conflict = store_conflict(root) if root.is_dir() else None
    except OSError as exc:
        raise ConfigError(f"cache_dir={root}: cannot read it ({exc.strerror or exc})") from None
    if conflict:
        raise ConfigError(f"cache_dir={root} is not an isodyn cache ({conflict}); name another folder")


def _checked_vision(config: ExperimentConfig) -> None:
    """A list in vision= names models of the run (`vision=maybe` is a typo, not a model)."""
    if config.vision in ("auto", "yes", "no"):
        return
    named = set(config.models) | ({config.describer} if config.describer else set())
    unknown = [m for m in config.vision.split(",") if m not in named]
    if unknown:
        raise ConfigError(
            f"vision={config.vision}: {unknown[0]!r} is not a model of this run; use auto, yes, no, or "
            "a comma list of the run's models that read images"
        )


def _checked_batch(models: list[ModelInfo]) -> None:
    """batch=1: every model's provider has a batch API batch mode can use through litellm."""
    from isodyn.experiments.batch_jobs import batch_providers

    for info in models:
        if info.provider not in batch_providers():
            raise ConfigError(
                f"batch=1: model {info.name} (provider {info.provider}) has no batch API isodyn can use "
                f"through litellm; providers with one: {', '.join(batch_providers())}; run it with batch=0"
            )


def showings_of(config: ExperimentConfig) -> Showings:
    return Showings(config.renders, tuple(parse_perturbation(p) for p in config.perturbations))


def _checked_renders(config: ExperimentConfig) -> dict[str, RenderProfile]:
    """The profiles `renders=` names; ConfigError for an unknown one, or for profiles no cell can
    use (no image modality asked)."""
    if config.renders != (DEFAULT_RENDER,) and Modality.IMAGE not in config.modalities:
        raise ConfigError("renders= draws pictures under profiles, but modalities= asks for no image")
    if len(set(config.renders)) != len(config.renders) or len(set(config.perturbations)) != len(
        config.perturbations
    ):
        raise ConfigError("renders= and perturbations= name each profile or perturbation once")
    return {profile.name: profile for profile in resolve_profiles(config.renders)}


def plan_experiment(config: ExperimentConfig) -> Plan:
    """Validate every name in the config; raise ConfigError or ModelError before anything is written."""
    _checked_directory(config.out, "out")
    _checked_directory(config.cache_dir, "cache_dir")
    _checked_cache(config.cache_dir)
    _checked_vision(config)
    seeds = _checked_seeds(config)
    strategies = _checked_strategies(config)
    renders = _checked_renders(config)
    showings = showings_of(config)
    known = RememberedModels(config.cache_dir)  # litellm is imported only for what it has not said
    models = {name: _checked_model(name, config, known) for name in config.models}
    describer = _checked_model(config.describer, config, known) if config.describer else None
    if describer and not describer.vision:
        raise ConfigError(f"describer {describer.name} has no vision (name it in vision=MODEL if it does)")
    judge = _checked_model(config.judge, config, known) if config.judge else None
    missing_keys = _missing_keys(config, known)
    if config.batch:
        _checked_batch([*models.values(), *([describer] if describer else [])])
    size = grid_size(
        len(config.models), len(strategies), config.modalities, seeds, config.variants, config.repeats,
        showings,
    )  # fmt: skip
    if size > MAX_CELLS:
        raise ConfigError(
            f"the grid has {size:,} cells, more than {MAX_CELLS:,}; choose fewer variants, repeats, "
            "seeds, strategies or models"
        )
    grid = expand_grid(
        config.models, tuple(strategies), config.modalities, seeds, config.variants, config.repeats,
        showings,
    )  # fmt: skip
    if not grid.cells:
        raise ConfigError("the grid is empty: no chosen seed renders any chosen modality")
    if config.shard is not None:  # after the checks above, which are on the whole grid
        grid = shard_grid(grid, config.shard)
    return Plan(config, seeds, strategies, models, describer, grid, known, judge, missing_keys, renders)
