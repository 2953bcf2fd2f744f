"""The settings `exp rescore` and `exp judge` share: how words are read, and the judge model checked.

Both commands read the same keys (so each names the same valid ones in its errors). The run folder
may come from anyone, so the server and cache its config.json names are the judge's only when the
user passes --trust-run (`folder_settings`): its server would choose every verdict, and its cache
could sit inside the folder. Otherwise what the user typed, else isodyn's defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.commands.notices import Notices
from isodyn.experiments.regrade import JudgeSettings
from isodyn.models.catalog import ModelError, describe_model, missing_api_key
from isodyn.runs.config import default_cache_dir, parse_key_values
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import Run
from isodyn.runs.saved_config import saved_config, shown_value
from isodyn.runs.setting_values import grader_name, non_negative_float, positive_int

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


# The settings of a run's config.json that say where calls go and replies are kept.
FOLDER_SETTINGS = ("api_base", "cache_dir")


@dataclass(frozen=True)
class CallPlace:
    """Where a command on a run folder sends its calls and keeps their replies."""

    api_base: str | None  # None: the model's own provider
    cache_dir: Path


def folder_settings(
    api_base: str | None, cache_dir: Path | None, run: Run, trust_run: bool, notices: Notices
) -> CallPlace:
    """The one rule for a command that calls a model on a run folder (`exp judge`, `exp rescore`):
    the server and the cache are what the user typed (None: not typed); else the folder's own (its
    config.json) with `trust_run`; else isodyn's defaults (the model's provider, the user's cache).
    Folder values left unused are said once, in one line."""
    typed: dict[str, Any] = {"api_base": api_base, "cache_dir": cache_dir}
    defaults: dict[str, Any] = {"api_base": None, "cache_dir": str(default_cache_dir())}
    where = str(RunFolder(run.directory).config_file)
    theirs = {  # what the folder names instead of a setting not typed, when it is not the default
        key: run.config[key]
        for key in FOLDER_SETTINGS
        if typed[key] is None and run.config.get(key) not in (None, "", defaults[key])
    }
    if theirs and trust_run:
        read = saved_config(theirs, where)  # checked as merge checks a config.json: types, no extra key
        typed |= {key: getattr(read, key) for key in theirs}
    elif theirs:
        named = " and ".join(f"{key}={shown_value(value, 200)}" for key, value in theirs.items())
        notices.say("note", f"{where} names {named}; ignored (name them, or pass --trust-run)")
    return CallPlace(typed["api_base"], typed["cache_dir"] or default_cache_dir())


@dataclass(frozen=True)
class JudgeChoice:
    """The judge as the user named it; a server or cache not named is `folder_settings`'s choice."""

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

    def checked(self, run: Run, trust_run: bool, notices: Notices) -> JudgeSettings:
        """The judge's settings for `run` (its server and cache by `folder_settings`); ModelError
        when the judge cannot be called (litellm cannot route it, or its key is missing)."""
        place = folder_settings(self.api_base, self.cache_dir, run, trust_run, notices)
        describe_model(self.model, place.api_base)
        missing = missing_api_key(self.model, place.api_base)
        if missing:
            raise ModelError(f"judge {self.model!r} needs the environment variable {missing}")
        return JudgeSettings(self.model, place.api_base, place.cache_dir, self.concurrency)
