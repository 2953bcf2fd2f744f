"""isodyn's strategy as an inspect solver: the cell is run by isodyn's own `run_cell` (the same prompt,
demonstrations and steps as `exp run`), and each of its model calls goes through inspect's model API,
so inspect counts, caches, retries and logs it like any other generation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from isodyn.cache import cache_key
from isodyn.core import JsonObject
from isodyn.experiments.cells import run_cell
from isodyn.interop.inspect_cells import ISODYN, cell_metadata, cell_of
from isodyn.interop.inspect_plan import TaskSetup
from isodyn.models.requests import CUT_OFF, ModelRequest, Reply
from isodyn.runs.record import CellResult

REASON = "isodyn:reason"  # the store key of the cell's reason word (ok, skipped: why, error:kind)
FINISH = "isodyn:finish_reason"  # the store key of the graded reply's finish reason, in isodyn's words
# inspect's stop reasons that mean "cut off at the token limit", isodyn's CUT_OFF
_CUT_OFF_REASONS = frozenset({"max_tokens", "model_length"})


def _content(part: JsonObject) -> Content:
    if part.get("type") == "image_url":
        return ContentImage(image=str(part["image_url"]["url"]))
    return ContentText(text=str(part.get("text", "")))


def chat_messages(messages: list[JsonObject]) -> list[ChatMessage]:
    """isodyn's OpenAI-style messages as inspect's (text and data-URI images, in their order)."""
    converted: list[ChatMessage] = []
    for message in messages:
        raw = message["content"]
        content: str | list[Content] = raw if isinstance(raw, str) else [_content(p) for p in raw]
        role = message["role"]
        if role == "system":
            converted.append(ChatMessageSystem(content=content))
        elif role == "assistant":
            converted.append(ChatMessageAssistant(content=content))
        else:
            converted.append(ChatMessageUser(content=content))
    return converted


def reply_of(output: ModelOutput) -> Reply:
    """inspect's output in isodyn's words (its finish reason as litellm's, `length` when cut off)."""
    usage = output.usage
    cached = (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0) if usage else 0
    prompt = usage.input_tokens + cached if usage else 0  # inspect counts cached input apart
    stop = output.stop_reason
    return Reply(
        text=output.completion, prompt_tokens=prompt, completion_tokens=usage.output_tokens if usage else 0,
        latency_s=output.time or 0.0, finish_reason=CUT_OFF if stop in _CUT_OFF_REASONS else stop,
    )  # fmt: skip


@dataclass
class InspectCalls:
    """The backend `run_cell` sends a cell's calls through: inspect's model under the eval's generate
    config (the task's holds isodyn's temperature and max_tokens; inspect's options override them).
    Keeps the last call (the state shows it) and the first failure, which is inspect's to handle (a
    limit, a retry policy): `run_cell` would record it on the cell and go on."""

    model: str
    last: tuple[list[ChatMessage], ModelOutput] | None = None
    failure: BaseException | None = None

    async def __call__(self, request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        if request.model != self.model:  # a describer: not offered in inspect tasks (inspect_plan)
            raise ValueError(f"the cell asks {request.model!r}, not the task's model {self.model!r}")
        messages = chat_messages(request.messages)
        try:
            output = await get_model().generate(messages)
        except BaseException as exc:
            self.failure = self.failure or exc
            raise
        self.last = (messages, output)
        # isodyn's key of the request, as its transcript records it (inspect keeps its own cache)
        return reply_of(output), cache_key(request, hashed), False


def _show_final(state: TaskState, calls: InspectCalls, result: CellResult) -> None:
    """The state as inspect shows it: the last call's messages and output, and the reply isodyn graded
    as the completion (a strategy that votes over samples may grade another than the last)."""
    if calls.last is None:
        return
    messages, output = calls.last
    state.messages = [*messages, output.message]
    state.output = output
    if result.response is not None and result.response != output.completion:
        state.output = ModelOutput.from_content(calls.model, result.response)
        state.output.usage = output.usage


@solver
def isodyn_strategy(setup: TaskSetup) -> Solver:
    """Run the sample's cell with isodyn's strategy, each call through inspect's model."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        cell = cell_of(state.metadata)
        calls = InspectCalls(cell.model)
        parts = setup.parts
        result = await run_cell(setup.plan, cell, parts.materials, parts.client, setup.scratch, calls)
        if calls.failure is not None:
            raise calls.failure
        state.metadata[ISODYN] = cell_metadata(result)  # the question as asked (a strategy may reorder it)
        state.store.set(REASON, result.reason)
        state.store.set(FINISH, result.finish_reason)
        _show_final(state, calls, result)
        return state

    return solve
