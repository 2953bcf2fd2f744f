"""Hostile text in a run (replies, model names, questions, seed ids, the folder's name) reaches the
report as text: never as HTML, Markdown structure, terminal escape sequences, or writes outside."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from isodyn.analysis.markdown import markdown_table
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.plot_parts import label
from isodyn.analysis.run_report import UnsafeOutputError, build_report, render_markdown, write_report
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import CellResult
from isodyn.textsafe import block_text, code_block, code_span, fence, markdown_text, terminal_text
from user_cli import exp

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
BREAK = "</table><h1>"
SVG = '<svg onload="window.__pwned=4"><script>window.__pwned=5</script></svg>'
JS_LINK = '<a href="javascript:window.__pwned=3">click</a> [md](javascript:window.__pwned=6)'
FENCE_BREAK = "```\n# Fake heading\n<b>raw html</b>\n````` \n## another"
TITLE = "\x1b]0;pwned title\x07"  # OSC 0: sets the window title
CLEAR = "\x1b[2J\x1b[H"  # CSI: clear the screen, cursor home
FAKE = "\rall 100% correct\x1b[K"  # carriage return over the line, then erase the rest
OSC8 = "\x1b]8;;http://evil.example/\x1b\\trusted link\x1b]8;;\x1b\\"  # a terminal hyperlink
CURSOR = "\x1b[3A\x1b[10C"  # CSI cursor up 3, right 10
C1_CSI = "\x9b2J"  # the one-character C1 CSI
RLO = "\u202eevil.exe\u202c"  # right-to-left override
ISOLATES = "\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
NUL = "a\x00b"

REPLY = "\n".join([SCRIPT, IMG, BREAK, SVG, JS_LINK, "<!-- hidden", FENCE_BREAK, NUL, TITLE, CLEAR])
TAIL = "".join([OSC8, CURSOR, C1_CSI, RLO, ISOLATES, FAKE])
MODEL = f"m{IMG}\r| fake | row |\u2028x$\\frac{{"  # also an unbalanced mathtext in plot labels
KEY = f"k{BREAK}\n| fake | key |"
QUESTION = f"{SCRIPT} What is 1+1?"
# `exp report` reads a word with "=" as a setting, so the folder's markup has no attribute value
FOLDER = f"run<h1>big<img src onerror>{RLO}\x1b[31m"
TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MD = MarkdownIt("commonmark").enable("table")
FAST = Bootstrap(resamples=200)


def shown(inline: Token) -> str:
    """The text a Markdown viewer shows for an inline token (its source may hold escapes)."""
    return "".join(c.content for c in inline.children or [])


def hostile_rows(reply: str = REPLY + TAIL) -> list[dict[str, Any]]:
    """Four wrong cells (all shown as samples), two of them read with hesitation."""
    rows = []
    for seed in (KEY, "plain"):
        for variant in (0, 1):
            rows.append({
                "model": MODEL, "strategy": "s|t", "modality": "latex", "seed_id": seed, "variant": variant,
                "topic": "algebra", "level": "high_school", "answer_type": "text", "question": QUESTION,
                "truth": f"2`{SCRIPT}", "extracted": "``3``", "correct": False, "reason": "ok",
                "method": "last number", "ambiguity": "several_values" if variant else "clear",
                "response": reply, "variation_types": ["numerical_value"],
                "transcript": [{"step": "answer", "messages": [{"role": "user", "content": QUESTION}],
                                "response": reply}],
            })  # fmt: skip
    return rows


def write_run(parent: Path, name: str = FOLDER) -> Path:
    run_dir = parent / name
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in hostile_rows()))
    (run_dir / "config.json").write_text(json.dumps({"models": [MODEL], "strategies": ["s|t"]}))
    return run_dir


# ---------------------------------------------------------------------------- pure functions


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence("no ticks") == "```"
    assert fence("a ``````` b") == "````````"
    for text in (FENCE_BREAK, "````\n```", "x`"):
        tokens = [
            t for t in MD.parse(code_block(text) + "\n\n# after") if t.type in ("fence", "heading_open")
        ]
        assert [t.type for t in tokens] == ["fence", "heading_open"]  # one block, closed where we close it
        assert tokens[0].content == text + "\n"


def test_code_span_keeps_text_on_one_line_and_literal() -> None:
    for text in ("2`x", "``3``", "`", " a ", f"{SCRIPT}\n# h"):
        (inline,) = [t for t in MD.parse(f"truth {code_span(text)} end") if t.type == "inline"]
        spans = [c for c in inline.children or [] if c.type == "code_inline"]
        assert len(spans) == 1 and spans[0].content == text.replace("\n", "\\n")


def test_markdown_table_cells_cannot_add_rows_or_columns() -> None:
    import pandas as pd

    hostile = [MODEL, KEY, "a\rb", "a\u2029b", "a\\|b", "x\x0by\x0cz", "\\", "a\u0085b"]
    table = pd.DataFrame({"model": hostile, "value": range(len(hostile))})
    tokens = MD.parse(markdown_table(table))
    assert sum(t.type == "tr_open" for t in tokens) == len(hostile) + 1
    cells = [shown(t) for t in tokens if t.type == "inline"]
    assert len(cells) == 2 * (len(hostile) + 1)
    assert cells[2] == 'm<img src=x onerror="window.__pwned=2">\\r| fake | row |<U+2028>x$\\frac{'
    assert not any(t.type.startswith("html") for t in tokens)


def test_markdown_text_makes_no_markup() -> None:
    for text in (SCRIPT, IMG, "<!-- c -->", "[x](javascript:alert(1))", "![i](http://evil.example/p.png)",
                 "<http://evil.example>", "\\<b>x</b>"):  # fmt: skip
        tokens = MD.parse(f"# {markdown_text(text)}")
        (inline,) = [t for t in tokens if t.type == "inline"]
        kinds = {c.type for c in inline.children or []}
        assert kinds == {"text"}, (text, kinds)
        assert "".join(c.content for c in inline.children or []) == text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (TITLE, "\\x1b]0;pwned title\\x07"),
        (CLEAR, "\\x1b[2J\\x1b[H"),
        (FAKE, "\\rall 100% correct\\x1b[K"),
        (OSC8, "\\x1b]8;;http://evil.example/\\x1b\\trusted link\\x1b]8;;\\x1b\\"),
        (CURSOR, "\\x1b[3A\\x1b[10C"),
        (C1_CSI, "\\x9b2J"),
        (RLO, "<U+202E>evil.exe<U+202C>"),
        (ISOLATES, "<U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+061C>"),
        (NUL, "a\\x00b"),
        ("\ud800", "<U+D800>"),
        ("keep\n\ttabs and lines ünïcødé", "keep\n\ttabs and lines ünïcødé"),
    ],
)
def test_terminal_text_shows_controls(raw: str, shown: str) -> None:
    assert terminal_text(raw) == shown


def test_plot_labels_are_never_mathtext() -> None:
    assert label("a$\\frac{$b\x1b") == "a\\$\\frac{\\$b\\x1b"


# ---------------------------------------------------------------------------- the report


def test_report_md_keeps_hostile_text_as_text(tmp_path) -> None:
    results = [CellResult.from_row(r) for r in hostile_rows()]
    md = render_markdown(build_report(results, None, {"models": [MODEL]}, FOLDER, FAST))
    assert not TERMINAL_CONTROLS.search(md) and "\r" not in md
    tokens = MD.parse(md)
    assert not [t for t in tokens if t.type.startswith("html")]
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    assert not [c for c in inline if c.type.startswith("html") or c.type == "link_open"]
    assert {c.attrs["src"] for c in inline if c.type == "image"} <= {
        f"figures/{n}.png" for n in ("summary", "accuracy_by_topic", "rr", "correct_variants")
    }
    headings = [shown(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "Fake heading" not in headings and "another" not in headings
    assert headings[0] == "isodyn run run<h1>big<img src onerror><U+202E>evil.exe<U+202C>\\x1b[31m"
    fences = [t.content for t in tokens if t.type == "fence"]
    assert fences.count(block_text(REPLY + TAIL) + "\n") == 4  # each whole reply in one block, as sent
    assert fences.count(QUESTION + "\n") == 4
    assert "\\x1b]0;pwned title\\x07" in fences[1] and "\\rall 100% correct" in fences[1]
    overview = next(i for i, t in enumerate(tokens) if t.type == "table_open")
    rows = tokens[overview : next(i for i, t in enumerate(tokens) if t.type == "table_close")]
    assert sum(t.type == "tr_open" for t in rows) == 2  # header and the one model, no fake row


def test_lone_surrogate_does_not_stop_the_report(tmp_path) -> None:
    results = [CellResult.from_row(r) for r in hostile_rows(reply="x\ud800y")]
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    path = write_report(RunFolder(run_dir), results, FAST)
    assert "x<U+D800>y" in path.read_text(encoding="utf-8")
    assert "x&lt;U+D800&gt;y" in (run_dir / "report.html").read_text(encoding="utf-8")


def test_links_inside_the_run_folder_are_replaced_not_followed(tmp_path) -> None:
    results = [CellResult.from_row(r) for r in hostile_rows()[:1]]
    run_dir = tmp_path / "run"
    (run_dir / "figures").mkdir(parents=True)
    precious = run_dir / "results.keep"
    precious.write_text("results")
    (run_dir / "report.md").symlink_to("results.keep")
    (run_dir / "figures" / "rr.png").symlink_to("../results.keep")
    write_report(RunFolder(run_dir), results, FAST)
    assert precious.read_text() == "results"
    assert not (run_dir / "report.md").is_symlink() and not (run_dir / "figures" / "rr.png").is_symlink()
    assert not [p for p in run_dir.rglob("*.tmp")]


def test_figures_as_a_link_is_refused_before_anything_is_written(tmp_path) -> None:
    results = [CellResult.from_row(r) for r in hostile_rows()[:1]]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "figures").symlink_to(outside)
    with pytest.raises(UnsafeOutputError, match="symbolic link"):
        write_report(RunFolder(run_dir), results, FAST)
    (run_dir / "figures").unlink()
    (run_dir / "figures").mkdir()
    (run_dir / "figures" / "rr.png").symlink_to(outside / "rr.png")
    with pytest.raises(UnsafeOutputError, match="leads outside"):
        write_report(RunFolder(run_dir), results, FAST)
    assert not list(outside.iterdir()) and not (run_dir / "report.md").exists()


# ---------------------------------------------------------------------------- `exp report`, as typed


def test_exp_report_prints_no_escape_sequences(tmp_path) -> None:
    run_dir = write_run(tmp_path)
    done = exp("report", str(run_dir), "resamples=200")
    assert done.returncode == 0, done.stderr
    assert not TERMINAL_CONTROLS.search(done.stdout + done.stderr) and "\r" not in done.stdout
    assert "\\x1b]0;pwned title\\x07" in done.stdout and "<U+202E>evil.exe" in done.stdout
    assert "\n" + "all 100% correct" not in done.stdout  # the fake line stays after a visible \r
    assert done.stdout == (run_dir / "report.md").read_text(encoding="utf-8")
    assert "\\x1b[31m" in done.stderr  # the folder's name, as printed after "report:"
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert SCRIPT not in html and IMG not in html and BREAK not in html and "\x1b" not in html
    for name in ("accuracy_by_topic", "rr", "correct_variants"):
        assert (run_dir / "figures" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
    if CHROMIUM:
        check_in_chromium(run_dir / "report.html", tmp_path)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROBE = """<script id=probe>window.onload=()=>{
document.querySelectorAll('details').forEach(d=>{d.open=true;});  // innerText skips closed details
const text=document.body.innerText;
const n=s=>document.querySelectorAll(s).length;
document.title='probe:'+JSON.stringify({pwned:window.__pwned===undefined?0:window.__pwned,
scripts:[...document.scripts].filter(s=>s.id!=='probe'&&s.textContent.includes('__pwned=')).length,
onerror:n('[onerror]'),onload:n('[onload]'),svg:n('svg'),iframe:n('iframe'),h1:n('h1'),
js:[...document.querySelectorAll('[href],[src]')]
.filter(e=>/^javascript:/i.test(e.getAttribute('href')||e.getAttribute('src'))).length,
tables:n('table'),texts:%s.map(t=>text.includes(t))}).replace(/"/g,'');}</script>"""


def check_in_chromium(page: Path, tmp_path: Path) -> None:
    """Open the page as a browser does and read its DOM after load: nothing hostile ran or parsed."""
    texts = [SCRIPT, IMG, BREAK, SVG.split("<script>")[0], '<a href="javascript:', "<!-- hidden",
             "m<img src=x onerror", "k</table><h1>", "run<h1>big<img src onerror>", "\\x1b]0;pwned title",
             "<U+202E>evil.exe"]  # fmt: skip
    html = page.read_text(encoding="utf-8")
    head, tail = html.rsplit("</body>", 1)
    probe = tmp_path / "probe.html"
    probe_script = PROBE % json.dumps(texts).replace("<", "\\u003c")  # no "</script>" inside it
    probe.write_text(head + probe_script + "</body>" + tail, encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]  # fmt: skip
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    found = re.search(r"<title>probe:\{(.*?)\}</title>", dom.stdout)
    assert found, dom.stdout[:500]
    values = dict(re.findall(r"(\w+):(\[[^\]]*\]|[^,]+)", found.group(1)))
    assert {k: values[k] for k in ("pwned", "scripts", "onerror", "onload", "svg", "iframe", "h1", "js")} == {
        "pwned": "0", "scripts": "0", "onerror": "0", "onload": "0", "svg": "0", "iframe": "0", "h1": "1",
        "js": "0",
    }  # fmt: skip
    assert int(values["tables"]) >= 5
    assert values["texts"] == "[" + ",".join(["true"] * len(texts)) + "]"


def test_exp_report_refuses_links_out_of_the_run_folder(tmp_path) -> None:
    run_dir = write_run(tmp_path, "run")
    outside = tmp_path / "dotfile"
    outside.write_text("precious\n")
    (run_dir / "report.md").symlink_to(outside)
    (run_dir / "report.html").symlink_to(outside)
    done = exp("report", str(run_dir), "resamples=200")
    assert done.returncode == 2 and outside.read_text() == "precious\n"
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: refusing to write") and "leads outside" in line
