"""The viewer's HTTP server: bound to 127.0.0.1 only, read-only but for marks.

The standard library's `http.server` (a `ThreadingHTTPServer`) rather than Flask: the viewer needs
a handful of routes, exact control of every header (a strict Content-Security-Policy, nosniff, the
Host and Origin checks) and of which files are served, and it must start quickly; a framework adds
a dependency, an import of its own and a development server that warns it is not one, for nothing
the viewer uses. One thread per connection, so a slow cell never holds the list up; at most
MAX_CONNECTIONS at once, and one that sends nothing for IDLE_TIMEOUT_S is closed (400 idle
connections held 348 threads for good before; now 64, closed after 30 s).

What it answers:

- `/`, `/static/NAME`: the page, only the files shipped in the package's static folder (a fixed list
  read at start; any other name is 404, so no path can lead out of it);
- `/api/meta`, `/api/cells`, `/api/review`, `/api/cell/ID`, `/api/seed?seed_id=`: JSON; the list is
  filtered, sorted and paged here, from the index;
- `/image/sha256:HEX`: a picture from the run's render cache, as image/png (404 with a short text
  when the cache does not hold it);
- `POST /api/mark`: appends one mark to RUN/marks.jsonl (JSON only, from this page's own origin).

Every request must name this server in its Host header (127.0.0.1:PORT or localhost:PORT): a web
page elsewhere that points its own name at 127.0.0.1 (DNS rebinding) is refused.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import numpy as np
import orjson

from isodyn.errors import IsodynError
from isodyn.runs.folder import RunFolder
from isodyn.runs.marks import Mark, MarksRead, append_mark, graded_reading, mark_from_request
from isodyn.runs.safe import UnsafeFile
from isodyn.view.cells import DIGEST, CellUnreadable, CellView, cell_view
from isodyn.view.index import CellIndex, CellSummary, Facet, Filters, IndexHolder
from isodyn.view.seeds import seed_view

HOST = "127.0.0.1"
MAX_BODY = 64_000
IDLE_TIMEOUT_S = 30.0  # a connection that sends nothing for this long is closed
MAX_CONNECTIONS = 64  # open at once (a browser uses about 6); one more is closed at once
MAX_PAGE = 500
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class ViewerError(IsodynError, OSError):
    """The viewer cannot serve (a host other than 127.0.0.1, a port in use)."""


class ImageSource(Protocol):
    """Where pictures come from by their digest ("sha256:<hex>"): the run's render cache."""

    def image(self, digest: str) -> bytes | None: ...


def static_files() -> dict[str, bytes]:
    """The page's files, read once: the only paths served besides the API."""
    folder = resources.files("isodyn.view") / "static"
    return {
        item.name: item.read_bytes()
        for item in folder.iterdir()
        if item.is_file() and Path(item.name).suffix in CONTENT_TYPES
    }


@dataclass(frozen=True)
class RenderedImages:
    """Pictures from a render store by digest (`render_cache.stored_image`: never unpickles, checks
    the bytes against the digest, creates nothing)."""

    renders: Path

    def image(self, digest: str) -> bytes | None:
        from isodyn.cache.renders import stored_image

        return stored_image(self.renders, digest)


def render_images(folder: RunFolder) -> ImageSource | None:
    """The run's render cache (`cache_dir` of its config.json, else isodyn's default), when it
    exists (the viewer never makes one)."""
    from isodyn.cache.folder import Stores
    from isodyn.runs.config import default_cache_dir
    from isodyn.runs.results import read_json

    config = read_json(folder.config_file)
    named = config.get("cache_dir") if isinstance(config, dict) else None
    cache_dir = Path(named) if isinstance(named, str) and named else default_cache_dir()
    renders = Stores(cache_dir).renders
    return RenderedImages(renders) if renders.is_dir() else None


@dataclass(frozen=True)
class MarkState:
    """The run's marks as the list shows them: whether each cell is marked, and how."""

    read: MarksRead
    marked: np.ndarray  # per cell of the index: marked at all
    right: np.ndarray  # per cell: the last mark says the verdict is right


@dataclass(frozen=True)
class Meta:
    run: str
    cells: int
    damaged: int
    duplicates: int
    first_problem: str | None
    note: str | None  # why the index is not cached, when it is not
    facets: dict[str, list[Facet]]
    marks: int
    marks_damaged: int


class Viewer:
    """What the requests share: the run, its index, its marks and its pictures."""

    def __init__(self, folder: RunFolder, images: Callable[[], ImageSource | None] | None = None) -> None:
        self.folder = folder
        self.results = folder.results_file
        self.holder = IndexHolder(folder)
        self.static = static_files()
        self._images_from = images or (lambda: render_images(self.folder))
        self._images: ImageSource | None = None
        self._images_opened = False
        self._lock = threading.Lock()
        self._marks: tuple[Any, int, MarkState] | None = None

    # --- marks ------------------------------------------------------------------------------------
    def marks(self, index: CellIndex) -> MarkState:
        """The marks, read again when marks.jsonl changed (another person marking the same run)."""
        path = self.folder.marks_file
        try:
            found = path.lstat()
            stamp: Any = (found.st_size, found.st_mtime_ns)
        except OSError:
            stamp = None
        with self._lock:
            if self._marks is not None and self._marks[0] == stamp and self._marks[1] == id(index):
                return self._marks[2]
            read = self.folder.marks()
            marked = np.zeros(index.size, dtype=bool)
            right = np.zeros(index.size, dtype=bool)
            for key, mark in read.latest().items():
                cell = index.find(key)
                if cell is not None:
                    marked[cell], right[cell] = True, mark.verdict_right
            state = MarkState(read, marked, right)
            self._marks = (stamp, id(index), state)
            return state

    def marked_as(self, state: MarkState, cell: int) -> str | None:
        if not state.marked[cell]:
            return None
        return "right" if state.right[cell] else "wrong"

    # --- pictures ---------------------------------------------------------------------------------
    def images(self) -> ImageSource | None:
        """The render cache, opened at the first picture asked for: importing the drawing code
        takes a second, which neither the start nor the list should wait for."""
        with self._lock:
            if not self._images_opened:
                self._images, self._images_opened = self._images_from(), True
            return self._images

    # --- the API ----------------------------------------------------------------------------------
    def meta(self) -> Meta:
        index = self.holder.current()
        state = self.marks(index)
        seen = index.seen
        return Meta(
            self.folder.name, index.size, seen.damaged, seen.duplicates, seen.first_problem,
            self.holder.note, index.facets(), int(state.marked.sum()), state.read.damaged,
        )  # fmt: skip

    def cells(self, query: dict[str, str]) -> dict[str, Any]:
        index = self.holder.current()
        state = self.marks(index)
        filters = Filters.from_query(query)
        page, size = _number(query.get("page"), 0, 10**9), _number(query.get("size"), 100, MAX_PAGE, 1)
        total, chosen = index.query(filters, query.get("sort", "seed"), page, size, state.marked)
        rows = [index.summary(int(c), self.marked_as(state, int(c))) for c in chosen]
        return {"total": total, "page": page, "size": size, "rows": rows}

    def review(self, query: dict[str, str]) -> dict[str, Any]:
        index = self.holder.current()
        state = self.marks(index)
        page, size = _number(query.get("page"), 0, 10**9), _number(query.get("size"), 100, MAX_PAGE, 1)
        queue = index.review(state.marked, query.get("marked") == "yes")
        chosen = queue[page * size : (page + 1) * size]
        rows = [index.summary(int(c), self.marked_as(state, int(c))) for c in chosen]
        return {"total": len(queue), "page": page, "size": size, "rows": rows,
                "ids": [int(c) for c in queue[:5000]]}  # fmt: skip

    def cell(self, cell: int) -> Any:
        index = self.holder.current()
        if not 0 <= cell < index.size:
            raise LookupError(f"no cell {cell} in this run")
        state = self.marks(index)
        mark = state.read.latest().get(index.cell_key(cell)) if state.marked[cell] else None
        return cell_view(index, self.results, cell, mark)

    def seed(self, seed_id: str) -> Any:
        found = seed_view(self.holder.current(), seed_id)
        if found is None:
            raise LookupError("no such seed in this run")
        return found

    def mark(self, body: Any) -> Any:
        if not isinstance(body, dict) or type(body.get("cell")) is not int:
            raise ValueError("send {cell, verdict_right, reading, note}")
        index = self.holder.current()
        cell = body["cell"]
        if not 0 <= cell < index.size:
            raise LookupError(f"no cell {cell} in this run")
        graded = graded_reading(index.value("reason", cell), index.verdict(cell) == "right")
        made = mark_from_request(index.cell_key(cell), graded, body)
        with self._lock:
            append_mark(self.folder.path, made)
        return made


def _number(raw: str | None, default: int, high: int, low: int = 0) -> int:
    if raw is None or raw == "":
        return default
    value = int(raw)
    if not low <= value <= high:
        raise ValueError(f"a number from {low} to {high} is expected, not {value}")
    return value


_FLAT = (CellView, CellSummary, Mark)  # records that hold a Cell: sent with its six values flat


def encode(value: Any) -> bytes:
    """JSON of the API's records; a lone surrogate from the run is escaped rather than refused."""
    value = _wire(value)
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(_plain(value), ensure_ascii=True, default=str).encode()


def _wire(value: Any) -> Any:
    """The value with each record that holds a Cell as its `to_json` (the page's flat keys)."""
    if isinstance(value, _FLAT):
        return value.to_json()
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], _FLAT):
        return [_wire(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class Handler(BaseHTTPRequestHandler):
    """One request: the Host checked, then a route; every answer carries the security headers."""

    server: ViewerServer
    protocol_version = "HTTP/1.1"
    server_version = "isodyn-view"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        # a read (the next request's first line, or a body) that waits longer ends the connection
        self.connection.settimeout(self.server.idle_timeout_s)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the terminal shows the URL, not every request

    def log_error(self, format: str, *args: Any) -> None:
        pass  # an idle connection closed ("Request timed out") is no news either

    def _send(self, status: int, body: bytes, content_type: str, cache: str = "no-store") -> None:
        self.send_response(status)
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, value: Any, status: int = 200) -> None:
        self._send(status, encode(value), "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json({"error": message}, status)

    def _host_ok(self) -> bool:
        port = self.server.server_address[1]
        return self.headers.get("Host", "") in (f"{HOST}:{port}", f"localhost:{port}")

    def do_GET(self) -> None:
        if not self._host_ok():
            return self._error(HTTPStatus.MISDIRECTED_REQUEST, "this viewer answers to 127.0.0.1 only")
        url = urlsplit(self.path)
        path = url.path
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        viewer = self.server.viewer
        try:
            if path in ("/", "/index.html"):
                return self._static("index.html")
            if path == "/favicon.ico":  # asked by every browser; the page has none
                return self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")
            if path.startswith("/static/"):
                return self._static(path.removeprefix("/static/"))
            if path.startswith("/image/"):
                return self._image(path.removeprefix("/image/"))
            routes: dict[str, Callable[[], Any]] = {
                "/api/meta": viewer.meta,
                "/api/cells": lambda: viewer.cells(query),
                "/api/review": lambda: viewer.review(query),
                "/api/seed": lambda: viewer.seed(query.get("seed_id", "")),
            }
            if path in routes:
                return self._json(routes[path]())
            if path.startswith("/api/cell/") and path.removeprefix("/api/cell/").isdigit():
                return self._json(viewer.cell(int(path.removeprefix("/api/cell/"))))
            return self._error(HTTPStatus.NOT_FOUND, "not found")
        except LookupError as exc:
            return self._error(HTTPStatus.NOT_FOUND, str(exc))
        except (ValueError, CellUnreadable) as exc:
            return self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except (IsodynError, OSError) as exc:  # a run refused (newer schema), marks that are a link
            return self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))

    do_HEAD = do_GET

    def do_POST(self) -> None:
        if not self._host_ok():
            return self._error(HTTPStatus.MISDIRECTED_REQUEST, "this viewer answers to 127.0.0.1 only")
        port = self.server.server_address[1]
        origin = self.headers.get("Origin")
        if origin is not None and origin not in (f"http://{HOST}:{port}", f"http://localhost:{port}"):
            return self._error(HTTPStatus.FORBIDDEN, "marks are taken from this viewer's own page only")
        if self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return self._error(HTTPStatus.FORBIDDEN, "marks are taken from this viewer's own page only")
        if self.headers.get_content_type() != "application/json":
            return self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON")
        try:
            length = int(self.headers.get("Content-Length", "-1"))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            return self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY} bytes")
        if urlsplit(self.path).path != "/api/mark":
            return self._error(HTTPStatus.NOT_FOUND, "not found")
        try:
            body = orjson.loads(self.rfile.read(length))
            return self._json(self.server.viewer.mark(body))
        except orjson.JSONDecodeError:
            return self._error(HTTPStatus.BAD_REQUEST, "not JSON")
        except LookupError as exc:
            return self._error(HTTPStatus.NOT_FOUND, str(exc))
        except ValueError as exc:
            return self._error(HTTPStatus.BAD_REQUEST, str(exc))
        except UnsafeFile as exc:
            return self._error(HTTPStatus.FORBIDDEN, str(exc))
        except (IsodynError, OSError) as exc:
            return self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"the mark was not saved: {exc}")

    def _static(self, name: str) -> None:
        body = self.server.viewer.static.get(name)
        if body is None:
            return self._error(HTTPStatus.NOT_FOUND, "not found")
        self._send(200, body, CONTENT_TYPES[Path(name).suffix], "no-cache")

    def _image(self, digest: str) -> None:
        if not DIGEST.fullmatch(digest):
            return self._error(HTTPStatus.NOT_FOUND, "not an image digest")
        source = self.server.viewer.images()
        found = None
        if source is not None:
            try:
                found = source.image(digest)
            except Exception:  # a damaged cache entry is a missing picture, not a dead server
                found = None
        if not found:
            missing = b"this picture is not in the run's render cache"
            return self._send(HTTPStatus.NOT_FOUND, missing, "text/plain; charset=utf-8")
        self._send(200, found, "image/png", "private, max-age=86400, immutable")


class ViewerServer(ThreadingHTTPServer):
    """One thread per connection, at most `max_connections` of them; a connection idle for
    `idle_timeout_s` is closed, so connections left open cannot pile threads up."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, viewer: Viewer, port: int, host: str = HOST, idle_timeout_s: float = IDLE_TIMEOUT_S,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:  # fmt: skip
        if host != HOST:
            raise ViewerError(f"the viewer serves on {HOST} only, not {host!r}: it is for this machine")
        self.viewer = viewer
        self.idle_timeout_s = idle_timeout_s
        self._slots = threading.BoundedSemaphore(max_connections)
        try:
            super().__init__((host, port), Handler)
        except OSError as exc:
            raise ViewerError(
                f"cannot serve on {host}:{port}: {exc.strerror or exc}; pass another port="
            ) from exc

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: closed at once rather than one more thread
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"
