"""`exp export inspect RUN [out=PATH]`: a run folder as a log another tool opens.

`inspect` is the one format: an inspect `.eval` log (or `.json`, by out='s suffix), one sample per
cell, written beside the run unless out= says where. The interop, and inspect with it, is imported
only here, when the command runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from isodyn.commands.report import split_words
from isodyn.commands.runs import read_run
from isodyn.errors import ConfigError
from isodyn.runs.config import parse_key_values
from isodyn.runs.folder import RunFolder

FORMATS = ("inspect",)
LOG_SUFFIXES = (".eval", ".json")


@dataclass(frozen=True)
class ExportRequest:
    format: str
    run: RunFolder
    out: Path  # the log file to write

    @classmethod
    def from_words(cls, words: Sequence[str]) -> ExportRequest:
        """The request `exp export FORMAT RUN_DIR [out=PATH]` makes (ConfigError, one line, if bad)."""
        paths, settings = split_words(words)
        chosen = parse_key_values(settings, {"out": Path})
        if not paths or str(paths[0]) not in FORMATS:
            raise ConfigError(
                f"name the format first: exp export inspect RUN_DIR; formats: {', '.join(FORMATS)}"
            )
        if len(paths) != 2:
            raise ConfigError("name one run directory: exp export inspect RUN_DIR [out=PATH]")
        run = RunFolder(paths[1])
        out = chosen.get("out") or run.path.parent / f"{run.name}.eval"
        if out.is_dir():
            out = out / f"{run.name}.eval"
        if out.suffix not in LOG_SUFFIXES:
            raise ConfigError(f"bad value for out: {str(out)!r} (an inspect log ends in .eval or .json)")
        return cls(str(paths[0]), run, out)


@dataclass(frozen=True)
class ExportResult:
    path: Path
    cells: int
    status: str  # the log's: success (the run is complete) or cancelled


def export_run(request: ExportRequest) -> ExportResult:
    """Write the run's inspect log; RunNotFound when the folder holds no run."""
    from isodyn.interop.inspect_log import export_log, run_images, write_log

    run = read_run(request.run)
    log = export_log(run, run_images(request.run))
    write_log(log, request.out)
    return ExportResult(request.out, len(run.results), log.status)
