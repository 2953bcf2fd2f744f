"""One run of a DynaMath seed program, in a subprocess of its own, and the runs kept on disk.

Variant i of a seed (with `base_seed`) runs its class in a fresh Python subprocess (`_child`), in a
scratch folder laid out as DynaMath's programs expect (cwd `work/`, holding links to everything beside
the program file, and `../dataset/image/`), with `MPLBACKEND=Agg` and `PYTHONHASHSEED=0`, after
`random.seed(s)` and `numpy.random.seed(s)` where `s` comes from sha256 of (seed id, index, base_seed);
it is killed, with everything it started, after its timeout. The image must exist, be non-empty, open
with PIL and pass the image check. A run (`Run`: its report and picture) is kept on disk, keyed by
(sha256 of the program file, class name, index, base_seed); failures are not kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from isodyn.core import JsonObject
from isodyn.datasets.contained import ReleaseError, limits, read_bounded
from isodyn.datasets.reader import checked_image, label, one_line, read_image
from isodyn.datasets.release_item import as_png

TIMEOUT_SECONDS = 60.0  # a variant's program is killed after this long
META = ("subject", "level", "answer_type")  # what a program says of itself, besides query and answer
MAX_REASON = 300  # characters of a failure's reason in a message


class ProgramError(ReleaseError):
    """A seed program that failed to draw a variant; the message is one line naming file, class and
    variant. `detail` holds the child's traceback (or its stderr), for `check_environment`."""

    def __init__(
        self,
        message: str,
        detail: str = "",
        missing_module: str | None = None,
        timed_out: bool = False,
    ) -> None:
        super().__init__(message)
        self.reason = message
        self.detail = detail
        self.missing_module = missing_module
        self.timed_out = timed_out


def default_cache_dir() -> Path:
    """`$ISODYN_CACHE_DIR/programs`, else `~/.cache/isodyn/programs`."""
    root = os.environ.get("ISODYN_CACHE_DIR")
    return (Path(root) if root else Path.home() / ".cache" / "isodyn") / "programs"


def variant_seed(seed_id: str, index: int, base_seed: int) -> int:
    """What `random.seed` and `numpy.random.seed` get for a variant (numpy takes < 2**32)."""
    digest = hashlib.sha256(f"{seed_id}\x00{index}\x00{base_seed}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


@dataclass(frozen=True)
class Run:
    """What one run of a class reported (as kept in the cache)."""

    query: str
    answer: str
    answer_type: str
    subject: str
    level: str
    image: str  # path of the PNG relative to the cache folder
    image_sha256: str


def file_sha256(file: Path) -> str:
    stat = file.stat()
    return _sha256_of(file.resolve(), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _sha256_of(file: Path, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(read_program(file)).hexdigest()


def read_program(file: Path) -> bytes:
    """A program file's bytes, within the data-file bound (a regular file: a FIFO is not waited on)."""
    return read_bounded(file, limits().file_bytes, str(file), "file_bytes", "the program")


def read_cached(record_path: Path, image: Path) -> Run | None:
    """The kept run, if its record and picture are both there and agree."""
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        data = image.read_bytes()
        run = Run(**{name: str(record[name]) for name in Run.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return run if hashlib.sha256(data).hexdigest() == run.image_sha256 else None


def write_atomic(path: Path, data: bytes) -> None:
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------------ one run in a subprocess


def run_program(
    file: Path, class_name: str, seed_id: str, index: int, base_seed: int, timeout: float
) -> tuple[JsonObject, bytes]:
    """Run `class_name` of `file` once in a fresh subprocess; its report (query, answer, answer_type,
    subject, level) and its picture as PNG bytes. Raises ProgramError (one line) when it fails."""
    file = Path(file).resolve()
    where = f"{file.name} {class_name} variant {index}"
    scratch = Path(tempfile.mkdtemp(prefix="isodyn-program-"))
    try:
        work = scratch / "work"
        images = scratch / "dataset" / "image"
        work.mkdir()
        images.mkdir(parents=True)
        _link_siblings(file.parent, work)
        result = scratch / "result.json"
        command = [
            sys.executable,
            "-c",
            "from isodyn.datasets.dynamath_runs import _child; _child()",
            str(file),
            class_name,
            str(index),
            str(variant_seed(seed_id, index, base_seed)),
            str(result),
        ]
        returncode, stderr, timed_out = _run_killable(command, work, _child_env(), timeout)
        if timed_out:
            raise ProgramError(f"{where}: timed out after {timeout:g} s (killed)", stderr, timed_out=True)
        report = _read_report(result)
        if report is None:
            last = _last_line(stderr) or f"exited with code {returncode} and no report"
            raise ProgramError(f"{where}: {last}", stderr)
        if "error" in report:
            raise ProgramError(
                f"{where}: {one_line(report['error'], MAX_REASON)}",
                str(report.get("traceback", "")),
                missing_module=report.get("missing_module"),
            )
        return report, _check_image(images, index, where)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _link_siblings(folder: Path, work: Path) -> None:
    """Everything beside the program file (e.g. DynaMath's `temp_image/`) appears in the cwd."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        try:
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        except OSError:
            return  # no symlinks here: the programs that read beside themselves will say so


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    env["PYTHONHASHSEED"] = "0"  # set and dict order of strings is part of a draw
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in the user's program folder
    package_root = str(Path(__file__).resolve().parents[2])  # the folder holding `isodyn`
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    return env


def _run_killable(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, str, bool]:
    """Exit code, stderr and whether it was killed for taking longer than `timeout` seconds (with
    everything it started: it runs in a session of its own)."""
    posix = os.name == "posix"
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=posix,
    )
    try:
        _, err = process.communicate(timeout=timeout)
        return process.returncode, err.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        if posix:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
        _, err = process.communicate()
        return process.returncode, err.decode("utf-8", "replace"), True


def _read_report(result: Path) -> JsonObject | None:
    """The child's report; None when it wrote none (or garbage); ProgramError when it is over the
    file bound (a program can put anything in its query)."""
    if not result.is_file():
        return None
    try:
        data = read_bounded(result, limits().file_bytes, "the program's report", "file_bytes")
    except ReleaseError as exc:
        raise ProgramError(str(exc)) from None
    try:
        report = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return report if isinstance(report, dict) else None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return one_line(lines[-1], MAX_REASON) if lines else ""


def _check_image(images: Path, index: int, where: str) -> bytes:
    image = images / f"image{index}.png"
    if not image.is_file():
        others = sorted(p.name for p in images.iterdir())
        found = f" (it wrote {', '.join(others[:5])})" if others else ""
        raise ProgramError(f"{where}: drew no image ../dataset/image/{image.name}{found}")
    try:
        data = read_image(image, where, f"its image {image.name}")
    except ReleaseError as exc:
        raise ProgramError(str(exc)) from None
    if not data:
        raise ProgramError(f"{where}: wrote an empty image {image.name}")
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as opened:
            opened.verify()
    except Exception as exc:
        raise ProgramError(
            f"{where}: {image.name} is not an image PIL can open ({one_line(str(exc), 120)})"
        ) from None
    try:
        return as_png(checked_image(data, where))  # the pixel bound before anything is decoded
    except ReleaseError as exc:
        raise ProgramError(str(exc)) from None


def _child() -> None:
    """The subprocess: `_child FILE CLASS INDEX SEED RESULT` runs one class in the cwd and writes a
    JSON report (or {"error", "traceback", "missing_module"}) to RESULT."""
    file, class_name, index_text, seed_text, result = sys.argv[1:6]
    index, seed = int(index_text), int(seed_text)
    sys.dont_write_bytecode = True
    report: JsonObject
    try:
        report = _draw_in_child(Path(file), class_name, index, seed)
    except BaseException as exc:  # the program's own SystemExit is a failure too
        if isinstance(exc, KeyboardInterrupt):
            raise
        report = {
            "error": traceback.format_exception_only(type(exc), exc)[-1].strip(),
            "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
            "missing_module": _missing_module(exc),
        }
    Path(result).write_text(json.dumps(report, default=str), encoding="utf-8")


def _accept_older_matplotlib_arguments() -> None:
    """DynaMath's programs were written for matplotlib before 3.9: `boxplot(labels=...)` (Q440-Q442)
    is `tick_labels=` since, and 3.11 refuses the old name. In the program's own process only, the
    old name is passed on as the new one; the picture is the same."""
    import inspect

    from matplotlib.axes import Axes

    boxplot = Axes.boxplot
    if "labels" in inspect.signature(boxplot).parameters:
        return

    def accepting_labels(self: Any, *args: Any, labels: Any = None, **kwargs: Any) -> Any:
        if labels is not None:
            kwargs["tick_labels"] = labels
        return boxplot(self, *args, **kwargs)

    Axes.boxplot = accepting_labels  # type: ignore[method-assign]


def _draw_in_child(file: Path, class_name: str, index: int, seed: int) -> JsonObject:
    import importlib.util
    import random

    import numpy

    sys.path.insert(0, str(file.parent))
    _accept_older_matplotlib_arguments()
    random.seed(seed)
    numpy.random.seed(seed)
    spec = importlib.util.spec_from_file_location("dynamath_program", file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    cls = getattr(module, class_name)
    random.seed(seed)  # the draw does not depend on what importing the file consumed
    numpy.random.seed(seed)
    question = cls()
    question.draw(index)
    for name in ("query", "answer", *META):
        if not hasattr(question, name):
            raise AttributeError(f"{class_name} sets no attribute {name!r}")
    answer = question.answer
    if label(question.answer_type) == "float":
        with contextlib.suppress(TypeError):
            answer = round(answer, 4)  # as DynaMath's generate_json.py stores float answers
    return {
        "query": str(question.query),
        "answer": str(answer),
        **{name: str(getattr(question, name)) for name in META},
    }


def _missing_module(exc: BaseException) -> str | None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ModuleNotFoundError) and current.name:
            return current.name.split(".")[0]
        current = current.__cause__ or current.__context__
    return None
