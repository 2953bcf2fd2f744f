"""Stand-ins for the embedded model's engine child (`isodyn.models.engine`), named by tests as
`isodyn.testing.engines:NAME`: one dies of SIGILL at once, as a build for another CPU does; one
answers once and dies on the next request; one answers every request without loading any model.
Each has the signature of `engine.serve`."""

from __future__ import annotations

import json
import os
import signal
from typing import IO, Any

from isodyn.scoring.json_answer import format_answer


def _completion(text: str) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _say(replies: IO[str], status: str, payload: Any) -> None:
    replies.write(json.dumps({"status": status, "payload": payload}) + "\n")
    replies.flush()


def die_of_sigill(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    os.kill(os.getpid(), signal.SIGILL)


def answer(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    _say(replies, "ready", None)
    for _ in requests:
        _say(replies, "ok", _completion(format_answer("Reasoned.", "A")))


def answer_once_then_die(requests: IO[str], replies: IO[str], model_path: str, context_tokens: int) -> None:
    _say(replies, "ready", None)
    for number, _ in enumerate(requests):
        if number:
            os.kill(os.getpid(), signal.SIGILL)
        _say(replies, "ok", _completion(format_answer("Reasoned.", "A")))
