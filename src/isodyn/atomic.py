"""Writing a file so that no reader sees half of it and no planted link is written through."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to a new file beside `path`, then swap it in with os.replace: a symbolic link at
    `path` is replaced itself, never written through, and a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: never open something already there (a planted link); mode 0o666 minus the umask,
    # as write_text gives (mkstemp's 0o600 would hide a shared run's report from its other users).
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    handle = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
