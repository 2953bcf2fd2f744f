"""An isodyn plan for an inspect task: the grid `exp run` would plan for the same words, its cells
named by inspect's model, and the stores its variants and pictures are drawn through."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from isodyn.cache.folder import Stores
from isodyn.errors import ConfigError
from isodyn.experiments.plan import Plan, plan_experiment
from isodyn.experiments.runner import RunParts, open_parts
from isodyn.models.catalog import ModelInfo
from isodyn.models.local import LOCAL_PROVIDER, SMOLLM2_ID
from isodyn.runs.config import parse_overrides
from isodyn.strategies import Service

# The plan checks its models through litellm's tables, which know none of inspect's own providers
# (hf/, vllm/, openai-api/...). inspect calls the model, so the plan is made for the embedded model,
# which needs no check, and its cells are then renamed to inspect's model.
_STAND_IN = f"{LOCAL_PROVIDER}/{SMOLLM2_ID}"
INSPECT_PROVIDER = "inspect"


@dataclass
class TaskSetup:
    """What an inspect task's dataset and solver share: the plan and the opened stores."""

    plan: Plan
    parts: RunParts
    # run_cell's run folder: only a strategy that prepares (DSPy) writes there, and those are refused
    scratch: Path = Path(".")


def inspect_plan(words: list[str], model: str, vision: bool) -> Plan:
    """The plan of `exp run WORDS` with `model` as its one model (reading images when `vision`)."""
    config = parse_overrides([*words, f"models={_STAND_IN}", f"vision={'yes' if vision else 'no'}"])
    if config.describer or config.judge:
        raise ConfigError("describer= and judge= are not available in inspect tasks")
    plan = plan_experiment(config)
    for strategy in plan.strategies.values():
        if Service.PREPARATION in strategy.needs:  # it calls litellm itself, outside inspect
            raise ConfigError(f"strategy {strategy.name} cannot run in inspect: it prepares through litellm")
    cells = tuple(cell._replace(model=model) for cell in plan.grid.cells)
    return replace(
        plan,
        config=replace(plan.config, models=(model,)),
        models={model: ModelInfo(model, INSPECT_PROVIDER, vision, False)},
        grid=replace(plan.grid, cells=cells),
    )


def open_setup(plan: Plan) -> TaskSetup:
    """The stores of the plan's cache folder (isodyn's drawings and variants, shared with `exp run`)."""
    stores = Stores(plan.config.cache_dir)
    return TaskSetup(plan, open_parts(plan, stores.responses, stores.renders))
