"""Nothing isodyn reads from disk can run code (issue 38): its stores hold no pickles, and a store
that does (a cache filled elsewhere, a replication package's, an older isodyn's) is refused as one
line, never unpickled. Each harm of the audit is planted for real: a pickle whose loading would
create a marker file, in a real store, read by the real command. `exp cache migrate` converts an
older isodyn's own cache once, dropping what is no plain reply. A forged JSON entry is a miss."""

from __future__ import annotations

import ast
import asyncio
import json
import pickle
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import diskcache
import pytest

import isodyn
import isodyn.experiments.cells as cells
from isodyn.cache import ResponseCache, decode_reply
from isodyn.cache.migrate import plain_unpickle
from isodyn.cache.renders import RenderCache, image_key, stored_image
from isodyn.cache.stores import (
    FORMAT,
    MARKER,
    CacheDamaged,
    CacheUnreadable,
    NotACache,
    OlderCache,
    PickledStore,
    mark,
    open_store,
)
from isodyn.core import Modality
from isodyn.experiments.memo import ReplayMemo
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.generators import all_seeds, get_seed
from isodyn.models.requests import image_digest
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text

STORES = ("responses", "replays", "renders")


class Planted:
    """A crafted value: unpickling it creates `marker` (any call would do; this one leaves a trace)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return Path.touch, (self.marker,)


def plant(store: Path, marker: Path, where: str) -> None:
    """Replace every value of the store at `store` by a crafted pickle (`where="value"`), or add an
    entry whose key is one (`where="key"`), as diskcache's default serializer writes them."""
    with diskcache.Cache(str(store)) as raw:
        if where == "key":
            raw.set(Planted(marker), b"x")
            return
        keys = list(raw.iterkeys())
        assert keys, f"{store} is empty: nothing to replace"
        for key in keys:
            raw.set(key, Planted(marker))


def varied(request: dict) -> ScriptedReply:
    """A reply that depends on the prompt, so every call has its own text."""
    letter = "ABC"[len(prompt_text(request)) % 3]
    return ScriptedReply(
        text=json.dumps({"solution": f"s{len(prompt_text(request))}", "short answer": letter})
    )


def run_words(stub: OpenAIStub, root: Path, cache: str = "cache", out: str = "runs") -> list[str]:
    return ["models=openai/m", f"api_base={stub.base_url}", "vision=yes", "seeds=isobench_parity",
            "modalities=image,latex", "variants=2", "strategies=zeroshot,permute", f"out={root / out}",
            f"cache_dir={root / cache}", "quiet=1"]  # fmt: skip


def one_line_naming(said: str, path: Path) -> bool:
    lines = [line for line in said.splitlines() if line.strip()]
    return len(lines) == 1 and str(path) in lines[0] and "Traceback" not in said


def results_lines(run_dir: Path) -> list[bytes]:
    """results.jsonl's lines, sorted, with what a replay rightly changes (every call is a cache hit)."""
    text = (run_dir / "results.jsonl").read_bytes().replace(b'"cache_hit":false', b'"cache_hit":true')
    return sorted(text.splitlines())


def newest_run(out: Path) -> Path:
    return max((p for p in out.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime_ns)


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    """One loopback server for a test: its address is part of every cache key."""
    with OpenAIStub(varied) as server:
        yield server


@pytest.fixture
def filled(tmp_path: Path, run_cli, stub: OpenAIStub) -> Path:
    """A cache filled by a real run (image and text cells, a permuting strategy), under tmp_path;
    `stub.requests` is emptied after it."""
    done = run_cli("run", *run_words(stub, tmp_path))
    assert done.code == 0, done.err
    for name in STORES:
        with diskcache.Cache(str(tmp_path / "cache" / name)) as store:
            assert len(store) > 0
    stub.requests.clear()
    return tmp_path / "cache"


def test_the_planted_pickle_does_run_code_when_unpickled(tmp_path: Path) -> None:
    """The control: what the tests below plant would create its marker if anything unpickled it."""
    marker = tmp_path / "ran"
    pickle.loads(pickle.dumps(Planted(marker)))
    assert marker.exists()


# --- harm 1: `exp run` on a cache filled elsewhere, its values replaced by crafted pickles ------------------


@pytest.mark.parametrize("where", ["value", "key"])
@pytest.mark.parametrize("store", STORES)
def test_a_run_refuses_a_cache_holding_crafted_pickles(
    filled: Path, stub: OpenAIStub, run_cli, store: str, where: str
) -> None:
    marker = filled.parent / "ran"
    plant(filled / store, marker, where)
    done = run_cli("run", *run_words(stub, filled.parent))
    assert len(stub.requests) == 0
    assert not marker.exists()
    assert done.code == 2 and one_line_naming(done.err, filled / store), done.err
    assert "pickled values" in done.err and "exp cache migrate" in done.err


def test_a_pickle_planted_after_opening_is_refused_when_read(filled: Path) -> None:
    """Opening refuses a store with pickles; one planted later (another process) is refused entry by
    entry, as it is read: the serializer never unpickles."""
    marker = filled.parent / "ran"
    replies = ResponseCache(filled / "responses")
    renders = RenderCache(filled / "renders")
    config = parse_overrides(["models=openai/m", "vision=yes"])
    memo = ReplayMemo(filled, config)
    for store in STORES:
        plant(filled / store, marker, "value")
    key = next(iter(diskcache.Cache(str(filled / "responses")).iterkeys()))
    with pytest.raises(PickledStore):
        replies.get(key)
    seed = get_seed("isobench_parity")
    with pytest.raises(PickledStore):
        renders.variant(seed, 0, 0)
    with pytest.raises(PickledStore):
        memo._store.get(next(iter(diskcache.Cache(str(filled / "replays")).iterkeys())))
    plant(filled / "responses", marker, "key")
    with pytest.raises(PickledStore):
        replies.prune(1.0)  # reads every key
    assert not marker.exists()
    for opened in (replies, renders, memo):
        opened.close()


# --- harm 2: a replication package's study file names the cache it ships ------------------------------------


def test_a_study_that_ships_a_crafted_cache_is_refused(
    filled: Path, stub: OpenAIStub, run_cli, monkeypatch
) -> None:
    package = filled.parent
    marker = package / "ran"
    plant(filled / "responses", marker, "value")
    (package / "study.toml").write_text(
        'models = ["openai/m"]\nseeds = ["isobench_parity"]\nmodalities = ["image", "latex"]\n'
        'strategies = ["zeroshot", "permute"]\nvariants = 2\nvision = "yes"\ncache_dir = "cache"\n'
    )
    monkeypatch.chdir(package)
    done = run_cli("run", "study.toml", f"api_base={stub.base_url}", "out=elsewhere", "quiet=1")
    assert len(stub.requests) == 0
    assert not marker.exists()
    assert done.code == 2 and one_line_naming(done.err, Path("cache") / "responses"), done.err


# --- harm 3: `exp judge` on a shared run folder whose cache sits inside it ----------------------------------


def test_judge_never_unpickles_a_cache_a_run_folder_brings(tmp_path: Path, run_cli) -> None:
    with OpenAIStub(varied) as stub:
        first = run_cli("run", *run_words(stub, tmp_path))
        assert first.code == 0, first.err
        run_dir = newest_run(tmp_path / "runs")
        shipped = run_dir / "cache"  # the folder's own cache, which its config.json names
        (shipped / "responses").mkdir(parents=True)
        with diskcache.Cache(str(shipped / "responses")) as store:
            store.set("k", b"{}")
        mark(shipped)
        marker = tmp_path / "ran"
        plant(shipped / "responses", marker, "value")
        config = json.loads((run_dir / "config.json").read_text())
        (run_dir / "config.json").write_text(json.dumps({**config, "cache_dir": str(shipped)}))
        judge = ["judge", str(run_dir), "judge=openai/j", f"api_base={stub.base_url}", "all=1"]
        run_cli(*judge)  # whichever cache it takes, it unpickles nothing
        named = run_cli(*judge, f"cache_dir={shipped}")
    assert not marker.exists()
    assert named.code == 2 and one_line_naming(named.err, shipped / "responses"), named.err


# --- harm 4: `exp cache prune` (and stats) on a store with crafted pickles ----------------------------------


@pytest.mark.parametrize("where", ["value", "key"])
@pytest.mark.parametrize("action", [["prune", "older_than=30d"], ["stats"]])
def test_cache_commands_refuse_a_store_with_crafted_pickles(
    filled: Path, run_cli, action: list[str], where: str
) -> None:
    marker = filled.parent / "ran"
    plant(filled / "responses", marker, where)
    entries = len(diskcache.Cache(str(filled / "responses")))
    done = run_cli("cache", *action, f"cache_dir={filled}")
    assert not marker.exists()
    assert done.code == 2 and one_line_naming(done.err, filled / "responses"), done.err
    assert len(diskcache.Cache(str(filled / "responses"))) == entries  # nothing removed


def test_clear_empties_a_store_with_crafted_pickles_without_reading_one(filled: Path, run_cli) -> None:
    marker = filled.parent / "ran"
    for store in ("responses", "replays"):
        plant(filled / store, marker, "value")
        plant(filled / store, marker, "key")
    done = run_cli("cache", "clear", f"cache_dir={filled}")
    assert done.code == 0, done.err
    assert not marker.exists()
    assert len(diskcache.Cache(str(filled / "responses"))) == 0


def test_exp_generate_refuses_a_drawing_store_with_crafted_pickles_from_its_workers(
    tmp_path: Path, run_cli
) -> None:
    marker = tmp_path / "ran"
    with diskcache.Cache(str(tmp_path / "cache" / "renders")) as raw:
        raw.set("k", Planted(marker))
    for workers in ("1", "2"):
        words = ["generate", "task=parity", "n=2", f"out={tmp_path / workers}", f"workers={workers}"]
        done = run_cli(*words, f"cache_dir={tmp_path / 'cache'}")
        assert done.code == 2 and one_line_naming(done.err, tmp_path / "cache" / "renders"), done.err
    assert not marker.exists()


def test_a_cache_error_crosses_processes_whole(tmp_path: Path) -> None:
    """A worker's error reaches `exp` as it was raised (the default rebuild called the class with
    its message alone, and the pool broke with a traceback)."""
    errors = [CacheDamaged(tmp_path, "why"), CacheUnreadable(tmp_path, "why"), NotACache(tmp_path, "why"),
              PickledStore(tmp_path), OlderCache(tmp_path, 1)]  # fmt: skip
    for error in errors:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error) and again.directory == tmp_path


# --- the viewer's image read --------------------------------------------------------------------------------


def test_the_viewer_never_unpickles_an_image(tmp_path: Path) -> None:
    seed = get_seed("isobench_parity")
    drawn = RenderCache(tmp_path / "renders").representation(seed, seed.variant(1), Modality.IMAGE)
    assert drawn.image_png is not None
    digest = image_digest(drawn.image_png)
    assert stored_image(tmp_path / "renders", digest) == drawn.image_png
    marker = tmp_path / "ran"
    with diskcache.Cache(str(tmp_path / "renders")) as raw:
        raw.set(image_key(digest), Planted(marker))
    assert stored_image(tmp_path / "renders", digest) is None
    assert not marker.exists()


# --- an older isodyn's cache: refused by a run, migrated once -----------------------------------------------


def make_older(cache: Path, marker: Path, marked: bool) -> int:
    """`cache` as an older isodyn left it: replies as pickled dicts, the memo and the drawings pickled
    (here crafted ones, which migrating must not read), plus a crafted reply and a pickled key.
    Returns the number of true replies."""
    with diskcache.Cache(str(cache / "responses")) as store:
        keys = list(store.iterkeys())
        for key in keys:
            reply, stored_at = decode_reply(store.get(key)) or pytest.fail("not a reply")
            store.set(key, {**asdict(reply), "stored_at": stored_at})  # as the older isodyn stored it
        store.set("0" * 64, Planted(marker))
        store.set(Planted(marker), {"text": "A"})
    for name in ("replays", "renders"):
        plant(cache / name, marker, "value")
    if marked:
        mark(cache, 1)
    else:
        (cache / MARKER).unlink()
    return len(keys)


@pytest.mark.parametrize("marked", [True, False], ids=["format-1", "before-the-marker"])
def test_an_older_cache_is_refused_then_migrated_once_dropping_crafted_entries(
    filled: Path, stub: OpenAIStub, run_cli, marked: bool
) -> None:
    root = filled.parent
    first = results_lines(newest_run(root / "runs"))
    marker = root / "ran"
    replies = make_older(filled, marker, marked)
    refused = run_cli("run", *run_words(stub, root))
    assert refused.code == 2 and one_line_naming(refused.err, filled), refused.err
    assert "exp cache migrate" in refused.err and "older isodyn" in refused.err
    migrated = run_cli("cache", "migrate", f"cache_dir={filled}")
    assert migrated.code == 0, migrated.err
    said = migrated.err
    assert f"{replies} replies converted" in said and "2 dropped" in said, said
    assert json.loads((filled / MARKER).read_text())["format"] == FORMAT
    again = run_cli("run", *run_words(stub, root))
    assert again.code == 0, again.err
    assert len(stub.requests) == 0  # every paid reply survived the migration
    assert not marker.exists()
    assert results_lines(newest_run(root / "runs")) == first
    assert run_cli("cache", "migrate", f"cache_dir={filled}").code == 0  # once more: nothing to do


def test_the_restricted_unpickler_reads_plain_data_and_refuses_every_global(tmp_path: Path) -> None:
    reply = {"text": "A", "prompt_tokens": 3, "completion_tokens": 4, "cost_usd": 0.5, "latency_s": 1.0}
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert plain_unpickle(pickle.dumps(reply, protocol=protocol)) == reply
        assert plain_unpickle(pickle.dumps(Planted(tmp_path / "ran"), protocol=protocol)) is None
    assert plain_unpickle(pickle.dumps(Path("x"))) is None  # any class at all
    assert plain_unpickle(b"not a pickle") is None
    assert not (tmp_path / "ran").exists()


# --- forged JSON: entries of another shape are misses, never a traceback ------------------------------------


@pytest.mark.parametrize("forged", [b'{"variant": 1}', b"[1, 2]", b"not json", b'{"graded": {"schema": 3}}'])
def test_forged_memo_and_drawing_entries_are_computed_again(
    filled: Path, stub: OpenAIStub, run_cli, forged: bytes
) -> None:
    root = filled.parent
    first = results_lines(newest_run(root / "runs"))
    for name in ("replays", "renders"):
        with open_store(filled / name) as store:
            for key in list(store.iterkeys()):
                store.set(key, forged)
    again = run_cli("run", *run_words(stub, root))
    assert again.code == 0 and "Traceback" not in again.err, again.err
    assert len(stub.requests) == 0  # the replies are in the reply store
    assert results_lines(newest_run(root / "runs")) == first


def test_a_forged_reply_is_a_miss_said_once(filled: Path, stub: OpenAIStub, run_cli) -> None:
    root = filled.parent
    with open_store(filled / "replays") as memo:
        memo.clear()  # so the cells read the reply store
    with open_store(filled / "responses") as store:
        keys = list(store.iterkeys())
        for key, forged in zip(
            keys, [b'{"text": 1}', b"{}", b'{"text": "A", "prompt_tokens": true}'], strict=False
        ):
            store.set(key, forged)
    again = run_cli("run", *run_words(stub, root))
    assert again.code == 0, again.err
    assert len(stub.requests) == min(3, len(keys))  # each forged reply asked again
    assert again.err.count("no reply isodyn wrote") == 1


# --- a forged store: settings and file names that are not diskcache's ---------------------------------------


def test_an_entry_naming_a_file_outside_the_store_is_neither_read_nor_deleted(
    tmp_path: Path, run_cli
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    root = tmp_path / "cache"
    with open_store(root / "responses") as store:
        store.set("k", b"x" * 100_000)  # a value file
        store._sql("UPDATE Cache SET filename = ?", (str(Path("..") / ".." / "victim.txt"),))
        with pytest.raises(CacheDamaged, match="not a value file"):
            store.get("k")
    mark(root)
    done = run_cli("cache", "clear", f"cache_dir={root}")
    assert done.code == 0, done.err
    assert victim.read_text() == "mine\n"


@pytest.mark.parametrize(
    ("setting", "value"), [("get", "x"), ("eviction_policy", "run-code"), ("disk_min_file_size", "big")]
)
def test_a_forged_setting_is_damage_not_a_traceback(tmp_path: Path, setting: str, value: str) -> None:
    with open_store(tmp_path / "s") as store:
        store.set("k", b"v")
    with sqlite3.connect(tmp_path / "s" / "cache.db") as db:
        db.execute("INSERT OR REPLACE INTO Settings VALUES (?, ?)", (setting, value))
    if setting == "disk_min_file_size":  # a known setting of the wrong type: kept at its default
        with open_store(tmp_path / "s") as store:
            assert store.get("k") == b"v"
        return
    with pytest.raises(CacheDamaged, match="damaged"):
        open_store(tmp_path / "s")


def test_the_stores_take_no_value_or_key_they_would_pickle(tmp_path: Path) -> None:
    with open_store(tmp_path / "s") as store:
        for value in ({"text": "A"}, ("a",), 2**70, None):
            with pytest.raises(TypeError):
                store.set("k", value)
        with pytest.raises(TypeError):
            store.set(("a", 1), b"v")
        assert len(store) == 0


# --- the codecs round-trip what the real code makes ---------------------------------------------------------


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def test_every_path_of_a_rerun_writes_the_first_runs_results_byte_for_byte(
    tmp_path: Path, monkeypatch
) -> None:
    """The memo's graded rows, its regrade path and the reply and drawing stores (no memo) each give
    the results.jsonl a live run wrote: images, several samples, a permuted (scored) variant."""
    with OpenAIStub(varied) as stub:
        words = [
            *run_words(stub, tmp_path),
            "strategies=zeroshot,permute,sc@3",
            "seeds=isobench_parity,isobench_connectivity",
        ]
        first = run(words)
        live = results_lines(first.folder.path)
        assert first.summary.calls_made == len(stub.requests) > 0
        assert any(b'"modality":"image"' in line for line in live)
        assert run(words).summary.calls_made == 0
        assert results_lines(newest_run(tmp_path / "runs")) == live  # graded rows from the memo
        monkeypatch.setattr(cells, "grading_stamp", lambda grader: f"{grader}|another version")
        run(words)
        assert results_lines(newest_run(tmp_path / "runs")) == live  # variants and calls from the memo
        with open_store(tmp_path / "cache" / "replays") as memo:
            memo.clear()
        drawn = []
        original = cells.RunMaterials.render
        monkeypatch.setattr(
            cells.RunMaterials, "render", lambda self, v, m: drawn.append(m) or original(self, v, m)
        )
        again = run(words)
        assert (
            drawn and again.summary.calls_made == 0 and len(stub.requests) == first.summary.calls_made
        )
        assert results_lines(newest_run(tmp_path / "runs")) == live  # replies and drawings from the stores


def test_every_seed_s_variant_and_drawing_round_trip_through_the_render_store(tmp_path: Path) -> None:
    store = RenderCache(tmp_path / "renders")
    for seed in all_seeds().values():
        fresh = seed.variant(2, 0)
        assert store.variant(seed, 2, 0) == fresh  # drawn and stored
        assert store.variant(seed, 2, 0) == fresh  # read back
        for modality in sorted(seed.modalities)[:2]:
            drawn = store.representation(seed, fresh, modality)
            assert store.representation(seed, fresh, modality) == drawn
    store.close()


def test_each_image_is_stored_once(tmp_path: Path) -> None:
    seed = get_seed("isobench_parity")
    drawn = RenderCache(tmp_path / "renders").representation(seed, seed.variant(1), Modality.IMAGE)
    assert drawn.image_png is not None
    with open_store(tmp_path / "renders") as store:
        held = [store.get(key) for key in store.iterkeys()]
    assert sum(drawn.image_png in value for value in held if isinstance(value, bytes)) == 1


# --- no loader that runs code anywhere on a read path -------------------------------------------------------

SOURCE = Path(isodyn.__file__).parent
FORBIDDEN_MODULES = {"pickle", "_pickle", "cloudpickle", "dill", "joblib", "shelve", "marshal", "jsonpickle"}
FORBIDDEN_CALLS = {"read_pickle", "torch.load", "np.load", "numpy.load", "yaml.load", "yaml.unsafe_load"}
# Each allowed use, with why it reads nothing anyone handed over.
ALLOWED = {
    ("modalities/images.py", "pickle"): "a blank figure pickled and unpickled in memory, never on disk",
    (
        "cache/migrate.py",
        "pickle",
    ): "an older cache's replies, read by an unpickler that refuses every global",
}


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def loaders(path: Path) -> list[str]:
    """What in the source at `path` could run code while reading: a pickle-like module imported, a
    loader that unpickles called, a diskcache opened other than through `stores`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in FORBIDDEN_MODULES:
            found.append((node.module or "").split(".")[0])
        elif isinstance(node, ast.Call):
            name = dotted(node.func)
            if name in FORBIDDEN_CALLS or name.endswith(".read_pickle"):
                found.append(name)
            if name in ("diskcache.Cache", "Cache", "diskcache.FanoutCache") and path.name != "stores.py":
                found.append(name)
            for keyword in node.keywords:
                if keyword.arg in ("allow_pickle", "allow_unsafe_lm_state") and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    found.append(f"{keyword.arg}=")
    return found


def test_no_source_file_reads_with_a_loader_that_runs_code() -> None:
    found = {
        (str(path.relative_to(SOURCE)), what)
        for path in SOURCE.rglob("*.py")
        for what in loaders(path)
    }  # fmt: skip
    assert found - set(ALLOWED) == set()
    assert set(ALLOWED) <= found  # each allowance is still needed


def test_the_scan_finds_what_it_should(tmp_path: Path) -> None:
    planted = tmp_path / "bad.py"
    planted.write_text(
        "import pickle\nimport numpy as np\nimport diskcache\nfrom cloudpickle import loads\n"
        "np.load('x', allow_pickle=True)\ndiskcache.Cache('d')\nimport pandas as pd\npd.read_pickle('x')\n"
    )
    assert sorted(loaders(planted)) == sorted(
        ["pickle", "cloudpickle", "np.load", "allow_pickle=", "diskcache.Cache", "pd.read_pickle"]
    )


# --- DSPy programs in the cache -----------------------------------------------------------------------------


def test_a_dspy_program_is_read_as_json_only_and_never_with_a_model_of_its_own(tmp_path: Path) -> None:
    pytest.importorskip("dspy")
    from isodyn.strategies.compose import StrategyError
    from isodyn.strategies.dspy_strategy import _new_program, _read_program

    saved = tmp_path / "program.json"
    _new_program().save(str(saved))
    program, meta = _read_program(saved)
    assert meta == {} and program is not None
    pickled = tmp_path / "program.pkl"
    pickled.write_bytes(pickle.dumps(Planted(tmp_path / "ran")))
    with pytest.raises(StrategyError, match="JSON only"):
        _read_program(pickled)
    state = json.loads(saved.read_text())
    name = next(k for k, v in state.items() if isinstance(v, dict) and "lm" in v)
    state[name]["lm"] = {"model": "openai/gpt-4o", "api_base": "http://127.0.0.1:9/v1"}
    saved.write_text(json.dumps(state))
    with pytest.raises(StrategyError, match="model of its own"):
        _read_program(saved)
    assert not (tmp_path / "ran").exists()
