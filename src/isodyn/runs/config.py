"""`exp run key=value ...`: the experiment's settings, parsed and checked before anything runs.

Each value is read by its parser in `runs/setting_values.py`; the table `_PARSERS` here names them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import unicodedata
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, JsonObject, Modality
from isodyn.errors import ConfigError
from isodyn.generators.perturb import PerturbationError, parse_perturbation
from isodyn.models.local import DEFAULT_MODEL
from isodyn.models.requests import DEFAULT_MAX_TOKENS
from isodyn.runs.setting_values import (
    SecretValueError,
    bounded_int,
    grader_name,
    non_negative_float,
    parse_api_base,
    parse_batch_fallback,
    parse_boolean,
    parse_env_name,
    parse_modalities,
    parse_per_minute,
    parse_shard,
    parse_split,
    parse_temperature,
    parse_timeout,
    parse_vision,
    positive_int,
)


def parse_perturbation_name(text: str) -> str:
    """A perturbation's name as rows spell it (`magnitude:10` is `magnitude`); ConfigError if unknown."""
    try:
        return parse_perturbation(text).label
    except PerturbationError as exc:
        raise ConfigError(str(exc)) from None


def default_cache_dir() -> Path:
    return Path(os.environ.get("ISODYN_CACHE_DIR", Path.home() / ".cache" / "isodyn"))


@dataclass(frozen=True)
class ExperimentConfig:
    models: tuple[str, ...] = (DEFAULT_MODEL,)
    strategies: tuple[str, ...] = ("zeroshot",)
    modalities: tuple[Modality, ...] = tuple(Modality)
    seeds: tuple[str, ...] = ()  # empty: a small default set; ("all",): every registered seed
    # A DynaMath release folder (trial1..trialN/dataset.json): its items are the seeds (ids = its keys,
    # `seeds=` picks some) and its trial folders the variants.
    dataset: Path | None = None
    variants: int = 3  # variant indices 0 .. variants-1 of every seed
    # Render profiles of the image cells (`modalities.profiles`; isodyn.toml may add some) and
    # perturbations of every cell's question (`generators.perturb`), each an arm on the same variants.
    renders: tuple[str, ...] = (DEFAULT_RENDER,)
    perturbations: tuple[str, ...] = (NO_PERTURBATION,)
    base_seed: int = 0
    repeats: int = 1
    temperature: float = 0.0  # DynaMath samples at temperature 0
    max_tokens: int = DEFAULT_MAX_TOKENS  # 4,096: a chain of thought fits (512 cut most short)
    # One server, or several replicas of one (comma-separated; `models.requests.replicas_of` splits
    # them): calls are spread over them through litellm's Router; which replica answered is not part
    # of a cache key.
    api_base: str | None = None
    # The environment variable holding the key for the `api_base` server; none: no key is sent there.
    api_key_env: str | None = None
    describer: str | None = None  # IsoSP's describing model; default: the solving model
    # The judge model: a reply the rules find no answer in, or an ambiguous one, is read by it as its
    # cell finishes (experiments/regrade.py, through the same cache); none: the rules alone grade.
    judge: str | None = None
    # auto: litellm's capability table; yes/no: override for every model; a comma list of models:
    # those read images, the rest follow the table.
    vision: str = "auto"
    concurrency: int = 8  # calls in flight per model (lowered on HTTP 429, then grown back)
    rpm: float | None = None  # requests per minute per model
    tpm: float | None = None  # tokens per minute per model (estimate: prompt chars / 3 + max_tokens)
    max_retries: int = 6  # for transient failures: 429, 5xx, timeouts, dropped connections
    timeout: float = 120.0  # seconds per call
    max_cost: float | None = None  # USD: stop issuing calls before spent + in flight would pass it
    dry_run: bool = False
    out: Path = Path("runs")
    cache_dir: Path = field(default_factory=default_cache_dir)
    quiet: bool = False
    grader: str = "isodyn"  # how replies are graded (`isodyn.scoring.GRADERS`)
    # Provider batch jobs for the cache misses (half price at OpenAI), `batch_size` requests per job;
    # this process waits at most `batch_wait` seconds for pending jobs (a later run polls them again,
    # never resubmits); items that fail or expire are then called live, or left undone.
    batch: bool = False
    batch_size: int = 1_000
    batch_wait: float = 86_400.0
    batch_fallback: str = "live"  # live | undone
    # (i, N): this process runs shard i of N (1-based) of the grid; `exp merge` joins the shards.
    shard: tuple[int, int] | None = None
    # How short model names were resolved: (name, litellm id, "yes"/"no"/"" reads images, source),
    # for messages and vision facts; `models` and `describer` already hold the litellm ids.
    aliases: tuple[tuple[str, str, str, str], ...] = ()

    def __post_init__(self) -> None:
        # Every float setting, however it was set (parsed, replaced, built in code): a NaN would turn
        # a comparison (the budget's) off, and json.dumps would write it as NaN, which is not JSON.
        for name, value in self.__dict__.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, not {value}")

    def to_json(self) -> JsonObject:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}

    def digest(self, names: tuple[str, ...], **extra: Any) -> str:
        """SHA-256 of the named settings (and `extra`) as sorted JSON."""
        settings = self.to_json()
        chosen = {name: settings[name] for name in names} | extra
        return hashlib.sha256(json.dumps(chosen, sort_keys=True).encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def vision_override(config: ExperimentConfig, model: str) -> str:
    """auto, yes or no for one model."""
    if config.vision in ("auto", "yes", "no"):
        return config.vision
    return "yes" if model in config.vision.split(",") else "auto"


_PARSERS = {
    "models": parse_split,
    "strategies": parse_split,
    "modalities": parse_modalities,
    "seeds": parse_split,
    "dataset": Path,
    "variants": positive_int,  # bounded by the seeds' demonstration indices and the grid's size
    "renders": parse_split,
    "perturbations": lambda v: tuple(parse_perturbation_name(x) for x in parse_split(v)),
    "base_seed": int,
    "repeats": bounded_int(1, 1_000),
    "temperature": parse_temperature,
    "max_tokens": bounded_int(1, 1_000_000),
    "api_base": parse_api_base,
    "api_key_env": parse_env_name,
    "describer": str,
    "judge": str,
    "vision": parse_vision,
    "concurrency": bounded_int(1, 1_000),
    "rpm": parse_per_minute,
    "tpm": parse_per_minute,
    "max_retries": bounded_int(0, 50),
    "timeout": parse_timeout,
    "max_cost": lambda v: non_negative_float(v.lstrip("$")),
    "dry_run": parse_boolean,
    "out": Path,
    "cache_dir": Path,
    "quiet": parse_boolean,
    "grader": grader_name,
    "batch": parse_boolean,
    "batch_size": bounded_int(1, 50_000),
    "batch_wait": lambda v: min(non_negative_float(v), 7 * 86_400.0),
    "batch_fallback": parse_batch_fallback,
    "shard": parse_shard,
}
# Singular spellings a user will type.
_ALIASES = {
    "model": "models", "strategy": "strategies", "modality": "modalities", "seed": "seeds",
    "render": "renders", "perturbation": "perturbations",
}  # fmt: skip


def parse_key_values(
    words: list[str], parsers: dict[str, Any], aliases: dict[str, str] | None = None
) -> dict[str, Any]:
    """`key=value` words to a dict of parsed values; ConfigError (one line) on the first bad one."""
    aliases = aliases or {}
    values: dict[str, Any] = {}
    for word in words:
        key, sep, value = word.partition("=")
        key = aliases.get(key.strip(), key.strip())
        if not sep or not key:
            raise ConfigError(f"expected key=value, got {word!r}; keys: {', '.join(parsers)}")
        if key not in parsers:
            raise ConfigError(f"unknown setting {key!r}; valid: {', '.join(parsers)}")
        try:
            values[key] = parsers[key](_printable(value.strip()))
        except SecretValueError as exc:
            raise ConfigError(f"bad value for {key}: {exc.masked!r} ({exc})") from None
        except (ValueError, ConfigError) as exc:
            raise ConfigError(f"bad value for {key}: {value!r} ({exc})") from exc
    return values


def _printable(value: str) -> str:
    """No setting holds a line break or another control character: in a model name, a path or an
    address one would forge a header, a log line or a file name."""
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in value):
        raise ConfigError("holds a line break or another control character")
    return value


def read_study(path: Path) -> str:
    """A study file's text: a regular file (a FIFO or /dev/zero is refused, never waited on or read
    without end) within the study bound (ISODYN_MAX_STUDY_MB, 1 MB by default)."""
    from isodyn.datasets.contained import ReleaseError, limits, read_bounded

    if not path.exists():
        raise ConfigError(f"study file {path} does not exist")
    try:
        data = read_bounded(path, limits().study_bytes, f"study file {path}", "study_bytes")
        return data.decode("utf-8")
    except ReleaseError as exc:
        raise ConfigError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None


def study_words(path: Path) -> list[str]:
    """A study file (TOML) as the `key=value` words it stands for; words typed after it override
    them. Keys are the settings of `exp run` (lists for models, strategies, modalities, seeds)."""
    import tomllib

    text = read_study(path)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deep to read") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    words = []
    for key, value in data.items():
        where = f"{path}, line {_line_of(text, key)}, key {key!r}"
        name = _ALIASES.get(key, key)
        if name not in _PARSERS:
            raise ConfigError(f"{where}: unknown setting; valid: {', '.join(_PARSERS)}")
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            if name not in _LIST_SETTINGS:
                raise ConfigError(f"{where}: expected one value, not a list")
            value = ",".join(str(v) for v in value)
        elif isinstance(value, bool):
            value = "1" if value else "0"
        elif isinstance(value, int | float | str):
            value = str(value)
        else:
            raise ConfigError(f"{where}: expected a string, a number, true/false or a list of them")
        words.append(f"{name}={value}")
    return words


_LIST_SETTINGS = frozenset({"models", "strategies", "modalities", "seeds", "renders", "perturbations"})


def _given(words: list[str], name: str) -> bool:
    return any(word.partition("=")[0].strip() == name for word in words)


def refuse_study_key(study: Path, from_study: list[str], typed: list[str], config: ExperimentConfig) -> None:
    """A shared study file that names a server must not send it the user's key unnoticed: refuse
    unless the server is the user's own (api_base typed) or the user trusts the file
    (`--trust-study`, which skips this check)."""
    from urllib.parse import urlsplit

    if not _given(from_study, "api_base") or _given(typed, "api_base"):
        return
    if config.api_base is None or config.api_key_env is None:
        return
    host = urlsplit(config.api_base).hostname
    raise ConfigError(
        f"{study} names the server {host} (api_base={config.api_base}), which would be sent the key in "
        f"${config.api_key_env}; pass --trust-study if you trust this file, or give api_base= on the "
        "command line"
    )


def _line_of(text: str, key: str) -> int | str:
    for number, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*\"?{re.escape(key)}\"?\s*=", line):
            return number
    return "?"


def repeated_key(words: list[str]) -> str | None:
    """The first setting a command line gives twice (`variants=2 variants=3`), aliases included.
    (A program may stack overrides on a list of defaults; a person typing twice made a mistake.)"""
    seen: set[str] = set()
    for word in words:
        key = word.partition("=")[0].strip()
        key = _ALIASES.get(key, key)
        if key in seen:
            return key
        seen.add(key)
    return None


def parse_overrides(args: list[str], base: ExperimentConfig | None = None) -> ExperimentConfig:
    """Apply `key=value` words to the defaults; raise ConfigError on the first bad one.

    With `dataset=` and no `variants=`, every trial folder of a DynaMath release is a variant (other
    datasets: see `datasets.kinds.DATASETS`)."""
    values = parse_key_values(args, _PARSERS, _ALIASES)
    _resolve_model_names(values)
    _canonical_strategies(values)
    if values.get("dataset") is not None and "variants" not in values:
        from isodyn.datasets import ReleaseError
        from isodyn.datasets.kinds import default_variants

        try:
            values["variants"] = default_variants(values["dataset"])
        except ReleaseError as exc:
            raise ConfigError(str(exc)) from exc
    return replace(base or ExperimentConfig(), **values)


def _canonical_strategies(values: dict[str, Any]) -> None:
    """`cot` and `cot3`, `cot3+antimem` and `antimem+cot3` are one strategy: keep its one name
    (a spec that does not parse is left for the plan to refuse with its message)."""
    if "strategies" not in values:
        return
    from isodyn.strategies import StrategyError, parse_strategy

    names = []
    for spec in values["strategies"]:
        try:
            names.append(parse_strategy(spec).name)
        except StrategyError:
            names.append(spec)
    values["strategies"] = tuple(dict.fromkeys(names))


def _resolve_model_names(values: dict[str, Any]) -> None:
    """Short model names (`gpt-4o`, `gemini`, an alias of isodyn.toml) become litellm ids."""
    from isodyn.models.aliases import aliases, resolve
    from isodyn.models.catalog import ModelError

    if "models" not in values and "describer" not in values and "judge" not in values:
        return
    try:
        table = aliases()
    except ModelError as exc:
        raise ConfigError(str(exc)) from None
    used = []
    helpers = [values[name] for name in ("describer", "judge") if values.get(name)]
    names = list(values.get("models", ())) + helpers
    for name in names:
        alias = resolve(name, table)
        if alias.model != name:
            vision = "" if alias.vision is None else ("yes" if alias.vision else "no")
            used.append((name, alias.model, vision, alias.source))
    if "models" in values:
        resolved = [resolve(name, table).model for name in values["models"]]
        values["models"] = tuple(dict.fromkeys(resolved))  # two names for one model: one model
    for name in ("describer", "judge"):
        if values.get(name):
            values[name] = resolve(values[name], table).model
    values["aliases"] = tuple(used)
