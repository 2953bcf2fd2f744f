"""One root for the errors a user reads: every exception class isodyn defines derives from
IsodynError, except the few that steer control flow (named here, each for a reason), so `exp` and any
caller catch one type; and the layers below the commands never import them."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import isodyn
from isodyn.errors import IsodynError

# Exceptions that never reach a user as an error line: caught where they are raised, or a bug.
INTERNAL = {
    "EmptyReply": "retried, then recorded as a cell's reason",
    "ReplicasCoolingDown": "retried like a 503, then recorded as a cell's reason (error:unavailable)",
    "BudgetExhausted": "the runner leaves the refused cell undone",
    "CacheMiss": "the replay pass runs the cell live instead",
    "UnsupportedModality": "isodyn asks only for listed modalities: a bug when it reaches `exp`",
    "UndeclaredService": "a strategy read a service it did not declare: a bug",
    "_Aborted": "a BaseException that stops DSPy's optimizer at once",
    "ReplyTooLarge": "raised in the HTTP client; the runner records error:reply_too_large",
    "_Unbounded": "the grader's size check catches it and gives a verdict of its own",
}
SOURCE = Path(isodyn.__file__).parent


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in isodyn's modules, by qualified name. A module that needs an
    optional package this machine lacks is skipped (its classes are checked where it imports)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(isodyn.__path__, "isodyn."):
        if info.name.endswith("__main__"):  # importing it runs `exp`
            continue
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "isodyn":
                raise
            continue
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[f"{info.name}.{value.__qualname__}"] = value
    return found


CLASSES = exception_classes()


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_exception_class_derives_from_the_root_or_says_why_not(name: str) -> None:
    cls = CLASSES[name]
    if cls.__name__ in INTERNAL:
        assert not issubclass(cls, IsodynError), f"{name} is user-facing now: take it off INTERNAL"
    else:
        assert issubclass(cls, IsodynError), (
            f"{name} does not derive from isodyn.errors.IsodynError; add it as a base (keeping the "
            "builtin one), or name it in INTERNAL with the reason it never reaches a user"
        )


def test_the_internal_list_names_only_classes_that_exist() -> None:
    assert set(INTERNAL) <= {cls.__name__ for cls in CLASSES.values()}


@pytest.mark.parametrize(
    ("name", "builtin"),
    [
        ("ConfigError", ValueError), ("ModelError", ValueError), ("StrategyError", ValueError),
        ("ReleaseError", ValueError), ("ExternalTableError", ValueError), ("UnsafeOutputError", ValueError),
        ("NewerRun", ValueError), ("CacheDamaged", RuntimeError), ("RunInUse", RuntimeError),
        ("ModelUnavailable", RuntimeError), ("LocalModelUnavailable", RuntimeError),
        ("EngineCrashed", OSError), ("RunNotFound", FileNotFoundError),
    ],
)  # fmt: skip
def test_user_facing_errors_keep_their_builtin_base(name: str, builtin: type[Exception]) -> None:
    (cls,) = [c for c in CLASSES.values() if c.__name__ == name]
    assert issubclass(cls, IsodynError) and issubclass(cls, builtin)


def _imported(path: Path) -> set[str]:
    """Every module a source file imports, at its top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_error_root_imports_nothing_of_isodyn() -> None:
    assert not {n for n in _imported(SOURCE / "errors.py") if n.startswith("isodyn")}


# The layer above the commands: `exp` and how it shows things.
def test_nothing_below_the_commands_imports_them_or_the_cli() -> None:
    below = [p for p in SOURCE.rglob("*.py") if not {"cli", "commands"} & set(p.relative_to(SOURCE).parts)]
    offenders = {
        str(p.relative_to(SOURCE)): sorted(
            n for n in _imported(p) if n.startswith(("isodyn.commands", "isodyn.cli"))
        )
        for p in below
    }
    assert not {path: names for path, names in offenders.items() if names and path != "__main__.py"}
