"""Which version of a grader gave a verdict: a digest of the code that decides it.

A verdict kept from before (`runs.verdict_book`) is used only when the code that gave it is the
code that would give it now. Rather than a number someone must remember to raise, the version is the
digest of every module of `isodyn.scoring`, of `isodyn.runs.record` (it grades a cut-off reply), and of
the module a grader registered from outside the package is defined in: any change to any of them
gives another version, so a stale verdict is never read as a current one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
from functools import cache
from pathlib import Path

from isodyn.scoring.graders import GRADERS


def _code_files(grader: str) -> list[Path]:
    package = Path(__file__).parent
    files = sorted(package.rglob("*.py"))
    record = importlib.util.find_spec("isodyn.runs.record")  # found, not imported: it imports scoring
    if record is not None and record.origin:
        files.append(Path(record.origin))
    try:
        defined_in = inspect.getsourcefile(GRADERS.get_named(grader))
    except TypeError:  # a grader that is a callable object, not a function: its class's module
        defined_in = inspect.getsourcefile(type(GRADERS.get_named(grader)))
    if defined_in is not None and not Path(defined_in).is_relative_to(package):
        files.append(Path(defined_in))
    return files


@cache
def grader_version(grader: str) -> str:
    """A short digest naming the code that grades with `grader` in this process."""
    digest = hashlib.blake2b(digest_size=8)
    for path in _code_files(grader):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
