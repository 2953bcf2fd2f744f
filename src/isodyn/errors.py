"""The root of isodyn's user-facing errors.

Every error whose message is written for the person running isodyn (a bad setting, a model that
cannot be used, a damaged cache, a run held by another process, an unreadable release) derives from
`IsodynError`, so a caller catches one type: `exp` prints the message as one line after `error:`
and exits with code 2. Each subclass keeps its builtin base as well (ValueError, RuntimeError,
OSError, ...), so `except ValueError` written before this root still catches what it caught.

Exceptions that steer control flow and never reach a user (a cache miss in replay-only mode, a cell
refused by the budget, a reply with no text that is retried) stay outside: printing one of them as
an `error:` line would hide a bug, so `exp` shows its traceback instead.

This module imports nothing from isodyn, so any module may import it without a cycle.
"""

from __future__ import annotations


class IsodynError(Exception):
    """A problem the user can act on, said in one line (no traceback); `exp` exits with code 2."""


class ConfigError(IsodynError, ValueError):
    """Bad user input; the message is a single line naming the problem and the valid choices."""
