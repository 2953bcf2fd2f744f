"""The runner against a real OpenAI-compatible HTTP server on loopback, through litellm."""

import asyncio
import base64
import json

import pytest

from isodyn.core import Modality
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.generators import get_seed
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

SEED = "dynamath_shifted_abs"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def images_in(request: dict) -> list[bytes]:
    found = []
    for message in request["messages"]:
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part["type"] == "image_url":
                    url = part["image_url"]["url"]
                    assert url.startswith("data:image/png;base64,")
                    found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


@pytest.fixture
def words(tmp_path):
    return [
        f"out={tmp_path / 'runs'}",
        f"cache_dir={tmp_path / 'cache'}",
        f"seeds={SEED}",
        "variants=3",
        "quiet=1",
    ]


def test_image_arrives_as_data_uri_and_rerun_makes_zero_calls(words) -> None:
    with OpenAIStub(
        lambda request: ScriptedReply(text='```json\n{"solution": "s", "short answer": "A"}\n```')
    ) as stub:
        args = [*words, "models=openai/stub-vlm", f"api_base={stub.base_url}", "vision=yes"]
        first = run(args)
        assert first.summary.calls_made == 6  # 3 variants x (image, latex)
        image_requests = [r for r in stub.requests if images_in(r)]
        assert len(image_requests) == 3
        seed = get_seed(SEED)
        sent = sorted(images_in(r)[0] for r in image_requests)
        expected = sorted(seed.representation(seed.variant(i), Modality.IMAGE).image_png for i in range(3))
        assert sent == expected
        assert all(png.startswith(PNG_SIGNATURE) for png in sent)

        second = run(args)
        assert len(stub.requests) == 6  # nothing new reached the server
    assert second.summary.calls_made == 0
    assert second.summary.cache_hits == 6
    assert second.summary.cost_usd == 0
    key = lambda row: (row["modality"], row["variant"])  # noqa: E731
    strip = lambda row: {k: v for k, v in row.items() if k not in ("transcript", "cache_hit")}  # noqa: E731
    assert [strip(r) for r in sorted(first.rows, key=key)] == [strip(r) for r in sorted(second.rows, key=key)]
    assert all(r["cache_hit"] for r in second.rows)
    # the scripted answer "A" is right exactly where the truth is A
    assert all(r["correct"] == (r["truth"] == "A") for r in first.rows)
    summary = json.loads(second.folder.summary_file.read_text())
    assert {"cells", "calls_made", "cache_hits", "cost_usd", "skipped", "errors"} <= summary.keys()


def test_text_only_model_skips_image_cells_without_calling(words) -> None:
    with OpenAIStub() as stub:
        outcome = run([*words, "models=openai/stub-llm", f"api_base={stub.base_url}", "vision=no"])
        assert all(not images_in(r) for r in stub.requests)
        assert len(stub.requests) == 3
    image_rows = [r for r in outcome.rows if r["modality"] == "image"]
    assert len(image_rows) == 3
    assert {r["reason"] for r in image_rows} == {"skipped: model has no vision"}
    assert all(r["correct"] is None and r["response"] is None for r in image_rows)
    assert outcome.summary.skipped == 3


def test_server_errors_are_recorded_per_cell_not_cached(words) -> None:
    with OpenAIStub(lambda request: ScriptedReply(text="bad request", status=400)) as stub:
        args = [*words, "models=openai/stub", f"api_base={stub.base_url}", "modalities=latex"]
        outcome = run(args)
        assert {r["reason"] for r in outcome.rows} == {"error:bad_request"}
        assert outcome.summary.errors == 3
        again = run(args)
        assert again.summary.calls_made == 3  # failures are never served from the cache


def test_results_are_appended_as_cells_finish(words) -> None:
    with OpenAIStub() as stub:
        outcome = run([*words, "models=openai/stub", f"api_base={stub.base_url}", "modalities=latex"])
    lines = outcome.folder.results_file.read_text().splitlines()
    assert len(lines) == outcome.summary.cells == 3
    assert {json.loads(line)["variant"] for line in lines} == {0, 1, 2}


def test_planted_api_key_never_reaches_disk(words, tmp_path, monkeypatch) -> None:
    secret = "sk-planted-4f7a9c0d1e2b3a4f5e6d7c8b"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with OpenAIStub() as stub:
        # a custom server gets a key only when named (issue 15): name it, so it is really sent
        outcome = run([*words, "models=openai/stub", f"api_base={stub.base_url}", "vision=yes",
                       "api_key_env=OPENAI_API_KEY"])  # fmt: skip
        assert any(secret in str(h.values()) for h in stub.headers)  # it was really used
    assert outcome.summary.calls_made == 6
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
