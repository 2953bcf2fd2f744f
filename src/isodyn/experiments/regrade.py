"""Grading after the fact: re-score saved replies, ask a judge model to read unreadable replies,
and process evaluation. No call is made to the models under test; judge calls go through the cache.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from isodyn.analysis.stats import kappa_interval
from isodyn.cache import ResponseCache
from isodyn.experiments.llm import CachedClient
from isodyn.models.requests import ModelRequest
from isodyn.record import JUDGE, CellResult
from isodyn.scoring import DEFAULT_GRADER, Score, Tolerance, is_correct
from isodyn.scoring.extract import CLEAR, NONE_FOUND
from isodyn.scoring.judge import (
    extractor_messages,
    parse_extractor_reply,
    parse_process_reply,
    process_messages,
    solution_steps,
)

T = TypeVar("T")
JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 512}


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    api_base: str | None = None
    cache_dir: Path | None = None
    concurrency: int = 4


def rescore(
    results: list[CellResult], tolerance: Tolerance, grader: str = DEFAULT_GRADER
) -> list[CellResult]:
    """Every graded cell graded again from its saved reply and truth, by the named grader (pure)."""
    return [result.regraded(grader, tolerance) for result in results]


async def _bounded(jobs: list[Awaitable[T]], limit: int) -> list[T]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Awaitable[T]) -> T:
        async with gate:
            return await job

    return await asyncio.gather(*(one(j) for j in jobs))


def _judge_request(settings: JudgeSettings, messages: list[dict[str, Any]], step: str) -> ModelRequest:
    return ModelRequest(settings.model, messages, dict(JUDGE_PARAMS), settings.api_base, 0, step)


def needs_judge(result: CellResult) -> bool:
    """A graded reply the rules did not read with certainty: ambiguous, none found or unreadable."""
    return result.graded and result.ambiguity != CLEAR and bool((result.response or "").strip())


async def _judged_answer(
    result: CellResult, settings: JudgeSettings, client: CachedClient, tolerance: Tolerance
) -> tuple[str | None, bool | None, str]:
    """The judge's reading of a cell's reply: (answer, verdict by the rules' comparison, cache key)."""
    messages = extractor_messages(result.question, result.response or "", result.choices)
    reply, key, _ = await client.complete(_judge_request(settings, messages, "judge-extract"))
    answer = parse_extractor_reply(reply.text)
    verdict = None
    if answer is not None:
        asked = replace(result.asked, tolerance=tolerance)
        verdict = is_correct(
            answer, asked.truth, asked.answer_type, asked.choices, tolerance, asked.percent_question
        )
    return answer, verdict, key


async def llm_extract(
    results: list[CellResult],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
) -> list[CellResult]:
    """The judge as a fallback: only replies the rules found ambiguous, unreadable or without an
    answer are sent; the judge names the committed final answer, the rules compare it."""

    async def judged(result: CellResult) -> CellResult:
        if not needs_judge(result):
            return result
        answer, verdict, key = await _judged_answer(result, settings, client, tolerance)
        detail = {"key": key, "answer": answer}
        if verdict is None:  # no answer the rules can compare: the rules' verdict stands
            unread = Score(False, None, "extraction_failed", JUDGE, NONE_FOUND, JUDGE, detail)
            return result.with_score(unread)
        return result.graded_by(Score(verdict, answer, "ok", JUDGE, result.ambiguity, JUDGE, detail))

    return await _bounded([judged(r) for r in results], settings.concurrency)


def _label(verdict: bool | None) -> str:
    return "none" if verdict is None else ("correct" if verdict else "wrong")


async def audit_rules(
    results: list[CellResult],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
    sample: int,
    seed: int = 0,
) -> dict[str, Any]:
    """Rule-versus-judge agreement on a random sample of the verdicts the rules called clear:
    agreement, Cohen's kappa with a 95% interval, and the disagreements to read."""
    clear = [r for r in results if r.reason == "ok" and r.ambiguity == CLEAR and r.response]
    rng = np.random.default_rng(seed)
    picked = [clear[i] for i in sorted(rng.choice(len(clear), size=min(sample, len(clear)), replace=False))]

    async def one(result: CellResult) -> tuple[CellResult, str | None, bool | None]:
        answer, verdict, _ = await _judged_answer(result, settings, client, tolerance)
        return result, answer, verdict

    judged = await _bounded([one(r) for r in picked], settings.concurrency)
    rules = np.array([_label(r.correct) for r, _, _ in judged])
    judge = np.array([_label(v) for _, _, v in judged])
    kappa = kappa_interval(rules, judge, seed=seed)
    disagreements = [
        {"cell": _cell_label(r), "rules": _label(r.correct), "rules_answer": r.extracted,
         "judge": _label(v), "judge_answer": a}
        for r, a, v in judged if _label(r.correct) != _label(v)
    ]  # fmt: skip
    return {
        "sampled": len(judged),
        "clear_verdicts": len(clear),
        "agreement": float((rules == judge).mean()) if len(judged) else float("nan"),
        "kappa": kappa.estimate,
        "kappa_low": kappa.low,
        "kappa_high": kappa.high,
        "disagreements": disagreements,
    }


def _cell_label(result: CellResult) -> str:
    return f"{result.model}/{result.strategy}/{result.modality}/{result.seed_id}#{result.variant}"


async def process_evaluate(
    results: list[CellResult], settings: JudgeSettings, client: CachedClient, every: bool
) -> list[dict[str, Any]]:
    """MM-MATH process evaluation of wrong (or, with `every`, all graded) replies; the question and
    the reference solution come from each cell's own record."""
    chosen = [r for r in results if r.graded and r.response and (every or not r.correct)]

    async def judge(result: CellResult) -> dict[str, Any]:
        response = result.response or ""
        messages = process_messages(result.question, result.truth, result.solution, response)
        reply, key, hit = await client.complete(_judge_request(settings, messages, "judge-process"))
        verdict = parse_process_reply(reply.text, len(solution_steps(response)))
        keys = ("model", "strategy", "modality", "seed_id", "variant", "repeat", "topic", "level", "correct")
        return {
            **{k: getattr(result, k) for k in keys},
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
    """Plain records (process evaluation) as JSON lines; cell results go through `write_results`."""
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
