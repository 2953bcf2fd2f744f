"""Grading after the fact: re-score saved replies, ask a judge model to read unreadable replies,
and process evaluation. No call is made to the models under test; judge calls go through the cache.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.cache import ModelRequest, ResponseCache
from isodyn.core import AnswerType, Variant
from isodyn.experiments.llm import CachedClient
from isodyn.generators import all_seeds
from isodyn.scoring import Tolerance, is_correct, score
from isodyn.scoring.judge import (
    extractor_messages,
    parse_extractor_reply,
    parse_process_reply,
    process_messages,
    solution_steps,
)
from isodyn.strategies.modifiers import rotate_choices

GRADED = ("ok", "extraction_failed")
JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 512}


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    api_base: str | None = None
    cache_dir: Path | None = None
    concurrency: int = 4


def rescore_rows(rows: list[dict[str, Any]], tolerance: Tolerance) -> list[dict[str, Any]]:
    """Every graded row graded again from its saved reply and truth (pure)."""
    out = []
    for row in rows:
        if row["reason"] not in GRADED or row.get("response") is None:
            out.append(row)
            continue
        graded = score(
            row["response"],
            row["truth"],
            row["answer_type"],
            tuple(row.get("choices") or ()),
            tolerance,
            bool(row.get("percent_question")),
        )
        out.append(
            {
                **row,
                "extracted": graded.extracted,
                "correct": graded.correct,
                "reason": graded.reason,
                "method": graded.method,
            }
        )
    return out


def variant_of(row: dict[str, Any], base_seed: int) -> Variant:
    """The variant a row was asked about, rebuilt from its seed (with the row's option order)."""
    variant = all_seeds()[row["seed_id"]].variant(row["variant"], base_seed)
    order = (row.get("notes") or {}).get("choice_order")
    return rotate_choices(variant, order[0])[0] if order else variant


async def _bounded(jobs: list, limit: int) -> list:
    gate = asyncio.Semaphore(limit)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return await asyncio.gather(*(one(j) for j in jobs))


def _judge_request(settings: JudgeSettings, messages: list[dict[str, Any]], step: str) -> ModelRequest:
    return ModelRequest(settings.model, messages, dict(JUDGE_PARAMS), settings.api_base, 0, step)


async def llm_extract(
    rows: list[dict[str, Any]],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
    base_seed: int,
) -> list[dict[str, Any]]:
    """For replies the rules could not read, the judge restates the final answer; rules then compare."""

    async def regrade(row: dict[str, Any]) -> dict[str, Any]:
        if row["reason"] != "extraction_failed" or not (row.get("response") or "").strip():
            return row
        variant = variant_of(row, base_seed)
        request = _judge_request(
            settings, extractor_messages(variant.question, row["response"]), "judge-extract"
        )
        reply, key, _ = await client.complete(request)
        answer = parse_extractor_reply(reply.text)
        verdict = None
        if answer is not None:
            verdict = is_correct(
                answer, row["truth"], AnswerType(row["answer_type"]), tuple(row.get("choices") or ()),
                tolerance, bool(row.get("percent_question")),
            )  # fmt: skip
        if verdict is None:
            return {**row, "judge_extract": {"key": key, "answer": answer}}
        return {**row, "extracted": answer, "correct": verdict, "reason": "ok", "method": "judge",
                "judge_extract": {"key": key, "answer": answer}}  # fmt: skip

    return await _bounded([regrade(r) for r in rows], settings.concurrency)


async def process_evaluate(
    rows: list[dict[str, Any]], settings: JudgeSettings, client: CachedClient, base_seed: int, every: bool
) -> list[dict[str, Any]]:
    """MM-MATH process evaluation of wrong (or, with `every`, all graded) replies."""
    chosen = [r for r in rows if r["reason"] in GRADED and r.get("response") and (every or not r["correct"])]

    async def judge(row: dict[str, Any]) -> dict[str, Any]:
        variant = variant_of(row, base_seed)
        messages = process_messages(variant.question, row["truth"], variant.solution, row["response"])
        reply, key, hit = await client.complete(_judge_request(settings, messages, "judge-process"))
        verdict = parse_process_reply(reply.text, len(solution_steps(row["response"])))
        keys = ("model", "strategy", "modality", "seed_id", "variant", "repeat", "topic", "level", "correct")
        return {
            **{k: row.get(k) for k in keys},
            "first_wrong_step": verdict.first_wrong_step,
            "error_type": verdict.error_type,
            "explanation": verdict.explanation,
            "judge_readable": verdict.readable,
            "judge_model": settings.model,
            "judge_key": key,
            "judge_cache_hit": hit,
            "judge_reply": reply.text,
        }

    return await _bounded([judge(r) for r in chosen], settings.concurrency)


def open_client(cache_dir: Path) -> tuple[CachedClient, ResponseCache]:
    store = ResponseCache(cache_dir / "responses")
    return CachedClient(store), store


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
