"""Grading is total and bounded (issue 38, cases 6, 7, 8, 13, 14 and 18): every grader returns a verdict
for any reply, in bounded time, and never raises.

- a power tower (`\\boxed{9^{9^{9^{9}}}}`), a factorial or binomial of a huge number is never evaluated
  (`bounds.py` sizes it first): `exp run`, a rerun, `exp report` and `exp rescore` all finish;
- a 351-digit fraction is a number like any other, not an OverflowError;
- integers compare exactly: 12345678901234567891 is not 12345678901234567890;
- a release whose float, integer or multiple-choice truth is not of its type is refused when it is read;
- hostile replies drawn by hypothesis are graded by every grader within 2 seconds each, in a worker
  thread (where math-verify's own timeouts are off), without a grader raising.
"""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from typer.testing import CliRunner

from isodyn.cli import app
from isodyn.core import AnswerType
from isodyn.datasets.contained import ReleaseError
from isodyn.datasets.dynamath import release_seeds
from isodyn.scoring import GRADERS, Question, Score, Tolerance, graders, score
from isodyn.scoring.bounds import EVENTS, tame_text
from isodyn.scoring.graders import GRADER_ERRORS
from isodyn.scoring.judge import parse_process_reply
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import exp

TOWER = "\\boxed{9^{9^{9^{9}}}}"
TOWER_DOLLARS = "$7^{7^{7^{7}}}$"
LONG_FRACTION = "The answer is 1" + "0" * 350 + "/3."  # a 351-digit numerator
# each grading, at most: a symbolic comparison off the main thread is stopped after 2 s
# (bounds.BOUNDED_SECONDS); the rest is reading the reply and, after a stop, restarting the worker
SECONDS = 4.0

# (truth, answer type, options): a number, an integer, text answers of several shapes, an option
ASKED = (
    ("3", "float", ()),
    ("3", "int", ()),
    ("x^2 + 1", "text", ()),
    ("(1, 2)", "text", ()),
    ("[1, 3)", "text", ()),
    ("x = 2", "text", ()),
    ("C", "multiple_choice", ("1", "2", "3", "4")),  # C: no letter of "\\boxed" or "answer"
)


def graded_within(
    reply: object, truth: str, answer_type: str, choices: tuple[str, ...], grader: str
) -> Score:
    """The grader's verdict, computed in a worker thread: a failure (not a hang) past SECONDS."""
    found: dict[str, Any] = {}

    def grade() -> None:
        try:
            found["score"] = score(reply, truth, answer_type, choices, grader=grader)
        except BaseException as error:  # handed to the test below
            found["error"] = error

    worker = threading.Thread(target=grade, daemon=True)
    worker.start()
    worker.join(SECONDS)
    assert not worker.is_alive(), f"{grader} took over {SECONDS}s on {str(reply)[:80]!r} ({answer_type})"
    if "error" in found:
        raise found["error"]
    return found["score"]


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Load SymPy and math-verify once (seconds), here and in the worker process that compares for
    other threads, so that every timed grading is grading alone."""
    score("\\boxed{(x+1)^2}", "x^2 + 2x + 1", "text")
    worker = threading.Thread(target=score, args=("\\boxed{(y+1)^2}", "y^2 + 2y + 1", "text"))
    worker.start()
    worker.join()


@pytest.fixture
def no_grader_errors() -> Any:
    """A grader's exception is caught by its total entry point and counted: here, none may be."""
    before = dict(GRADER_ERRORS)
    yield
    assert dict(GRADER_ERRORS) == before, "a grader raised (caught and counted): a bug"


def grade_everywhere(reply: object) -> list[Score]:
    return [graded_within(reply, t, kind, options, name) for name in GRADERS for t, kind, options in ASKED]


# ---- case 6: a power tower ------------------------------------------------------------------------


@pytest.mark.parametrize("reply", [TOWER, TOWER_DOLLARS, f"The answer is {TOWER_DOLLARS}."])
def test_a_power_tower_is_unreadable_not_a_hang(reply: str, no_grader_errors: None) -> None:
    for found in grade_everywhere(reply):
        assert found.correct is False
    isodyn = graded_within(reply, "3", "float", (), "isodyn")
    assert isodyn.reason == "extraction_failed" and isodyn.ambiguity in ("unreadable", "none found")


# ---- case 8: a 351-digit number -------------------------------------------------------------------


def test_a_351_digit_fraction_is_a_wrong_number_not_an_overflow(no_grader_errors: None) -> None:
    for found in grade_everywhere(LONG_FRACTION):
        assert found.correct is False
    isodyn = graded_within(LONG_FRACTION, "3", "float", (), "isodyn")
    assert (isodyn.reason, isodyn.extracted) == ("ok", "1" + "0" * 350 + "/3")
    right = graded_within("The answer is 1" + "0" * 150 + "/1" + "0" * 149 + ".", "10", "float", (), "isodyn")
    assert right.correct is True


# ---- case 18: integers compare as integers --------------------------------------------------------


@pytest.mark.parametrize("answer_type", ["int", "float", "text"])
@pytest.mark.parametrize(
    ("reply", "correct"),
    [
        ("12345678901234567890", True),
        ("12,345,678,901,234,567,890", True),
        ("The answer is 12345678901234567890.", True),
        ("12345678901234567891", False),
        ("12,345,678,901,234,567,891", False),
        ("12345678901234567890.5", False),
    ],
)
def test_large_integers_compare_exactly(reply: str, correct: bool, answer_type: str) -> None:
    found = score(reply, "12345678901234567890", answer_type)
    assert (found.correct, found.reason) == (correct, "ok")


def test_decimals_compare_as_written() -> None:
    # the tolerance is what it says: 0.75 and 0.85 are both within 0.05 of 0.8 (in floats, 0.8 - 0.75
    # is 0.05000000000000004, and 0.75 was wrong: a real reply, mathvista:llavar:104)
    within = Tolerance(absolute=0.05)
    assert score("0.75", "0.8", "float", tolerance=within).correct
    assert score("0.85", "0.8", "float", tolerance=within).correct
    assert not score("0.7499", "0.8", "float", tolerance=within).correct
    assert score("2.999", "3", "float").correct and not score("2.9989", "3", "float").correct


# ---- case 14: a release truth not of its answer type ----------------------------------------------


def png(color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (12, 8), color).save(buffer, format="png")
    return buffer.getvalue()


def dynamath_release(root: Path, items: dict[str, dict[str, str]]) -> Path:
    """A DynaMath release of one trial: item key -> its question, answer and answer type."""
    folder = root / "trial1"
    (folder / "image").mkdir(parents=True)
    data = {}
    for n, (key, item) in enumerate(items.items()):
        (folder / "image" / f"{key}.png").write_bytes(png((40 * n, 90, 90)))
        data[key] = {"image": f"image/{key}.png", "subject": "algebra", "level": "high school", **item}
    (folder / "dataset.json").write_text(json.dumps(data))
    return root


BAD_TRUTHS = [
    ("float", "N/A"),
    ("float", ""),
    ("float", "nan"),
    ("float", "inf"),
    ("float", "3, 4"),
    ("float", "2 or 3"),
    ("float", "1" * 2000),
    ("int", "2.5"),
    ("int", "three and a half"),
    ("multiple choice", "N/A"),
    ("multiple choice", ""),
    ("multiple choice", "AB"),
]


@pytest.mark.parametrize(("answer_type", "truth"), BAD_TRUTHS)
def test_a_truth_not_of_its_answer_type_is_refused_when_the_release_is_read(
    tmp_path: Path, answer_type: str, truth: str
) -> None:
    item = {"question": "What is x? (A) 1 (B) 2", "answer": truth, "answer_type": answer_type}
    root = dynamath_release(tmp_path / "rel", {"1": item})
    with pytest.raises(ReleaseError) as refused:
        release_seeds(root)
    message = str(refused.value)
    assert "\n" not in message and "trial1/dataset.json item 1" in message
    assert repr(truth)[:40] in message
    described = CliRunner().invoke(app, ["describe", str(root)])
    assert described.exit_code == 2 and "item 1: its answer" in described.stderr
    assert "Traceback" not in described.stderr


@pytest.mark.parametrize(
    ("answer_type", "truth"),
    [("float", "3"), ("float", "-2.25"), ("float", "45%"), ("float", "2\\sqrt{3}"), ("int", "7"),
     ("int", "12345678901234567890"), ("multiple choice", "B"), ("free form", "N/A")],
)  # fmt: skip
def test_a_truth_of_its_answer_type_is_read(tmp_path: Path, answer_type: str, truth: str) -> None:
    item = {"question": "What is x? (A) 1 (B) 2", "answer": truth, "answer_type": answer_type}
    (seed,) = release_seeds(dynamath_release(tmp_path / "rel", {"1": item})).values()
    assert seed.variant(0).answer == truth


def test_exp_run_refuses_a_bad_truth_before_any_call(tmp_path: Path) -> None:
    root = dynamath_release(
        tmp_path / "rel", {"1": {"question": "What is x?", "answer": "N/A", "answer_type": "float"}}
    )
    with OpenAIStub(lambda request: ScriptedReply(text="3")) as stub:
        done = exp(*run_words(root, stub, tmp_path), timeout=120)
        assert stub.requests == []
    assert done.returncode == 2 and "its answer 'N/A' is not a number" in done.stderr
    assert "Traceback" not in done.stderr


# ---- cases 6, 7, 8 and 13 through `exp`: run, rerun, report, rescore ------------------------------

HOSTILE_ITEMS = {  # item -> the reply the stub gives to it
    "1": TOWER,
    "2": LONG_FRACTION,
    "3": TOWER_DOLLARS,
}


def answer_by_item(request: dict) -> ScriptedReply:
    text = json.dumps(request["messages"])
    key = next(k for k in HOSTILE_ITEMS if f"Item {k}?" in text)
    return ScriptedReply(text=HOSTILE_ITEMS[key])


def run_words(root: Path, stub: OpenAIStub, tmp_path: Path) -> list[str]:
    return ["run", f"dataset={root}", "models=openai/stub-model", "vision=yes", f"api_base={stub.base_url}",
            f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip


def rows_of(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_exp_run_and_its_rerun_grade_hostile_replies(tmp_path: Path) -> None:
    items = {
        k: {"question": f"Item {k}? What is x?", "answer": "3", "answer_type": "float"} for k in HOSTILE_ITEMS
    }
    root = dynamath_release(tmp_path / "rel", items)
    with OpenAIStub(answer_by_item) as stub:
        first = exp(*run_words(root, stub, tmp_path), timeout=180)
        assert first.returncode == 0, first.stderr[-500:]
        calls = len(stub.requests)
        again = exp(*run_words(root, stub, tmp_path), timeout=180)  # the replies come from the cache
        assert again.returncode == 0, again.stderr[-500:]
        assert len(stub.requests) == calls == len(HOSTILE_ITEMS)
    for run_dir in (tmp_path / "runs").iterdir():
        rows = {row["seed_id"]: row for row in rows_of(run_dir)}
        assert sorted(rows) == sorted(HOSTILE_ITEMS)
        assert all(row["correct"] is False for row in rows.values())
        assert (rows["1"]["reason"], rows["1"]["ambiguity"]) == ("extraction_failed", "unreadable")
        assert (rows["2"]["reason"], rows["2"]["extracted"]) == ("ok", "1" + "0" * 350 + "/3")
    assert "Timeout" not in first.stderr + again.stderr  # math-verify's warnings stay off the terminal


def handed_row(seed: int, response: str) -> dict[str, Any]:
    """A graded row of a run made elsewhere, as results.jsonl holds it."""
    return {
        "model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": "hostile", "variant": seed,
        "repeat": 0, "topic": "algebra", "level": "high_school", "answer_type": "float", "truth": "3",
        "choices": [], "percent_question": False, "question": "What is x?", "response": response,
        "reason": "ok", "correct": False, "extracted": None, "ambiguity": "clear", "grader": "isodyn",
        "method": "json",
    }  # fmt: skip


def test_report_and_rescore_of_a_handed_run_with_hostile_replies_finish(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "handed"
    run_dir.mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"base_seed": 0, "cache_dir": str(tmp_path / "cache")}))
    rows = [handed_row(n, reply) for n, reply in enumerate(HOSTILE_ITEMS.values())]
    (run_dir / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = exp("report", str(run_dir), timeout=180)
    assert report.returncode == 0, report.stderr[-500:]
    rescore = exp("rescore", str(run_dir), timeout=180)
    assert rescore.returncode == 0, rescore.stderr[-500:]
    (rescored,) = [p for p in run_dir.parent.iterdir() if p.name.startswith("handed-rescored-")]
    verdicts = [(r["correct"], r["reason"]) for r in rows_of(rescored)]
    assert verdicts == [(False, "extraction_failed"), (False, "ok"), (False, "extraction_failed")]
    assert "Traceback" not in report.stderr + rescore.stderr


# ---- hostile replies, drawn ----------------------------------------------------------------------

LEAVES = st.one_of(
    st.integers(2, 10**12).map(str),
    st.sampled_from(["9", "10", "e", "\\pi", "2.5", "-10", "1e99", "x", "0", "1", "10^{10}"]),
)


def _combined(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, inner)
    return st.one_of(
        pair.map(lambda t: f"{t[0]}^{{{t[1]}}}"),
        pair.map(lambda t: f"{{{t[0]}}}^{{{t[1]}}}"),
        pair.map(lambda t: f"{t[0]}**{t[1]}"),
        inner.map(lambda a: f"({a})!"),
        inner.map(lambda a: f"{a}!!"),
        pair.map(lambda t: f"\\binom{{{t[0]}}}{{{t[1]}}}"),
        pair.map(lambda t: f"{{{t[0]} \\choose {t[1]}}}"),
        inner.map(lambda a: f"\\Gamma({a})"),
        inner.map(lambda a: f"e^{{{a}}}"),
        inner.map(lambda a: f"\\exp\\left({a}\\right)"),
        inner.map(lambda a: f"\\cosh({a})"),
        inner.map(lambda a: f"\\frac{{1}}{{{a}}}"),
        inner.map(lambda a: f"\\sqrt[{a}]{{2}}"),
        inner.map(lambda a: f"\\lfloor {a} \\rfloor"),
        inner.map(lambda a: f"|{a}|"),
        inner.map(lambda a: f"\\sin({a})"),
        inner.map(lambda a: f"(x+y+z)^{{{a}}}"),
        pair.map(lambda t: f"({t[0]}, {t[1]})"),
        pair.map(lambda t: f"[{t[0]}, {t[1]})"),
        pair.map(lambda t: f"\\{{{t[0]}, {t[1]}\\}}"),
        pair.map(lambda t: f"{t[0]} \\cdot {t[1]}"),
        pair.map(lambda t: f"x < {t[0]}"),
        inner.map(lambda a: f"\\sum_{{i=1}}^{{{a}}} 2^i"),
        inner.map(lambda a: f"\\prod_{{i=1}}^{{{a}}} i"),
        inner.map(lambda a: f"\\gcd({a}, 6)"),
    )


EXPRESSIONS = st.recursive(LEAVES, _combined, max_leaves=6)
WRAPPERS = st.sampled_from(
    ["\\boxed{@}", "$@$", "The answer is $@$.", '{"short answer": "@"}', "@", "x = @", "\\[@\\]",
     "Final answer: @\n", "So we get @. Therefore the answer is \\boxed{@}."]
)  # fmt: skip
HUGE = st.one_of(
    st.integers(300, 20_000).map(lambda n: "7" * n),
    st.integers(300, 20_000).map(lambda n: "The answer is " + "9" * n + "."),
    st.integers(5, 400).map(lambda n: "\\boxed{" + "\\frac{1}{" * n + "2" + "}" * n + "}"),
    st.integers(5, 3000).map(lambda n: "{" * n + "3" + "}" * n),
    st.integers(5, 3000).map(lambda n: "(" * n + "3" + ")" * n),
    st.integers(2, 400).map(lambda n: "\\boxed{" + "2^{" * n + "2" + "}" * n + "}"),
    st.integers(2, 100).map(lambda n: "The answer is " + "10^" * n + "10."),
    st.integers(2, 60).map(lambda n: "\\boxed{" + "(" * n + "3" + ")!" * n + "}"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=EXPRESSIONS, wrapper=WRAPPERS)
def test_every_grader_grades_hostile_expressions_in_bounded_time(expression: str, wrapper: str) -> None:
    before = dict(GRADER_ERRORS)
    for found in grade_everywhere(wrapper.replace("@", expression)):
        assert isinstance(found, Score) and isinstance(found.correct, bool)
    assert dict(GRADER_ERRORS) == before


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=HUGE)
def test_every_grader_grades_huge_and_deep_replies_in_bounded_time(reply: str) -> None:
    before = dict(GRADER_ERRORS)
    for found in grade_everywhere(reply):
        assert isinstance(found, Score) and isinstance(found.correct, bool)
    assert dict(GRADER_ERRORS) == before


@pytest.mark.parametrize(
    "expression",
    ["10^{10^{10}}", "1000000!", "\\binom{10^9}{10^8}", "(10^{100})!", "2^{2^{100}}", "x^{10^{10}}",
     "\\Gamma(10^{10})", "10^{-10^{10}}", "((10!)!)!", "\\exp(10^{10})", "10^{10}!", "9**9**9**9", "9^9^9^9",
     "e^{e^{e^{e^{e}}}}", "{10^9 \\choose 10^8}", "(1, 9^{9^{9^9}})", "[1, 10^{10^{10}})", "x < 9^{9^{9^9}}",
     "\\{1, 1000000!\\}", "(x+y+z)^{100}", "\\sum_{i=1}^{10^{10}} 2^i", "\\lfloor 9^{9^{9^9}} \\rfloor"],
)  # fmt: skip
def test_named_hostile_expressions_are_refused_before_parsing_or_evaluating(
    expression: str, no_grader_errors: None
) -> None:
    for found in grade_everywhere(f"The answer is ${expression}$."):
        assert found.correct is False


@pytest.mark.parametrize(
    ("reply", "truth", "answer_type"),
    [("\\boxed{2^{10}}", "1024", "float"), ("\\boxed{120 + x}", "5! + x", "text"),
     ("\\boxed{120x}", "\\binom{10}{3} x", "text"), ("\\boxed{((3)!)! + x}", "720 + x", "text"),
     ("\\boxed{e^{-x^2}}", "e^{-x^2}", "text"), ("\\boxed{(x+1)^{3}}", "x^3 + 3x^2 + 3x + 1", "text"),
     ("\\boxed{1.5 \\times 10^{-7}}", "0.00000015", "float"), ("\\boxed{10^{100}}", "10^{100}", "text"),
     ("\\boxed{2^{100}}", "1267650600228229401496703205376", "int"),
     ("\\boxed{(1, 2^{10})}", "(1, 1024)", "text")],
)  # fmt: skip
def test_moderate_powers_and_factorials_are_still_compared(reply: str, truth: str, answer_type: str) -> None:
    assert score(reply, truth, answer_type).correct is True


def test_the_text_check_passes_ordinary_notation() -> None:
    ordinary = ["2^{10}", "5!", "3! \\cdot 4!", "(n+1)!", "e^{i\\pi}", "30^{\\circ}", "**42**", "x^{}",
                "\\sqrt[3]{8}", "{n \\choose 2}", "a_{10^{10}}", "e^{-\\frac{x^2}{2}}",
                "2^{\\frac{1}{2}}"]  # fmt: skip
    assert [t for t in ordinary if not tame_text(t)] == []


# ---- no exception escapes; math-verify's warnings stay off the terminal ---------------------------


@pytest.mark.parametrize("reply", [None, 42, b"bytes", ["a"], {"short answer": "3"}, "", "\x00" * 10])
def test_any_object_is_graded(reply: object, no_grader_errors: None) -> None:
    for found in grade_everywhere(reply):
        assert found.correct is False and found.reason == "extraction_failed"


@pytest.mark.parametrize(
    "reply",
    ['{"short answer": "²"}', '{"short answer": ' + "7" * 8000 + "}", "[" * 5000 + '{"short answer": "3"}'],
    ids=["superscript-digit", "8000-digit-integer", "5000-deep"],
)
def test_json_no_decoder_can_read_is_no_answer(reply: str, no_grader_errors: None) -> None:
    # a digit Python cannot read as a float, an integer past Python's 4,300 digits, nesting past the
    # recursion limit: each once raised out of a grader
    for found in grade_everywhere(reply):
        assert isinstance(found.correct, bool)


def test_a_judge_step_of_1e999_is_unreadable() -> None:
    verdict = parse_process_reply('{"first_wrong_step": 1e999, "error_type": "calculation"}', 3)
    assert not verdict.readable


def test_a_grader_that_raises_is_caught_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    def broken(reply: object, question: Question) -> Score:
        raise RuntimeError("a bug")

    before = GRADER_ERRORS["broken"]
    total: Callable[[object, Question], Score] = graders._total("broken", broken)
    with caplog.at_level(logging.ERROR, logger="isodyn.scoring.graders"):
        found = total("3", Question("3", AnswerType.FLOAT))
    assert (found.correct, found.reason, found.method) == (False, "extraction_failed", "grader_error")
    assert found.detail == {"error": "RuntimeError: a bug"}
    assert GRADER_ERRORS["broken"] == before + 1
    assert "grader 'broken' raised" in caplog.text


def test_a_slow_symbolic_comparison_off_the_main_thread_is_stopped() -> None:
    # not a large number, but SymPy's simplification takes seconds (unbounded without an alarm)
    slow = "\\boxed{\\frac{1}{\\sin((x+y+z)^{2})}}"
    before = EVENTS["comparison stopped after its time"]
    found = graded_within(slow, "x^2 + 1", "text", (), "isodyn")
    assert (found.correct, found.reason, found.ambiguity) == (False, "extraction_failed", "unreadable")
    assert EVENTS["comparison stopped after its time"] == before + 1
    assert graded_within("\\boxed{(x+1)^2}", "x^2 + 2x + 1 + 0y", "text", (), "isodyn").correct


def test_math_verify_warnings_are_counted_not_printed(capfd: pytest.CaptureFixture[str]) -> None:
    score("\\boxed{x^2}", "x^2 + 0", "text")  # math-verify is loaded and its loggers routed
    before = EVENTS["Timeout during comparison"]
    logging.getLogger("math_verify.grader").warning("Timeout during comparison")
    assert EVENTS["Timeout during comparison"] == before + 1
    assert "Timeout" not in capfd.readouterr().err
