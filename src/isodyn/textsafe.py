"""Untrusted text made safe for where it is shown: a terminal, Markdown, an HTML page, a file.

Replies, model names, questions, seed ids and folder names come from outside; any of them may hold
escape sequences, bidi overrides, line breaks, backticks or markup. These pure functions never drop
such characters silently: they make them visible (`\\x1b`, `<U+202E>`), so a reader sees that they
were there.
"""

from __future__ import annotations

import re

# Bidi controls reorder what follows them on screen (Trojan Source); U+2028/2029 break lines in
# some viewers; a lone surrogate cannot be encoded at all. None of them is ever needed in a report.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# C0 controls, DEL, C1 controls (U+009B alone starts a CSI on some terminals), then the above.
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0xA0 else f"<U+{code:04X}>"


def visible(text: str, keep: str = "") -> str:
    """`text` with every control, bidi, line-separator and lone-surrogate character written out,
    except those in `keep`. ESC becomes the four characters `\\x1b`, so no escape sequence survives."""
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _shown(m.group()), text)


def terminal_text(text: str) -> str:
    """Text safe to copy to a terminal: only newlines and tabs stay as they are."""
    return visible(text, keep="\n\t")


def block_text(text: str) -> str:
    """Multi-line text (a reply, a prompt) kept as lines: CRLF read as a newline, a lone CR shown."""
    return terminal_text(text.replace("\r\n", "\n"))


# Markdown that untrusted inline text could otherwise start: HTML tags, comments and autolinks
# (`<`), links and images (`](`), table cell splits (`|`), character references (`&#x202E;`,
# `&rlm;`: a renderer would turn them into the very bidi controls `visible` shows); `\` too, so an
# escape cannot be undone.
_MARKDOWN_SPECIAL = re.compile(r"[\\<|]|\](?=\()|&(?=#?[0-9A-Za-z]+;)")


def markdown_text(text: str) -> str:
    """One line of inline Markdown showing `text` literally: safe in a heading, a list item or a
    table cell (line breaks and controls made visible; `|`, `<` and the `&` of a character
    reference escaped)."""
    escaped = _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), text)
    # Made visible after escaping, so `\r` reads as `\r` in the raw file too; what visible() adds
    # (`\x1b`, `<U+202E>`) is plain text in Markdown: no tag name or URL scheme holds a `+`.
    return visible(escaped)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall("`+", text)), default=0)


def fence(text: str) -> str:
    """A backtick fence longer than any backtick run in `text` (CommonMark: then nothing inside
    can close it)."""
    return "`" * max(3, _longest_backtick_run(text) + 1)


def code_block(text: str) -> str:
    """`text` as a fenced Markdown code block whose content cannot end the block."""
    shown = block_text(text)
    mark = fence(shown)
    return f"{mark}\n{shown}\n{mark}"


def code_span(text: str) -> str:
    """`text` as an inline code span on one line, delimited by more backticks than it holds."""
    shown = visible(text) or " "
    mark = "`" * (_longest_backtick_run(shown) + 1)
    # CommonMark strips one space at each end when both are there; pad when the content would
    # otherwise merge with the delimiters or lose its own spaces.
    pad = " " if shown[0] in "` " or shown[-1] in "` " else ""
    return f"{mark}{pad}{shown}{pad}{mark}"
