"""Secrets kept out of what a run writes: the values of variables named as holding a key (or treated as
one, `treat_as_secret`) and anything shaped like an API key are redacted from log lines and recorded
errors (`redact`).
"""

from __future__ import annotations

import json
import os
import re

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\b(?:sk|pk|rk|gsk|xai|AIza)[-_A-Za-z0-9]{12,}\b")
# Variables named as holding a key (`api_key_env`): secret whatever their name says.
_KEY_VARIABLES: set[str] = set()
# Shorter values are not redacted: "EMPTY" or "none" (placeholder keys) would eat words of replies.
_MIN_SECRET_CHARS = 8


def treat_as_secret(variable: str | None) -> None:
    """From now on, the value of `variable` is redacted from everything written, like any *_KEY."""
    if variable:
        _KEY_VARIABLES.add(variable)


def _secrets() -> list[str]:
    values = {
        value
        for name, value in os.environ.items()
        if (name in _KEY_VARIABLES or _SECRET_NAME.search(name)) and len(value) >= _MIN_SECRET_CHARS
    }
    # as written in JSON too (a quote or backslash is escaped there); longest first, so a secret
    # holding another is removed whole
    forms = values | {json.dumps(v, ensure_ascii=False)[1:-1] for v in values}
    return sorted(forms, key=len, reverse=True)


def redact_secrets(text: str) -> str:
    """Remove the value of every key variable (by name or by `treat_as_secret`), and nothing else."""
    for secret in _secrets():
        text = text.replace(secret, "[REDACTED]")
    return text


def redact(text: str) -> str:
    """Remove every secret-looking environment value, and anything shaped like an API key."""
    return _KEY_SHAPE.sub("[REDACTED]", redact_secrets(text))
