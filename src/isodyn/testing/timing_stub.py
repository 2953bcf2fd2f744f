"""The loopback stub, counting: `python -m isodyn.testing LATENCY [json|prose] --timing` (benchmarks).

It answers like `serve_forever` (one fixed reply to every chat completion, after LATENCY seconds)
and prints its base URL first. It then reads commands on standard input, one a line, and stops when
standard input closes. `take` prints one JSON line about the requests since the previous `take` and
starts counting afresh:

    {"calls": 2037, "other": 0, "first": 81234.56, "last": 81260.12}

`calls` are the chat completions answered, `other` the requests to any other route, `first` and
`last` the `time.monotonic()` at which the first and the last chat completion arrived (null when
none did). On Linux that clock is CLOCK_MONOTONIC, one clock for every process on the machine, so
a benchmark can compare these times with its own (time from starting a client to its first call).
"""

from __future__ import annotations

import json
import sys
import threading
import time

from isodyn.core import JsonObject
from isodyn.testing.openai_stub import OpenAIStub, ScriptedReply

# socketserver listens with a backlog of 5: a client opening 256 connections at once would have
# SYNs dropped and retried only a second later, which would time the server, not the client.
LISTEN_BACKLOG = 1024


class TimingStub(OpenAIStub):
    """An `OpenAIStub` answering every request alike that counts requests and times the first and last."""

    def __init__(self, latency_s: float, text: str) -> None:
        self._reply = ScriptedReply(text=text, delay_s=latency_s)
        self._count_lock = threading.Lock()
        self._calls = 0
        self._first: float | None = None
        self._last: float | None = None
        super().__init__(self._answer)
        self._server.socket.listen(LISTEN_BACKLOG)  # listening already: this only raises the backlog

    def _answer(self, request: JsonObject) -> ScriptedReply:
        now = time.monotonic()
        with self._count_lock:
            self._calls += 1
            if self._first is None:
                self._first = now
            self._last = now
        return self._reply

    def take(self) -> JsonObject:
        """What arrived since the previous take; counting starts afresh (and the bodies kept are dropped)."""
        with self._count_lock, self._lock:
            taken = {
                "calls": self._calls,
                "other": len(self.requests) - self._calls,
                "first": self._first,
                "last": self._last,
            }
            self._calls, self._first, self._last = 0, None, None
            self.requests.clear()
            self.headers.clear()
        return taken


def serve_timed(latency_s: float, text: str) -> None:
    """Serve a `TimingStub` until standard input closes, answering `take` on standard output."""
    stub = TimingStub(latency_s, text)
    with stub:  # (its __enter__ is typed as the plain stub's)
        print(stub.base_url, flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "take":
                print(json.dumps(stub.take()), flush=True)
            elif command:
                print(json.dumps({"error": f"unknown command {command!r}; valid: take"}), flush=True)
