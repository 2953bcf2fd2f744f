"""Hostile input for the cache (issue "Hostile input"): a disk that cannot take a reply, folders
that are no cache, a lone surrogate in a reply, and the cache's other edges. Runs go through the
real command line against the loopback stub, which counts the calls paid for."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import diskcache
import pytest
import typer

from isodyn.cache.stores import MARKER, CacheUnreadable, mark
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import exp, user_env

ANSWER = json.dumps({"solution": "s", "short answer": "A"})

# Tests may run as root, where chmod stops no write: a failing disk is made where the store writes.


def full_disk(patch: pytest.MonkeyPatch, store: str = "responses") -> None:
    """diskcache's writes to `store` fail as a full disk's do (errno 28), in this process."""
    real = diskcache.Cache.set

    def full(self: diskcache.Cache, key: object, value: object, *args: object, **kwargs: object) -> object:
        if self.directory.endswith(store):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, key, value, *args, **kwargs)

    patch.setattr(diskcache.Cache, "set", full)


def bad_reads(patch: pytest.MonkeyPatch, store: str = "responses") -> None:
    """diskcache's reads of `store` fail as a disk with I/O errors does, in this process."""
    real = diskcache.Cache.get

    def broken(self: diskcache.Cache, key: object, *args: object, **kwargs: object) -> object:
        if self.directory.endswith(store):
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, key, *args, **kwargs)

    patch.setattr(diskcache.Cache, "get", broken)


def run_words(stub: OpenAIStub, tmp_path: Path, out: str = "runs", cache: str = "cache") -> list[str]:
    return ["run", "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity",
            "modalities=latex,code", "variants=2", f"out={tmp_path / out}", f"cache_dir={tmp_path / cache}",
            "quiet=1"]  # fmt: skip


def run_dirs(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_dir())


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` with a file's bytes: what a command must leave as it was."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in root.rglob("*")}


def cache_command(capsys, *words: str) -> tuple[int, str]:
    """`exp cache ...` in this process (fast): its exit code and what it said on stderr."""
    from isodyn.cli.browse import cache

    code = 0
    try:
        cache(words[0], list(words[1:]))
    except typer.Exit as exc:
        code = exc.exit_code
    return code, capsys.readouterr().err


def test_a_reply_the_cache_cannot_store_is_kept_and_never_paid_twice(tmp_path, run_cli, monkeypatch) -> None:
    with OpenAIStub(lambda request: ScriptedReply(text=ANSWER)) as stub:
        words = run_words(stub, tmp_path)
        with monkeypatch.context() as patch:
            full_disk(patch)
            full = run_cli(*words)
        assert full.code == 2, full.err
        assert full.err.count("cannot store replies") == 1  # said once, not per cell
        assert "4 replies could not be stored" in full.err and "Traceback" not in full.err
        (run_dir,) = run_dirs(tmp_path / "runs")
        assert [r["extracted"] for r in rows(run_dir)] == ["A"] * 4  # the replies are in the rows
        assert summary(run_dir)["complete"] is False and summary(run_dir)["not_cached"] == 4
        assert len(stub.requests) == 4
        again = run_cli(*words)  # the disk has room again: the same command resumes, pays nothing
        assert again.code == 0, again.err
        assert len(stub.requests) == 4 and summary(run_dir)["complete"] is True
        assert len(rows(run_dir)) == 4
        fresh = run_cli(*run_words(stub, tmp_path, out="other"))  # the cache now holds those replies
        assert fresh.code == 0 and len(stub.requests) == 4


def test_cells_that_fail_here_leave_the_run_incomplete_and_run_again(tmp_path, run_cli, monkeypatch):
    with OpenAIStub(lambda request: ScriptedReply(text=ANSWER)) as stub:
        words = run_words(stub, tmp_path)
        with monkeypatch.context() as patch:
            bad_reads(patch)
            broken = run_cli(*words)
        assert broken.code == 2 and "4 cells failed on this machine" in broken.err, broken.err
        (run_dir,) = run_dirs(tmp_path / "runs")
        assert {r["reason"] for r in rows(run_dir)} == {"error:local"}
        assert summary(run_dir)["complete"] is False and len(stub.requests) == 0
        again = run_cli(*words)
        assert again.code == 0, again.err
    assert [r["reason"] for r in rows(run_dir)] == ["ok"] * 4  # one row per cell, the failures gone
    assert summary(run_dir)["complete"] is True and len(stub.requests) == 4


def test_a_lone_surrogate_in_a_reply_neither_crashes_the_run_nor_its_rerun(tmp_path, run_cli) -> None:
    text = '{"solution": "x\ud800y", "short answer": "A"}'  # the stub's JSON carries it as \\ud800
    with OpenAIStub(lambda request: ScriptedReply(text=text)) as stub:
        words = run_words(stub, tmp_path)
        first = run_cli(*words)
        assert first.code == 0 and "Traceback" not in first.err, first.err
        # a store written before the fix holds the surrogate itself (an older isodyn's, pickled, as
        # `exp cache migrate` converts it): a run that reads it survives
        store = diskcache.Cache(str(tmp_path / "cache" / "responses"))
        for key in list(store.iterkeys()):
            store.set(key, {**json.loads(store.get(key)), "text": text})
        store.close()
        mark(tmp_path / "cache", 1)
        assert run_cli("cache", "migrate", f"cache_dir={tmp_path / 'cache'}").code == 0
        for name in ("replays",):  # without the memo, the run reads the reply store
            for path in (tmp_path / "cache" / name).glob("cache.db*"):
                path.unlink()
        rerun = run_cli(*words)  # replays every reply: no call, no crash
        assert rerun.code == 0 and "Traceback" not in rerun.err, rerun.err
        assert len(stub.requests) == 4
    for run_dir in run_dirs(tmp_path / "runs"):
        for row in rows(run_dir):
            assert row["extracted"] == "A" and "x\ufffdy" in row["response"]


def test_folders_that_are_no_cache_are_refused_and_left_as_they_were(tmp_path: Path, capsys) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0\n")
    user = tmp_path / "home"  # a user's file named like a store, and a folder named like one
    (user / "replays").mkdir(parents=True)
    (user / "responses").write_text("my responses\n")
    (user / "replays" / "thesis.txt").write_text("chapter 1\n")
    for folder in (etc, user):
        before = tree(folder)
        for words in (["stats"], ["clear"], ["repair"], ["prune", "older_than=30d"]):
            code, said = cache_command(capsys, *words, f"cache_dir={folder}")
            assert code == 2 and "is not an isodyn cache" in said and said.strip().count("\n") == 0, said
        assert tree(folder) == before  # nothing removed, nothing made
    missing = tmp_path / "nowhere"
    code, said = cache_command(capsys, "stats", f"cache_dir={missing}")
    assert code == 0 and "no cache there yet" in said and not missing.exists()


def test_a_forged_marker_lets_clear_remove_only_isodyns_files(tmp_path: Path, capsys) -> None:
    root = tmp_path / "forged"
    (root / "replays").mkdir(parents=True)
    (root / MARKER).write_text(json.dumps({"made_by": "isodyn", "format": 1}))
    (root / "notes.txt").write_text("mine\n")
    (root / "replays" / "thesis.txt").write_text("chapter 1\n")
    (root / "responses").mkdir()
    (root / "responses" / "cache.db").write_bytes(b"not a database" * 50)  # a damaged store
    (root / "responses" / "keep.me").write_text("mine too\n")
    code, said = cache_command(capsys, "clear", f"cache_dir={root}")
    assert code == 0 and "damaged store(s) deleted: responses" in said, said
    assert not (root / "responses" / "cache.db").exists()
    assert (root / "responses" / "keep.me").read_text() == "mine too\n"
    assert (root / "replays" / "thesis.txt").read_text() == "chapter 1\n"
    assert (root / "notes.txt").read_text() == "mine\n" and not (root / "replays" / "cache.db").exists()


def test_permission_denied_is_no_damage_and_nothing_is_set_aside(tmp_path: Path, capsys, monkeypatch) -> None:
    root = tmp_path / "theirs"
    for name in ("responses", "replays"):
        with diskcache.Cache(str(root / name)) as store:
            store.set("k", 1)
    (root / MARKER).write_text(json.dumps({"made_by": "isodyn", "format": 1}))
    before = tree(root)

    def denied(self, directory, *args, **kwargs):  # what another user's store gives
        raise PermissionError(13, "Permission denied", directory)

    monkeypatch.setattr(diskcache.Cache, "__init__", denied)
    for action in ("repair", "clear", "stats"):
        code, said = cache_command(capsys, action, f"cache_dir={root}")
        assert code == 2 and "cannot read the cache: permission denied" in said, said
        assert "damaged" not in said
    assert tree(root) == before
    from isodyn.cache.stores import open_store

    with pytest.raises(CacheUnreadable):
        open_store(root / "responses")


@pytest.mark.parametrize("age", ["-30d", "nand", "infd", "0d", "-0s"])
def test_prune_takes_only_a_positive_finite_age(tmp_path: Path, capsys, age: str) -> None:
    root = tmp_path / "cache"
    with diskcache.Cache(str(root / "responses")) as store:
        store.set("k", {"text": "A", "stored_at": 0})
    before = tree(root)
    code, said = cache_command(capsys, "prune", f"older_than={age}", f"cache_dir={root}")
    assert code == 2 and "bad value for older_than" in said and said.strip().count("\n") == 0, said
    assert tree(root) == before


def test_a_cache_made_before_the_marker_is_adopted_and_one_with_strangers_refused(
    tmp_path: Path, capsys
) -> None:
    root = tmp_path / "old"
    with diskcache.Cache(str(root / "responses")) as store:
        store.set("k", b'{"text": "A", "stored_at": 0}')  # not pickled: stats reads no pickled store
    (root / "locks").mkdir()
    (root / "view-index").mkdir()  # the viewer's indexes live in the cache folder too
    code, said = cache_command(capsys, "stats", f"cache_dir={root}")
    assert code == 0 and "1 replies" in said and (root / MARKER).is_file(), said
    (root / MARKER).unlink()
    (root / "holiday.jpg").write_bytes(b"\xff\xd8")
    code, said = cache_command(capsys, "clear", f"cache_dir={root}")
    assert code == 2 and "holiday.jpg" in said and len(diskcache.Cache(str(root / "responses"))) == 1


def test_cache_dir_a_file_a_link_and_a_truncated_store(tmp_path: Path, capsys, run_cli) -> None:
    afile = tmp_path / "afile"
    afile.write_text("data\n")
    with OpenAIStub(lambda request: ScriptedReply(text=ANSWER)) as stub:
        refused = run_cli(*run_words(stub, tmp_path, cache="afile"))
        assert refused.code == 2 and "is a file" in refused.err and afile.read_text() == "data\n"
        code, said = cache_command(capsys, "clear", f"cache_dir={afile}")
        assert code == 2 and "not an isodyn cache" in said and afile.read_text() == "data\n"
        assert run_cli(*run_words(stub, tmp_path)).code == 0 and len(stub.requests) == 4
        (tmp_path / "link").symlink_to(tmp_path / "cache")  # a cache folder reached through a link
        code, said = cache_command(capsys, "clear", f"cache_dir={tmp_path / 'link'}")
        assert code == 0 and "removed 4 replies" in said and (tmp_path / "link").is_symlink()
        (tmp_path / "mine").mkdir()  # a store that is a link to a user's folder is no store of ours
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "mine" / "responses").symlink_to(tmp_path / "elsewhere")
        linked_store = run_cli(*run_words(stub, tmp_path, out="mine-runs", cache="mine"))
        assert linked_store.code == 2 and "not an isodyn cache" in linked_store.err
        assert not any((tmp_path / "elsewhere").iterdir())
        for path in (tmp_path / "cache" / "responses").glob("cache.db*"):
            path.write_bytes(b"")  # a store cut to 0 bytes (a crash, a full disk)
        truncated = run_cli(*run_words(stub, tmp_path, out="after-truncation"))
        assert truncated.code == 0 and "Traceback" not in truncated.err, truncated.err
        assert run_cli("cache", "repair", f"cache_dir={tmp_path / 'cache'}").code == 0


def test_two_runs_share_one_new_cache_at_once(tmp_path: Path) -> None:
    gate = threading.Event()

    def held(request: dict) -> ScriptedReply:
        gate.wait(timeout=60)  # both processes have calls in flight before any is answered
        return ScriptedReply(text=ANSWER)

    with OpenAIStub(held) as stub:
        processes = [
            subprocess.Popen([sys.executable, "-m", "isodyn", *run_words(stub, tmp_path, out=f"out{i}")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=user_env())
            for i in range(2)
        ]  # fmt: skip
        threading.Timer(4.0, gate.set).start()
        outcomes = [p.communicate(timeout=300) for p in processes]
        assert [p.returncode for p in processes] == [0, 0], outcomes
        paid = len(stub.requests)
        assert 4 <= paid <= 8  # each cell asked by one process, or by both while both were asking
        again = exp(*run_words(stub, tmp_path, out="out2"))
        assert again.returncode == 0 and len(stub.requests) == paid
    marker = json.loads((tmp_path / "cache" / MARKER).read_text())
    assert marker["made_by"] == "isodyn" and not list((tmp_path / "cache").glob(".marker-*"))
    assert os.path.isfile(tmp_path / "cache" / "responses" / "cache.db")


def test_sqlite_sidecars_that_vanish_while_listed_are_not_foreign(tmp_path: Path, monkeypatch) -> None:
    """Another process closing the store deletes cache.db-shm/-wal between the listing and the look
    at each name (CI saw it once): such a name is SQLite's, gone, and no reason to refuse the cache.
    A stranger that is there stays refused."""
    from isodyn.cache import stores

    store = tmp_path / "responses"
    with diskcache.Cache(str(store)) as made:
        made.set("k", "v")
    listed = sorted(store.iterdir())
    real_iterdir = Path.iterdir

    def listing_with_a_vanished_sidecar(self: Path):
        if self == store:
            return iter([*listed, store / "cache.db-shm", store / "cache.db-wal"])
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", listing_with_a_vanished_sidecar)
    assert not (store / "cache.db-shm").exists()
    assert stores.store_conflict(tmp_path) is None
    (store / "notes.txt").write_text("mine")
    listed.append(store / "notes.txt")
    assert stores.store_conflict(tmp_path) == "responses/ holds 'notes.txt', which isodyn did not make"
