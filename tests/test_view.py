"""`exp view`: the index, a cell's view, marks, the export to the corpus, the review table and the
HTTP server's answers and refusals, on a synthetic run whose every verdict the test knows
(tests/view_runs.py)."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import view_runs as vr
from isodyn.runs.folder import RunFolder
from isodyn.runs.marks import Mark, append_mark, read_marks
from isodyn.runs.record import Cell
from isodyn.runs.safe import UnsafeFile
from isodyn.view import index as index_module
from isodyn.view import scan as scan_module
from isodyn.view.cells import utf16_span
from isodyn.view.export import export_marks
from isodyn.view.index import CellIndex, Filters, index_path, load_index
from isodyn.view.server import Viewer, ViewerServer

CELLS = len(vr.all_keys())


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return vr.write_run(tmp_path)


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- the index ------------------------------------------------------------------------------------
def test_filters_count_what_the_run_holds(run_dir: Path) -> None:
    index, note = load_index(RunFolder(run_dir))
    assert note is None and index.size == CELLS == 72
    expected_wrong = sum(vr.verdict_of(k) == "wrong" for k in vr.all_keys())
    assert index.query(Filters(verdict="wrong"))[0] == expected_wrong == 14
    expected = sum(vr.verdict_of(k) == "wrong" for k in vr.all_keys() if k[0] == "m-b" and k[2] == "image")
    assert index.query(Filters(model="m-b", modality="image", verdict="wrong"))[0] == expected == 9
    assert index.query(Filters(verdict="not graded"))[0] == 1
    assert index.query(Filters(reason="extraction_failed"))[0] == 1  # JUDGED: the judge decided it
    assert index.query(Filters(ambiguity="ambiguous: several values"))[0] == 1
    assert index.query(Filters(disagree=True))[0] == 2  # DISAGREE, and JUDGED (rules vs judge)
    assert index.query(Filters(seed_id="s10", topic="algebra"))[0] == 24
    assert index.query(Filters(model="nobody"))[0] == 0


def test_sorting_by_seed_is_natural_and_by_failures_puts_the_worst_first(run_dir: Path) -> None:
    index, _ = load_index(RunFolder(run_dir))
    _, ids = index.query(Filters(), "seed", 0, CELLS)
    seeds = [index.summary(int(i)).cell.seed_id for i in ids]
    assert seeds == ["s1"] * 24 + ["s2"] * 24 + ["s10"] * 24
    # m-b cot on s2: every cot cell of s2 wrong (6: 2 modalities x 3 variants) except the image of
    # variant 1 counts once; per arm (model, strategy, modality) and seed that is 3 of 3 variants
    _, ids = index.query(Filters(), "failed", 0, 3)
    first = [index.summary(int(i)) for i in ids]
    assert {(s.cell.model, s.cell.strategy, s.cell.seed_id) for s in first} == {("m-b", "cot", "s2")}
    assert all(s.failed == 3 and s.graded == 3 for s in first)
    # pages: the second page of 10 starts where the first ended
    _, page0 = index.query(Filters(), "seed", 0, 10)
    _, page1 = index.query(Filters(), "seed", 1, 10)
    assert not set(page0) & set(page1) and len(page1) == 10


def test_the_index_is_cached_and_rebuilt_when_results_change(run_dir: Path, monkeypatch) -> None:
    load_index(RunFolder(run_dir))
    cached = index_path(RunFolder(run_dir))
    assert cached.is_file() and cached.parent.name == "view-index"
    assert list(run_dir.glob(".*")) == []  # nothing derived is written into the run folder

    def no_build(results: Path) -> CellIndex:
        raise AssertionError("the cached index should have been used")

    with monkeypatch.context() as patched:  # undoing only this: conftest isolates the cache folder
        patched.setattr(CellIndex, "build", staticmethod(no_build))
        assert load_index(RunFolder(run_dir))[0].size == CELLS
    with (run_dir / "results.jsonl").open("ab") as out:  # a run still appending: and a damaged line
        out.write(b'{"model": "m-a", "cut short\n')
    index, _ = load_index(RunFolder(run_dir))
    assert index.size == CELLS and index.seen.damaged == 1


def test_a_damaged_or_linked_cache_is_never_trusted(run_dir: Path, tmp_path: Path) -> None:
    cache = index_path(RunFolder(run_dir))
    cache.parent.mkdir(parents=True)
    cache.write_text('{"version": 2, "results_sha256": "0"}')
    assert load_index(RunFolder(run_dir))[0].size == CELLS
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("keep me")
    cache.unlink()
    cache.symlink_to(outside)
    index, _ = load_index(RunFolder(run_dir))
    assert index.size == CELLS
    assert outside.read_text() == "keep me"  # the link was not written through


def test_a_planted_index_stamped_with_the_results_keys_is_not_served(run_dir: Path, tmp_path: Path) -> None:
    """Someone who made the run folder plants an index saying every cell is right, stamped with
    what the real results.jsonl gives: its size, its modification time (both survive tar) and its
    SHA-256. The viewer shows what the results say."""
    forged = tmp_path / "forged"
    forged.mkdir()
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    lines = [json.dumps({**row, "correct": row["correct"] is not None or None}) for row in rows]
    (forged / "results.jsonl").write_text("\n".join(lines) + "\n")
    Viewer(RunFolder(forged))  # builds and caches the forged run's index
    planted = json.loads(index_path(RunFolder(forged)).read_bytes())
    results = (run_dir / "results.jsonl").stat()
    planted |= {"size": results.st_size, "mtime_ns": results.st_mtime_ns,
                "results_sha256": digest_of(run_dir / "results.jsonl")}  # fmt: skip
    (run_dir / ".view-index.json").write_text(json.dumps(planted))
    viewer = Viewer(RunFolder(run_dir))
    wrong = sum(vr.verdict_of(k) == "wrong" for k in vr.all_keys())
    assert viewer.cells({"verdict": "wrong"})["total"] == wrong == 14
    assert viewer.cells({"verdict": "right"})["total"] == CELLS - wrong - 1  # one is not graded
    assert digest_of(run_dir / "results.jsonl") == planted["results_sha256"]  # the results untouched


def test_an_unwritable_folder_keeps_the_index_in_memory(run_dir: Path, monkeypatch) -> None:
    def refuse(path: Path, data: bytes) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(index_module, "write_atomic", refuse)
    index, note = load_index(RunFolder(run_dir))
    assert index.size == CELLS and note is not None and "memory" in note
    assert not index_path(RunFolder(run_dir)).exists()


def test_damaged_and_duplicate_lines_are_skipped_and_counted(run_dir: Path) -> None:
    lines = (run_dir / "results.jsonl").read_bytes().splitlines(keepends=True)
    rewritten = [lines[0], b"not json\n", *lines[1:], lines[5], b'{"model": 3}\n']
    (run_dir / "results.jsonl").write_bytes(b"".join(rewritten))
    index, _ = load_index(RunFolder(run_dir))
    assert (index.size, index.seen.damaged, index.seen.duplicates) == (CELLS, 2, 1)


def test_two_halves_scanned_apart_give_the_index_of_one_pass(run_dir: Path, monkeypatch) -> None:
    """A large run's halves are scanned in two processes: with duplicates of the first half's cells
    and damaged lines in the second, the joined index is the single pass's, cell for cell."""
    lines = (run_dir / "results.jsonl").read_bytes().splitlines(keepends=True)
    rewritten = [*lines, b"not json\n", lines[3], lines[-1], b'{"model": 3}\n', lines[-2]]
    (run_dir / "results.jsonl").write_bytes(b"".join(rewritten))
    monkeypatch.setattr(scan_module, "PARALLEL_BYTES", 10**12)
    single = CellIndex.build(run_dir / "results.jsonl")
    monkeypatch.setattr(scan_module, "PARALLEL_BYTES", 0)
    halves = CellIndex.build(run_dir / "results.jsonl")
    assert (single.size, single.seen) == (halves.size, halves.seen) == (CELLS, single.seen)
    assert single.seen.damaged == 2 and single.seen.duplicates == 3
    for cell in range(CELLS):
        a, b = single.summary(cell), halves.summary(cell)
        assert a == b and single.position(cell) == halves.position(cell)


def test_the_fast_path_agrees_with_the_full_reader(run_dir: Path) -> None:
    """Rows as isodyn writes them are read without their replies; the same rows written in another
    key order (another writer) take the full path: the index must be the same."""
    fast = CellIndex.build(run_dir / "results.jsonl")
    lines = (run_dir / "results.jsonl").read_bytes().splitlines()
    reordered = b"".join(json.dumps(dict(reversed(json.loads(x).items()))).encode() + b"\n" for x in lines)
    (run_dir / "results.jsonl").write_bytes(reordered)
    slow = CellIndex.build(run_dir / "results.jsonl")
    for cell in range(CELLS):
        a, b = fast.summary(cell), slow.summary(cell)
        assert (a.cell, a.verdict, a.reason, a.method, a.ambiguity, a.disagree, a.judged) == (
            b.cell, b.verdict, b.reason, b.method, b.ambiguity, b.disagree, b.judged,
        )  # fmt: skip


# --- a cell ---------------------------------------------------------------------------------------
def test_a_cell_shows_its_reply_span_truth_and_other_representations(run_dir: Path) -> None:
    viewer = Viewer(RunFolder(run_dir))
    index = viewer.holder.current()
    hostile = viewer.cell(index.find((*vr.HOSTILE, 0)))
    assert hostile.reply == vr.HOSTILE_REPLY and hostile.truth == "5"
    start, end = hostile.span
    assert hostile.reply[start:end] == "5" and start > hostile.reply.index("Final answer")
    image = [r for r in hostile.representations if r.modality == "image"]
    assert len(image) == 1 and image[0].images == [vr.digest("s1", 0)]
    assert "solve $x - 0 = 5$" in hostile.question
    arms = {(a.model, a.strategy, a.modality) for a in hostile.arms}
    assert len(arms) == 7 and ("m-a", "zs", "latex") not in arms
    judged = viewer.cell(index.find((*vr.JUDGED, 0)))
    assert judged.judge is not None and ("answer", "27") in judged.judge.detail
    assert {s.grader: s.correct for s in judged.scores} == {"isodyn": False, "judge": True}
    assert judged.images == [vr.digest("s10", 2)]


def test_spans_are_sent_in_javascript_units(run_dir: Path) -> None:
    viewer = Viewer(RunFolder(run_dir))
    cell = viewer.cell(viewer.holder.current().find((*vr.EMOJI, 0)))
    units = cell.reply.encode("utf-16-le")
    start, end = cell.span
    assert units[2 * start : 2 * end].decode("utf-16-le") == "6"
    assert start == len(cell.reply) - 1 + 3  # three characters above U+FFFF before it
    assert utf16_span("ab", (1, 5)) is None and utf16_span("ab", None) is None


# --- marks ----------------------------------------------------------------------------------------
def test_marks_append_and_the_last_one_wins(run_dir: Path) -> None:
    before = digest_of(run_dir / "results.jsonl")
    key = (*vr.AMBIGUOUS, 0)
    append_mark(run_dir, Mark(Cell.of(key), verdict_right=True, note="first"))
    append_mark(run_dir, Mark(Cell.of(key), verdict_right=False, note="second", reading="none"))
    with (run_dir / "marks.jsonl").open("ab") as out:
        out.write(b'{"model": "m-a", "cut')  # a write cut short: no newline
    append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True))
    read = read_marks(run_dir)
    assert read.damaged == 1 and len(read.marks) == 3
    latest = read.latest()
    key = Cell.of(key).key  # a plain cell: the default render, no perturbation
    assert latest[key].note == "second" and latest[key].reading == "none" and not latest[key].verdict_right
    assert digest_of(run_dir / "results.jsonl") == before


def test_marks_are_never_written_through_a_link_or_into_a_fifo(run_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("untouched\n")
    (run_dir / "marks.jsonl").symlink_to(target)
    with pytest.raises(UnsafeFile):
        append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True))
    with pytest.raises(UnsafeFile):
        read_marks(run_dir)
    assert target.read_text() == "untouched\n"
    (run_dir / "marks.jsonl").unlink()
    os.mkfifo(run_dir / "marks.jsonl")
    with pytest.raises(UnsafeFile):  # refused at once, not waiting for a reader
        append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True))


def test_export_writes_marks_as_corpus_lines(run_dir: Path, tmp_path: Path) -> None:
    append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True, note="fine"))
    append_mark(run_dir, Mark(Cell.of((*vr.AMBIGUOUS, 0)), verdict_right=False, reading="none"))
    append_mark(run_dir, Mark(Cell.of((*vr.DISAGREE, 0)), verdict_right=False))  # no reading: left out
    append_mark(run_dir, Mark(Cell.of(("ghost", "zs", "latex", "s1", 0, 0)), verdict_right=True))
    done = export_marks(RunFolder(run_dir), tmp_path / "labelled.jsonl")
    rows = [json.loads(x) for x in (tmp_path / "labelled.jsonl").read_text().splitlines()]
    assert done.written == 2 == len(rows) and sum(done.skipped.values()) == 2
    sys.path.insert(0, str(Path(__file__).parent))
    from corpus import CorpusReply

    replies = {r["verdict"]: CorpusReply(**{**r, "choices": tuple(r["choices"])}) for r in rows}
    assert replies["correct"].reply == vr.HOSTILE_REPLY and replies["correct"].truth == "5"
    assert replies["correct"].answer == "5" and replies["correct"].note.startswith("fine")
    assert replies["none"].answer is None and replies["none"].pattern == "ambiguous: several values"
    assert all(r.answer_type == "int" and r.source == "review" for r in replies.values())


def test_review_table_counts_marks_and_both_accuracies(run_dir: Path) -> None:
    from isodyn.analysis.review import review_table
    from isodyn.runs.results import read_results, results_frame

    frame = results_frame(read_results(run_dir).results)
    marks = [
        Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True),  # m-a s1: right, kept
        Mark(Cell.of((*vr.NONE_FOUND, 0)), verdict_right=False, reading="correct"),  # m-a s2: wrong -> right
        Mark(Cell.of((*vr.AMBIGUOUS, 0)), verdict_right=True),  # m-b s2: wrong, kept
        Mark(Cell.of((*vr.DISAGREE, 0)), verdict_right=False, reading="wrong"),  # m-b s10: right -> wrong
        Mark(Cell.of((*vr.SKIPPED, 0)), verdict_right=True),  # not graded: not counted
    ]
    table = review_table(frame, marks).set_index("model")
    assert table.loc["m-a", "marked"] == 2 and table.loc["m-a", "agree"] == 1
    assert table.loc["m-a", "A_avg as graded"] == 50.0 and table.loc["m-a", "A_avg as marked"] == 100.0
    assert table.loc["m-b", "A_avg as graded"] == 50.0 and table.loc["m-b", "A_avg as marked"] == 0.0
    assert review_table(frame, []).empty


def test_the_report_has_a_reviewed_verdicts_section(run_dir: Path) -> None:
    from isodyn.analysis.run_report import build_report
    from isodyn.runs.results import read_results

    results = read_results(run_dir).results
    plain = build_report(results, None, None, "run")
    assert "Reviewed verdicts" not in [title for title, _, _ in plain.tables]
    mark = Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True)
    marked = build_report(results, None, None, "run", marks=[mark])
    (table,) = [t for title, _, t in marked.tables if title == "Reviewed verdicts"]
    assert table["marked"].tolist() == [1]


# --- the server -----------------------------------------------------------------------------------
class FakeImages:
    def image(self, digest: str) -> bytes | None:
        return b"\x89PNG fake" if digest == vr.digest("s1", 0) else None


@pytest.fixture
def server(run_dir: Path) -> Iterator[ViewerServer]:
    running = ViewerServer(Viewer(RunFolder(run_dir), images=FakeImages), 0)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


def ask(server: ViewerServer, path: str, method: str = "GET", body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict(response.headers), data


def test_the_api_filters_pages_and_sends_strict_headers(server: ViewerServer) -> None:
    status, headers, data = ask(server, "/api/cells?verdict=wrong&model=m-b&size=5&page=1")
    found = json.loads(data)
    expected = sum(vr.verdict_of(k) == "wrong" for k in vr.all_keys() if k[0] == "m-b")
    assert status == 200 and found["total"] == expected and len(found["rows"]) == min(5, expected - 5)
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    status, headers, data = ask(server, "/")
    assert status == 200 and b'<script src="/static/app.js"' in data and b"<script>" not in data
    assert ask(server, "/api/cells?verdict=maybe")[0] == 400


def test_the_server_refuses_other_hosts_paths_and_origins(server: ViewerServer, run_dir: Path) -> None:
    assert ask(server, "/api/meta", headers={"Host": "evil.example:80"})[0] == 421
    for path in ("/static/../../cli.py", "/static/%2e%2e/cli.py", "/static/", "/etc/passwd"):
        assert ask(server, path)[0] == 404, path
    cell = Viewer(RunFolder(run_dir)).holder.current().find((*vr.AMBIGUOUS, 0))
    mark = json.dumps({"cell": cell, "verdict_right": True}).encode()
    assert ask(server, "/api/mark", "POST", mark, {"Content-Type": "text/plain"})[0] == 415
    evil = {"Content-Type": "application/json", "Origin": "http://evil.example"}
    assert ask(server, "/api/mark", "POST", mark, evil)[0] == 403
    assert not (run_dir / "marks.jsonl").exists()
    with pytest.raises(Exception, match=r"127\.0\.0\.1 only"):
        ViewerServer(Viewer(RunFolder(run_dir)), 0, host="0.0.0.0")


def test_a_mark_posted_is_saved_beside_the_run(server: ViewerServer, run_dir: Path) -> None:
    cell = Viewer(RunFolder(run_dir)).holder.current().find((*vr.AMBIGUOUS, 0))
    own = {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{server.server_address[1]}"}
    body = json.dumps({"cell": cell, "verdict_right": False, "reading": "wrong", "note": "n"}).encode()
    assert ask(server, "/api/mark", "POST", body, own)[0] == 400  # the grader also read "wrong"
    body = json.dumps({"cell": cell, "verdict_right": False, "reading": "none", "note": "n"}).encode()
    status, _, data = ask(server, "/api/mark", "POST", body, own)
    assert status == 200 and json.loads(data)["seed_id"] == "s2"
    (saved,) = read_marks(run_dir).marks
    assert saved.cell == Cell.of((*vr.AMBIGUOUS, 0)) and saved.reading == "none"
    found = json.loads(ask(server, "/api/cells?marked=yes")[2])
    assert found["total"] == 1 and found["rows"][0]["marked"] == "wrong"
    queue = json.loads(ask(server, "/api/review")[2])
    assert queue["total"] == 3  # four doubtful verdicts, one of them marked


def test_a_hard_linked_marks_file_is_not_written_through(
    server: ViewerServer, run_dir: Path, tmp_path
) -> None:
    outside = tmp_path / "someone-elses.jsonl"
    earlier = Mark(Cell.of((*vr.DISAGREE, 0)), verdict_right=True)
    outside.write_bytes(earlier.line())
    os.link(outside, run_dir / "marks.jsonl")  # a hard link: another name for the outside file
    cell = Viewer(RunFolder(run_dir)).holder.current().find((*vr.AMBIGUOUS, 0))
    own = {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{server.server_address[1]}"}
    body = json.dumps({"cell": cell, "verdict_right": False, "reading": "none"}).encode()
    assert ask(server, "/api/mark", "POST", body, own)[0] == 200
    assert outside.read_bytes() == earlier.line()  # unchanged
    assert os.stat(run_dir / "marks.jsonl").st_nlink == 1  # marks.jsonl has a file of its own now
    assert [m.cell for m in read_marks(run_dir).marks] == [earlier.cell, Cell.of((*vr.AMBIGUOUS, 0))]


@pytest.fixture
def impatient(run_dir: Path) -> Iterator[ViewerServer]:
    """A server that closes a connection idle for 0.3 s and holds at most 4 at once."""
    viewer = Viewer(RunFolder(run_dir), images=FakeImages)
    running = ViewerServer(viewer, 0, idle_timeout_s=0.3, max_connections=4)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()


def _closed_by_server(connection: socket.socket, within_s: float) -> bool:
    """Whether the server closes `connection` (an empty read) within `within_s` seconds."""
    connection.settimeout(within_s)
    try:
        return connection.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_an_idle_connection_is_closed_after_the_timeout(impatient: ViewerServer) -> None:
    address = ("127.0.0.1", impatient.server_address[1])
    with socket.create_connection(address) as idle:
        started = time.monotonic()
        assert _closed_by_server(idle, 5)
        assert 0.2 < time.monotonic() - started < 3
    # a kept-alive connection that asked once is closed too, once idle
    kept = http.client.HTTPConnection(*address, timeout=5)
    kept.request("GET", "/api/meta", headers={"Host": f"127.0.0.1:{address[1]}"})
    response = kept.getresponse()
    assert response.status == 200 and response.read() and not response.will_close
    assert kept.sock is not None and _closed_by_server(kept.sock, 5)
    kept.close()


def test_connections_past_the_bound_are_closed_at_once(impatient: ViewerServer) -> None:
    address = ("127.0.0.1", impatient.server_address[1])
    threads = threading.active_count()
    held = [socket.create_connection(address) for _ in range(4)]
    time.sleep(0.1)  # the four are taken, each by a thread
    try:
        with socket.create_connection(address) as extra:
            assert _closed_by_server(extra, 0.2)  # well before the idle timeout
        assert threading.active_count() <= threads + 4
    finally:
        for connection in held:
            connection.close()
    time.sleep(0.5)  # the slots are free again: a request is answered
    assert ask(impatient, "/api/meta")[0] == 200


def test_images_are_served_by_digest(server: ViewerServer) -> None:
    status, headers, data = ask(server, f"/image/{vr.digest('s1', 0)}")
    assert status == 200 and headers["Content-Type"] == "image/png" and data == b"\x89PNG fake"
    status, headers, data = ask(server, f"/image/{vr.digest('s2', 0)}")
    assert status == 404 and b"not in the run's render cache" in data
    assert ask(server, "/image/sha256:../../etc/passwd")[0] == 404


def test_a_hostile_reply_is_sent_as_data(server: ViewerServer, run_dir: Path) -> None:
    cell = Viewer(RunFolder(run_dir)).holder.current().find((*vr.HOSTILE, 0))
    status, headers, data = ask(server, f"/api/cell/{cell}")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(data)["reply"] == vr.HOSTILE_REPLY
    assert ask(server, "/api/cell/99999")[0] == 404


# --- the command ----------------------------------------------------------------------------------
def test_a_missing_run_is_one_line_and_exit_2(run_cli, tmp_path: Path) -> None:
    done = run_cli("view", str(tmp_path / "nothing"))
    assert done.code == 2 and len(done.lines) == 1 and "not a run directory" in done.err
    done = run_cli("view", str(tmp_path))
    assert done.code == 2 and "no results.jsonl" in done.err
    done = run_cli("view", str(tmp_path), "host=0.0.0.0")
    assert done.code == 2 and "127.0.0.1 only" in done.err


def test_export_from_the_command_line(run_cli, run_dir: Path, tmp_path: Path) -> None:
    append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), verdict_right=True))
    done = run_cli("view", str(run_dir), f"export={tmp_path / 'out.jsonl'}")
    assert done.code == 0 and "1 labelled replies" in done.out
    assert json.loads((tmp_path / "out.jsonl").read_text())["verdict"] == "correct"


def test_ctrl_c_stops_the_viewer_cleanly(run_dir: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "isodyn", "view", str(run_dir), "port=0", "open=no"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        assert "http://127.0.0.1:" in line
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 0 and "Traceback" not in err


def test_a_real_runs_image_is_served_from_its_render_cache(run_cli, tmp_path: Path) -> None:
    """A run through the loopback stub with the image modality: the picture the model was sent is
    served by the digest its transcript records, from the cache the run drew it into."""
    from isodyn.testing import OpenAIStub, ScriptedReply

    sent: list[bytes] = []

    def script(request: dict) -> ScriptedReply:
        for message in request["messages"]:
            for part in message["content"] if isinstance(message["content"], list) else ():
                if part.get("type") == "image_url":
                    import base64

                    sent.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
        return ScriptedReply(text='{"solution": "...", "short answer": "A"}')

    out = tmp_path / "runs"
    with OpenAIStub(script) as stub:
        done = run_cli("run", "models=openai/any", f"api_base={stub.base_url}", "vision=yes",
                       "seeds=isobench_connectivity", "modalities=image", "variants=2", f"out={out}",
                       f"cache_dir={tmp_path / 'cache'}", "quiet=1")  # fmt: skip
    assert done.code == 0, done.err
    assert len(sent) == 2
    (run,) = out.iterdir()
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    digests = [
        part["image_url"]["url"]
        for row in rows
        for message in row["transcript"][0]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    running = ViewerServer(Viewer(RunFolder(run)), 0)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    try:
        for digest in digests:
            status, headers, data = ask(running, f"/image/{digest}")
            assert status == 200 and headers["Content-Type"] == "image/png"
            assert data in sent and "sha256:" + hashlib.sha256(data).hexdigest() == digest
    finally:
        running.shutdown()
        running.server_close()


def test_a_representation_is_shown_as_the_model_read_it() -> None:
    """The row's `question` is the bare question; the model read the representation too (the code,
    the LaTeX, the story): the viewer shows the first call's last user message, else the question."""
    from isodyn.view.cells import CallView, MessageView, Part, shown_text

    def call(*messages: MessageView) -> CallView:
        return CallView("answer", "m", 0, list(messages), "reply", True, 1, 1)

    system = MessageView("system", [Part("text", "You are careful.")])
    first = MessageView("user", [Part("text", "def f(x): return x**2\nIs f even?")])
    demo = MessageView("user", [Part("image", "sha256:" + "0" * 64), Part("text", "a demonstration")])
    later = call(MessageView("user", [Part("text", "a second step")]))
    assert shown_text([call(system, demo, first), later], "Is f even?") == "def f(x): return x**2\nIs f even?"
    assert shown_text([call(system, first, demo)], "q") == "a demonstration"
    assert shown_text([], "Is f even?") == "Is f even?"
    assert shown_text([call(system)], "Is f even?") == "Is f even?"
