"""Where a reply marks its answer: a box, an answer line or heading, a bare first or last line; and
the signs that it gives none (a refusal, a reply cut off before its answer, code). Pure."""

from __future__ import annotations

import re

from isodyn.scoring.boxed import boxes
from isodyn.scoring.focus import (
    CHECK,
)
from isodyn.scoring.text import MAX_CANDIDATE_CHARS, lines, sentences, strip_markup

# ---- where an answer stands ------------------------------------------------------------------------

_CODE_BLOCK = re.compile(r"^[ \t]*(```|~~~)(?!\s*json)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S | re.I)


_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \w+ import|return\b|print\(|for .+:$|while .+:$|if .+:$|#|//"
    r"|\w+\s*=\s*[\[{(\w])"
)


def without_code(reply: str) -> str:
    """The reply less its code blocks (an unclosed block runs to the end); JSON blocks stay, and so
    does a block holding nothing but a bare answer (```\nB\n```)."""

    def dropped(block: re.Match[str]) -> str:
        opening, *rest = block.group().splitlines() or [""]
        body = [line for line in rest if line.strip() and not line.strip().startswith(("```", "~~~"))]
        if len(body) == 1 and bare_line(body[0]):
            return "\n" + body[0] + "\n"
        if not re.search(r"[`~]{3}\s*\w", opening) and not any(_CODE_LINE.match(line) for line in body):
            return "\n" + "\n".join(body) + "\n"  # a fence around prose or JSON is no program
        return "\n"

    return _CODE_BLOCK.sub(dropped, reply)


_ABOUT_TO = re.compile(
    r"^(?:let's|let\s+us|let\s+me|now\s+(?:let's|we|i)|next,?\s+(?:we|i))\s+(?:\w+\s+)?"
    r"(?:check|look|see|compute|calculate|find|count|examine|analy[sz]e|determine|consider|start|verify|solve)\b",
    re.I,
)


def cut_off_before_answer(reply: str) -> bool:
    """The reply stops inside its JSON object or right after announcing its answer ("The answer is
    that"): its numbers are reasoning, the answer never came."""
    stripped = reply.strip()
    unclosed_json = stripped.startswith("{") and "}" not in stripped and '"short answer"' not in stripped
    announced = re.search(r"(?:answer|result)\s+(?:is|is\s+that|would\s+be)\s*:?\s*$", stripped, re.I)
    last = sentences(stripped)[-1:] or ("",)
    about_to = _ABOUT_TO.match(last[0]) is not None  # "Let's check the cycles in this graph." ends it
    return unclosed_json or announced is not None or about_to


def empty_final_box(reply: str) -> bool:
    """The reply ends with an empty answer slot (`\\boxed{}`): it gives no answer."""
    return re.search(r"\\(?:boxed|fbox)\s*\{\s*\}[\s$.*]*$", reply) is not None


_ANSWER_MARKER = re.compile(
    r"(?:\bfinal\s+answer|\b(?:the\s+)?(?:correct\s+|right\s+|best\s+)?answer|\bmy\s+answer"
    r"|\b(?:the\s+)?(?:correct|right|best)\s+(?:option|choice)(?:\s+letter)?|\boption\s+letter)"
    r"(?:\s+to\s+(?:the|this|your)\s+question)?(?:\s+(?:is|would\s+be|should\s+be|will\s+be)|\s*[:=])[\s:*]*"
    r"|(?:答案|选项|故选|应选|所以选)\s*(?:是|为|应该是|应为)?\s*[:：]?\s*",
    re.IGNORECASE,
)
# The answer ends at a line break, a sentence end (a period and a space; `3.5` is one number), or
# before an explanation ("14, because ...", "6 (check: ...)").
_ANSWER_END = re.compile(
    r"\n|\.(?=[\"'”’]?(?:\s|$))|[。，；]|正确|\s+\((?=(?:check|verif|since|because|note|approx|rounded|i\.e|e\.g))"
    r"|,?\s+(?:because|since|as|which|due\s+to|given|where)\b|,\s+so\b", re.IGNORECASE,
)  # fmt: skip
_HEADING = re.compile(
    r"^\s*+(?:#{1,6}\s*+|\*\*)?+\s*+(?:the\s+)?(?:final\s+answer|answer|conclusion|result)"
    r"(?:\s+to\s+(?:the|this|your)\s+question)?(?:\s+is)?\s*+:?\s*+\**\s*+$",
    re.I,
)
_FINAL_HASHES = re.compile(r"^\s*####\s+(?!\**\s*(?:final\s+)?answer\b)(.{1,60}?)\s*$", re.I)
MAX_ANSWER_LINES = 6
_MARKING_WORDS = ("answer", "####", "result", "conclusion", "option", "答案", "选")
_MARKS = re.compile("|".join(_MARKING_WORDS), re.I)
_SUPPOSED = re.compile(r"\b(?:if|were|suppose|supposing|assuming|instead)\b", re.I)
HEADING_BLOCK = "\x00block\x00"  # marks the lines under an answer heading read as one candidate


# "The answer is the solution to the question": a line describing the answer rather than giving it
_ABOUT_THE_ANSWER = re.compile(
    r"(?:the|a|an|our)\s+(?:\w+\s+){0,2}(?:answer|solution|result)\b.*\b(?:question|problem|task)\b", re.I
)


def answer_lines(reply: str) -> list[str]:
    """The last "the answer is X" / "Answer: X" values, in order, and lines under an answer heading."""
    found: list[str] = []
    raw_lines = reply.splitlines()
    for i, raw in enumerate(raw_lines):
        if not _MARKS.search(raw):
            continue  # the only lines that can mark an answer name it
        line = strip_markup(raw)
        if len(raw) <= 80 and (_HEADING.match(raw) or (line and _HEADING.match(line))):
            block = [strip_markup(n) for n in raw_lines[i + 1 : i + 5] if re.search(r"[^\W_]", n)]
            if block:
                found.append(block[0])
            if len(block) > 1:
                found.append(HEADING_BLOCK + "\n".join(block))  # a list under the heading, for text
            continue
        if gsm := _FINAL_HASHES.match(raw):  # GSM8K's `#### 18`
            found.append(gsm.group(1).strip())
            continue
        for marker in _ANSWER_MARKER.finditer(line):
            own_sentence = re.split(r"[.!?]\s", line[: marker.start()])[-1]
            if "would" in marker.group() and _SUPPOSED.search(own_sentence):
                continue  # "If it were 12, the answer would be 4.8": a supposition, not the answer
            rest = line[marker.end() : marker.end() + MAX_CANDIDATE_CHARS]
            end = _ANSWER_END.search(rest)
            answer = (rest[: end.start()] if end else rest).strip().strip("*").strip().rstrip(".").strip()
            if answer and not answer.startswith(('{"', "{'", "[{")) and not _ABOUT_THE_ANSWER.match(answer):
                found.append(answer)
        del found[:-MAX_ANSWER_LINES]
    return found


def bare_line(line: str, words_allowed: int = 3) -> bool:
    """A line that can be nothing but an answer: one short sentence with few words of prose."""
    line = line.rstrip(".!").strip()
    words = re.findall(r"[A-Za-z]{2,}", re.sub(r"\\[A-Za-z]+", "", line))
    one_sentence = not re.search(r"[.!?]\s+\S", line)
    # beyond three words, a line that reasons ("..., so the function is odd") is no bare answer
    reasons = len(words) > 3 and re.search(r"=|\b(?:so|since|because|therefore|thus|hence)\b", line, re.I)
    short = 0 < len(line) <= 48 and len(words) <= words_allowed
    labelled = re.search(r"\banswer|\bsolution", line, re.I)  # "The answer i" (cut off) answers nothing
    return short and not line.endswith((":", "?")) and one_sentence and not reasons and not labelled


def leading_line(reply: str) -> str | None:
    """The first line, or first sentence, when it is bare and more text follows (answer first,
    reasoning after: `2\n\nThe function changes slope ...`, `Beaker A. It has 0.6 mol ...`)."""
    found = lines(reply)
    if len(found) >= 2 and bare_line(found[0], 6):
        return found[0].rstrip(".!").strip()
    first = sentences(reply)[:2]
    if len(first) == 2 and bare_line(first[0], 6):
        return first[0].rstrip(".!").strip()
    return None


def closing_line(reply: str) -> str | None:
    """The last line when it is a bare answer after reasoning (`> **C**`, `✅ 42`, `- Total: 12`)."""
    found = lines(reply)
    if len(found) < 2:
        return None
    last = found[-1].rstrip(".!").strip()
    listing = last.count("=") > 1 or ", " in last  # "Other routes: A → C → D = 7, ..."
    return last if bare_line(last) and not CHECK.match(last) and not listing else None


_REFUSAL = re.compile(
    r"\bI\s*(?:'m|am)?\s*(?:cannot|can't|can not|could not|couldn't|unable to|not able to)\s+"
    r"(?:\w+\s+)?(?:determine|tell|answer|solve|provide|see|read|identify)\b"
    r"|\b(?:answer|value|it)\s+cannot be determined|\bnot enough information|\binsufficient information"
    r"|\bimpossible to (?:determine|tell|say)|\bI\s+don'?t\s+know\b"
    r"|^\W*unable\s+to\s+(?:determine|tell|answer)"
    r"|\bcannot\s+be\s+(?:determined|read)\b",
    re.IGNORECASE,
)


# Declining to answer, as real replies close: "Therefore, the question cannot be answered.", "The text
# does not provide enough information", "No image was provided." Read in the closing sentences only,
# where a reply commits; earlier, such words often open reasoning that goes on to an answer.
_DECLINES = re.compile(
    r"\b(?:cannot|can't|can\s+not|unable\s+to|impossible\s+to|not\s+possible\s+to)\s+(?:be\s+)?"
    r"(?:answer(?:ed)?|provided?|determined?|tell|say|solved?|calculated?|computed?|identif(?:y|ied))\b"
    r"|\b(?:does|do|did)\s*(?:not|n't)\s+(?:provide|give|include|contain|show|have|specify|mention)\s+"
    r"(?:\w+\s+){0,3}?(?:information|context|details|data|image|diagram|figure|picture)\b"
    r"|\b(?:not\s+enough|insufficient|no)\s+(?:information|context|data)\b"
    r"|\black(?:s|ing)?\s+(?:the\s+)?(?:\w+\s+)?(?:context|information|image|details)\b"
    r"|\bno\s+(?:image|picture|diagram|figure|graph)\s+(?:is\s+|was\s+|has\s+been\s+)?(?:provided|attached|given|shown|included)"
    r"|\b(?:can't|cannot|unable\s+to)\s+(?:process|see|view|access)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\bbut\b[^.]*\b(?:is|are|looks|seems|appears?|would be|should be|about)\b")


def is_refusal(reply: str) -> bool:
    """The model declares it cannot answer. A hedge ("I can't see it clearly, but it is 4") is not."""
    if _HEDGE.search(reply):
        return False
    if _REFUSAL.search(reply) is not None:
        return True
    closing = " ".join(sentences(reply)[-2:])
    # "We cannot determine x directly, so we use ...: the hypotenuse is 10" goes on to an answer
    return any(not _GOES_ON.search(closing[declined.end() :]) for declined in _DECLINES.finditer(closing))


_GOES_ON = re.compile(r"^[^.!?]*?(?:,\s*(?:so|but|however|thus|hence|then)\b|:\s)")


_BOLD = re.compile(r"\*\*(?=\S)([^*\n]{1,60}?)(?<=\S)\*\*|__(?=\S)([^_\n]{1,60}?)(?<=\S)__")


def closing_bold(reply: str) -> str | None:
    """The one value the closing line sets in bold ("... the maximum flow is **12**."), the way long
    Markdown replies state their answer; None when that line bolds nothing, a label (`**Answer:**`),
    or several different things."""
    filled = [line for line in reply.splitlines() if line.strip()]
    closing = filled[-1] if filled else ""
    if closing.rstrip().endswith(("?", ":")) or (len(filled) == 1 and _BOLD.fullmatch(closing.strip())):
        return None  # a question, a label, or a reply that is nothing but its bold answer (read whole)
    found = {(m.group(1) or m.group(2)).strip().rstrip(".") for m in _BOLD.finditer(closing)}
    found = {value for value in found if value and not value.endswith(":")}
    return found.pop() if len(found) == 1 else None


# `[[12]]`: the wrapper some benchmarks ask answers in (KOR-Bench); no brackets inside, so a nested
# list (`[[1, 2], [3, 4]]`) is not read as one
_DOUBLE_BRACKETS = re.compile(r"\[\[([^\[\]\n]{1,200})\]\]")


def double_bracketed(text: str) -> str | None:
    """The content of the last `[[...]]` in a text, if any."""
    found = [m.group(1).strip() for m in _DOUBLE_BRACKETS.finditer(text)]
    return found[-1] if found and found[-1] else None


_FINAL_MARKER = re.compile(r"\bfinal\s+answer\b|\bthe\s+answer\s+is\b", re.I)


def marked_after_boxes(reply: str) -> bool:
    """The reply marks an answer ("Final Answer: The final answer is ...") after its last box or
    `[[...]]`: the boxes before it held intermediate results."""
    ends = [box.end for box in boxes(reply)] + [m.end() for m in _DOUBLE_BRACKETS.finditer(reply)]
    return bool(ends) and _FINAL_MARKER.search(reply, max(ends)) is not None
