"""Reading and writing beside a run that may be shared or prepared by someone else.

The rules of the report's `checked_targets` (isodyn.analysis.run_report), kept here because importing
the report module loads pandas and matplotlib (seconds), which the viewer must not wait for: a file
is opened without following a symbolic link at its last step and without blocking on a FIFO, and
must be a regular file; a name must stay inside the run folder. Files are written whole beside
their target and swapped in (`isodyn.atomic.write_atomic`), so a link there is replaced, never
written through.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.errors import IsodynError


class UnsafeFile(IsodynError, OSError):
    """A file beside the run that is not a regular file inside it (a link, a FIFO, a folder)."""


def inside(run_dir: Path, name: str) -> Path:
    """RUN/name, refused when it is a symbolic link or leads outside the run folder."""
    path = Path(run_dir) / name
    if path.is_symlink():
        raise UnsafeFile(f"{path} is a symbolic link; the viewer never reads or writes through one")
    if not path.resolve().is_relative_to(Path(run_dir).resolve()):
        raise UnsafeFile(f"{path} leads outside {run_dir}")
    return path


def open_regular(path: Path, flags: int, mode: int = 0o666) -> int:
    """A descriptor of `path` (no link followed at its last step, no wait on a FIFO), refused
    unless it is a regular file."""
    extra = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags | extra, mode)
    except OSError as exc:
        if path.is_symlink():
            raise UnsafeFile(
                f"{path} is a symbolic link; the viewer never reads or writes through one"
            ) from exc
        raise
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise UnsafeFile(f"{path} is not a regular file")
    return handle


def open_own(path: Path, flags: int, limit: int) -> int:
    """As `open_regular`, for writing: a file with other names (hard links, one of which may be
    outside the run) is first copied, up to `limit` bytes, to a file of its own swapped in, so the
    other names' file is never written."""
    handle = open_regular(path, flags)
    if os.fstat(handle).st_nlink > 1:
        os.close(handle)
        write_atomic(path, read_bounded(path, limit))
        handle = open_regular(path, flags)
    return handle


def read_bounded(path: Path, limit: int) -> bytes:
    """The whole of a regular file, refused (UnsafeFile) when it holds more than `limit` bytes."""
    handle = open_regular(path, os.O_RDONLY)
    with os.fdopen(handle, "rb") as source:
        data = source.read(limit + 1)
    if len(data) > limit:
        raise UnsafeFile(f"{path} holds more than {limit:,} bytes")
    return data
