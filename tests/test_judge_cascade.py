"""`exp run ... judge=MODEL`: as cells finish, only the replies the rules found no answer in (or
could not settle) go to the judge, through the run's cached client; the row keeps the rules' verdict
and the judge's; the judge's answer is taken only when the reply holds it; a rerun makes no call."""

import asyncio
import json
import subprocess
import sys

import pytest

from isodyn.core import AnswerType, Modality
from isodyn.errors import IsodynError
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.regrade import has_substance, refusal
from isodyn.experiments.runner import execute
from isodyn.generators import get_seed
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.scoring import Question
from isodyn.testing import OpenAIStub, ScriptedReply

SEED = "dynamath_shifted_abs"  # multiple choice: (A) Yes, (B) No
CLEAR, FOR_THE_JUDGE, LABEL_ONLY, CUT_OFF, NOT_IN_REPLY = range(5)


def shown(index: int) -> str:
    seed = get_seed(SEED)
    return seed.representation(seed.variant(index), Modality.LATEX).text


def truth(index: int) -> str:
    return get_seed(SEED).variant(index).answer


REPLIES = {  # what the solver says for each variant (latex cells)
    CLEAR: lambda: json.dumps({"solution": "s", "short answer": truth(CLEAR)}),
    # no rule reads "the first" of two named options: the judge does, and the reply holds its option
    FOR_THE_JUDGE: lambda: "It could be Yes or No; the one-sided slopes agree, so the first of the two.",
    LABEL_ONLY: lambda: "Thought process:",
    CUT_OFF: lambda: f"The answer is {truth(CUT_OFF)} because the slopes",
    NOT_IN_REPLY: lambda: "I looked at the corner of the graph for a while and concluded.",
}
JUDGE_SAYS = {FOR_THE_JUDGE: "A", NOT_IN_REPLY: "12", LABEL_ONLY: "A", CUT_OFF: truth(CUT_OFF)}


def script(request: dict) -> ScriptedReply:
    prompt = request["messages"][-1]["content"]
    if request["model"] == "stub-judge":
        index = next(i for i, said in REPLIES.items() if said() in prompt)
        return ScriptedReply(text=json.dumps({"final answer": JUDGE_SAYS[index]}))
    index = next(i for i in REPLIES if shown(i) in prompt)
    return ScriptedReply(text=REPLIES[index](), finish_reason="length" if index == CUT_OFF else "stop")


@pytest.fixture
def words(tmp_path):
    return [
        f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", f"seeds={SEED}",
        f"variants={len(REPLIES)}", "modalities=latex", "quiet=1", "models=openai/stub",
        "judge=openai/stub-judge",
    ]  # fmt: skip


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def judge_calls(stub: OpenAIStub) -> list[dict]:
    return [r for r in stub.requests if r["model"] == "stub-judge"]


def test_only_replies_the_rules_cannot_read_go_to_the_judge_and_a_rerun_costs_nothing(words) -> None:
    with OpenAIStub(script) as stub:
        first = run([*words, f"api_base={stub.base_url}"])
        asked = judge_calls(stub)
        # the one the judge settles and the one whose answer it invents; not the clear reply, not the
        # label alone (it says nothing), not the reply cut off at the token limit
        assert len(asked) == 2
        assert all(REPLIES[CLEAR]() not in r["messages"][-1]["content"] for r in asked)
        again = run([*words, f"api_base={stub.base_url}"])
        assert len(stub.requests) == len(REPLIES) + 2  # the rerun sent nothing
    assert again.summary.calls_made == 0
    rows = {r["variant"]: r for r in first.rows}
    assert {r["variant"]: r for r in again.rows}.keys() == rows.keys()
    for index, row in {r["variant"]: r for r in again.rows}.items():
        assert (row["grader"], row["correct"], row["scores"]) == (
            rows[index]["grader"], rows[index]["correct"], rows[index]["scores"]
        )  # fmt: skip

    settled = rows[FOR_THE_JUDGE]
    assert (settled["grader"], settled["method"], settled["correct"], settled["extracted"]) == (
        "judge", "judge", True, truth(FOR_THE_JUDGE)
    )  # fmt: skip
    rules = settled["scores"]["isodyn"]
    assert (rules["ambiguity"], rules["extracted"], rules["correct"]) == ("none found", None, False)
    assert settled["scores"]["judge"]["detail"]["answer"] == "A"

    invented = rows[NOT_IN_REPLY]
    assert (invented["grader"], invented["reason"], invented["correct"]) == (
        "isodyn",
        "extraction_failed",
        False,
    )
    assert invented["scores"]["judge"]["detail"]["answer"] == "12"
    assert "not in the reply" in invented["scores"]["judge"]["detail"]["refused"]

    for untouched in (CLEAR, LABEL_ONLY, CUT_OFF):
        assert "judge" not in rows[untouched]["scores"]
    assert rows[CLEAR]["correct"] and rows[CLEAR]["grader"] == "isodyn"
    assert (rows[LABEL_ONLY]["ambiguity"], rows[LABEL_ONLY]["correct"]) == ("none found", False)
    assert (rows[CUT_OFF]["reason"], rows[CUT_OFF]["correct"]) == ("truncated", False)
    assert first.summary.judged == 2 and first.summary.decided_by_judge == 1
    config = json.loads(first.folder.config_file.read_text())
    assert config["judge"] == "openai/stub-judge"  # recorded with the run's other settings


def test_without_a_judge_nothing_is_sent_to_one(words) -> None:
    with OpenAIStub(script) as stub:
        run([*[w for w in words if not w.startswith("judge=")], f"api_base={stub.base_url}"])
        assert not judge_calls(stub)


@pytest.mark.parametrize(
    "reply", [":", "Thought process:", "", "  \n", "**Answer:**\n\n", "### Solution:\n---"]
)
@pytest.mark.parametrize(
    "asked, answer",
    [
        (Question("B", AnswerType.MULTIPLE_CHOICE, ("Yes", "No")), "B"),
        (Question("B", AnswerType.MULTIPLE_CHOICE, ("Yes", "No")), "No"),
        (Question("12", AnswerType.INT), "12"),
        (Question("even", AnswerType.TEXT), "even"),
        (Question("yes", AnswerType.TEXT), "yes"),
    ],
)
def test_a_reply_that_says_nothing_is_never_given_an_answer(reply, asked, answer) -> None:
    assert not has_substance(reply)
    assert refusal(answer, reply, asked) is not None


@pytest.mark.parametrize(
    "answer, reply, asked, taken",
    [
        ("12", "The maximum flow is **12**.", Question("12", AnswerType.INT), True),
        ("12", "The flow through the edge is 120 in total.", Question("12", AnswerType.INT), False),
        ("1200", "That is 1,200 units.", Question("1200", AnswerType.INT), True),
        ("B", "Answer: (B)", Question("B", AnswerType.MULTIPLE_CHOICE, ("3 cm", "4 cm")), True),
        ("B", "so the side is 4 cm long", Question("B", AnswerType.MULTIPLE_CHOICE, ("3 cm", "4 cm")), True),
        ("B", "a bobcat ate it", Question("B", AnswerType.MULTIPLE_CHOICE, ("3 cm", "4 cm")), False),
        ("No", "The two graphs are **not isomorphic**.", Question("no", AnswerType.TEXT), True),
        ("white", "**Winner:** **Black**", Question("black", AnswerType.TEXT), False),
    ],
)
def test_the_judges_answer_must_be_one_the_reply_holds(answer, reply, asked, taken) -> None:
    assert (refusal(answer, reply, asked) is None) == taken


def test_the_judge_setting_is_checked_like_the_other_models(tmp_path) -> None:
    base = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1"]
    with pytest.raises(IsodynError):
        plan_experiment(parse_overrides([*base, "judge=no-such-provider/nothing-at-all"]))
    assert parse_overrides([*base, "judge=openai/stub-judge"]).judge == "openai/stub-judge"


def test_exp_run_takes_judge_as_a_setting(tmp_path) -> None:
    with OpenAIStub(script) as stub:
        done = subprocess.run(
            [sys.executable, "-m", "isodyn", "run", f"out={tmp_path / 'runs'}",
             f"cache_dir={tmp_path / 'cache'}", f"seeds={SEED}", f"variants={len(REPLIES)}",
             "modalities=latex", "quiet=1", "models=openai/stub", "judge=openai/stub-judge",
             f"api_base={stub.base_url}"],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert len(judge_calls(stub)) == 2
