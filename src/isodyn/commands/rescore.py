"""`exp rescore`: grade a finished run's saved replies again, with new settings, into a new folder.

No model under test is called. With a judge, replies the rules found ambiguous or without an
answer are read by the judge (cached calls) and compared by the same rules; with an audit, a sample
of the rules' clear verdicts goes to the judge too, and their agreement is reported. The new
folder, RUN_DIR-rescored-STAMP beside the run, holds results, config, summary and report.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from isodyn.analysis.run_report import write_report
from isodyn.analysis.stats import kappa_interval
from isodyn.commands.judging import JudgeChoice, regrade_words
from isodyn.commands.notices import Notice, Notices, Notify
from isodyn.commands.runs import read_run
from isodyn.errors import ConfigError
from isodyn.experiments.regrade import (
    JudgeSettings,
    RulesAgainstJudge,
    audit_rules,
    llm_extract,
    open_client,
    rescore,
)
from isodyn.runs.config import default_cache_dir
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import CellResult, write_results
from isodyn.runs.summary import RESCORE_KEYS, JudgeCalls, RunSummary
from isodyn.scoring import DEFAULT_GRADER, DYNAMATH_ABS_TOLERANCE, Tolerance

AUDIT_SEED = 0  # the sample of clear verdicts, and the kappa's resamples


@dataclass(frozen=True)
class RescoreRequest:
    folder: RunFolder
    grader: str = DEFAULT_GRADER
    tolerance: Tolerance = field(default_factory=lambda: Tolerance(DYNAMATH_ABS_TOLERANCE, 0.0))
    judge: JudgeChoice | None = None
    audit: int | None = None  # clear verdicts to check against the judge (needs a judge)
    trust_run: bool = False  # the judge may use the server and cache the run's config.json names

    @classmethod
    def from_words(cls, folder: RunFolder, words: Sequence[str], trust_run: bool = False) -> RescoreRequest:
        """The request `exp rescore RUN_DIR key=value ...` makes (ConfigError on a bad word)."""
        chosen = regrade_words(words)
        return cls(
            folder,
            chosen.get("grader", DEFAULT_GRADER),
            Tolerance(chosen.get("abs_tol", DYNAMATH_ABS_TOLERANCE), chosen.get("rel_tol", 0.0)),
            JudgeChoice.from_parsed(chosen) if "judge" in chosen else None,
            chosen.get("audit"),
            trust_run,
        )


@dataclass(frozen=True)
class RuleAudit:
    """How often the rules' clear verdicts agree with the judge's, on a random sample."""

    sampled: int
    agreement: float
    kappa: float  # Cohen's kappa, with its 95% interval
    kappa_low: float
    kappa_high: float
    disagreements: int  # listed in summary.json


@dataclass(frozen=True)
class RescoreResult:
    folder: RunFolder  # the new folder: its results.jsonl, summary.json, report.md
    grader: str
    results: list[CellResult] = field(repr=False)
    changed_verdicts: int
    judged: int  # replies the judge read
    judge_calls: JudgeCalls
    audit: RuleAudit | None
    notices: tuple[Notice, ...] = ()


def rescore_run(request: RescoreRequest, notify: Notify | None = None) -> RescoreResult:
    """Grade the run again and write the new folder; the run itself is left as it was."""
    notices = Notices(notify)
    run = read_run(request.folder, notices)
    if request.audit is not None and request.judge is None:
        raise ConfigError("audit=N needs judge=MODEL: the judge is what the rules are checked against")
    judge = request.judge.checked(run, request.trust_run, notices) if request.judge else None
    regraded = rescore(run.results, request.tolerance, request.grader)
    calls, audit = JudgeCalls(), None
    if judge:
        regraded, calls, audit = _judged(regraded, judge, request)
    out = _new_folder(request.folder)
    rescore_settings = {
        "grader": request.grader,
        "abs_tol": request.tolerance.absolute,
        "rel_tol": request.tolerance.relative,
        "judge": request.judge.model if request.judge else None,
        "audit": request.audit,
    }
    config = {**run.config, "grader": request.grader, "rescore": rescore_settings}
    out.write_config((json.dumps(config, indent=2, allow_nan=False) + "\n").encode())
    write_results(out.results_file, regraded)
    changed = sum(a.correct != b.correct for a, b in zip(run.results, regraded, strict=True))
    summary = _summary(regraded, changed, calls, request.folder, audit)
    out.write_summary(summary)
    write_report(out, regraded)
    return RescoreResult(
        out, request.grader, regraded, changed, summary.judged, calls,
        _rule_audit(audit), notices.said,
    )  # fmt: skip


def _judged(
    regraded: list[CellResult], judge: JudgeSettings, request: RescoreRequest
) -> tuple[list[CellResult], JudgeCalls, dict[str, Any] | None]:
    """The judge's readings of what the rules could not read, its calls, and the audit if asked."""
    client, store = open_client(judge.cache_dir or default_cache_dir())
    audit = None
    try:
        if request.audit is not None:
            sample = audit_rules(regraded, judge, client, request.tolerance, request.audit, AUDIT_SEED)
            audit = _audit_json(asyncio.run(sample))
        regraded = asyncio.run(llm_extract(regraded, judge, client, request.tolerance))
    finally:
        store.close()
    return regraded, JudgeCalls(client.calls_made, client.cache_hits, client.cost_usd), audit


def _new_folder(folder: RunFolder) -> RunFolder:
    """RUN_DIR-rescored-STAMP beside the run, made now; never one that exists."""
    run_dir = folder.path
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
    while out.exists():  # two rescores in the same second
        stamp += "x"
        out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
    try:
        out.mkdir(parents=True)
    except FileExistsError:  # another process took the name between the check and now
        stamp += "y"
        out = run_dir.parent / f"{run_dir.name}-rescored-{stamp}"
        out.mkdir()
    return RunFolder(out)


def _summary(
    regraded: list[CellResult], changed: int, calls: JudgeCalls, run: RunFolder, audit: dict[str, Any] | None
) -> RunSummary:
    """summary.json of the new folder (`RESCORE_KEYS`)."""
    reasons = [r.reason for r in regraded]
    return RunSummary(
        cells=len(regraded),
        graded=reasons.count("ok"),
        extraction_failed=reasons.count("extraction_failed"),
        truncated=reasons.count("truncated"),  # cut off at the token limit: graded, never read
        correct=sum(bool(r.correct) for r in regraded),
        changed_verdicts=changed,
        judged=sum(r.judge_extract is not None for r in regraded),
        judge=calls,
        rescored_from=str(run.path),
        audit=audit,
        keys=RESCORE_KEYS,
    )


def _audit_json(audit: RulesAgainstJudge, seed: int = AUDIT_SEED) -> dict[str, Any]:
    """summary.json's `audit`: agreement of the rules with the judge, and Cohen's kappa with its 95%
    interval (keys in the file's order)."""
    rules, judge = np.array(audit.rules), np.array(audit.judge)
    kappa = kappa_interval(rules, judge, seed=seed)
    return {
        "sampled": len(rules),
        "clear_verdicts": audit.clear_verdicts,
        "agreement": float((rules == judge).mean()) if len(rules) else float("nan"),
        "kappa": kappa.estimate,
        "kappa_low": kappa.low,
        "kappa_high": kappa.high,
        "disagreements": audit.disagreements,
    }


def _rule_audit(audit: dict[str, Any] | None) -> RuleAudit | None:
    if audit is None:
        return None
    return RuleAudit(
        audit["sampled"], audit["agreement"], audit["kappa"], audit["kappa_low"], audit["kappa_high"],
        len(audit["disagreements"]),
    )  # fmt: skip
