"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API, driven by a script.

Used by tests (and benchmarks) to exercise litellm's ordinary OpenAI-compatible path with images,
faults and load, without any network. It binds only to loopback.

    with OpenAIStub(lambda request: ScriptedReply(text='{"short answer": "A"}')) as stub:
        exp run models=openai/stub api_base={stub.base_url} ...
        stub.requests  # every request body received, in order

It also serves OpenAI's files and batches API (`/v1/files`, `/v1/batches`): a batch answers each of
its lines through the same script; `stub.batches` (`stub_batches.BatchDesk`) holds the jobs, the
behaviour a test sets (slow, expired, malformed output) and the counters.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from isodyn.core import JsonObject
from isodyn.testing.stub_batches import BatchDesk


@dataclass(frozen=True)
class ScriptedReply:
    text: str = '{"solution": "stub", "short answer": "A"}'
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    prompt_tokens: int = 10
    completion_tokens: int = 5
    drop: bool = False  # close the connection without any response
    malformed: bool = False  # a 200 whose body is not JSON
    gzip_bomb_mb: float = 0.0  # a 200 sent gzip-encoded whose reply text inflates to this many MB
    finish_reason: str = "stop"  # "length": a reply cut off at the token limit


Script = Callable[[JsonObject], ScriptedReply]


def _completion_body(request: JsonObject, reply: ScriptedReply, number: int) -> JsonObject:
    return {
        "id": f"chatcmpl-stub-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "stub"),
        "choices": [
            {
                "index": 0,
                "finish_reason": reply.finish_reason,
                "message": {"role": "assistant", "content": reply.text},
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _error_body(reply: ScriptedReply) -> JsonObject:
    return {"error": {"message": reply.text, "type": "stub_error", "code": reply.status}}


_BOMB_CHUNK = b"a" * 1_000_000


def _gzip_bomb(request: JsonObject, reply: ScriptedReply, number: int) -> bytes:
    """A completion whose reply text is `reply.gzip_bomb_mb` MB of "a", gzip-compressed a chunk at a
    time (about 1,000:1, so 200 MB goes out as about 200 KB, and the stub never holds it inflated)."""
    head, tail = json.dumps(_completion_body(request, replace(reply, text="\x00"), number)).split("\\u0000")
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    parts = [packer.compress(head.encode())]
    whole, rest = divmod(int(reply.gzip_bomb_mb * 1_000_000), len(_BOMB_CHUNK))
    parts += [packer.compress(_BOMB_CHUNK) for _ in range(whole)]
    parts += [packer.compress(_BOMB_CHUNK[:rest]), packer.compress(tail.encode()), packer.flush()]
    return b"".join(parts)


# The files and batches routes, after the version prefix: (method, pattern) -> BatchDesk method name.
_BATCH_ROUTES = (
    ("POST", re.compile(r"/files"), "upload"),
    ("GET", re.compile(r"/files/([^/]+)"), "file"),
    ("GET", re.compile(r"/files/([^/]+)/content"), "content"),
    ("POST", re.compile(r"/batches"), "create"),
    ("GET", re.compile(r"/batches/([^/]+)"), "retrieve"),
    ("POST", re.compile(r"/batches/([^/]+)/cancel"), "cancel"),
)


class OpenAIStub:
    def __init__(self, script: Script | None = None) -> None:
        self.script: Script = script or (lambda request: ScriptedReply())
        self.requests: list[JsonObject] = []  # chat completion requests (never batch items)
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self.batches = BatchDesk(self._answer_item)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/v1"

    def _answer_item(self, body: JsonObject) -> tuple[int, JsonObject]:
        """One batch item through the script: its status and body (a dropped or malformed reply is
        a server error for the item; a delay is not waited: the batch's own timing stands for it)."""
        with self._lock:
            number = len(self.requests) + len(self.batches.items)
        reply = self.script(body)
        if reply.drop or reply.malformed:
            return 500, _error_body(ScriptedReply(text="the server failed", status=500))
        if reply.status != 200:
            return reply.status, _error_body(reply)
        return 200, _completion_body(body, reply, number)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real APIs: clients reuse connections
            # Headers and body go out in separate writes; without this, Nagle's algorithm and the
            # client's delayed ACK stall every kept-alive response by ~40 ms.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, body: JsonObject, headers: dict[str, str]) -> None:
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                # the client may have given up (a timeout fault): nothing to tell it
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(payload)

            def _batch_route(self, method: str) -> bool:
                """Serve a files or batches request; False when the path is none of theirs."""
                path = self.path.split("?", 1)[0].rstrip("/")
                path = path[path.index("/v1") + 3 :] if "/v1/" in path else path
                for verb, pattern, name in _BATCH_ROUTES:
                    match = pattern.fullmatch(path)
                    if verb != method or match is None:
                        continue
                    desk = stub.batches
                    desk.headers.append(dict(self.headers.items()))
                    if name == "upload":
                        status, body = desk.upload(self.headers.get("Content-Type", ""), self._body())
                    elif name == "create":
                        status, body = desk.create(json.loads(self._body() or b"{}"))
                    else:
                        self._body()  # a cancel may carry an empty body: read it off the connection
                        status, body = getattr(desk, name)(match.group(1))
                    if isinstance(body, bytes):
                        self.send_response(status)
                        self.send_header("Content-Type", "application/octet-stream")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    else:
                        self._send(status, body, {})
                    return True
                return False

            def _body(self) -> bytes:
                length = int(self.headers.get("Content-Length", "0") or 0)
                return self.rfile.read(length) if length else b""

            def do_GET(self) -> None:
                if not self._batch_route("GET"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})

            def do_POST(self) -> None:
                if self._batch_route("POST"):
                    return
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(request)
                    stub.headers.append(dict(self.headers.items()))
                    number = len(stub.requests)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                reply = stub.script(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if reply.malformed:
                    payload = b'{"id": "chatcmpl-broken", "choices": [{"message": '
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if reply.status != 200:
                    self._send(reply.status, _error_body(reply), reply.headers)
                    return
                if reply.gzip_bomb_mb:
                    payload = _gzip_bomb(request, reply, number)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                        self.wfile.write(payload)
                    return
                self._send(200, _completion_body(request, reply, number), reply.headers)

        return Handler

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# What `python -m isodyn.testing` answers, by style: the requested JSON, or an answer-first reply.
FIXED_REPLIES = {
    "json": '{"solution": "stub", "short answer": "A"}',
    "prose": "B\n\nThe figure shows 3 nodes and 4 edges.",
}


def serve_forever(latency_s: float = 0.0, text: str = FIXED_REPLIES["json"]) -> None:
    """Run a stub in this process until killed; prints its base URL first (for benchmarks)."""
    with OpenAIStub(lambda request: ScriptedReply(text=text, delay_s=latency_s)) as stub:
        print(stub.base_url, flush=True)
        threading.Event().wait()
