"""Grading after the fact: re-score saved replies, ask a judge model to read unreadable replies,
and process evaluation. No call is made to the models under test; judge calls go through the cache.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from isodyn.analysis.stats import kappa_interval
from isodyn.cache import ModelRequest, ResponseCache
from isodyn.core import AnswerType, Variant
from isodyn.experiments.llm import CachedClient
from isodyn.generators import all_seeds
from isodyn.scoring import DEFAULT_GRADER, Tolerance, is_correct
from isodyn.scoring.extract import CLEAR, NONE_FOUND
from isodyn.scoring.judge import (
    extractor_messages,
    parse_extractor_reply,
    parse_process_reply,
    process_messages,
    solution_steps,
)
from isodyn.scoring.saved import grade_row, question_text
from isodyn.strategies.modifiers import rotate_choices

GRADED = ("ok", "extraction_failed")
JUDGE_PARAMS = {"temperature": 0.0, "max_tokens": 512}


@dataclass(frozen=True)
class JudgeSettings:
    model: str
    api_base: str | None = None
    cache_dir: Path | None = None
    concurrency: int = 4


def rescore_rows(
    rows: list[dict[str, Any]], tolerance: Tolerance, grader: str = DEFAULT_GRADER
) -> list[dict[str, Any]]:
    """Every graded row graded again from its saved reply and truth, by the named grader (pure)."""
    out = []
    for row in rows:
        if row["reason"] not in GRADED or row.get("response") is None:
            out.append(row)
            continue
        graded = grade_row(row, tolerance, grader)
        out.append(
            {
                **row,
                "extracted": graded.extracted,
                "correct": graded.correct,
                "reason": graded.reason,
                "method": graded.method,
                "ambiguity": graded.ambiguity,
                "grader": graded.grader,
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


def needs_judge(row: dict[str, Any]) -> bool:
    """A graded reply the rules did not read with certainty: ambiguous, none found or unreadable."""
    uncertain = row.get("ambiguity", CLEAR if row["reason"] == "ok" else NONE_FOUND) != CLEAR
    return row["reason"] in GRADED and uncertain and bool((row.get("response") or "").strip())


async def _judged_answer(
    row: dict[str, Any], settings: JudgeSettings, client: CachedClient, tolerance: Tolerance
) -> tuple[str | None, bool | None, str]:
    """The judge's reading of a row's reply: (answer, verdict by the rules' comparison, cache key)."""
    choices = tuple(row.get("choices") or ())
    messages = extractor_messages(question_text(row), row["response"], choices)
    reply, key, _ = await client.complete(_judge_request(settings, messages, "judge-extract"))
    answer = parse_extractor_reply(reply.text)
    verdict = None
    if answer is not None:
        verdict = is_correct(
            answer, row["truth"], AnswerType(row["answer_type"]), choices, tolerance,
            bool(row.get("percent_question")),
        )  # fmt: skip
    return answer, verdict, key


async def llm_extract(
    rows: list[dict[str, Any]],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
) -> list[dict[str, Any]]:
    """The judge as a fallback: only replies the rules found ambiguous, unreadable or without an
    answer are sent; the judge names the committed final answer, the rules compare it."""

    async def regrade(row: dict[str, Any]) -> dict[str, Any]:
        if not needs_judge(row):
            return row
        answer, verdict, key = await _judged_answer(row, settings, client, tolerance)
        record = {"key": key, "answer": answer, "rules": {k: row.get(k) for k in ("extracted", "method")}}
        if verdict is None:
            return {**row, "judge_extract": record}
        return {**row, "extracted": answer, "correct": verdict, "reason": "ok", "method": "judge",
                "judge_extract": record}  # fmt: skip

    return await _bounded([regrade(r) for r in rows], settings.concurrency)


def _label(verdict: bool | None) -> str:
    return "none" if verdict is None else ("correct" if verdict else "wrong")


async def audit_rules(
    rows: list[dict[str, Any]],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
    sample: int,
    seed: int = 0,
) -> dict[str, Any]:
    """Rule-versus-judge agreement on a random sample of the verdicts the rules called clear:
    agreement, Cohen's kappa with a 95% interval, and the disagreements to read."""
    clear = [
        r for r in rows if r["reason"] == "ok" and r.get("ambiguity", CLEAR) == CLEAR and r.get("response")
    ]
    rng = np.random.default_rng(seed)
    picked = [clear[i] for i in sorted(rng.choice(len(clear), size=min(sample, len(clear)), replace=False))]

    async def one(row: dict[str, Any]) -> tuple[dict[str, Any], str | None, bool | None]:
        answer, verdict, _ = await _judged_answer(row, settings, client, tolerance)
        return row, answer, verdict

    judged = await _bounded([one(r) for r in picked], settings.concurrency)
    rules = np.array([_label(r["correct"]) for r, _, _ in judged])
    judge = np.array([_label(v) for _, _, v in judged])
    kappa = kappa_interval(rules, judge, seed=seed)
    disagreements = [
        {"cell": _cell_label(r), "rules": _label(r["correct"]), "rules_answer": r.get("extracted"),
         "judge": _label(v), "judge_answer": a}
        for r, a, v in judged if _label(r["correct"]) != _label(v)
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


def _cell_label(row: dict[str, Any]) -> str:
    parts = (row.get("model"), row.get("strategy"), row.get("modality"), row.get("seed_id"))
    return "/".join(map(str, parts)) + f"#{row.get('variant')}"


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
