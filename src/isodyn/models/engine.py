"""The embedded model's engine (llama.cpp) in a child process of its own.

llama.cpp is native code compiled for some CPU. Built with `-march=native` on one machine and run on
another (a cloud VM that advertises AMX without granting it, a wheel from a shared pip cache), it
dies of SIGILL; a bad build can also die of SIGSEGV or abort. In-process, that kills the run and the
test session with no word. Here the model is loaded and tried (a few tokens) in a child process,
and every completion is asked of that child over a pipe: when the child dies, the caller gets
`EngineCrashed`, one line naming the signal and the fix, and the parent goes on.

`EngineCrashed` is an OSError: to the runner it is a failure of this machine, not of the model (the
cell is `error:local`, the run is left incomplete and says so, and resuming it runs the cell again).

This module imports nothing heavy: the child imports it first, then llama_cpp.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from isodyn.errors import IsodynError
from isodyn.models.requests import DEFAULT_MAX_TOKENS

READY_SECONDS = 300.0  # loading the model and trying it: seconds on any machine; a hang is a failure
PORTABLE_FIX = (
    "reinstall it for any x86-64 CPU with AVX2: "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python'
)


class EngineCrashed(IsodynError, OSError):
    """The engine's child process died (a signal or an exit) or never became ready."""


def death(exitcode: int | None) -> str:
    """How a child ended, in words: `SIGILL (illegal instruction)`, `exit code 3`."""
    if exitcode is None:
        return "no answer"
    if exitcode < 0:
        try:
            number = signal.Signals(-exitcode)
        except ValueError:
            return f"signal {-exitcode}"
        said = signal.strsignal(number) or "a signal"
        return f"{number.name} ({said[:1].lower()}{said[1:]})"
    return f"exit code {exitcode}"


def crash_message(what: str, exitcode: int | None, last_words: str = "") -> str:
    """The one line a crash is told in: what happened, of what, and the fix."""
    how = "" if exitcode is None else f" with {death(exitcode)}"
    said = f" ({last_words[:200]})" if last_words and exitcode != -signal.SIGILL else ""
    cause = (
        "it was compiled for instructions this CPU does not run"
        if exitcode == -signal.SIGILL
        else "its native library failed or hung"
    )
    return f"the embedded model's engine (llama.cpp) {what}{how}{said}: {cause}; {PORTABLE_FIX}"


# ---- the child -------------------------------------------------------------------------------------


def serve(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    """The child: load the model, try it, say ready, then answer one request (a JSON line) at a time
    until its input ends."""
    from llama_cpp import Llama

    threads = int(os.environ.get("ISODYN_ENGINE_THREADS", "2"))  # the parent shares the cores out
    llama = Llama(model_path=model_path, n_ctx=context_tokens, n_threads=threads, verbose=False, seed=0)
    # a few tokens: the instructions a completion uses run once before anything is promised
    llama.create_chat_completion(messages=[{"role": "user", "content": "Hi"}], max_tokens=4, seed=0)
    send_reply(replies, "ready", None)
    for line in requests:
        request = json.loads(line)
        params = request["params"]
        try:
            prompt_tokens = len(llama.tokenize(_prompt_text(request["messages"]).encode(), special=True))
            limit = int(params.get("max_tokens", DEFAULT_MAX_TOKENS))
            completion = llama.create_chat_completion(
                messages=request["messages"],
                temperature=float(params.get("temperature", 0.0)),
                top_p=float(params.get("top_p", 1.0)),
                max_tokens=reply_room(limit, prompt_tokens, context_tokens),
                seed=int(params.get("seed", 0)),
            )
        except Exception as exc:  # a bad request (too long a prompt): the caller's error, not a crash
            send_reply(replies, "error", f"{type(exc).__name__}: {exc}")
        else:
            send_reply(replies, "ok", completion)


# Tokens the chat template adds around the messages (role markers, a few per message): what the
# prompt's own text does not count.
TEMPLATE_TOKENS = 64


def reply_room(max_tokens: int, prompt_tokens: int, context_tokens: int) -> int:
    """The reply's token limit within the context: `max_tokens` (4,096 by default) plus a prompt can
    pass the engine's context, so the reply gets what the prompt leaves (at least one token). A reply
    cut there ends with finish reason `length`, as one cut at max_tokens does. (llama-cpp-python
    0.3 also cuts its limit to fit; this holds whatever version is installed.)"""
    return max(1, min(max_tokens, context_tokens - prompt_tokens - TEMPLATE_TOKENS))


def _prompt_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


def send_reply(replies: IO[str], status: str, payload: Any) -> None:
    """One reply of the child to its parent: a JSON line, flushed (the stand-ins in tests use it too)."""
    replies.write(json.dumps({"status": status, "payload": payload}) + "\n")
    replies.flush()


def main(argv: list[str]) -> None:
    """`python -m isodyn.models.engine SERVER REPLY_FD MODEL_PATH CONTEXT`: requests on stdin, replies
    on their own descriptor (native code may print to stdout)."""
    server_name, reply_fd, model_path, context = argv
    module, _, function = server_name.partition(":")
    server = getattr(importlib.import_module(module), function)
    with os.fdopen(int(reply_fd), "w", encoding="utf-8") as replies:
        server(sys.stdin, replies, model_path, int(context))


# ---- the parent ------------------------------------------------------------------------------------

SERVE = "isodyn.models.engine:serve"


class EngineProcess:
    """One model in one child process, asked one request at a time (llama.cpp contexts are not
    re-entrant). After a crash every call raises `EngineCrashed` at once: the child is not
    restarted, since the same instructions would kill it again. `server` names the child's entry
    point as `module:function` (tests name stand-ins that crash)."""

    def __init__(
        self, model_path: Path, context_tokens: int, server: str = SERVE, env: dict[str, str] | None = None
    ) -> None:
        read_end, write_end = os.pipe()
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115  # the child's stderr, closed in close()
        command = [sys.executable, "-m", "isodyn.models.engine", server, str(write_end), str(model_path),
                   str(context_tokens)]  # fmt: skip
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._errors,
            pass_fds=(write_end,), text=True, encoding="utf-8", env={**os.environ, **(env or {})},
        )  # fmt: skip
        os.close(write_end)  # the child holds the only writer: its death ends the replies
        self._replies = os.fdopen(read_end, "r", encoding="utf-8")
        self._lock = threading.Lock()
        self._crashed: str | None = None
        self._receive("died while loading the model", READY_SECONDS)

    def chat(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._crashed:
                raise EngineCrashed(self._crashed)
            try:
                assert self._process.stdin is not None
                self._process.stdin.write(json.dumps({"messages": messages, "params": params}) + "\n")
                self._process.stdin.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError):
                self._fail("died")
            return self._receive("died during a completion", None)

    def close(self) -> None:
        if self._process.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self._process.stdin.close()  # the child's input ends: it returns
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
        self._replies.close()
        self._errors.close()

    def _receive(self, what: str, seconds: float | None) -> Any:
        """The child's next reply; a death (the replies end) or silence past `seconds` is a crash."""
        ready, _, _ = select.select([self._replies], [], [], seconds)
        if not ready:
            self._process.kill()
            self._fail(f"gave no answer in {seconds:.0f} s", hung=True)
        line = self._replies.readline()
        if not line:
            self._fail(what)
        reply = json.loads(line)
        if reply["status"] == "error":
            raise ValueError(reply["payload"])
        return reply["payload"]

    def _fail(self, what: str, hung: bool = False) -> Any:
        try:
            exitcode = self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            exitcode = None
        self._crashed = crash_message(what, None if hung else exitcode, self._last_words())
        raise EngineCrashed(self._crashed)

    def _last_words(self) -> str:
        self._errors.seek(0)
        lines = self._errors.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        return lines[-1].strip() if lines else ""


if __name__ == "__main__":
    main(sys.argv[1:])
