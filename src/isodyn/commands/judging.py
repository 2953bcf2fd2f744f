"""The settings `exp rescore` and `exp judge` share: how words are read, and the judge model checked.

Both commands read the same keys (so each names the same valid ones in its errors); the judge's
server and cache default to those the run was made with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.experiments.config import grader_name, non_negative_float, parse_key_values, positive_int
from isodyn.experiments.regrade import JudgeSettings
from isodyn.models.catalog import ModelError, describe_model, missing_api_key

DEFAULT_CONCURRENCY = 4  # judge calls in flight at once


def _yes(value: str) -> bool:
    return value.lower() in ("1", "true", "yes")


REGRADE_PARSERS: dict[str, Any] = {
    "abs_tol": non_negative_float,
    "rel_tol": non_negative_float,
    "judge": str,
    "api_base": str,
    "cache_dir": Path,
    "concurrency": positive_int,
    "all": _yes,
    "grader": grader_name,
    "audit": positive_int,
}


def regrade_words(words: Sequence[str]) -> dict[str, Any]:
    """`key=value` words of rescore or judge, parsed (ConfigError on the first bad one)."""
    return parse_key_values(list(words), REGRADE_PARSERS)


@dataclass(frozen=True)
class JudgeChoice:
    """The judge as the user named it; unset fields fall back to the run's own settings."""

    model: str
    api_base: str | None = None
    cache_dir: Path | None = None
    concurrency: int = DEFAULT_CONCURRENCY

    @classmethod
    def from_parsed(cls, chosen: dict[str, Any]) -> JudgeChoice:
        return cls(
            chosen["judge"], chosen.get("api_base"), chosen.get("cache_dir"),
            chosen.get("concurrency", DEFAULT_CONCURRENCY),
        )  # fmt: skip

    def checked(self, run_config: dict[str, Any]) -> JudgeSettings:
        """The judge's settings for a run made with `run_config`; ModelError when the judge cannot
        be called (litellm cannot route it, or its key is missing)."""
        api_base = self.api_base if self.api_base is not None else run_config.get("api_base")
        describe_model(self.model, api_base)
        missing = missing_api_key(self.model, api_base)
        if missing:
            raise ModelError(f"judge {self.model!r} needs the environment variable {missing}")
        cache_dir = self.cache_dir or (Path(run_config["cache_dir"]) if run_config.get("cache_dir") else None)
        return JudgeSettings(self.model, api_base, cache_dir, self.concurrency)
