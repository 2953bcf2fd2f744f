"""A run's config.json: written by `run_config_bytes` (the settings, and the isodyn version and
prompt templates that made the run: `MadeBy`), read back by `saved_config` for a command that works
on runs it did not make (`exp merge`). The folder may come from anyone: every value is checked
against its setting's type, and one that does not fit, or a key this isodyn does not know, is a
one-line error naming the key."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any, get_type_hints

from isodyn.core import Modality
from isodyn.errors import ConfigError, IsodynError
from isodyn.runs.config import ExperimentConfig


class Unfit(IsodynError, ValueError):
    """A value of config.json that is not of its setting's type; the message says what it should be
    (`saved_config` says it as a ConfigError naming the file and the key)."""


Reader = Callable[[Any], Any]


def shown_value(value: Any, limit: int = 40) -> str:
    """A value as an error quotes it: JSON (control characters escaped), at most `limit` long."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "…"


def _text(value: Any) -> str:
    if type(value) is not str:
        raise Unfit("text")
    return value


def _whole(value: Any) -> int:
    if type(value) is not int:  # a bool is no number here
        raise Unfit("a whole number")
    return value


def _number(value: Any) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise Unfit("a finite number")
    return float(value)


def _flag(value: Any) -> bool:
    if type(value) is not bool:
        raise Unfit("true or false")
    return value


def _path(value: Any) -> Path:
    return Path(_text(value))


def _texts(value: Any) -> tuple[str, ...]:
    if type(value) is not list or not all(type(v) is str for v in value):
        raise Unfit("a list of text")
    return tuple(value)


def _modalities(value: Any) -> tuple[Modality, ...]:
    known = {m.value: m for m in Modality}
    if type(value) is not list or not all(type(v) is str and v in known for v in value):
        raise Unfit(f"a list of {', '.join(known)}")
    return tuple(known[v] for v in value)


def _shard(value: Any) -> tuple[int, int]:
    if type(value) is not list or len(value) != 2 or not all(type(v) is int for v in value):
        raise Unfit("[i, N]")
    index, count = value
    if not 1 <= index <= count:
        raise Unfit("[i, N] with i from 1 to N")
    return index, count


def _aliases(value: Any) -> tuple[tuple[str, str, str, str], ...]:
    if type(value) is not list or not all(
        type(v) is list and len(v) == 4 and all(type(s) is str for s in v) for v in value
    ):
        raise Unfit("a list of [name, model, vision, source]")
    return tuple((a, b, c, d) for a, b, c, d in value)


def _or_none(read: Reader) -> Reader:
    return lambda value: None if value is None else read(value)


# Each annotation of ExperimentConfig and how a JSON value becomes it. A field of another type is a
# TypeError (teach it here): tests/test_shard.py reads every field back, so a new one is caught.
_READERS: dict[Any, Reader] = {
    str: _text, int: _whole, float: _number, bool: _flag, Path: _path,
    str | None: _or_none(_text), float | None: _or_none(_number), Path | None: _or_none(_path),
    tuple[str, ...]: _texts, tuple[Modality, ...]: _modalities,
    tuple[int, int] | None: _or_none(_shard), tuple[tuple[str, str, str, str], ...]: _aliases,
}  # fmt: skip


@cache
def _field_readers() -> dict[str, Reader]:
    hints = get_type_hints(ExperimentConfig)
    readers = {}
    for setting in fields(ExperimentConfig):
        hint = hints[setting.name]
        if hint not in _READERS:
            raise TypeError(f"no reader for the setting {setting.name}: {hint!r}")
        readers[setting.name] = _READERS[hint]
    return readers


@dataclass(frozen=True)
class MadeBy:
    """What made a run besides its settings: the isodyn version and the digest of its prompt
    templates (`prompts.prompt_digest`). None: a run written before they were recorded."""

    isodyn_version: str | None
    prompt_digest: str | None

    @classmethod
    def here(cls) -> MadeBy:
        import isodyn
        from isodyn.prompts import prompt_digest

        return cls(isodyn.__version__, prompt_digest())

    @classmethod
    def of(cls, data: Mapping[str, Any], where: str) -> MadeBy:
        """As a config.json records it; ConfigError naming `where` and the key when one is no text."""
        values = {}
        for name in MADE_BY:
            try:
                values[name] = _or_none(_text)(data.get(name))
            except Unfit as exc:
                raise ConfigError(f"{where}: {name} is {shown_value(data[name])}, not {exc}") from None
        return cls(**values)


MADE_BY = tuple(f.name for f in fields(MadeBy))


def run_config_bytes(config: ExperimentConfig, made_by: MadeBy) -> bytes:
    """config.json of a run: its settings, then what made it."""
    data = {**config.to_json(), **asdict(made_by)}
    return (json.dumps(data, indent=2, allow_nan=False) + "\n").encode()


def saved_config(data: Mapping[str, Any], where: str) -> ExperimentConfig:
    """The settings a config.json holds; a key it lacks keeps its default (as `exp run` would give
    an older run). ConfigError names `where` and the first key this isodyn does not know (a setting
    of another version, or an edit), or the first whose value does not fit."""
    known = {*_field_readers(), *MADE_BY}
    unknown = next((key for key in data if key not in known), None)
    if unknown is not None:
        raise ConfigError(f"{where}: {shown_value(unknown)} is no setting this isodyn knows")
    values = {}
    for name, read in _field_readers().items():
        if name in data:
            try:
                values[name] = read(data[name])
            except Unfit as exc:
                raise ConfigError(f"{where}: {name} is {shown_value(data[name])}, not {exc}") from None
    try:
        return ExperimentConfig(**values)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
