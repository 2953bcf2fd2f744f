"""What a planned run should tell its user before it starts: warnings about settings that waste calls
or skip cells, and what a `dataset=` release holds. Pure: each reads the plan only, except
`unreachable_replicas`, which knocks on each replica's port (no request is sent)."""

from __future__ import annotations

from isodyn.commands.notices import NoticeKind
from isodyn.core import Modality
from isodyn.datasets.dynamath import ReleasedItem, release_summary
from isodyn.experiments.plan import Plan
from isodyn.models.catalog import is_local
from isodyn.models.preflight import unreachable_replicas as replicas_not_answering


def identical_samples(plan: Plan) -> list[str]:
    """sc@k at temperature 0 asks a hosted model k times the same thing (the embedded model varies
    its seed per sample instead): the vote then only costs k times as much."""
    voting = [name for name in plan.strategies if "sc@" in name]
    hosted = [m for m in plan.models if not is_local(m)]
    if not (voting and hosted and plan.config.temperature == 0):
        return []
    return [
        f"{voting[0]} at temperature 0 sends {hosted[0]} identical requests; "
        "set temperature=0.7 (or so) for distinct samples"
    ]


# Below this many tokens a chain of thought is often cut off before its answer (the answer is then
# graded `truncated`, not correct).
REASONING_TOKENS = 2048


def small_token_limit(plan: Plan) -> list[str]:
    """Strategies that write a chain of thought under a small `max_tokens`: their replies are cut
    off, and a cut-off reply is graded `truncated` (not correct)."""
    limit = plan.config.max_tokens
    reasoning = [name for name, strategy in plan.strategies.items() if strategy.writes_reasoning]
    if limit >= REASONING_TOKENS or not reasoning:
        return []
    return [
        f"max_tokens={limit} is below {REASONING_TOKENS:,} and {', '.join(reasoning)} "
        f"write{'s' if len(reasoning) == 1 else ''} a chain of thought: replies cut off at the limit are "
        "graded 'truncated' (not correct); raise max_tokens (default 4,096)"
    ]


def dataset_lines(plan: Plan) -> list[str]:
    """For a `dataset=` run: what the release holds, and anything in it read with a caveat."""
    released = {k: s for k, s in plan.seeds.items() if isinstance(s, ReleasedItem)}
    return release_summary(released)


def unseen_images(plan: Plan) -> list[str]:
    """vision=auto on a model litellm does not know skips every image cell: one line per model."""
    if plan.config.vision != "auto" or Modality.IMAGE not in plan.config.modalities:
        return []
    return [
        f"{name} is not in litellm's model table, so its image cells will be skipped; "
        f"add vision={name} (or vision=yes) if it reads images"
        for name, info in plan.models.items()
        if not info.vision and not info.known_to_litellm
    ]


def unreachable_replicas(plan: Plan) -> list[str]:
    """Several replicas (`api_base=URL1,URL2`) of which some do not answer: one line naming them (the
    run goes on with the others). None answering is no warning: the run stops before its first call."""
    if all(is_local(model) for model in plan.models):
        return []  # the embedded model is called in process: api_base is not used
    line = replicas_not_answering(plan.config.api_base)
    return [line] if line else []


def api_keys(plan: Plan) -> list[tuple[NoticeKind, str]]:
    """For a dry run (which sends nothing, so needs no key): one line naming the keys the real run
    will need, each with its models, and those not set (a warning then; a note when all are set).
    Nothing when no model needs a key (the embedded model, a server of your own)."""
    if plan.remembered is None:
        return []
    chosen = [*plan.models, *(info.name for info in (plan.describer, plan.judge) if info)]
    needs: dict[str, list[str]] = {}  # variable -> the models that need it
    for name in dict.fromkeys(chosen):
        missing = plan.missing_keys.get(name, "")
        variables = plan.remembered.needed_keys(name, plan.config.api_base) + tuple(missing.split(", "))
        for variable in filter(None, dict.fromkeys(variables)):
            needs.setdefault(variable, []).append(name)
    if not needs:
        return []
    named = ", ".join(f"{variable} ({', '.join(models)})" for variable, models in needs.items())
    # litellm's own verdict (a provider may take either of two variables), not each name looked up
    not_set = [
        variable for variable in needs if any(variable in m.split(", ") for m in plan.missing_keys.values())
    ]
    if not not_set:
        return [("note", f"the real run needs {named}: set")]
    return [("warning", f"the real run needs {named}; not set: {', '.join(not_set)}")]
