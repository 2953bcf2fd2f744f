"""Bounded by design, not by luck; derived files are not evidence (issue 38, the second audit).

Each test is a harm the audit found, tried again: a model server's gzip bomb, a planted viewer
index, a report over thousands of models, a hard-linked marks file, a right-to-left override in a
model name, idle viewer connections, a list setting given twice, negative token usage.
"""

from __future__ import annotations

import asyncio
import gzip
import html
import io
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest

from isodyn.models.bounded import ReplyTooLarge, read_bounded
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import user_env

# ---- a reply body has a bound on its decoded size ------------------------------------------------


def _read(body: bytes, encoding: str, limit: int) -> bytes:
    headers = {"content-encoding": encoding} if encoding else {}

    async def go() -> bytes:
        return await read_bounded(httpx.Response(200, headers=headers, stream=httpx.ByteStream(body)), limit)

    return asyncio.run(go())


def test_a_body_within_the_bound_reads_whole_in_each_encoding() -> None:
    text = b'{"x": "' + b"a" * 5_000 + b'"}'
    assert _read(text, "", 10_000) == text
    assert _read(gzip.compress(text), "gzip", 10_000) == text
    assert _read(zlib.compress(text), "deflate", 10_000) == text
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    assert _read(raw.compress(text) + raw.flush(), "deflate", 10_000) == text  # raw deflate, as some send
    assert _read(text, "", len(text)) == text  # exactly at the bound


def test_a_body_past_the_bound_is_refused_before_it_is_inflated() -> None:
    bomb = gzip.compress(b"a" * 50_000_000)  # about 50 KB that inflates to 50 MB
    with pytest.raises(ReplyTooLarge, match=r"over 1,000,000 bytes decoded.*ISODYN_MAX_REPLY_MB"):
        _read(bomb, "gzip", 1_000_000)
    with pytest.raises(ReplyTooLarge, match="over 10 bytes"):
        _read(b"a" * 11, "", 10)


def test_an_encoding_that_cannot_be_bounded_is_refused() -> None:
    with pytest.raises(ReplyTooLarge, match="'br'"):
        _read(b"\x00" * 10, "br", 1_000)


# Runs `exp ARGS` and prints this process's peak resident memory (KB) on stderr, after `peak_kb` (not
# always the last line: litellm's finalizers may complain at exit).
_PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = ['exp', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('isodyn', run_name='__main__')\n"
    "finally:\n"
    "    print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
)


def _run_against(reply: ScriptedReply, tmp_path: Path, name: str) -> tuple[int, list[dict], int]:
    """One cell against a stub giving `reply`, with an 8 MB reply bound: exit code, rows, peak KB."""
    with OpenAIStub(lambda request: reply) as stub:
        words = [
            "run", "models=openai/any", f"api_base={stub.base_url}", "seeds=isobench_parity", "variants=1",
            "modalities=latex", f"out={tmp_path / name}", f"cache_dir={tmp_path / 'cache'}", "quiet=1",
            "max_retries=0",
        ]  # fmt: skip
        env = user_env(ISODYN_MAX_REPLY_MB="8")
        done = subprocess.run([sys.executable, "-c", _PEAK, *words], capture_output=True, text=True, env=env)
    (run,) = (tmp_path / name).iterdir()
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    (peak,) = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("peak_kb ")]
    return done.returncode, rows, int(peak)


def test_a_gzip_bomb_from_a_server_fails_the_cell_with_its_reason_in_bounded_memory(tmp_path) -> None:
    code, rows, plain_kb = _run_against(ScriptedReply(), tmp_path, "plain")
    assert code == 0 and rows[0]["reason"] != "error:reply_too_large"
    code, rows, bomb_kb = _run_against(ScriptedReply(gzip_bomb_mb=200), tmp_path, "bomb")
    assert code == 1  # every cell failed
    assert rows[0]["reason"] == "error:reply_too_large"
    assert "over 8,000,000 bytes decoded" in rows[0]["error"]
    # read whole, the 200 MB reply took over 1 GB more than a plain run; bounded, a few MB
    assert bomb_kb - plain_kb < 100_000, (plain_kb, bomb_kb)


# ---- a server's token usage cannot make a cost below zero ----------------------------------------


@pytest.mark.parametrize(("prompt", "completion"), [(-1_000_000, -5), (10, -1_000_000)])
def test_negative_usage_gives_no_cost_below_zero(prompt, completion) -> None:
    from isodyn.experiments.llm import call_litellm
    from isodyn.models.requests import ModelRequest

    script = ScriptedReply(prompt_tokens=prompt, completion_tokens=completion)
    with OpenAIStub(lambda request: script) as stub:
        # a model with a price in litellm's table, served by the stub
        messages = [{"role": "user", "content": "hi"}]
        request = ModelRequest("openai/gpt-4o-mini", messages, api_base=stub.base_url)
        reply = asyncio.run(call_litellm(request, 30))
    assert reply.cost_usd >= 0 and reply.prompt_tokens >= 0 and reply.completion_tokens >= 0
    # what could be read is priced: 10 prompt tokens are not free
    assert (reply.cost_usd > 0) == (prompt == 10)


def test_a_token_count_is_a_whole_number_not_below_zero() -> None:
    from isodyn.models.requests import token_count

    assert [token_count(v) for v in (0, 7, 7.9, "12", 1e3)] == [0, 7, 7, 12, 1000]
    assert [token_count(v) for v in (-1, float("nan"), float("inf"), "many", None, [3], True)] == [None] * 7


def test_a_batch_item_with_negative_usage_costs_nothing_below_zero() -> None:
    from isodyn.experiments.batch_jobs import _item

    usage = {"prompt_tokens": -(10**9), "completion_tokens": 3}
    body = {"choices": [{"message": {"content": "A"}}], "usage": usage}
    result = _item({"response": {"status_code": 200, "body": body}}, "openai/gpt-4o-mini")
    assert result.reply is not None
    assert result.reply.prompt_tokens == 0 and result.reply.completion_tokens == 3
    assert result.reply.cost_usd > 0


# ---- a list setting given twice plans each cell once ---------------------------------------------


@pytest.mark.parametrize(
    ("word", "field", "expected"),
    [
        ("modalities=latex,latex,image,latex", "modalities", ("latex", "image")),
        ("seeds=isobench_parity,isobench_parity", "seeds", ("isobench_parity",)),
        ("strategies=zeroshot,cot3,zeroshot", "strategies", ("zeroshot", "cot3")),
        ("models=openai/a,openai/b,openai/a", "models", ("openai/a", "openai/b")),
    ],
)
def test_a_list_setting_keeps_each_name_once_in_order(word, field, expected) -> None:
    from isodyn.runs.config import parse_overrides

    assert tuple(str(getattr(v, "value", v)) for v in getattr(parse_overrides([word]), field)) == expected


def test_modalities_given_twice_plan_each_cell_once(tmp_path) -> None:
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    def cells(modalities: str) -> int:
        words = [modalities, "seeds=isobench_parity", "variants=2"]
        words += [f"out={tmp_path}", f"cache_dir={tmp_path / 'c'}"]
        return len(plan_experiment(parse_overrides(words)).grid.cells)

    assert cells("modalities=latex,latex") == cells("modalities=latex") == 2


# ---- a character reference in a name renders as text in report.md -------------------------------

BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
REFERENCES = "&#x202E;&#8238;&rlm;&#X202e;&lrm;&#x2067;"


def _rows(model: str, seed: str) -> list[dict]:
    return [
        {"model": model, "strategy": "zeroshot", "modality": modality, "seed_id": seed, "variant": variant,
         "topic": "algebra", "level": "high_school", "answer_type": "int", "question": "q", "truth": "2",
         "extracted": "3", "correct": False, "reason": "ok", "response": "3"}
        for modality in ("latex", "image") for variant in (0, 1)
    ]  # fmt: skip


def test_character_references_in_names_render_as_text_in_report_md() -> None:
    from markdown_it import MarkdownIt

    from isodyn.analysis.metrics import Bootstrap
    from isodyn.analysis.run_report import build_report, render_markdown
    from isodyn.runs.results import CellResult

    model, seed = f"m{REFERENCES * 3}x", f"s{REFERENCES}"
    results = [CellResult.from_row(r) for r in _rows(model, seed)]
    content = build_report(results, None, {"models": [model]}, f"run{REFERENCES}", Bootstrap(resamples=50))
    md = render_markdown(content)
    assert "#x202E;" in md and not BIDI.search(md)  # the name is there, as typed
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    assert not BIDI.search(rendered), BIDI.findall(rendered)[:5]  # before: 18 live overrides and more
    assert not BIDI.search(html.unescape(rendered.replace("&amp;", "\x00")))  # no reference left live


# ---- a report's figures have a bound on their size, whatever the run holds ----------------------

MODELS = 300
MAX_PX = 4_000  # plot_parts.MAX_HEIGHT at 100 dpi


def _px(png: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return image.size


@pytest.fixture(scope="module")
def many_models() -> pd.DataFrame:
    """The graded cells of a run of 300 models (2 strategies, 2 modalities, 5 seeds, 2 variants)."""
    from isodyn.analysis.metrics import graded_cells
    from isodyn.runs.results import CellResult, results_frame

    rng = np.random.default_rng(3)
    (cell,) = _rows("x", "s")[:1]
    rows = []
    for m in range(MODELS):
        for strategy in ("zeroshot", "cot3"):
            for modality in ("latex", "image"):
                for seed in range(5):
                    for variant in (0, 1):
                        right = bool(rng.random() < 0.6)
                        rows.append({**cell, "model": f"provider/model-{m:04d}", "strategy": strategy,
                                     "modality": modality, "seed_id": f"s{seed}", "variant": variant,
                                     "correct": right, "extracted": "2" if right else "3"})  # fmt: skip
    return graded_cells(results_frame([CellResult.from_row(r) for r in rows]))


def test_figures_of_300_models_are_bounded_and_say_what_they_leave_out(many_models) -> None:
    from isodyn.analysis import plots
    from isodyn.analysis.columns import ARM
    from isodyn.analysis.metrics import Bootstrap, robustness_table
    from isodyn.analysis.modality import modality_gap
    from isodyn.runs.schema import Column

    fast = Bootstrap(resamples=20)
    arms = robustness_table(many_models, ARM, fast)
    by_topic = robustness_table(many_models, [*ARM, Column.topic], fast)
    gaps = plots.modality_gaps(modality_gap(many_models, "zeroshot"))
    figures = {
        "summary": plots.findings_summary(arms.assign(baseline=False, marks="")),
        "accuracy_by_topic": plots.accuracy_by_topic(by_topic),
        "rr": plots.rr_by_series(arms),
        "correct_variants": plots.correct_variants_per_seed(many_models),
        "error_types": plots.error_types(arms[list(ARM)].assign(judged=3, calculation=1, logic=2), ARM),
        **{f"modality_gap {number}": png for number, png in enumerate(gaps)},
    }
    assert len(figures) == 6
    for name, png in figures.items():
        width, height = _px(png)
        assert width <= 1_100 and height <= MAX_PX, (name, width, height)  # before: up to 26,060 px tall


def test_a_forest_of_many_comparisons_is_bounded() -> None:
    from isodyn.analysis.forest import MAX_LINES, ForestRow, forest_png

    rows = [ForestRow(f"model {i}", "baseline", "zeroshot / image", 1.0, -2.0, 4.0) for i in range(1_000)]
    width, height = _px(forest_png(rows, "Paired differences"))
    assert height <= MAX_PX and width <= 1_300
    assert MAX_LINES < 1_000
