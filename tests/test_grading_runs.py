"""Grading end to end, through `exp` and the loopback stub: free-form replies graded as a person reads
them, graders named on the command line, the judge as a fallback for uncertain replies and as an
audit of clear ones, and the report's grader sensitivity."""

import json
import math
import random
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from isodyn.core import AnswerType
from isodyn.generators import all_seeds, get_seed
from isodyn.scoring import score
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import fill, oracle_from_items, prompt_text, renderings, wrong_answer
from user_cli import exp

JUDGE_WORDING = (
    "Below are a math question and a student's reply. Identify the final answer the student commits to."
)
# Seeds whose prose the isodyn grader reads in full (see the known failures of the sweep below): an
# option (letter or text), an int and a float answer; latex, code and story between them.
SEEDS = ("isobench_parity", "dynamath_venn_count", "dynamath_stem_leaf_mean", "isobench_chess_winner")
ACCURACY = {"latex": 0.7, "code": 0.4, "story": 1.0}
GRADERS = ("isodyn", "dynamath", "mmmath", "strict-json")


def read_rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def read_json(path: Path) -> dict:
    return json.loads(path.read_text())


def rescored_dirs(run_dir: Path) -> list[Path]:
    return sorted(p for p in run_dir.parent.iterdir() if p.name.startswith(f"{run_dir.name}-rescored-"))


def asked(row: dict) -> str:
    """The prompt text of a row's one call, as the stub saw it."""
    return prompt_text({"messages": row["transcript"][0]["messages"]})


# ---- a run answered wholly in prose ---------------------------------------------------------------


@pytest.fixture(scope="module")
def prose_run(tmp_path_factory):
    """One `exp run` whose every reply is free-form; `decisions` says per prompt whether the stub
    answered right. The stub stays up for the module (the cache is keyed by its address)."""
    root = tmp_path_factory.mktemp("prose")
    data, cache = root / "data", root / "cache"
    made = exp("generate", f"task={','.join(SEEDS)}", "n=3", f"out={data}", f"cache_dir={cache}")
    assert made.returncode == 0, made.stderr
    items = [json.loads(line) for line in (data / "items.jsonl").read_text().splitlines()]
    decisions: dict[str, bool] = {}
    oracle = oracle_from_items(items, ACCURACY, seed=3, style="prose", decisions=decisions)
    with OpenAIStub(oracle) as stub:
        words = ["models=openai/stub-model", f"api_base={stub.base_url}", f"seeds={','.join(SEEDS)}",
                 "modalities=latex,code,story", "variants=3", f"cache_dir={cache}", "quiet=1"]  # fmt: skip
        done = exp("run", *words, f"out={root / 'runs'}")
        assert done.returncode == 0, done.stderr
        (run_dir,) = (root / "runs").iterdir()
        yield SimpleNamespace(root=root, run_dir=run_dir, decisions=decisions, words=words, stub=stub)


def test_free_form_replies_are_graded_as_a_person_reads_them(prose_run) -> None:
    rows = read_rows(prose_run.run_dir)
    assert len(rows) == len(prose_run.decisions) == 27  # 3 variants: 2 text modalities each, chess 3
    right = [prose_run.decisions[asked(r)] for r in rows]
    assert 0 < sum(right) < len(rows)  # both right and wrong answers were given
    assert all(not r["response"].lstrip().startswith("{") for r in rows)  # no reply is JSON
    assert len({r["method"] for r in rows}) >= 3  # several free-form shapes were read
    disagreements = [
        (r["seed_id"], r["modality"], r["variant"], r["response"], r["extracted"], r["ambiguity"])
        for r, ok in zip(rows, right, strict=True)
        if r["correct"] is not ok or r["reason"] != "ok" or r["grader"] != "isodyn"
    ]
    assert disagreements == []
    # the same run graded by the strict JSON rule replays from the cache and reads nothing
    strict = exp("run", *prose_run.words, "grader=strict-json", f"out={prose_run.root / 'strict'}")
    assert strict.returncode == 0, strict.stderr
    (strict_dir,) = (prose_run.root / "strict").iterdir()
    assert read_json(strict_dir / "summary.json")["calls_made"] == 0
    strict_rows = read_rows(strict_dir)
    assert len(strict_rows) == len(rows)
    assert {(r["reason"], r["correct"], r["grader"]) for r in strict_rows} == {
        ("extraction_failed", False, "strict-json")
    }


@pytest.mark.parametrize("grader", ["dynamath", "mmmath"])
def test_rescore_by_a_named_grader(prose_run, tmp_path, grader) -> None:
    run_dir = tmp_path / grader / prose_run.run_dir.name
    shutil.copytree(prose_run.run_dir, run_dir)
    done = exp("rescore", str(run_dir), f"grader={grader}")
    assert done.returncode == 0, done.stderr
    (out,) = rescored_dirs(run_dir)
    config = read_json(out / "config.json")
    assert config["grader"] == grader and config["rescore"]["grader"] == grader
    rows = read_rows(out)
    assert len(rows) == 27 and {r["grader"] for r in rows} == {grader}
    if grader == "mmmath":  # only the last box counts: boxed replies as written, the rest unread
        for row in rows:
            boxed = "\\boxed{" in row["response"]
            assert row["reason"] == ("ok" if boxed else "extraction_failed"), row["response"]
            if boxed:
                assert row["correct"] is prose_run.decisions[asked(row)]


def test_report_shows_how_much_the_grader_matters(prose_run) -> None:
    done = exp("report", str(prose_run.run_dir))
    assert done.returncode == 0, done.stderr
    md = (prose_run.run_dir / "report.md").read_text()
    assert "## How verdicts were reached" in md
    table = sensitivity_table(md)
    assert {"isodyn", "dynamath", "mmmath", "strict-json", "spread"} <= set(table[0])
    rows = read_rows(prose_run.run_dir)
    a_avg = [t for t in table if t["metric"] == "A_avg"]
    assert {t["modality"] for t in a_avg} == {"latex", "code", "story"}
    for line in a_avg:
        right = [prose_run.decisions[asked(r)] for r in rows if r["modality"] == line["modality"]]
        assert abs(float(line["isodyn"]) - 100 * sum(right) / len(right)) < 0.051  # as a person grades
        assert line["strict-json"] == "0.0"  # no reply is JSON
        assert line["isodyn"] != line["strict-json"] or not any(right)
    assert any(t["isodyn"] != t["strict-json"] for t in a_avg)


def sensitivity_table(md: str) -> list[dict[str, str]]:
    """The rows of the report's grader sensitivity table, keyed by its header."""
    section = md.split("## Grader sensitivity", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|") and "---" not in line]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return [dict(zip(cells[0], row, strict=True)) for row in cells[1:]]


# ---- the judge, for the replies the rules are not sure of ---------------------------------------


def judge_row(index: int, response: str) -> dict:
    variant = get_seed("isobench_parity").variant(index)
    return {
        "model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": "isobench_parity",
        "variant": index, "repeat": 0, "topic": variant.topic.value, "level": variant.level.value,
        "answer_type": variant.answer_type.value, "truth": variant.answer, "choices": list(variant.choices),
        "percent_question": False, "question": variant.question, "response": response, "reason": "ok",
        "correct": None, "extracted": None, "ambiguity": "clear", "grader": "isodyn", "method": "json",
    }  # fmt: skip


# (reply, whether the isodyn grader reads it with certainty): three options of even / odd / neither
JUDGE_REPLIES = (
    ('{"solution": "Only even powers appear.", "short answer": "A"}', True),
    ("It could be A or C.", False),
    ("The function is odd.", True),
    ("I cannot determine this from the expression given.", False),
    ("B\n\nThe numerator has 3 terms and the denominator 2.", True),
    ("It is either even or neither, depending on the sign of x.", False),
    ("Replacing x by -x flips 2 signs, so the answer is (C) neither.", True),
    ("Final answer: A", True),
)


def write_judge_run(tmp_path: Path) -> tuple[Path, list[dict]]:
    rows = [judge_row(i, reply) for i, (reply, _) in enumerate(JUDGE_REPLIES)]
    for row in rows:  # the rows as `exp run` would have graded them
        graded = score(row["response"], row["truth"], row["answer_type"], tuple(row["choices"]),
                       question=row["question"])  # fmt: skip
        row.update(correct=graded.correct, extracted=graded.extracted, reason=graded.reason,
                   method=graded.method, ambiguity=graded.ambiguity)  # fmt: skip
    run_dir = tmp_path / "runs" / "r1"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"base_seed": 0, "cache_dir": str(tmp_path / "cache")}))
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run_dir, rows


def judge_prompts(stub: OpenAIStub) -> list[str]:
    return [p for p in map(prompt_text, stub.requests) if p.startswith(JUDGE_WORDING)]


def answer_a(request: dict) -> ScriptedReply:
    return ScriptedReply(text=json.dumps({"final answer": "A"}))


def test_judge_reads_only_the_uncertain_replies_and_is_cached(tmp_path) -> None:
    run_dir, rows = write_judge_run(tmp_path)
    uncertain = [r["response"] for r, (_, clear) in zip(rows, JUDGE_REPLIES, strict=True) if not clear]
    assert [r["response"] for r in rows if r["ambiguity"] != "clear"] == uncertain  # as built
    with OpenAIStub(answer_a) as stub:
        words = ["rescore", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}"]
        done = exp(*words)
        assert done.returncode == 0, done.stderr
        sent = judge_prompts(stub)
        assert len(stub.requests) == len(sent) == len(uncertain)
        assert sorted(next(u for u in uncertain if u in p) for p in sent) == sorted(uncertain)
        (out,) = rescored_dirs(run_dir)
        judged = read_rows(out)
        summary = read_json(out / "summary.json")
        assert summary["judged"] == len(uncertain) and summary["judge"]["calls_made"] == len(uncertain)
        for before, after in zip(rows, judged, strict=True):
            if before["response"] == "I cannot determine this from the expression given.":
                # the judge's A is in no way in this reply: refused, the rules' verdict stands
                read = (after["method"], after["extracted"], after["reason"])
                assert read == ("none", None, "extraction_failed")
                assert "not in the reply" in after["scores"]["judge"]["detail"]["refused"]
            elif before["response"] in uncertain:
                assert (after["method"], after["extracted"], after["reason"]) == ("judge", "A", "ok")
                assert after["correct"] is (before["truth"] == "A")
            else:
                assert after["method"] != "judge"
                assert (after["correct"], after["extracted"]) == (before["correct"], before["extracted"])
        shutil.rmtree(out)
        again = exp(*words)
        assert again.returncode == 0, again.stderr
        assert len(stub.requests) == len(uncertain)  # replayed from the judge's cache
    (out,) = rescored_dirs(run_dir)
    summary = read_json(out / "summary.json")
    assert summary["judge"]["calls_made"] == 0 and summary["judge"]["cache_hits"] == len(uncertain)
    assert read_rows(out) == judged


def test_audit_sends_a_sample_of_clear_verdicts_to_the_judge(tmp_path) -> None:
    run_dir, rows = write_judge_run(tmp_path)
    clear = [r for r in rows if r["ambiguity"] == "clear" and r["reason"] == "ok"]
    with OpenAIStub(answer_a) as stub:
        done = exp("rescore", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}", "audit=3")
        assert done.returncode == 0, done.stderr
        sent = judge_prompts(stub)
    assert len(stub.requests) == len(sent)
    (out,) = rescored_dirs(run_dir)
    audit = read_json(out / "summary.json")["audit"]
    assert audit["sampled"] == min(3, len(clear)) and audit["clear_verdicts"] == len(clear)
    sampled = [r for r in clear if any(r["response"] in p for p in sent)]
    assert len(sampled) == audit["sampled"]  # the judge was asked about each sampled clear reply
    assert len(sent) == audit["sampled"] + sum(r["ambiguity"] != "clear" for r in rows)
    # the judge says A throughout: it disagrees with the rules where they judged otherwise
    expected = [r for r in sampled if r["correct"] is not (r["truth"] == "A")]
    assert len(audit["disagreements"]) == len(expected)
    assert audit["agreement"] == pytest.approx(1 - len(expected) / len(sampled))
    for key in ("kappa", "kappa_low", "kappa_high"):
        value = audit[key]
        assert value is None or math.isnan(value) or -1 <= value <= 1, (key, value)


def test_audit_needs_a_judge(tmp_path) -> None:
    run_dir, _ = write_judge_run(tmp_path)
    done = exp("rescore", str(run_dir), "audit=3")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "audit" in lines[0] and "judge" in lines[0]
    assert rescored_dirs(run_dir) == []


# ---- the oracle's prose, seed by seed, and bugs found on the way -----------------------------------


def spoken_answers(answer: str, answer_type: AnswerType, choices: list[str], index: int) -> list[str]:
    """Every option's letter; a number right and wrong; a text answer only right (its wrong form,
    `X (wrong)`, is no realistic reply)."""
    if choices:
        return [chr(65 + i) for i in range(len(choices))]
    if answer_type is AnswerType.TEXT:
        return [answer]
    return [answer, wrong_answer(answer, [], random.Random(index))]


@pytest.mark.parametrize("seed_id", sorted(all_seeds()))
def test_every_prose_rendering_is_read_as_written(seed_id) -> None:
    """Each of the oracle's free-form renderings, of every answer it can give, on three variants of
    each seed: the isodyn grader reads the committed answer with certainty."""
    misread = []
    for index in range(3):
        variant = all_seeds()[seed_id].variant(index)
        choices = list(variant.choices)
        for said in spoken_answers(variant.answer, variant.answer_type, choices, index):
            for number, template in enumerate(renderings(said, choices)):
                reply = fill(template, said, choices, random.Random(f"{seed_id}/{index}/{number}"))
                graded = score(reply, variant.answer, variant.answer_type, variant.choices,
                               percent_question=variant.params.get("answer_unit") == "%",
                               question=variant.question)  # fmt: skip
                if graded.correct is not (said == variant.answer) or graded.ambiguity != "clear":
                    misread.append((reply, said, graded.extracted, graded.ambiguity))
    assert misread == []


def test_a_perfect_json_run_on_shortest_paths_is_all_correct(tmp_path) -> None:
    data = tmp_path / "data"
    made = exp("generate", "task=dynamath_shortest_path", "n=2", f"out={data}", f"cache_dir={tmp_path / 'c'}")
    assert made.returncode == 0, made.stderr
    items = [json.loads(line) for line in (data / "items.jsonl").read_text().splitlines()]
    with OpenAIStub(oracle_from_items(items, {"latex": 1.0, "code": 1.0})) as stub:
        done = exp("run", "models=openai/stub-model", f"api_base={stub.base_url}",
                   "seeds=dynamath_shortest_path", "modalities=latex,code", "variants=2",
                   f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "quiet=1")  # fmt: skip
        assert done.returncode == 0, done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert [(r["reason"], r["correct"]) for r in read_rows(run_dir)] == [("ok", True)] * 4


def test_rescores_of_one_run_in_the_same_second_do_not_collide(tmp_path) -> None:
    run_dir, _ = write_judge_run(tmp_path)
    # an earlier rescore's directory for every second this one could start in
    now = datetime.now(UTC)
    for second in range(-2, 60):
        stamp = (now + timedelta(seconds=second)).strftime("%Y%m%d-%H%M%S")
        (run_dir.parent / f"{run_dir.name}-rescored-{stamp}").mkdir(exist_ok=True)
    started = time.monotonic()
    done = exp("rescore", str(run_dir), "grader=mmmath")
    assert time.monotonic() - started < 55
    assert done.returncode == 0, done.stderr[-300:]


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is (A) or (C).",
        "The answer is A or C.",
        "The answer is even or neither.",
    ],
)
def test_a_hedge_between_two_options_is_ambiguous(tmp_path, reply) -> None:
    run_dir, _ = write_judge_run(tmp_path)
    rows = [judge_row(0, reply)]  # the truth of variant 0 is A (even)
    assert rows[0]["truth"] == "A"
    (run_dir / "results.jsonl").write_text(json.dumps(rows[0]) + "\n")
    done = exp("rescore", str(run_dir))
    assert done.returncode == 0, done.stderr
    ((row,),) = [read_rows(out) for out in rescored_dirs(run_dir)]
    assert (row["correct"], row["reason"], row["ambiguity"]) == (
        False, "extraction_failed", "ambiguous: several options"
    )  # fmt: skip
