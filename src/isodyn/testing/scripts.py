"""Scripts for the loopback OpenAI stub: fault mixes, latency, and an oracle that knows the truth.

    mix = FaultMix(rate_limit=0.1, server_error=0.05, timeout=0.05, malformed=0.05, seed=1)
    with OpenAIStub(mix.wrap(oracle_from_items(items, {"image": 0.5, "latex": 0.9}))) as stub: ...

The oracle answers in DynaMath's JSON, or with `style="prose"` as models that ignore the format do:
the same committed answer written answer-first, in an answer sentence, under a heading, boxed, or
(multiple choice) by the option's text, amid reasoning with other numbers in it.

Every decision is drawn from a seeded generator so a test's fault sequence is reproducible.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from isodyn.core import JsonObject
from isodyn.testing.openai_stub import Script, ScriptedReply


def prompt_text(request: JsonObject) -> str:
    parts = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)


def has_image(request: JsonObject) -> bool:
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
        def faulty(request: JsonObject) -> ScriptedReply:
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


def wrong_answer(answer: str, choices: list[str], rng: random.Random) -> str:
    """Another option's letter, a larger number, or for text `X (wrong)`."""
    if choices:
        letters = [chr(65 + i) for i in range(len(choices)) if chr(65 + i) != answer]
        return rng.choice(letters) if letters else answer
    try:
        return str(float(answer) + 1 + rng.randint(0, 5))
    except ValueError:
        return answer + " (wrong)"


# ---- free-form replies: the same committed answer, written as real models write it ---------------

STYLES = ("json", "prose")


def _prompt_rng(text: str, seed: int, salt: int = 0) -> random.Random:
    """A generator fixed by the prompt (and seed): each prompt always gets the same draws."""
    digest = hashlib.sha256(text.encode()).digest()
    return random.Random(int.from_bytes(digest[8 * salt : 8 * salt + 8], "little") ^ seed)


def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def distractors(answer: str, rng: random.Random, count: int = 2) -> list[int]:
    """Small whole numbers for the reasoning, none equal to the committed answer or each other."""
    value = _as_number(answer)
    pool = [n for n in range(2, 20) if value is None or n != value]
    return rng.sample(pool, count)


def option_text(said: str, choices: list[str]) -> str | None:
    """The text of the option a letter names; None when `said` is not an option's letter."""
    index = ord(said) - 65 if len(said) == 1 and choices else -1
    return choices[index] if 0 <= index < len(choices) else None


# Each rendering commits to {said} once; {a} and {b} are other numbers in the reasoning.
_REASONING = (
    "Looking at the problem, I first counted {a} labelled parts and {b} connections, "
    "then worked through them one at a time."
)
_ANY_RENDERINGS = (
    "{said}\n\n" + _REASONING,
    "First I read off {a} values, then combined them with the {b} others. So the answer is {said}.",
    "We combine the {a} terms with the {b} remaining ones carefully.\n\n### Final answer\n**{said}**",
    "Grouping the {a} parts and the {b} leftover pieces gives\n\n$$\\boxed{{{said}}}$$",
)
_VALUE_RENDERINGS = (
    "Step 1: there are {a} entries.\nStep 2: {b} of them matter here.\n\nFinal answer: the value is {said}.",
)
# Multiple choice: the letter in a sentence, or the option's text beside or instead of it.
_OPTION_RENDERINGS = (
    "Step 1: there are {a} cases.\nStep 2: {b} of them matter here.\n\nFinal answer: option {said}.",
    "I compared all {a} cases and checked {b} of them twice. The correct option is ({said}) {option}.",
    "{Option}.\n\n" + _REASONING,
    "I checked {a} cases and {b} special ones, so the answer is {option}.",
    "After checking {a} cases and {b} special ones, I'd pick {option}.",
)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def renderings(said: str, choices: list[str]) -> tuple[str, ...]:
    """The templates that fit the answer: any answer; a number's; an option's (by letter or text)."""
    if option_text(said, choices) is not None:
        return _ANY_RENDERINGS + _OPTION_RENDERINGS
    return _ANY_RENDERINGS + (_VALUE_RENDERINGS if _as_number(said) is not None else ())


def fill(template: str, said: str, choices: list[str], rng: random.Random) -> str:
    option = option_text(said, choices) or ""
    a, b = distractors(option or said, rng)
    return template.format(said=said, option=option, Option=_capitalised(option), a=a, b=b)


def prose_reply(said: str, choices: list[str], rng: random.Random) -> str:
    """One free-form rendering of the answer `said` (a letter for multiple choice), drawn by `rng`:
    answer first, an answer sentence, a heading, a box, or for options sometimes the option's text."""
    return fill(rng.choice(renderings(said, choices)), said, choices, rng)


def render_answer(said: str, choices: list[str], style: str, rng: random.Random) -> str:
    if style == "prose":
        return prose_reply(said, choices, rng)
    return json.dumps({"solution": "oracle", "short answer": said})


def committed_answer(
    text: str, item: JsonObject, modality: str, accuracy: dict[str, float], seed: int
) -> str:
    """What the oracle says to a prompt: the truth with its modality's accuracy, else a wrong answer
    (another option's letter, a larger number, or for text answers `X (wrong)`)."""
    rng = _prompt_rng(text, seed)
    right = rng.random() < accuracy.get(modality, 0.0)
    return item["answer"] if right else wrong_answer(item["answer"], item.get("choices") or [], rng)


def oracle_from_items(
    items: Iterable[JsonObject],
    accuracy: dict[str, float],
    seed: int = 0,
    style: str = "json",
    decisions: dict[str, bool] | None = None,
) -> Script:
    """Answer each question right with the accuracy of its modality (a dataset from `exp generate`).

    The question is recognised by its representation's text inside the prompt; an image prompt
    counts as the image modality. Each prompt always gets the same answer (seeded by its hash).
    `style` "json" answers in DynaMath's JSON; "prose" commits to the same answer in free form
    (`prose_reply`). `decisions`, when given, records per prompt text whether the answer was right.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; valid: {', '.join(STYLES)}")
    known: list[tuple[str, str, JsonObject]] = []
    for item in items:
        for modality, rep in item["representations"].items():
            known.append((rep["text"], modality, item))
    known.sort(key=lambda k: -len(k[0]))  # the most specific text first
    lock = threading.Lock()

    def answer(request: JsonObject) -> ScriptedReply:
        text = prompt_text(request)
        for rep_text, modality, item in known:
            if rep_text in text and (modality == "image") == has_image(request):
                said = committed_answer(text, item, modality, accuracy, seed)
                if decisions is not None:
                    with lock:
                        decisions[text] = said == item["answer"]
                choices = item.get("choices") or []
                return ScriptedReply(text=render_answer(said, choices, style, _prompt_rng(text, seed, 1)))
        return ScriptedReply(text=json.dumps({"solution": "unknown question", "short answer": "?"}))

    return answer


def counting(script: Script) -> tuple[Script, Callable[[], dict[str, int]]]:
    """A script that also counts how often each distinct prompt was asked."""
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def counted(request: JsonObject) -> ScriptedReply:
        key = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        with lock:
            seen[key] = seen.get(key, 0) + 1
        return script(request)

    return counted, lambda: dict(seen)
