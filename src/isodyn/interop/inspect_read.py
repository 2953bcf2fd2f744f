"""An inspect log of isodyn's tasks, or one `exp export inspect` wrote, read back as isodyn's records,
so `exp report` and `exp compare` read a group's inspect run as they read a run folder.

Each sample becomes the results.jsonl row its `metadata["isodyn"]` and scores describe, and that row
is read by `CellResult.from_row` and checked by `row_problem`, the run folder's own reader and check:
a log cannot hold a record a run folder could not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.scorer import CORRECT
from inspect_ai.scorer import Score as InspectScore

from isodyn.core import JsonObject
from isodyn.errors import IsodynError
from isodyn.interop.inspect_log import LOCAL_SETTINGS, STOP_REASONS, VERDICT
from isodyn.interop.inspect_messages import from_chat
from isodyn.runs.calls import Call, Usage
from isodyn.runs.record import CellResult
from isodyn.runs.results import row_problem
from isodyn.scoring import DEFAULT_GRADER

_FINISH_REASONS = {stop: finish for finish, stop in STOP_REASONS.items()}


class InspectLogError(IsodynError):
    """A log inspect cannot read, or a sample whose isodyn metadata is not a cell (one line)."""


class NotIsodynLog(InspectLogError):
    """A log of some other task: a sample without isodyn's metadata."""


@dataclass(frozen=True)
class LogRead:
    """An inspect log read back: its cells, and the run's settings and summary when it was exported
    from a run (a log of `inspect eval isodyn/...` has neither)."""

    path: Path
    results: list[CellResult]
    config: JsonObject | None
    summary: JsonObject | None


def read_log(path: Path) -> LogRead:
    """The cells of an inspect log (.eval or .json); InspectLogError, in one line, when inspect
    cannot read it or a sample is not an isodyn cell."""
    try:
        log = read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # inspect's readers raise whatever the zip, JSON or pydantic raised
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InspectLogError(f"{path}: not a readable inspect log ({first})") from None
    results = [cell_result(sample, log, path) for sample in log.samples or []]
    seen: set[object] = set()
    for result in results:
        if result.key in seen:
            raise InspectLogError(f"{path}: the cell {result.cell.words!r} is in the log twice")
        seen.add(result.key)
    about = (log.eval.metadata or {}).get(VERDICT)
    about = about if isinstance(about, dict) else {}
    config, summary = about.get("config"), about.get("summary")
    if isinstance(config, dict):  # a log is someone else's: it names no server or folder of this machine
        config = {key: value for key, value in config.items() if key not in LOCAL_SETTINGS}
    return LogRead(
        path,
        results,
        config if isinstance(config, dict) else None,
        summary if isinstance(summary, dict) else None,
    )


def cell_result(sample: EvalSample, log: EvalLog, path: Path) -> CellResult:
    """One sample as the record of its cell (through the row a run folder would hold)."""
    meta = sample.metadata.get(VERDICT)
    if not isinstance(meta, dict) or not isinstance(meta.get("cell"), dict):
        raise NotIsodynLog(
            f"{path}: sample {sample.id!r} has no isodyn metadata: not a log of isodyn's tasks "
            "(inspect eval isodyn/...) or of `exp export inspect`"
        )
    row = sample_row(sample, meta, log.eval.model)
    problem = row_problem(row, f"sample {sample.id!r}")
    if problem is not None:
        raise InspectLogError(f"{path}: sample {sample.id!r}: {problem}")
    try:
        return CellResult.from_row(row)
    except (KeyError, ValueError, TypeError) as exc:
        raise InspectLogError(f"{path}: sample {sample.id!r} names no cell isodyn knows ({exc})") from None


def sample_row(sample: EvalSample, meta: Mapping[str, Any], model: str) -> JsonObject:
    """The results.jsonl row a sample describes (columns a sample lacks are left to their defaults)."""
    cell = dict(meta["cell"])
    cell.setdefault("model", model)  # a task's sample knows its model only from the eval
    # epochs of one sample are repeats of its cell
    cell["repeat"] = int(cell.get("repeat", 0)) + max(sample.epoch - 1, 0)
    asked = _object(meta.get("asked"))
    labels = _object(meta.get("labels"))
    outcome = _object(meta.get("outcome"))
    scores = {grader: score for grader, score in _scores(sample).items()}
    decided_by = outcome.get("decided_by") if "decided_by" in outcome else _verdict_grader(sample)
    verdict = scores.get(decided_by) if isinstance(decided_by, str) else None
    calls = _calls(sample)
    response = _completion(sample.output)
    row: JsonObject = {
        **cell,
        **{key: asked[key] for key in _ASKED if key in asked},
        "question": asked.get("question", sample.input if isinstance(sample.input, str) else ""),
        **{key: labels[key] for key in _LABELS if key in labels},
        "reason": outcome.get("reason") or _reason(verdict, sample),
        "error": outcome.get("error", sample.error.message if sample.error is not None else None),
        "grader": decided_by if verdict is not None or outcome else None,
        "scores": scores,
        "response": response,
        "finish_reason": _finish_reason(sample.output) if response is not None else None,
        "transcript": [call.to_json() for call in calls],
        "notes": _object(meta.get("notes")),
        **_usage(calls, _object(meta.get("usage"))),
        "schema": 3,
    }
    if verdict is not None:
        row.update({key: verdict[key] for key in ("correct", "extracted", "method", "ambiguity")})
    return row


_ASKED = ("truth", "answer_type", "choices", "percent_question", "abs_tol", "rel_tol", "solution")
_LABELS = ("topic", "level", "variation_types", "number_digits")


def _object(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _scores(sample: EvalSample) -> dict[str, JsonObject]:
    """The isodyn graders' scores by grader (a score of another scorer, without a grader named in
    its metadata, is not isodyn's and is left out)."""
    found: dict[str, JsonObject] = {}
    for key, score in (sample.scores or {}).items():
        meta = score.metadata or {}
        grader = meta.get("grader") or (DEFAULT_GRADER if key == VERDICT else None)
        if isinstance(grader, str):
            found[grader] = _score_json(score, meta)
    return found


def _score_json(score: InspectScore, meta: Mapping[str, Any]) -> JsonObject:
    correct = score.value == CORRECT or score.value is True or score.value == 1
    reason = meta.get("reason") or ("ok" if score.answer is not None else "extraction_failed")
    data: JsonObject = {
        "correct": bool(correct), "extracted": score.answer, "reason": reason,
        "method": meta.get("method") or "", "ambiguity": meta.get("ambiguity"),
    }  # fmt: skip
    if isinstance(meta.get("detail"), dict):
        data["detail"] = meta["detail"]
    return data


def _verdict_grader(sample: EvalSample) -> str | None:
    verdict = (sample.scores or {}).get(VERDICT)
    if verdict is None:
        return None
    grader = (verdict.metadata or {}).get("grader")
    return grader if isinstance(grader, str) else DEFAULT_GRADER


def _reason(verdict: Mapping[str, Any] | None, sample: EvalSample) -> str:
    if verdict is not None:
        return str(verdict["reason"])
    if sample.error is not None:
        return "error:inspect"
    return "error:unscored"  # inspect ran it and no isodyn score came back


def _completion(output: ModelOutput) -> str | None:
    return output.completion if output.choices else None


def _finish_reason(output: ModelOutput) -> str | None:
    meta = output.metadata or {}
    if "finish_reason" in meta:  # isodyn's own word, kept by the export
        value = meta["finish_reason"]
        return value if isinstance(value, str) else None
    stop = output.choices[0].stop_reason if output.choices else "unknown"
    return _FINISH_REASONS.get(stop)


def _calls(sample: EvalSample) -> list[Call]:
    """The cell's calls: one per model event (isodyn's call fields when the export kept them), or,
    for a log without events, one call of the sample's messages and its output."""
    events = [event for event in sample.events if isinstance(event, ModelEvent)]
    if events:
        return [_event_call(event, number, len(events)) for number, event in enumerate(events)]
    response = _completion(sample.output)
    if response is None:
        return []
    messages = list(sample.messages)
    if messages and isinstance(messages[-1], ChatMessageAssistant):
        messages = messages[:-1]  # the reply itself, held as the call's response
    usage = sample.output.usage
    return [
        Call(
            step="answer", model=sample.output.model, messages=from_chat(messages), key="inspect",
            response=response, prompt_tokens=usage.input_tokens if usage else 0,
            completion_tokens=usage.output_tokens if usage else 0,
            cost_usd=(usage.total_cost or 0.0) if usage else 0.0, finish_reason=_finish_reason(sample.output),
        )
    ]  # fmt: skip


def _event_call(event: ModelEvent, number: int, count: int) -> Call:
    output = event.output
    kept = _object((output.metadata or {}).get("isodyn_call"))
    returned = event.error is None and bool(output.choices)
    usage = output.usage
    return Call(
        step=str(kept.get("step") or ("answer" if number == count - 1 else f"step{number + 1}")),
        model=event.model, sample=int(kept.get("sample") or 0), messages=from_chat(event.input),
        key=kept.get("key", "inspect") if returned else None,
        cache_hit=kept.get("cache_hit", event.cache == "read") if returned else None,
        response=output.completion if returned else None,
        prompt_tokens=usage.input_tokens if usage else 0,
        completion_tokens=usage.output_tokens if usage else 0,
        cost_usd=(usage.total_cost or 0.0) if usage else 0.0, latency_s=output.time or 0.0,
        finish_reason=_finish_reason(output) if returned else None,
    )  # fmt: skip


def _usage(calls: list[Call], kept: Mapping[str, Any]) -> JsonObject:
    """The row's usage columns: summed over the calls, with what the export kept as it was."""
    usage = Usage.of(calls) if calls else Usage()
    return {
        "cache_hit": kept.get("cache_hit", usage.cache_hit), "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens, "cost_usd": kept.get("cost_usd", usage.cost_usd),
        "latency_s": kept.get("latency_s", usage.latency_s),
    }  # fmt: skip
