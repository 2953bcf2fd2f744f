"""`exp view RUN`: a local, read-only viewer of a run in the browser (`isodyn.view`).

`exp view RUN [port=8765] [open=yes|no]` serves the viewer on 127.0.0.1 until Ctrl-C (a browser is
opened by default only where there is a display);
`exp view RUN export=FILE` writes the run's marks as labelled replies in the grading corpus's
layout (tests/corpus) and exits. Nothing here prints or blocks: `start_viewer` returns a server
the caller runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from isodyn.errors import ConfigError, IsodynError
from isodyn.runs.config import parse_key_values
from isodyn.runs.folder import RunFolder
from isodyn.runs.setting_values import bounded_int
from isodyn.view.export import Exported, export_marks
from isodyn.view.server import HOST, Viewer, ViewerServer

DEFAULT_PORT = 8765


class NotARun(IsodynError, FileNotFoundError):
    """A folder that holds no run. (Not `commands.runs.RunNotFound`: importing that module loads
    pandas, a second the viewer's start does not need.)"""


def _yes_no(value: str) -> bool:
    if value.lower() in ("yes", "1", "true", "on"):
        return True
    if value.lower() in ("no", "0", "false", "off"):
        return False
    raise ConfigError("must be yes or no")


def _host(value: str) -> str:
    if value not in (HOST, "localhost"):
        raise ConfigError(f"the viewer serves on {HOST} only (it is for this machine)")
    return HOST


def has_display() -> bool:
    """A browser can open a window here. Over SSH or in a container, `webbrowser` would start a text
    browser in the very terminal that serves the viewer: there the URL is printed instead."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


PARSERS = {"port": bounded_int(0, 65_535), "open": _yes_no, "export": Path, "host": _host}


@dataclass(frozen=True)
class ViewRequest:
    folder: RunFolder
    port: int = DEFAULT_PORT  # 0: any free port
    open_browser: bool = False
    export: Path | None = None  # write the marks as corpus lines here and stop

    @classmethod
    def from_words(cls, words: Sequence[str]) -> ViewRequest:
        """The request `exp view RUN key=value ...` makes (ConfigError on a bad word)."""
        runs = [w for w in words if "=" not in w]
        chosen = parse_key_values([w for w in words if "=" in w], PARSERS)
        if len(runs) != 1:
            raise ConfigError("name one run directory, e.g. exp view runs/20261121-192758-699ac9")
        export = chosen.get("export")
        opens = chosen.get("open", has_display())
        return cls(RunFolder(Path(runs[0]).expanduser()), chosen.get("port", DEFAULT_PORT), opens,
                   export.expanduser() if export else None)  # fmt: skip


def checked_run(folder: RunFolder) -> RunFolder:
    if not folder.path.is_dir():
        raise NotARun(f"{folder.path} is not a run directory")
    if not folder.results_file.is_file():
        raise NotARun(f"no results.jsonl in {folder.path}")
    return folder


def start_viewer(request: ViewRequest) -> ViewerServer:
    """The index read (or built) and the server bound; the caller runs `serve_forever`."""
    return ViewerServer(Viewer(checked_run(request.folder)), request.port)


def export_run(request: ViewRequest) -> Exported:
    if request.export is None:
        raise ConfigError("export=FILE names the file to write")
    return export_marks(checked_run(request.folder), request.export)
