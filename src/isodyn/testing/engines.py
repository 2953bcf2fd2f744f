"""Stand-ins for the embedded model's engine child (`isodyn.models.engine`), named by tests as
`isodyn.testing.engines:NAME`: one dies of SIGILL at once, as a build for another CPU does; one
answers once and dies on the next request; one answers every request without loading any model.
Each has the signature of `engine.serve`."""

from __future__ import annotations

import os
import signal
from typing import IO, Any

from isodyn.models.engine import send_reply
from isodyn.prompts import format_answer


def _completion(text: str) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def die_of_sigill(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    os.kill(os.getpid(), signal.SIGILL)


def answer(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    send_reply(replies, "ready", None)
    for _ in requests:
        send_reply(replies, "ok", _completion(format_answer("Reasoned.", "A")))


def answer_slowly_with_pid(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    """Answers after 0.3 s with its process id and the threads its parent gave it: calls that
    overlap show which engines answered them."""
    import time

    send_reply(replies, "ready", None)
    for _ in requests:
        time.sleep(0.3)
        said = f"pid {os.getpid()} threads {os.environ.get('ISODYN_ENGINE_THREADS')}"
        send_reply(replies, "ok", _completion(said))


def answer_once_then_die(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    send_reply(replies, "ready", None)
    for number, _ in enumerate(requests):
        if number:
            os.kill(os.getpid(), signal.SIGILL)
        send_reply(replies, "ok", _completion(format_answer("Reasoned.", "A")))
