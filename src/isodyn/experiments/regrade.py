"""Grading after the fact: re-score saved replies, ask a judge model to read unreadable replies,
and process evaluation. No call is made to the models under test; judge calls go through the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import numpy as np

from isodyn.cache import ResponseCache
from isodyn.cache.folder import Stores
from isodyn.core import AnswerType, JsonObject
from isodyn.experiments.call_errors import error_reason
from isodyn.experiments.llm import BudgetExhausted, CachedClient, CacheMiss
from isodyn.experiments.redaction import redact
from isodyn.models.requests import CUT_OFF, ModelRequest
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.judgements import Judgement
from isodyn.runs.record import JUDGE, CellResult
from isodyn.scoring import DEFAULT_GRADER, Question, Score, Tolerance, is_correct
from isodyn.scoring.extract import CLEAR, NONE_FOUND, SEVERAL_OPTIONS, SEVERAL_VALUES, UNREADABLE
from isodyn.scoring.judge import (
    extractor_messages,
    parse_extractor_reply,
    parse_process_reply,
    process_messages,
    solution_steps,
)

T = TypeVar("T")
# The judge only restates the answer a reply committed to (a short JSON object): 512 tokens are
# plenty, and a reply cut off there is refused (`_judged_answer`).
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


def _judge_request(settings: JudgeSettings, messages: list[JsonObject], step: str) -> ModelRequest:
    return ModelRequest(settings.model, messages, dict(JUDGE_PARAMS), settings.api_base, 0, step)


# What the judge is asked to read: replies the rules found no answer in, or could not settle. Not a
# clear verdict, not a committed answer outside the options (a wrong answer, clearly given), and
# never a reply cut off at the token limit (there is no final answer to read in it).
JUDGED_AMBIGUITIES = frozenset({NONE_FOUND, UNREADABLE, SEVERAL_OPTIONS, SEVERAL_VALUES})


def needs_judge(result: CellResult) -> bool:
    """A graded reply the rules did not read with certainty (ambiguous, none found or unreadable) and
    that says something: a reply of labels alone (`:`, `Thought process:`) holds no answer to find."""
    return result.graded and result.ambiguity in JUDGED_AMBIGUITIES and has_substance(result.response or "")


@dataclass(frozen=True)
class JudgeReading:
    """What the judge read in a reply: the answer it named (when taken), the verdict of the rules'
    comparison on it, its cache key, and why its answer was refused (None: taken)."""

    answer: str | None
    verdict: bool | None
    key: str
    said: str | None = None  # the judge's answer as it gave it, taken or not
    refused: str | None = None


async def _judged_answer(
    result: CellResult, settings: JudgeSettings, client: CachedClient, tolerance: Tolerance
) -> JudgeReading:
    """The judge's reading of a cell's reply, checked against the reply (`refusal`)."""
    messages = extractor_messages(result.question, result.response or "", result.choices)
    reply, key, _ = await client.complete(_judge_request(settings, messages, "judge-extract"))
    said = parse_extractor_reply(reply.text)
    if said is None:
        return JudgeReading(None, None, key)
    asked = replace(result.asked, tolerance=tolerance)
    why = "the judge's reply was cut off at its token limit" if reply.finish_reason == CUT_OFF else None
    why = why or refusal(said, result.response or "", asked)
    if why is not None:
        return JudgeReading(None, None, key, said, why)
    truth, kind, choices = asked.truth, asked.answer_type, asked.choices
    verdict = is_correct(said, truth, kind, choices, tolerance, asked.percent_question)
    return JudgeReading(said, verdict, key, said)


async def judge_cell(
    result: CellResult, settings: JudgeSettings, client: CachedClient, tolerance: Tolerance
) -> CellResult:
    """One cell with the judge's reading added (`needs_judge` cells only; any other is returned as
    it is). The rules' score stays under its grader; the judge's is `scores["judge"]`, and it decides
    the cell only when it named an answer the reply holds and the rules can compare."""
    if not needs_judge(result):
        return result
    reading = await _judged_answer(result, settings, client, tolerance)
    detail: JsonObject = {"key": reading.key, "answer": reading.said}
    if reading.refused is not None:
        detail["refused"] = reading.refused
    if reading.verdict is None:  # no answer the rules can compare: the rules' verdict stands
        unread = Score(False, None, "extraction_failed", JUDGE, NONE_FOUND, JUDGE, detail)
        return result.with_score(unread)
    read = Score(reading.verdict, reading.answer, "ok", JUDGE, result.ambiguity, JUDGE, detail)
    return result.overruled_by(read)


def judge_settings(config: ExperimentConfig) -> JudgeSettings | None:
    """The judge of a run (`judge=MODEL`), on the run's server as its other models, or None."""
    if config.judge is None:
        return None
    return JudgeSettings(config.judge, config.api_base, config.cache_dir, config.concurrency)


async def judge_during_run(result: CellResult, settings: JudgeSettings, client: CachedClient) -> CellResult:
    """`judge_cell` as a run asks it, as the cell finishes: a judge call that fails (after its retries)
    leaves the rules' verdict, with the failure kept in the judge's score; a budget refusal leaves
    the cell undone (BudgetExhausted propagates)."""
    try:
        return await judge_cell(result, settings, client, result.asked.tolerance)
    except (BudgetExhausted, CacheMiss):
        raise
    except Exception as exc:
        failed = {"error": error_reason(exc), "message": redact(str(exc))[:300]}
        return result.with_score(Score(False, None, "extraction_failed", JUDGE, NONE_FOUND, JUDGE, failed))


async def llm_extract(
    results: list[CellResult],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
) -> list[CellResult]:
    """The judge as a fallback: only replies the rules found ambiguous, unreadable or without an
    answer are sent; the judge names the committed final answer, the rules compare it."""
    jobs: list[Awaitable[CellResult]] = [judge_cell(r, settings, client, tolerance) for r in results]
    return await _bounded(jobs, settings.concurrency)


# ---- checking the judge's answer against the reply ------------------------------------------------

# A line that only labels what follows ("Thought process:", "**Answer:**", "###"): no answer in it.
_LABEL_LINE = re.compile(r"^[\s#>*_`|-]*[^\n]{0,60}:[\s*_`]*$|^[\s#>*_`|:.-]*$")
_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d+)?|[-+−]?\.\d+")
_YES_NO = frozenset({"yes", "no", "true", "false"})


def has_substance(reply: str) -> bool:
    """Whether a reply says anything beyond labels and punctuation (`:`, `Thought process:`, an
    empty reply say nothing: no judge may find an answer in them)."""
    said = [line for line in reply.splitlines() if not _LABEL_LINE.match(line)]
    return any(_WORD.search(line) for line in said)


def _squeezed(text: str) -> str:
    """Text compared for containment: lower case, no spaces, no markdown or LaTeX punctuation."""
    return re.sub(r"[\s*_`$\\{}]+|\\[(\[\])]", "", text.lower())


def _numbers(text: str) -> set[float]:
    found = set()
    for match in _NUMBER.finditer(text):
        with contextlib.suppress(ValueError):
            found.add(float(match.group().replace(",", "").replace("−", "-")))
    return found


def refusal(answer: str, reply: str, asked: Question) -> str | None:
    """Why the judge's `answer` cannot be taken for `reply` (None: it can). The judge must name an
    answer the reply holds: its text, its number, the option it names (by letter or by its text), its
    words; a yes/no reading of a reply that says something. A reply that says nothing has none."""
    if not has_substance(reply):
        return "the reply holds no answer (no words or digits beyond labels)"
    if not _WORD.search(answer):
        return "the judge's answer has no words or digits"
    if _NUMBER.fullmatch(answer.strip()):  # a number: one the reply states (not a digit run in another)
        return None if _numbers(answer) <= _numbers(reply) else "the judge's number is not in the reply"
    if answer.strip().lower().rstrip(".") in _YES_NO:
        return None  # polarity is read, not quoted ("not isomorphic" answers "no")
    option = _option_text(answer, asked.choices) if asked.answer_type is AnswerType.MULTIPLE_CHOICE else None
    if option is not None and option.strip().lower() in _YES_NO:
        return None  # an option that is a yes or a no: read like one
    if option is not None:  # a letter: standing alone in the reply ("(B)", "**B**"), or its option's text
        letter = re.escape(answer.strip().strip("()*.").upper())
        standing = re.search(rf"(?<![A-Za-z]){letter}(?![A-Za-z])", reply) is not None
        return None if standing or _holds(reply, option) else "the judge's option is not in the reply"
    if len(_squeezed(answer)) > 1 and _squeezed(answer) in _squeezed(reply):
        return None
    words = [w for w in _WORD.findall(answer.lower()) if len(w) > 1]
    if words and all(w in reply.lower() for w in words):
        return None
    return "the judge's answer is not in the reply"


def _holds(reply: str, text: str) -> bool:
    """Whether the reply states `text`: as words of their own ("No" is not in "not"), or, for
    longer text such as LaTeX, with spaces and markup aside."""
    words = r"\s+".join(map(re.escape, text.split()))
    if words and re.search(rf"(?<!\w){words}(?!\w)", reply, re.IGNORECASE):
        return True
    return len(_squeezed(text)) >= 4 and _squeezed(text) in _squeezed(reply)


def _option_text(answer: str, choices: tuple[str, ...]) -> str | None:
    letter = answer.strip().strip("()*.").upper()
    if len(letter) == 1 and "A" <= letter < chr(ord("A") + len(choices)):
        return choices[ord(letter) - ord("A")]
    return None


def _label(verdict: bool | None) -> str:
    return "none" if verdict is None else ("correct" if verdict else "wrong")


@dataclass(frozen=True)
class RulesAgainstJudge:
    """The rules' clear verdicts on a random sample, beside the judge's verdicts on the same replies
    ("correct", "wrong" or "none" each); the statistics of their agreement are the caller's."""

    clear_verdicts: int
    rules: tuple[str, ...]
    judge: tuple[str, ...]
    disagreements: list[JsonObject]


async def audit_rules(
    results: list[CellResult],
    settings: JudgeSettings,
    client: CachedClient,
    tolerance: Tolerance,
    sample: int,
    seed: int = 0,
) -> RulesAgainstJudge:
    """A random sample of the verdicts the rules called clear, each read again by the judge."""
    clear = [r for r in results if r.reason == "ok" and r.ambiguity == CLEAR and r.response]
    rng = np.random.default_rng(seed)
    picked = [clear[i] for i in sorted(rng.choice(len(clear), size=min(sample, len(clear)), replace=False))]

    async def one(result: CellResult) -> tuple[CellResult, str | None, bool | None]:
        reading = await _judged_answer(result, settings, client, tolerance)
        return result, reading.answer, reading.verdict

    judged = await _bounded([one(r) for r in picked], settings.concurrency)
    disagreements = [
        {"cell": _cell_label(r), "rules": _label(r.correct), "rules_answer": r.extracted,
         "judge": _label(v), "judge_answer": a}
        for r, a, v in judged if _label(r.correct) != _label(v)
    ]  # fmt: skip
    return RulesAgainstJudge(
        len(clear), tuple(_label(r.correct) for r, _, _ in judged), tuple(_label(v) for _, _, v in judged),
        disagreements,
    )  # fmt: skip


def _cell_label(result: CellResult) -> str:
    return f"{result.model}/{result.strategy}/{result.modality}/{result.seed_id}#{result.variant}"


async def process_evaluate(
    results: list[CellResult], settings: JudgeSettings, client: CachedClient, every: bool
) -> list[Judgement]:
    """MM-MATH process evaluation of wrong (or, with `every`, all graded) replies; the question and
    the reference solution come from each cell's own record."""
    chosen = [r for r in results if r.graded and r.response and (every or not r.correct)]

    async def judge(result: CellResult) -> Judgement:
        response = result.response or ""
        messages = process_messages(result.question, result.truth, result.solution, response)
        reply, key, hit = await client.complete(_judge_request(settings, messages, "judge-process"))
        verdict = parse_process_reply(reply.text, len(solution_steps(response)))
        return Judgement(
            cell=result.cell, topic=result.topic, level=result.level, correct=result.correct,
            first_wrong_step=verdict.first_wrong_step, error_type=verdict.error_type,
            explanation=verdict.explanation, judge_readable=verdict.readable,
            judge_model=settings.model, judge_key=key, judge_cache_hit=hit, judge_reply=reply.text,
        )  # fmt: skip

    return await _bounded([judge(r) for r in chosen], settings.concurrency)


def open_client(cache_dir: Path) -> tuple[CachedClient, ResponseCache]:
    store = ResponseCache(Stores(cache_dir).responses)
    return CachedClient(store), store
