"""isodyn's experiments as inspect tasks: `inspect eval isodyn/dynamath -T seeds=all -T modality=image
-T strategy=cot3 -T variants=10`, `isodyn/isobench` and `isodyn/hardset -T path=...`.

Each task is `exp run` with the same words: its dataset the planned grid's cells (`inspect_dataset`),
its solver the cell's strategy (`inspect_solver`), its scorer isodyn's grader and DynaMath's metrics
(`inspect_scorer`). The cells are named by the model inspect evaluates, which is why a task is made
in inspect's model context (`inspect eval`, or `inspect_ai.eval("isodyn/dynamath", model=...)`)."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig, get_model

from isodyn.generators import all_seeds
from isodyn.interop.inspect_dataset import plan_dataset
from isodyn.interop.inspect_plan import inspect_plan, open_setup
from isodyn.interop.inspect_scorer import isodyn_grader
from isodyn.interop.inspect_solver import isodyn_strategy
from isodyn.scoring import DEFAULT_GRADER

Words = str | int | float | Sequence[str] | None  # a -T value: inspect reads `a,b` as one string


def _listed(value: Words) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def _family(seeds: Words, prefix: str) -> str:
    """`all` as the family's seeds (isodyn's `all` would mix DynaMath's and IsoBench's)."""
    if _listed(seeds) == "all":
        return ",".join(name for name in all_seeds() if name.startswith(prefix))
    return _listed(seeds)


def run_words(**settings: Words) -> list[str]:
    """`exp run`'s words for the settings given (None: isodyn's default)."""
    return [f"{key}={_listed(value)}" for key, value in settings.items() if value is not None]


def isodyn_task(name: str, words: list[str], vision: bool, grader: str) -> Task:
    """The task of `exp run WORDS` for the model inspect is evaluating."""
    plan = inspect_plan([*words, f"grader={grader}"], str(get_model()), vision)
    setup = open_setup(plan)
    config = plan.config
    return Task(
        dataset=plan_dataset(setup, name),
        solver=isodyn_strategy(setup),
        scorer=isodyn_grader(config.grader),
        # what `exp run` sends with every call; inspect's --temperature and --max-tokens override it
        config=GenerateConfig(temperature=config.temperature, max_tokens=config.max_tokens),
        metadata={"isodyn_words": words},
    )


@task
def dynamath(
    seeds: Words = "all",
    modality: Words = "image",
    strategy: Words = "zeroshot",
    variants: int = 10,
    repeats: int = 1,
    base_seed: int | None = None,
    renders: Words = None,
    perturbations: Words = None,
    dataset: str | None = None,
    vision: bool = True,
    grader: str = DEFAULT_GRADER,
    temperature: float | None = None,
    max_tokens: int | None = None,
    cache_dir: str | None = None,
) -> Task:
    """DynaMath's seeds, drawn by isodyn (`seeds=all`: every dynamath_ seed), or a release isodyn
    reads (`dataset=PATH`, any of `exp run dataset=`'s kinds)."""
    words = run_words(
        seeds=seeds if dataset else _family(seeds, "dynamath_"), modalities=modality, strategies=strategy,
        variants=variants, repeats=repeats, base_seed=base_seed, renders=renders,
        perturbations=perturbations, dataset=dataset, temperature=temperature, max_tokens=max_tokens,
        cache_dir=cache_dir,
    )  # fmt: skip
    return isodyn_task("dynamath", words, vision, grader)


@task
def isobench(
    seeds: Words = "all",
    modality: Words = "image",
    strategy: Words = "zeroshot",
    variants: int = 10,
    repeats: int = 1,
    base_seed: int | None = None,
    release: str | None = None,
    vision: bool = True,
    grader: str = DEFAULT_GRADER,
    temperature: float | None = None,
    max_tokens: int | None = None,
    cache_dir: str | None = None,
) -> Task:
    """IsoBench's tasks as isodyn generates them (`seeds=all`: every isobench_ seed), or IsoBench's
    release (`release=PATH`: its items, one variant each)."""
    words = run_words(
        seeds=seeds if release else _family(seeds, "isobench_"), modalities=modality, strategies=strategy,
        variants=1 if release else variants, repeats=repeats, base_seed=base_seed,
        dataset=f"isobench:{release}" if release else None, temperature=temperature,
        max_tokens=max_tokens, cache_dir=cache_dir,
    )  # fmt: skip
    return isodyn_task("isobench", words, vision, grader)


@task
def hardset(
    path: str,
    modality: Words = "image",
    strategy: Words = "zeroshot",
    repeats: int = 1,
    vision: bool = True,
    grader: str = DEFAULT_GRADER,
    temperature: float | None = None,
    max_tokens: int | None = None,
    cache_dir: str | None = None,
) -> Task:
    """A hard set written by `exp search` (its folder or hardset.jsonl), read as `exp run dataset=`."""
    words = run_words(
        dataset=f"hardset:{path}", modalities=modality, strategies=strategy, repeats=repeats,
        temperature=temperature, max_tokens=max_tokens, cache_dir=cache_dir,
    )  # fmt: skip
    return isodyn_task("hardset", words, vision, grader)
