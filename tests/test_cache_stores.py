"""One owner of the cache folder's layout: `cache.folder.Stores`. A run makes exactly what it names,
the cache commands cover each store it names, the modules below the cache (which may not import it)
name what they write there as it does, and no other module spells a store's name."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import diskcache
import pytest

import isodyn
from isodyn.cache import folder
from isodyn.cache.folder import Stores
from isodyn.testing import OpenAIStub

SRC = Path(isodyn.__file__).parent
BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
# The names only `Stores` spells: what a module above the cache needs, it asks `Stores` for.
OWNED = {folder.RESPONSES, folder.REPLAYS, folder.RENDERS, folder.VIEW_INDEX, folder.MARKER}


def run_words(stub: OpenAIStub, root: Path) -> list[str]:
    return ["models=openai/m", f"api_base={stub.base_url}", "vision=yes", "seeds=isobench_parity",
            "modalities=image,latex", "variants=1", "strategies=zeroshot", f"out={root / 'runs'}",
            f"cache_dir={root / 'cache'}", "quiet=1"]  # fmt: skip


@pytest.fixture
def filled(tmp_path: Path, run_cli) -> Iterator[Path]:
    with OpenAIStub() as stub:
        done = run_cli("run", *run_words(stub, tmp_path))
    assert done.code == 0, done.err
    yield tmp_path / "cache"


def test_a_run_makes_exactly_what_stores_names(filled: Path) -> None:
    stores = Stores(filled)
    named = {*stores.stores, stores.marker, stores.locks, stores.last_run, stores.models}
    assert set(filled.iterdir()) == named
    assert stores.stores == (stores.responses, stores.replays, stores.renders)
    for store in stores.stores:
        assert (store / "cache.db").is_file() and len(diskcache.Cache(str(store))) > 0, store


def test_cache_stats_clear_and_migrate_cover_each_store(filled: Path, run_cli) -> None:
    stores = Stores(filled)
    replies, cells = (len(diskcache.Cache(str(s))) for s in (stores.responses, stores.replays))
    drawings = len(diskcache.Cache(str(stores.renders)))
    last = json.loads(stores.last_run.read_text())
    said = run_cli("cache", "stats", f"cache_dir={filled}")
    assert said.code == 0, said.err
    line = said.out + said.err  # the line goes to stderr
    assert f"{replies} replies" in line and f"{cells} memoized cells" in line, line
    assert f"{last['calls_made']} calls" in line, line  # read from `stores.last_run`
    cleared = run_cli("cache", "clear", f"cache_dir={filled}")
    assert cleared.code == 0, cleared.err
    assert stores.cleared == (stores.responses, stores.replays)
    for store in stores.cleared:
        assert len(diskcache.Cache(str(store))) == 0, store
    assert len(diskcache.Cache(str(stores.renders))) == drawings  # drawings are no replies
    migrated = run_cli("cache", "migrate", f"cache_dir={filled}")
    assert migrated.code == 0, migrated.err
    assert f"{drawings} drawings emptied" in migrated.out + migrated.err, migrated.err
    assert len(diskcache.Cache(str(stores.renders))) == 0


def test_stores_names_paths_and_makes_nothing(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "c")
    assert stores.responses == tmp_path / "c" / folder.RESPONSES
    assert Stores(str(tmp_path)).renders == tmp_path / folder.RENDERS  # type: ignore[arg-type]
    assert [p.name for p in stores.stores] == list(folder.STORE_NAMES)
    assert not (tmp_path / "c").exists()
    with pytest.raises(AttributeError):
        stores.root = tmp_path  # type: ignore[misc]


def test_the_modules_below_the_cache_write_where_stores_says(tmp_path: Path, monkeypatch) -> None:
    """They may not import the cache (tests/test_layers.py), so they spell their names: here they
    are checked against `Stores`."""
    from isodyn.datasets import dynamath_runs
    from isodyn.models import remembered
    from isodyn.runs.config import ExperimentConfig
    from isodyn.runs.folder import RunFolder
    from isodyn.runs.rundir import remember_last_run, run_lock_path
    from isodyn.runs.summary import RunSummary

    stores = Stores(tmp_path)
    config = ExperimentConfig(cache_dir=tmp_path, out=tmp_path / "runs")
    assert run_lock_path(config).parent == stores.locks
    remember_last_run(tmp_path, RunSummary(calls_made=1, cache_hits=0), RunFolder(tmp_path / "runs" / "r"))
    assert stores.last_run.is_file()
    assert tmp_path / remembered.FILE_NAME == stores.models
    monkeypatch.setenv("ISODYN_CACHE_DIR", str(tmp_path))
    assert dynamath_runs.default_cache_dir() == stores.programs
    dspy_source = (SRC / "strategies" / "dspy_strategy.py").read_text()
    assert f'cache_dir / "{stores.dspy.name}"' in dspy_source
    below = {folder.LOCKS, folder.LAST_RUN, folder.MODELS, folder.DSPY, folder.PROGRAMS}
    assert below <= set(folder.OTHER_NAMES)  # a cache made before the marker may hold them


def spelled(path: Path, names: set[str]) -> list[str]:
    """Each string constant of the module at `path` that names one of `names` as a path: an operand
    of `/`, an argument of a call that builds a path (`Path`, `joinpath`, `os.path.join`), or a
    path written with a slash ending in one, as `path:line name`. (A setting spelled like a store,
    `renders=`, is no path.)"""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
        if "/" in text.strip("/") and text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] in names:
            found.append(f"{path}:{getattr(node, 'lineno', 0)} {text!r}")
    for constant in _path_parts(tree):
        if constant.value in names:
            found.append(f"{path}:{constant.lineno} {constant.value!r}")
    return found


_PATH_CALLS = frozenset({"Path", "PurePath", "joinpath", "join"})


def _path_parts(tree: ast.AST) -> list[ast.Constant]:
    """The string constants a path is built from: operands of `/` and arguments of path calls."""
    parts: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts += [node.left, node.right]
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _PATH_CALLS:
                parts += node.args
    return [p for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]


def sources() -> list[Path]:
    return sorted([*SRC.rglob("*.py"), *BENCHMARKS.rglob("*.py")])


def test_no_module_but_the_folder_spells_a_store_name() -> None:
    mine = SRC / "cache" / "folder.py"
    found = [hit for path in sources() if path != mine for hit in spelled(path, OWNED)]
    assert found == []


def test_the_spelling_check_finds_a_planted_name(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('from pathlib import Path\nrenders = Path("x") / "renders"\nother = "x/replays"\n')
    assert len(spelled(planted, OWNED)) == 2
    owner = ast.parse((SRC / "cache" / "folder.py").read_text())
    written = {n.value for n in ast.walk(owner) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert written >= OWNED  # the folder module spells every name
