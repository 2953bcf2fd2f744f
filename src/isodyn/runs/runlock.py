"""One process per run: an advisory file lock (flock) on the run's identity.

Two `exp run` commands with the same settings would otherwise resume the same directory at once and
write every cell twice. The lock is released by the kernel when the process ends, however it ends
(`kill -9` included), so a stale lock never blocks a later run.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from isodyn.errors import IsodynError


class RunInUse(IsodynError, RuntimeError):
    """Another live process holds the run."""


class RunLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def acquire(self) -> RunLock:
        """Take the lock or raise RunInUse naming the process that holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "unknown"
            handle.close()
            raise RunInUse(
                f"the same run is already going in another process (pid {owner}); wait for it to "
                "finish, or change a setting (or out=) to start a different run"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return self

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
