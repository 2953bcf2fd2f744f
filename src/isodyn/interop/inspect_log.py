"""A run folder as an inspect log (`exp export inspect RUN`): one sample per cell, built with
inspect's own log types and written by `inspect_ai.log.write_eval_log`, so `inspect view` opens it.

Each sample holds the cell's identity, question and labels in `metadata["isodyn"]`, every grader's
verdict in `scores` (the verdict under "isodyn"), the final call's messages and reply, one model
event per call (the isodyn step, cache key and latency in its output's metadata) and what the cell
cost. `inspect_read` reads such a log back into the same records.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, ModelOutput, ModelUsage
from inspect_ai.model._model_output import StopReason
from inspect_ai.scorer import CORRECT, INCORRECT
from inspect_ai.scorer import Score as InspectScore

import isodyn
from isodyn.cache.folder import Stores
from isodyn.cache.renders import stored_image
from isodyn.core import JsonObject
from isodyn.interop.inspect_messages import ImageLookup, no_images, to_chat
from isodyn.runs.calls import Call
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import CellResult
from isodyn.runs.results import Run
from isodyn.scoring import Score

# The sample's score that is the cell's verdict (the shared contract with the tasks).
VERDICT = "isodyn"
# isodyn's finish reasons and inspect's stop reasons (the rest are spelled alike or "unknown")
STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls", "content_filter": "content_filter",
}  # fmt: skip
# config.json's keys that name this machine (its server, key variable, folders): not in a log to share
LOCAL_SETTINGS = ("api_base", "api_key_env", "cache_dir", "out")
_STAMP = re.compile(r"(\d{8}-\d{6})")


def export_log(run: Run, images: ImageLookup = no_images) -> EvalLog:
    """The run as one inspect log: a sample per cell, in the order of results.jsonl."""
    run_id = run.directory.name
    samples = [cell_sample(result, images, _stable_id(run_id, result.cell.words)) for result in run.results]
    models = list(dict.fromkeys(result.model for result in run.results)) or ["none"]
    created = _created(run.directory)
    complete = run.summary is not None and run.summary.complete
    return EvalLog(
        status="success" if complete else "cancelled",  # an unfinished run stopped, it is not running
        eval=EvalSpec(
            created=created,
            task=f"isodyn/{run.directory.name}",
            run_id=_stable_id(run_id),
            task_id=_stable_id(run_id, "task"),
            task_registry_name=None,
            dataset=EvalDataset(name=_dataset_name(run.config), samples=len(samples)),
            model=models[0] if len(models) == 1 else ",".join(models),
            config=EvalConfig(),
            packages={"isodyn": isodyn.__version__},
            metadata={
                VERDICT: {
                    "run": run.directory.name,
                    "models": models,
                    "config": _shared_config(run.config),
                    "summary": run.summary.to_json() if run.summary is not None else None,
                }
            },
        ),
        results=_results(run.results),
        stats=EvalStats(started_at=created, completed_at=created, model_usage=_usage_by_model(run.results)),
        samples=samples,
    )


def run_images(folder: RunFolder) -> ImageLookup:
    """The pictures of a run by digest, from the render cache its config.json names (each looked up
    once: a seed's variants share few pictures across strategies)."""
    cache_dir = folder.cache_dir()
    if cache_dir is None:
        return no_images
    renders = Stores(cache_dir).renders
    found: dict[str, bytes | None] = {}

    def lookup(digest: str) -> bytes | None:
        if digest not in found:
            found[digest] = stored_image(renders, digest)
        return found[digest]

    return lookup


def write_log(log: EvalLog, path: Path) -> Path:
    """The log written by inspect (`.eval` or `.json` by the path's suffix)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(path))
    return path


def cell_sample(result: CellResult, images: ImageLookup = no_images, uuid: str | None = None) -> EvalSample:
    """One cell as an inspect sample (the shared contract: id, metadata["isodyn"], scores)."""
    calls = [call for call in result.calls if call.messages]
    last = calls[-1] if calls else None
    messages: list[ChatMessage] = to_chat(last.messages, images) if last is not None else []
    output = _output(result.model, result.response, result.finish_reason, result.prompt_tokens,
                     result.completion_tokens, result.cost_usd)  # fmt: skip
    if result.response is not None:
        messages.append(ChatMessageAssistant(content=result.response, model=result.model))
    usage = output.usage
    return EvalSample(
        id=result.cell.words, epoch=1, uuid=uuid,
        input=to_chat(calls[0].messages, images) if calls else result.question,
        target=result.truth, choices=list(result.choices) or None, messages=messages, output=output,
        scores=sample_scores(result) or None, metadata={VERDICT: sample_metadata(result)},
        events=[_model_event(call, images) for call in result.calls],
        model_usage={result.model: usage} if usage is not None and result.calls else {},
        total_time=result.latency_s, working_time=result.latency_s,
        error=_error(result),
    )  # fmt: skip


def sample_metadata(result: CellResult) -> JsonObject:
    """`metadata["isodyn"]`: the cell, the question as asked and the variant's labels (the contract),
    and what only isodyn says: the cell's outcome, notes, cache hit and cost."""
    asked = result.asked
    return {
        "cell": result.cell.to_json(),
        "asked": {
            "truth": asked.truth, "answer_type": asked.answer_type.value, "choices": list(asked.choices),
            "question": asked.text, "percent_question": asked.percent_question,
            "abs_tol": asked.tolerance.absolute, "rel_tol": asked.tolerance.relative,
            "solution": asked.solution,
        },
        "labels": {
            "topic": result.topic, "level": result.level, "variation_types": list(result.variation_types),
            "number_digits": result.labels.number_digits,
        },
        "outcome": {"reason": result.reason, "error": result.error, "decided_by": result.decided_by},
        "notes": dict(result.notes),
        "usage": {"cache_hit": result.cache_hit, "cost_usd": result.cost_usd, "latency_s": result.latency_s},
    }  # fmt: skip


def sample_scores(result: CellResult) -> dict[str, InspectScore]:
    """The verdict under "isodyn", every other grader's score under its name (a kept score of the
    grader named "isodyn" that does not decide the cell goes under "grader:isodyn")."""
    scores: dict[str, InspectScore] = {}
    verdict = result.verdict
    if verdict is not None:
        scores[VERDICT] = inspect_score(verdict)
    for name, score in result.scores.items():
        if name != result.decided_by:
            scores[f"grader:{name}" if name == VERDICT else name] = inspect_score(score)
    return scores


def inspect_score(score: Score) -> InspectScore:
    """One isodyn score as inspect's: C or I, the answer read, the method and ambiguity in a line."""
    metadata: JsonObject = {
        "reason": score.reason, "method": score.method, "ambiguity": score.ambiguity, "grader": score.grader,
    }  # fmt: skip
    if score.detail is not None:
        metadata["detail"] = dict(score.detail)
    said = f"{score.grader}: {score.reason}, read by {score.method or 'nothing'} ({score.ambiguity})"
    return InspectScore(
        value=CORRECT if score.correct else INCORRECT, answer=score.extracted, explanation=said,
        metadata=metadata,
    )  # fmt: skip


def _output(
    model: str, text: str | None, finish_reason: str | None, prompt: int, completion: int, cost: float
) -> ModelOutput:
    usage = ModelUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion, total_cost=cost
    )
    if text is None:  # nothing came back: an empty output, as inspect keeps for a failed sample
        return ModelOutput(model=model, usage=usage)
    output = ModelOutput.from_content(
        model, text, stop_reason=STOP_REASONS.get(finish_reason or "", "unknown")
    )
    output.usage = usage
    output.metadata = {"finish_reason": finish_reason}  # isodyn's own word, read back as it was
    return output


def _model_event(call: Call, images: ImageLookup) -> ModelEvent:
    """One call as inspect's model event: what was sent, what came back, and isodyn's call fields."""
    output = _output(call.model, call.response, call.finish_reason, call.prompt_tokens,
                     call.completion_tokens, call.cost_usd)  # fmt: skip
    output.time = call.latency_s
    output.metadata = {
        **(output.metadata or {}),
        "isodyn_call": {
            "step": call.step, "sample": call.sample, "key": call.key, "cache_hit": call.cache_hit,
        },
    }  # fmt: skip
    return ModelEvent(
        model=call.model, input=to_chat(call.messages, images), tools=[], tool_choice="none",
        config=GenerateConfig(), output=output, cache="read" if call.cache_hit else None,
        error=None if call.returned else "the call failed",
    )  # fmt: skip


def _error(result: CellResult) -> EvalError | None:
    if result.outcome.status.value != "error":
        return None
    message = result.reason + (f": {result.error}" if result.error else "")
    return EvalError(message=message, traceback="", traceback_ansi="")


def _results(results: Sequence[CellResult]) -> EvalResults:
    graded = [r for r in results if r.graded]
    accuracy = sum(1 for r in graded if r.correct) / len(graded) if graded else 0.0
    metric = EvalMetric(name="accuracy", value=accuracy)
    score = EvalScore(name=VERDICT, scorer=VERDICT, scored_samples=len(graded),
                      unscored_samples=len(results) - len(graded), metrics={"accuracy": metric})  # fmt: skip
    return EvalResults(total_samples=len(results), completed_samples=len(graded), scores=[score])


def _usage_by_model(results: Sequence[CellResult]) -> dict[str, ModelUsage]:
    totals: dict[str, ModelUsage] = {}
    for result in results:
        usage = totals.setdefault(result.model, ModelUsage(total_cost=0.0))
        usage.input_tokens += result.prompt_tokens
        usage.output_tokens += result.completion_tokens
        usage.total_tokens += result.prompt_tokens + result.completion_tokens
        usage.total_cost = (usage.total_cost or 0.0) + result.cost_usd
    return totals


def _shared_config(config: Mapping[str, Any]) -> JsonObject:
    return {key: value for key, value in config.items() if key not in LOCAL_SETTINGS}


def _dataset_name(config: Mapping[str, Any]) -> str:
    dataset = config.get("dataset")
    if isinstance(dataset, str) and dataset:
        return Path(dataset).name or dataset
    seeds = config.get("seeds")
    return ",".join(map(str, seeds)) if isinstance(seeds, list) and seeds else "isodyn"


def _stable_id(*parts: str) -> str:
    """An id inspect's viewer keys by, the same on every export of the run (no random uuid)."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:22]


def _created(directory: Path) -> str:
    """When the run began, by its folder's stamp (a folder renamed by hand: when it was last written)."""
    stamp = _STAMP.search(directory.name)
    if stamp:
        return datetime.strptime(stamp.group(1), "%Y%m%d-%H%M%S").astimezone().isoformat()  # local time
    return datetime.fromtimestamp(RunFolder(directory).results_file.stat().st_mtime, UTC).isoformat()
