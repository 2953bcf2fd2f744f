"""An inspect log named where a command takes a run folder (`exp report LOG.eval`, `exp compare LOG.eval
...`): its cells are written as a run folder beside it, `<log>-report/`, which the command then reads
as any run. The interop (and inspect with it) is imported only when a log is named.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import write_results

# How an inspect log in JSON begins (`EvalLog`'s first fields, in the order inspect writes them); a
# results table in JSON does not.
_JSON_LOG_START = re.compile(rb'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_log(path: Path) -> bool:
    """A file inspect wrote: a `.eval` archive, or a `.json` log (told from a table by its start)."""
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    with path.open("rb") as handle:
        return _JSON_LOG_START.match(handle.read(256)) is not None


def log_folder(path: Path) -> RunFolder:
    """The run folder of an inspect log's cells (written now, beside the log): results.jsonl, and the
    settings and summary of the run it was exported from, which the report's facts name."""
    from isodyn.interop.inspect_read import InspectLogError, read_log

    if path.suffix == ".eval" and not zipfile.is_zipfile(path):
        raise InspectLogError(f"{path}: not an inspect log (a .eval log is a zip archive)")
    read = read_log(path)
    folder = RunFolder(path.with_name(f"{path.stem}-report"))
    folder.path.mkdir(exist_ok=True)
    write_results(folder.results_file, read.results)
    for target, data in ((folder.config_file, read.config), (folder.summary_file, read.summary)):
        if data is not None:
            write_atomic(target, (json.dumps(data, indent=2) + "\n").encode())
        else:
            target.unlink(missing_ok=True)  # a stale file of an earlier log of that name
    return folder


def run_folder(path: Path) -> RunFolder:
    """The run folder a command's path names: the folder itself, or an inspect log's cells."""
    return log_folder(path) if is_inspect_log(path) else RunFolder(path)
