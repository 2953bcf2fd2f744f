"""Scripts for the loopback OpenAI stub: fault mixes, latency, and an oracle that knows the truth.

    mix = FaultMix(rate_limit=0.1, server_error=0.05, timeout=0.05, malformed=0.05, seed=1)
    with OpenAIStub(mix.wrap(oracle_from_items(items, {"image": 0.5, "latex": 0.9}))) as stub: ...

Every decision is drawn from a seeded generator so a test's fault sequence is reproducible.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from isodyn.testing.openai_stub import Script, ScriptedReply


def prompt_text(request: dict[str, Any]) -> str:
    parts = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def has_image(request: dict[str, Any]) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in request.get("messages", [])
    )


@dataclass
class FaultMix:
    """Wraps a script: with the given probabilities a request fails instead of being answered."""

    rate_limit: float = 0.0  # 429 with a Retry-After header
    rate_limit_bare: float = 0.0  # 429 without one
    server_error: float = 0.0  # 500
    timeout: float = 0.0  # answers after `timeout_delay_s` (longer than the client waits)
    drop: float = 0.0  # closes the connection without a response
    malformed: float = 0.0  # 200 with a body that is not JSON
    empty: float = 0.0  # 200 with an empty message
    latency_s: float = 0.0  # every answer waits latency_s + uniform(0, jitter_s)
    jitter_s: float = 0.0
    retry_after_s: float = 0.05
    timeout_delay_s: float = 5.0
    seed: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def _draw(self) -> tuple[str, float]:
        with self._lock:
            roll, jitter = self._rng.random(), self._rng.uniform(0, self.jitter_s)
        edge = 0.0
        for kind in (
            "rate_limit",
            "rate_limit_bare",
            "server_error",
            "timeout",
            "drop",
            "malformed",
            "empty",
        ):
            edge += getattr(self, kind)
            if roll < edge:
                return kind, jitter
        return "ok", jitter

    def wrap(self, script: Script) -> Script:
        def faulty(request: dict[str, Any]) -> ScriptedReply:
            kind, jitter = self._draw()
            with self._lock:
                self.counts[kind] = self.counts.get(kind, 0) + 1
            delay = self.latency_s + jitter
            if kind == "rate_limit":
                return ScriptedReply("rate limited", 429, {"Retry-After": str(self.retry_after_s)}, delay)
            if kind == "rate_limit_bare":
                return ScriptedReply("rate limited", 429, {}, delay)
            if kind == "server_error":
                return ScriptedReply("internal error", 500, {}, delay)
            if kind == "timeout":
                return ScriptedReply(delay_s=self.timeout_delay_s)
            if kind == "drop":
                return ScriptedReply(drop=True, delay_s=delay)
            if kind == "malformed":
                return ScriptedReply(malformed=True, delay_s=delay)
            answer = script(request)
            if kind == "empty":
                return ScriptedReply(text="", delay_s=delay)
            return ScriptedReply(**{**answer.__dict__, "delay_s": answer.delay_s + delay})

        return faulty


def _wrong(answer: str, choices: list[str], rng: random.Random) -> str:
    if choices:
        letters = [chr(65 + i) for i in range(len(choices)) if chr(65 + i) != answer]
        return rng.choice(letters) if letters else answer
    try:
        return str(float(answer) + 1 + rng.randint(0, 5))
    except ValueError:
        return answer + " (wrong)"


def oracle_from_items(items: Iterable[dict[str, Any]], accuracy: dict[str, float], seed: int = 0) -> Script:
    """Answer each question right with the accuracy of its modality (a dataset from `exp generate`).

    The question is recognised by its representation's text inside the prompt; an image prompt
    counts as the image modality. Each prompt always gets the same answer (seeded by its hash).
    """
    known: list[tuple[str, str, dict[str, Any]]] = []
    for item in items:
        for modality, rep in item["representations"].items():
            known.append((rep["text"], modality, item))
    known.sort(key=lambda k: -len(k[0]))  # the most specific text first

    def answer(request: dict[str, Any]) -> ScriptedReply:
        text = prompt_text(request)
        for rep_text, modality, item in known:
            if rep_text in text and (modality == "image") == has_image(request):
                digest = hashlib.sha256(text.encode()).digest()
                rng = random.Random(int.from_bytes(digest[:8], "little") ^ seed)
                right = rng.random() < accuracy.get(modality, 0.0)
                said = item["answer"] if right else _wrong(item["answer"], item.get("choices") or [], rng)
                return ScriptedReply(text=json.dumps({"solution": "oracle", "short answer": said}))
        return ScriptedReply(text=json.dumps({"solution": "unknown question", "short answer": "?"}))

    return answer


def counting(script: Script) -> tuple[Script, Callable[[], dict[str, int]]]:
    """A script that also counts how often each distinct prompt was asked."""
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def counted(request: dict[str, Any]) -> ScriptedReply:
        key = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        with lock:
            seen[key] = seen.get(key, 0) + 1
        return script(request)

    return counted, lambda: dict(seen)
