"""What a command says on the way, besides its result: warnings and notes, each one line.

A notice is handed to the caller's hook the moment it arises (a warning about a run must be read
before the run's minutes, not after them) and kept, so the result lists every notice too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

NoticeKind = Literal["warning", "note", "dataset"]


@dataclass(frozen=True)
class Notice:
    """`kind` says what it is: a problem set aside (warning), a remark on the input (note), or a
    line on what a dataset holds (dataset). `text` is shown as written."""

    kind: NoticeKind
    text: str


Notify = Callable[[Notice], None]


class Notices:
    """The notices of one command: each goes to the hook at once and is kept for the result."""

    def __init__(self, hook: Notify | None = None) -> None:
        self._hook = hook
        self._said: list[Notice] = []

    def say(self, kind: NoticeKind, text: str) -> None:
        notice = Notice(kind, text)
        self._said.append(notice)
        if self._hook is not None:
            self._hook(notice)

    @property
    def said(self) -> tuple[Notice, ...]:
        return tuple(self._said)
