"""exp rescore and exp judge on saved runs: no calls to the models under test; judge calls cached."""

import json
import subprocess
from functools import partial
from pathlib import Path

import user_cli
from isodyn.generators import get_seed
from isodyn.testing import OpenAIStub, ScriptedReply

exp = partial(user_cli.exp, timeout=120)  # re-grading calls no model under test


def row(seed_id: str, index: int, response: str, **overrides) -> dict:
    variant = get_seed(seed_id).variant(index)
    base = {
        "model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": seed_id, "variant": index,
        "repeat": 0, "topic": variant.topic.value, "level": variant.level.value,
        "answer_type": variant.answer_type.value, "truth": variant.answer, "choices": list(variant.choices),
        "percent_question": False, "response": response, "reason": "ok", "correct": None, "extracted": None,
    }  # fmt: skip
    return {**base, **overrides}


def write_run(tmp_path: Path, rows: list[dict]) -> Path:
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"base_seed": 0, "cache_dir": str(tmp_path / "cache")}))
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir


def rescored(run_dir: Path) -> tuple[list[dict], dict]:
    (out,) = [p for p in run_dir.parent.iterdir() if p.name.startswith("r1-rescored-")]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return rows, json.loads((out / "summary.json").read_text())


def test_rescore_with_a_wider_tolerance(tmp_path) -> None:
    rows = [
        row("dynamath_shifted_abs", 0, '{"short answer": "3.14"}', answer_type="float", truth="3.14159",
            choices=[]),
        row("dynamath_shifted_abs", 1, '{"short answer": "2.5004"}', answer_type="float", truth="2.5",
            choices=[]),
        row("dynamath_shifted_abs", 2, "", reason="skipped: model has no vision"),
    ]  # fmt: skip
    run_dir = write_run(tmp_path, rows)
    done = exp("rescore", str(run_dir))
    assert done.returncode == 0, done.stderr
    default, _ = rescored(run_dir)
    assert [r["correct"] for r in default] == [False, True, None]
    for p in run_dir.parent.glob("r1-rescored-*"):
        subprocess.run(["rm", "-r", str(p)], check=True)
    done = exp("rescore", str(run_dir), "abs_tol=0.01")
    assert done.returncode == 0, done.stderr
    wide, summary = rescored(run_dir)
    assert [r["correct"] for r in wide] == [True, True, None]
    assert wide[2]["reason"] == "skipped: model has no vision"  # never re-graded
    assert summary["judge"]["calls_made"] == 0


def test_rescore_bad_settings(tmp_path) -> None:
    run_dir = write_run(tmp_path, [row("isobench_parity", 0, "{}")])
    bad = exp("rescore", str(run_dir), "abs_tol=-1")
    assert bad.returncode == 2 and "bad value for abs_tol" in bad.stderr
    bad = exp("rescore", str(run_dir), "tolerance=1")
    assert bad.returncode == 2 and "unknown setting 'tolerance'; valid: abs_tol" in bad.stderr


def test_llm_extractor_reads_what_the_rules_cannot(tmp_path) -> None:
    truth = get_seed("isobench_parity").variant(0).answer
    # the answer is in the reply ("even", the first of the two named), though no rule reads it: the
    # judge's answer must be one the reply holds (`regrade.refusal`)
    rambling = (
        "It is either even or odd; plugging -x in shows it is the first of these two, so my verdict stands."
    )
    run_dir = write_run(
        tmp_path, [row("isobench_parity", 0, rambling, reason="extraction_failed", correct=False)]
    )

    def judge(request: dict) -> ScriptedReply:
        assert rambling in request["messages"][0]["content"]
        return ScriptedReply(text=json.dumps({"final answer": truth}))

    with OpenAIStub(judge) as stub:
        done = exp("rescore", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}")
        assert done.returncode == 0, done.stderr
        assert len(stub.requests) == 1
    (only,), summary = rescored(run_dir)
    assert (only["correct"], only["reason"], only["method"]) == (True, "ok", "judge")
    assert summary["judge"]["calls_made"] == 1


def test_process_evaluation_flow(tmp_path) -> None:
    wrong = json.dumps({"solution": "f(-x) equals f(x).\nSo it is even.", "short answer": "A"})
    rows = [
        row("isobench_parity", i, wrong, correct=get_seed("isobench_parity").variant(i).answer == "A")
        for i in range(6)
    ]
    run_dir = write_run(tmp_path, rows)
    n_wrong = sum(not r["correct"] for r in rows)

    def judge(request: dict) -> ScriptedReply:
        prompt = request["messages"][0]["content"]
        assert "Reference solution:" in prompt and "1. f(-x) equals f(x)." in prompt
        return ScriptedReply(text='```json\n{"first_wrong_step": 1, "error_type": "calculation", '
                             '"explanation": "f(-x) was simplified wrongly."}\n```')  # fmt: skip

    with OpenAIStub(judge) as stub:
        done = exp("judge", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}")
        assert done.returncode == 0, done.stderr
        assert len(stub.requests) == n_wrong
        again = exp("judge", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}")
        assert len(stub.requests) == n_wrong  # replayed from the cache
    assert "0 calls" in again.stderr
    records = [json.loads(line) for line in (run_dir / "process.jsonl").read_text().splitlines()]
    assert len(records) == n_wrong
    assert all(r["error_type"] == "calculation" and r["first_wrong_step"] == 1 for r in records)
    report = (run_dir / "process.md").read_text()
    assert f"| m | zeroshot | latex | {n_wrong} | 0 | 0 | {n_wrong} |" in report


def test_judge_requires_a_model(tmp_path) -> None:
    run_dir = write_run(tmp_path, [row("isobench_parity", 0, "{}")])
    done = exp("judge", str(run_dir))
    assert done.returncode == 2 and "judge=MODEL is required" in done.stderr
