"""Each setting's value, read from the word typed and checked: whole numbers and finite floats within
bounds, comma lists, booleans, timeouts, shards, modalities, environment variable names, a grader's
name, and a server address (`check_server_address`: no credentials in the URL, `SecretValueError`).
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

from isodyn.core import Modality
from isodyn.errors import ConfigError


class SecretValueError(ConfigError):
    """A value refused because it holds a secret: the error shows `masked`, never the value."""

    def __init__(self, message: str, masked: str) -> None:
        super().__init__(message)
        self.masked = masked


def parse_split(value: str) -> tuple[str, ...]:
    """A comma list's items, in order, each once: `modalities=latex,latex` plans each cell once."""
    items = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    if not items:
        raise ConfigError("empty list")
    return items


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ConfigError("must be a positive whole number")
    return number


def bounded_int(low: int, high: int) -> Any:
    """A whole number from `low` to `high`: every grid dimension and engine setting has a bound."""

    def parse(value: str) -> int:
        number = int(value)
        if not low <= number <= high:
            raise ConfigError(f"must be a whole number from {low} to {high:,}")
        return number

    return parse


def finite_float(value: str) -> float:
    """float(), less nan and inf (`1e309` is inf): a float setting is always an ordinary number."""
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError("must be a finite number")
    return number


def positive_float(value: str) -> float:
    number = finite_float(value)
    if not number > 0:
        raise ConfigError("must be a number above zero")
    return number


def parse_per_minute(value: str) -> float:
    number = positive_int(value)
    if number > 10**12:  # float() of a 400-digit number raises OverflowError, not a ValueError
        raise ConfigError("must be at most 1,000,000,000,000")
    return float(number)


MAX_TIMEOUT_S = 86_400.0  # a day: beyond it a call is not waited for, it is lost


def parse_timeout(value: str) -> float:
    number = positive_float(value)
    if number > MAX_TIMEOUT_S:
        raise ConfigError(f"must be at most {MAX_TIMEOUT_S:,.0f} seconds")
    return number


def parse_env_name(value: str) -> str:
    """The name of an environment variable (its value, a secret, is read only when calling)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ConfigError("must be the name of an environment variable, e.g. MY_SERVER_KEY")
    if value not in os.environ:
        raise ConfigError(f"the environment variable {value} is not set")
    _check_key(value, os.environ[value])
    return value


def _check_key(name: str, key: str) -> None:
    """A key goes into an HTTP header: a line break there would add headers of its own (the value is
    never quoted in the message)."""
    if not key.strip():
        raise ConfigError(f"the environment variable {name} is empty")
    if any(ch.isspace() or not ch.isprintable() for ch in key):
        raise ConfigError(f"the value of {name} holds a space, line break or control character")


def parse_api_base(value: str) -> str:
    """Server addresses as written, less trailing slashes (`.../v1/` and `.../v1` are one server);
    several (replicas of one model server) are comma-separated, each checked, duplicates dropped."""
    addresses = []
    for part in value.split(","):
        stripped = part.strip().rstrip("/")
        if not stripped:
            raise ConfigError("must name a server, e.g. http://127.0.0.1:8000/v1 (several: URL1,URL2)")
        check_server_address(stripped)
        addresses.append(stripped)
    return ",".join(dict.fromkeys(addresses))


def parse_shard(value: str) -> tuple[int, int]:
    """`i/N`: shard i (1..N) of N."""
    index, sep, count = value.partition("/")
    if not sep or not index.strip().isdigit() or not count.strip().isdigit():
        raise ConfigError("must be i/N with whole numbers, e.g. shard=1/4 (shard 1 of 4)")
    i, n = int(index), int(count)
    if not 1 <= n <= 100_000:
        raise ConfigError("N must be a whole number from 1 to 100,000")
    if not 1 <= i <= n:
        raise ConfigError(f"i must be from 1 to {n} (shards are numbered 1..N)")
    return i, n


def parse_batch_fallback(value: str) -> str:
    if value not in ("live", "undone"):
        raise ConfigError("must be live (failed batch items are called live) or undone (left for later)")
    return value


def check_server_address(address: str) -> None:
    """Refuse at once what would fail (or leak) only at the first call: another scheme, no host, a
    port that is no port, a user name or password (it would be saved with the settings)."""
    from urllib.parse import urlsplit

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"is not a server address ({why}); write it as http://HOST:PORT/v1")

    if any(ch.isspace() for ch in address):
        raise refuse("it holds a space or line break")
    try:
        parts = urlsplit(address)
        port = parts.port  # ValueError when not a number from 0 to 65535
    except ValueError as exc:
        raise refuse(str(exc)) from None
    if parts.username is not None or parts.password is not None:
        masked = parts._replace(netloc=f"***@{parts.netloc.rpartition('@')[2]}").geturl()
        raise SecretValueError(
            "a user name or password in the address is refused, and not saved; put the key in an "
            "environment variable and name it with api_key_env",
            masked,
        )
    if parts.scheme not in ("http", "https"):
        raise refuse(f"the scheme must be http or https, not {parts.scheme or 'none'!r}")
    if not parts.hostname:
        raise refuse("it names no host")
    if port == 0:
        raise refuse("port 0 is no server's port")
    if parts.query or parts.fragment:
        raise refuse("it has a ?query or #fragment")


def parse_boolean(value: str) -> bool:
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError("must be 1/0, true/false or yes/no")


def parse_modalities(value: str) -> tuple[Modality, ...]:
    valid = {m.value: m for m in Modality}
    chosen = []
    for item in parse_split(value):
        if item not in valid:
            raise ConfigError(f"unknown modality {item!r}; valid: {', '.join(valid)}")
        chosen.append(valid[item])
    return tuple(chosen)


def parse_vision(value: str) -> str:
    if value in ("auto", "yes", "no"):
        return value
    return ",".join(parse_split(value))  # models that read images


def parse_temperature(value: str) -> float:
    number = finite_float(value)
    if not 0.0 <= number <= 2.0:
        raise ConfigError("must be between 0 and 2")
    return number


def grader_name(value: str) -> str:
    from isodyn.scoring import GRADERS

    if value not in GRADERS:
        raise ConfigError(f"unknown grader; valid: {', '.join(GRADERS)}")
    return value


def non_negative_float(value: str) -> float:
    number = finite_float(value)
    if number < 0:
        raise ConfigError("must be zero or more")
    return number
