"""The names of the files a run folder holds, each written once (`folder.RunFolder` gives their paths).

Only the modules of `runs/` name them: everything else asks a `RunFolder`.
"""

from __future__ import annotations

RESULTS = "results.jsonl"  # one row per finished cell (`results`)
DAMAGED = "results.damaged.jsonl"  # lines of results.jsonl that were no whole row, set aside
SUMMARY = "summary.json"  # the run's counts and spending (`summary`)
CONFIG = "config.json"  # the settings that made it (`saved_config`)
LOG = "log.jsonl"  # events: start, retries, end (`experiments.llm.RunLog`)
LOCK = ".lock"  # one writer at a time (`runlock`)
STUDY = "study.toml"  # the study file a run was started from, as it was read
BATCHES = "batches.jsonl"  # batch jobs submitted (`batch_ledger`)
MARKS = "marks.jsonl"  # a person's marks from `exp view` (`marks`)
JUDGEMENTS = "process.jsonl"  # `exp judge`'s process evaluation (`judgements`)
VERDICTS = "verdicts.jsonl"  # each grader's verdicts, kept (`verdict_book`)
REPORT = "report.md"
REPORT_HTML = "report.html"
FIGURES = "figures"  # the report's PNGs
