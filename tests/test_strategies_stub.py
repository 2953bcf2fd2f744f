"""Strategies end to end through litellm against the loopback OpenAI-compatible server."""

import asyncio
import json

import pytest

from isodyn.errors import ConfigError
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

DESCRIPTION = "A graph with nodes 0 to 8; STUB-DESCRIPTION-MARKER"


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def has_image(request: dict) -> bool:
    return any(
        isinstance(m["content"], list) and any(p["type"] == "image_url" for p in m["content"])
        for m in request["messages"]
    )


def all_text(request: dict) -> str:
    out = []
    for m in request["messages"]:
        content = m["content"]
        out.append(content if isinstance(content, str) else " ".join(p.get("text", "") for p in content))
    return "\n".join(out)


def script(request: dict) -> ScriptedReply:
    if "Describe this image completely" in all_text(request):
        return ScriptedReply(text=DESCRIPTION)
    return ScriptedReply(text='{"solution": "...", "short answer": "A"}')


@pytest.fixture
def base(tmp_path):
    return [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1", "variants=2"]


def test_isosp_two_steps_through_the_server(base) -> None:
    with OpenAIStub(script) as stub:
        outcome = run([*base, "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes",
                       "strategies=isosp", "seeds=isobench_connectivity", "modalities=image"])  # fmt: skip
        describes = [r for r in stub.requests if "Describe this image completely" in all_text(r)]
        answers = [r for r in stub.requests if r not in describes]
        assert len(describes) == len(answers) == 2
        assert all(has_image(r) for r in describes)
        assert not any(has_image(r) for r in answers)
        assert all(DESCRIPTION in all_text(r) for r in answers)
        again = run([*base, "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes",
                     "strategies=isosp", "seeds=isobench_connectivity", "modalities=image"])  # fmt: skip
        assert len(stub.requests) == 4  # the rerun was served from the cache
    for row in outcome.rows:
        assert [t["step"] for t in row["transcript"]] == ["describe", "answer"]
        assert row["transcript"][0]["response"] == DESCRIPTION
        assert row["reason"] == "ok"
    assert again.summary.calls_made == 0 and again.summary.cache_hits == 4


def test_isosp_vision_describer_for_text_only_solver(base) -> None:
    with OpenAIStub(script) as stub:
        outcome = run([*base, "models=openai/text-only", "describer=openai/describer",
                       "vision=openai/describer", f"api_base={stub.base_url}", "strategies=isosp",
                       "seeds=isobench_parity", "modalities=image"])  # fmt: skip
        models = [(r["model"], has_image(r)) for r in stub.requests]
    assert sorted(models) == [("describer", True)] * 2 + [("text-only", False)] * 2
    assert {t["model"] for row in outcome.rows for t in row["transcript"]} == {
        "openai/describer",
        "openai/text-only",
    }


def test_isosp_on_text_cells_is_skipped_or_rejected(base) -> None:
    with OpenAIStub(script) as stub:
        outcome = run([*base, "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes",
                       "strategies=isosp", "seeds=isobench_parity", "modalities=image,latex"])  # fmt: skip
    latex = [r for r in outcome.rows if r["modality"] == "latex"]
    assert {r["reason"] for r in latex} == {"skipped: isosp runs only on image cells"}
    with pytest.raises(ConfigError, match="strategy isosp needs the image modality; chosen: latex"):
        plan_experiment(parse_overrides([*base, "strategies=isosp", "modalities=latex"]))
    with pytest.raises(ConfigError, match="describer openai/text has no vision"):
        plan_experiment(parse_overrides([*base, "api_base=http://127.0.0.1:9/v1", "describer=openai/text",
                                         "vision=no"]))  # fmt: skip


def test_self_consistency_makes_k_distinct_cached_calls(base) -> None:
    replies = iter(["A", "B", "B"] * 10)

    def voting(request: dict) -> ScriptedReply:
        return ScriptedReply(text=json.dumps({"short answer": next(replies)}))

    words = [*base, "variants=1", "models=openai/m", "strategies=sc@3", "seeds=dynamath_shifted_abs",
             "modalities=latex", "temperature=0.7"]  # fmt: skip
    with OpenAIStub(voting) as stub:
        outcome = run([*words, f"api_base={stub.base_url}"])
        again = run([*words, f"api_base={stub.base_url}"])
        assert len(stub.requests) == 3  # the rerun made none
    (row,) = outcome.rows
    assert row["strategy"] == "sc@3+zeroshot"
    assert len({t["key"] for t in row["transcript"]}) == 3
    assert sorted(row["notes"]["votes"]) == ["A", "B", "B"]
    assert row["extracted"] == "B"
    assert again.rows[0]["extracted"] == "B"


def test_permute_rows_record_rotation_and_rotated_truth(base) -> None:
    with OpenAIStub(script) as stub:
        outcome = run([*base, "models=openai/m", f"api_base={stub.base_url}", "strategies=permute",
                       "seeds=isobench_parity", "modalities=latex", "repeats=3"])  # fmt: skip
    by_repeat = {(r["variant"], r["repeat"]): r for r in outcome.rows}
    for variant in range(2):
        truths = [by_repeat[(variant, k)]["truth"] for k in range(3)]
        assert len(set(truths)) == 3  # the right option moves through all three letters
        assert [by_repeat[(variant, k)]["notes"]["choice_order"][0] for k in range(3)] == [0, 1, 2]
