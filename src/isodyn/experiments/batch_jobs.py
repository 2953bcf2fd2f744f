"""Batch jobs at a provider, through litellm's files and batches API: the request lines, the upload
and the job, its status, its replies read back, and what they cost at the batch price.

isodyn writes OpenAI's batch format (one JSON line per request: `custom_id`, `method`, `url`, `body`;
output lines `custom_id`, `response.status_code`, `response.body`), so it sends batch jobs only to
providers litellm reaches with that format; the rest are refused when the run is planned.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass
from typing import get_args

from isodyn.core import JsonObject
from isodyn.experiments.llm import estimated_tokens
from isodyn.models.catalog import LOCAL_PROVIDER, is_local, litellm_module, price_entry
from isodyn.models.requests import ModelRequest, Reply, finish_reason_of, token_count

ENDPOINT = "/v1/chat/completions"
MAX_FILE_BYTES = 190_000_000  # OpenAI takes batch input files of up to 200 MB
TRANSFER_TIMEOUT_S = 600.0
FINAL = frozenset({"completed", "expired", "failed", "cancelled"})
# Providers whose batch files litellm passes in OpenAI's own format (others', e.g. Vertex AI's or
# Bedrock's, are transformed into shapes of their own).
_OPENAI_FORMAT = frozenset({"openai", "azure", "hosted_vllm", "litellm_proxy"})


@functools.cache
def batch_providers() -> tuple[str, ...]:
    """The providers batch mode can use: those every litellm function it calls accepts (create_file,
    create_batch, retrieve_batch, file_content), in OpenAI's format."""
    litellm = litellm_module()
    from litellm.files.main import FileCreateProvider
    from litellm.files.types import FileContentProvider

    accepted = set(_OPENAI_FORMAT)
    for hint in (
        FileCreateProvider,
        FileContentProvider,
        litellm.create_batch.__annotations__.get("custom_llm_provider"),
        litellm.retrieve_batch.__annotations__.get("custom_llm_provider"),
    ):
        named = get_args(hint)
        if named:  # a hint litellm no longer spells as a Literal says nothing either way
            accepted &= set(named)
    return tuple(sorted(accepted))


@dataclass(frozen=True)
class Endpoint:
    """Where a model's batch jobs go. A server named by `api_base` gets a key only from the variable
    `api_key_env` names, as live calls do: without an explicit key, litellm would fill in
    OPENAI_API_KEY, a key for one provider sent to another server."""

    provider: str
    api_base: str | None
    api_key_env: str | None
    timeout_s: float

    def kwargs(self, transfer: bool = False, retries: bool = True) -> JsonObject:
        """litellm's arguments: a file upload or download (`transfer`) gets at least 10 minutes; a
        request that is not safe to repeat gets no retry (`retries=False`)."""
        timeout = max(self.timeout_s, TRANSFER_TIMEOUT_S) if transfer else self.timeout_s
        kwargs: JsonObject = {"custom_llm_provider": self.provider, "timeout": timeout}
        if not retries:
            kwargs["max_retries"] = 0
        if self.api_base:
            kwargs["api_base"] = self.api_base
            key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
            kwargs["api_key"] = key or "no-key-required"
        return kwargs


def provider_of(model: str, api_base: str | None) -> tuple[str, str]:
    """(the model's name at its provider, the provider) as litellm routes it."""
    if is_local(model):
        return model.partition("/")[2], LOCAL_PROVIDER
    routed = litellm_module().get_llm_provider(model=model, api_base=api_base)
    return str(routed[0]), str(routed[1])


def request_line(key: str, request: ModelRequest, name: str, provider: str) -> bytes:
    """One line of a batch input file for the model `name` at `provider`; `custom_id` is the
    request's cache key. The body carries the generation parameters as litellm would send them live
    (renamed or refused for models that take others)."""
    from litellm.utils import get_optional_params

    params = dict(get_optional_params(model=name, custom_llm_provider=provider, **request.params))
    params.pop("stream", None)
    extra = params.pop("extra_body", None) or {}
    body = {"model": name, "messages": request.messages, **params, **extra}
    line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(line, ensure_ascii=False, allow_nan=False).encode() + b"\n"


async def submit(endpoint: Endpoint, data: bytes, label: str) -> tuple[str, str]:
    """Upload the input file and create the job: (batch id, input file id)."""
    litellm = litellm_module()
    uploaded = await litellm.acreate_file(
        file=("isodyn-batch.jsonl", data, "application/jsonl"), purpose="batch",
        **endpoint.kwargs(transfer=True),
    )  # fmt: skip
    # not retried: a retry after a lost answer would start a second job, paid and never collected
    job = await litellm.acreate_batch(
        completion_window="24h", endpoint=ENDPOINT, input_file_id=uploaded.id,
        metadata={"isodyn_run": label[:500]}, **endpoint.kwargs(retries=False),
    )  # fmt: skip
    return str(job.id), str(uploaded.id)


@dataclass(frozen=True)
class JobStatus:
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def final(self) -> bool:
        return self.status in FINAL


async def status(endpoint: Endpoint, batch_id: str) -> JobStatus:
    job = await litellm_module().aretrieve_batch(batch_id=batch_id, **endpoint.kwargs())
    return JobStatus(str(job.status), job.output_file_id, job.error_file_id)


@dataclass(frozen=True)
class ItemResult:
    """One request of a job, as its output or error file says: a reply, or why there is none."""

    reply: Reply | None = None
    error: str | None = None


async def results(endpoint: Endpoint, model: str, job: JobStatus) -> dict[str, ItemResult]:
    """What the job's output and error files say, by custom_id (a request in neither is missing)."""
    litellm = litellm_module()
    found: dict[str, ItemResult] = {}
    for file_id in (job.error_file_id, job.output_file_id):  # a reply wins over an error line
        if file_id:
            content = await litellm.afile_content(file_id=file_id, **endpoint.kwargs(transfer=True))
            found.update(read_lines(bytes(content.content), model))
    return found


def read_lines(data: bytes, model: str) -> dict[str, ItemResult]:
    """Output or error lines by custom_id; a line that is not JSON, or names no custom_id, is skipped
    (its request is then missing, and treated as failed)."""
    found = {}
    for raw in data.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
            found[line["custom_id"]] = _item(line, model)
    return found


def _item(line: JsonObject, model: str) -> ItemResult:
    response = line.get("response")
    if not isinstance(response, dict):
        error = line.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        return ItemResult(error=str(code or "no response"))
    body = response.get("body")
    if response.get("status_code") != 200 or not isinstance(body, dict):
        detail = body.get("error") if isinstance(body, dict) else None
        message = detail.get("message") if isinstance(detail, dict) else None
        return ItemResult(error=f"status {response.get('status_code')}: {message or 'no reply'}"[:300])
    try:
        choice = body["choices"][0]
        text = choice["message"]["content"]
        finish = finish_reason_of(choice.get("finish_reason"))
        usage = body.get("usage") or {}
        # a negative or unreadable count is 0: it would price the item below zero
        prompt = token_count(usage.get("prompt_tokens") or 0) or 0
        completion = token_count(usage.get("completion_tokens") or 0) or 0
    except (KeyError, IndexError, TypeError, ValueError):
        return ItemResult(error="malformed reply")
    if not isinstance(text, str) or not text.strip():
        return ItemResult(error="empty reply")  # as live: never cached, asked again
    return ItemResult(Reply(text, prompt, completion, batch_cost(model, prompt, completion), 0.0, finish))


def batch_prices(model: str) -> tuple[float, float]:
    """USD per input and output token at the batch price, from litellm's table. Where the table has
    no batch price, half the live price is assumed: OpenAI's and Anthropic's batch APIs charge half.
    Unpriced models (local, self-hosted) cost 0."""
    if is_local(model):
        return 0.0, 0.0
    entry = price_entry(model)
    prices = []
    for kind in ("input", "output"):
        batch = entry.get(f"{kind}_cost_per_token_batches")
        price = float(batch) if batch is not None else 0.5 * float(entry.get(f"{kind}_cost_per_token") or 0.0)
        prices.append(price if math.isfinite(price) else 0.0)
    return prices[0], prices[1]


def batch_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    into, out = batch_prices(model)
    cost = prompt_tokens * into + completion_tokens * out
    return cost if math.isfinite(cost) else 0.0  # absurd usage from a server must not break the budget


def estimate_batch_cost(request: ModelRequest) -> float:
    """The upper estimate `llm.estimate_cost` makes, at the batch price."""
    into, out = batch_prices(request.model)
    prompt_tokens, output_tokens = estimated_tokens(request)
    return prompt_tokens * into + output_tokens * out
