"""The batch jobs of a run, as `RUN/batches.jsonl` records them: each job when it was submitted (its
id, input file, model, server and the cache keys it holds) and when it ended.

The file is how a run stopped while jobs are pending resumes: the next process polls the jobs that
have no end line, and never sends a request whose key one of them holds. Lines are appended and
synced one by one, so a crash loses at most the line being written (a cut line is skipped).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from isodyn.core import JsonObject
from isodyn.runs.files import BATCHES

LEDGER = BATCHES


@dataclass(frozen=True)
class BatchJob:
    """One submitted batch job: where to poll it and which requests (by cache key) it holds."""

    batch_id: str
    input_file_id: str
    model: str
    provider: str
    api_base: str | None  # the server it went to (None: the provider's own)
    keys: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {
            "batch_id": self.batch_id, "input_file_id": self.input_file_id, "model": self.model,
            "provider": self.provider, "api_base": self.api_base, "keys": list(self.keys),
        }  # fmt: skip

    @classmethod
    def from_json(cls, line: JsonObject) -> BatchJob:
        keys = line["keys"]
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise ValueError("keys must be a list of strings")
        api_base = line.get("api_base")
        return cls(
            str(line["batch_id"]), str(line["input_file_id"]), str(line["model"]), str(line["provider"]),
            str(api_base) if api_base else None, tuple(keys),
        )  # fmt: skip


class BatchLedger:
    """Appends to, and reads, one run's batches.jsonl."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LEDGER

    def pending(self) -> list[BatchJob]:
        """Jobs submitted by any process of this run that have not ended, oldest first."""
        submitted: dict[str, BatchJob] = {}
        ended: set[str] = set()
        for line in self._lines():
            try:
                if line.get("event") == "submitted":
                    job = BatchJob.from_json(line)
                    submitted[job.batch_id] = job
                elif line.get("event") == "ended":
                    ended.add(str(line["batch_id"]))
            except (KeyError, TypeError, ValueError):
                continue  # a line no process of ours wrote whole
        return [job for batch_id, job in submitted.items() if batch_id not in ended]

    def submitted(self, job: BatchJob) -> None:
        self._append({"event": "submitted", **job.to_json()})

    def ended(self, job: BatchJob, status: str, answered: int, failed: int) -> None:
        self._append(
            {
                "event": "ended",
                "batch_id": job.batch_id,
                "status": status,
                "answered": answered,
                "failed": failed,
            }
        )

    def _append(self, record: JsonObject) -> None:
        line = json.dumps({"t": round(time.time(), 3), **record}, ensure_ascii=False, allow_nan=False)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")  # ids and hex keys only: nothing to redact
            handle.flush()
            os.fsync(handle.fileno())  # a job id lost to a crash would be paid for and never collected

    def _lines(self) -> list[JsonObject]:
        if not self.path.is_file():
            return []
        found = []
        for raw in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # cut by a crash
            if isinstance(line, dict):
                found.append(line)
        return found
