"""Build the real-reply corpus from public evaluation logs (run by a developer, not by the tests).

    python tests/corpus/real/build.py MATHVISTA_GIT_DIR MATHV_GIT_DIR

Each argument is a git directory of the benchmark's public repository (a bare snapshot is enough:
files are read with `git show`). Writes, beside this file:

- `questions.jsonl.gz`: one line per benchmark item, as isodyn's `score` takes it: the question as
  asked (the benchmark's own prompt for the item), answer type, options as shown, truth, tolerance;
- `replies.jsonl.gz`: one line per model reply: id, source, model, item, reply, and the benchmark's
  own extraction and verdict (a noisy label: see docs/grading.md);
- `SOURCES.json`: for each source its repository, commit, paths and licence.

Only the fields grading needs are kept. Replies that are programs (MathVista's `2shot_code` runs,
which the benchmark executes) and the random-guess baselines are left out: they are not replies a
grader reads.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

MATHVISTA_RUNS = {  # model name as stored -> path in the repository
    "bard": "results/bard/output_bard.json",
    "chatgpt": "results/chatgpt/output_chatgpt.json",
    "chatgpt-2shot": "results/chatgpt/output_chatgpt_2shot_solution.json",
    "chatgpt-2shot-ocr": "results/chatgpt/output_chatgpt_2shot_solution_use_ocr.json",
    "claude-2": "results/claude/output_claude.json",
    "claude-2-2shot": "results/claude/output_claude_2shot_solution.json",
    "claude-2-2shot-ocr": "results/claude/output_claude_2shot_solution_use_ocr.json",
    "gpt-4": "results/gpt4/output_gpt4.json",
    "gpt-4-2shot": "results/gpt4/output_gpt4_2shot_solution.json",
    "gpt-4-2shot-ocr": "results/gpt4/output_gpt4_2shot_solution_use_ocr.json",
    "idefics-9b": "results/idefics/output_idefics_9b_instruct.json",
    "instructblip-13b": "results/instruct_blip2/output_instruct_blip2_vicuna_13b.json",
    "llama-adapter-v2": "results/llama_adapter_v2/output_llama_adapter_v2.json",
    "llava-13b": "results/llava/output_llava_llama_2_13b.json",
    "llavar": "results/llavar/output_llavar.json",
    "minigpt4": "results/minigpt4/output_minigpt4_llama2.json",
    "mplug-owl": "results/mplugowl/output_mplugowl_7b_ft.json",
}

MATHV_BOXED_PROMPT = (  # MATH-V's CoT prompt (models/GPT4V.py), reproduced to pass the question as asked
    'Please solve the problem and put your answer in one "\\boxed{}". If it is a multiple choice '
    'question, only one letter is allowed in the "\\boxed{}".\n'
)
MATHV_SHORT_PROMPT = "\nAnswer the question using a single word or phrase."


def git_show(git_dir: Path, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout


def git_commit(git_dir: Path) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()


def _verdict(value: object) -> bool:
    return value is True or str(value).strip().lower() == "true"


def reply_row(
    source: str, model: str, item_id: object, key: str, extracted: object, verdict: object, row: dict
) -> dict:
    """One reply as stored: the model's response, the benchmark's own extraction and verdict."""
    return {
        "id": f"{source}:{model}:{item_id}", "source": source, "model": model, "item": key,
        "reply": str(row.get("response") or ""),
        "bench_answer": None if extracted is None else str(extracted),
        "bench_correct": _verdict(verdict),
    }  # fmt: skip


def mathvista(git_dir: Path) -> tuple[list[dict], list[dict], dict]:
    questions: dict[str, dict] = {}
    replies = []
    for model, path in MATHVISTA_RUNS.items():
        data = json.loads(git_show(git_dir, path))
        for pid, row in data.items():
            key = f"mathvista:{pid}"
            if key not in questions and "2shot" not in model:  # zero-shot runs hold the item's own prompt
                questions[key] = mathvista_question(key, row)
            replies.append(
                reply_row("mathvista", model, pid, key, row.get("extraction"), row.get("true_false"), row)
            )
    provenance = {
        "repository": "github.com/lupantech/MathVista", "commit": git_commit(git_dir),
        "paths": sorted(MATHVISTA_RUNS.values()), "licence": "CC BY-SA 4.0",
        "attribution": "Lu et al., MathVista: Evaluating Mathematical Reasoning of Foundation Models in "
        "Visual Contexts (ICLR 2024); model outputs on testmini as released in results/",
    }  # fmt: skip
    return list(questions.values()), replies, provenance


def _listed(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if value in (None, "None", ""):
        return []
    return [str(v) for v in ast.literal_eval(str(value))]


def shown_choices(query: str, listed: list[str], answer: str) -> list[str]:
    """The options as the prompt shows them: in 11 items their order, in one their values, differ
    from the `choices` field; the model saw the prompt."""
    block = re.search(r"\nChoices:\n(.*)\Z", query, re.S)
    if not block:
        return listed
    options = [text for _, text in re.findall(r"^\(([A-H])\) (.*)$", block.group(1), re.M)]
    return options if answer in options else listed


def mathvista_question(key: str, row: dict) -> dict:
    answer = str(row["answer"])
    choices = shown_choices(str(row["query"]), _listed(row.get("choices")), answer)
    precision = row.get("precision")
    if row["question_type"] == "multi_choice":
        answer_type, truth = "multiple_choice", "ABCDEFGH"[choices.index(answer)]
    elif row["answer_type"] == "integer":
        answer_type, truth = "int", answer
    elif row["answer_type"] == "float":
        answer_type, truth = "float", answer
    else:
        answer_type, truth = "text", answer
    # MathVista rounds a float reply to the item's precision: half a unit of the last place
    tolerance = (
        0.5 * 10 ** -int(float(precision))
        if answer_type == "float" and precision not in (None, "None")
        else None
    )
    return {
        "item": key, "source": "mathvista", "question": str(row["query"]), "answer_type": answer_type,
        "choices": choices, "truth": truth, "tolerance": tolerance,
    }  # fmt: skip


def mathv(git_dir: Path) -> tuple[list[dict], list[dict], dict]:
    items = {}
    for line in git_show(git_dir, "data/test.jsonl").splitlines():
        if line.strip():
            row = json.loads(line)
            items[str(row["id"])] = row
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD", "outputs/"],
        capture_output=True, text=True, check=True,
    ).stdout.split("\n")  # fmt: skip
    paths = [p for p in listing if p.endswith(".jsonl") and "Random" not in p]
    questions: dict[str, dict] = {}
    replies = []
    used = []
    for path in paths:
        try:
            text = git_show(git_dir, path)
        except subprocess.CalledProcessError:
            continue  # a file the snapshot holds only as a pointer
        model = Path(path).stem
        used.append(path)
        cot = "CoT" in model
        for line in text.splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            item = items[str(row["id"])]
            key = f"mathv:{item['id']}:{'cot' if cot else 'short'}"
            if key not in questions:
                questions[key] = mathv_question(key, item, cot)
            replies.append(
                reply_row("mathv", model, item["id"], key, row.get("model_answer"), row.get("correct"), row)
            )
    provenance = {
        "repository": "github.com/mathllm/MATH-V", "commit": git_commit(git_dir),
        "paths": ["data/test.jsonl", *sorted(used)], "licence": "MIT",
        "attribution": "Wang et al., Measuring Multimodal Mathematical Reasoning with MATH-Vision Dataset "
        "(NeurIPS 2024 Datasets and Benchmarks); model outputs as released in outputs/",
    }  # fmt: skip
    return list(questions.values()), replies, provenance


def _clean(answer: str) -> str:
    answer = answer.replace("\x0c", "\\f").strip()  # one truth lost its backslash to a form feed
    boxed = re.fullmatch(r"\$?\\boxed\{(.*)\}\$?", answer)
    return boxed.group(1) if boxed else answer


def mathv_question(key: str, item: dict, cot: bool) -> dict:
    options = [str(o) for o in item["options"]]
    shown = options and "".join(options) != "ABCDE"
    listing = (
        "".join(f"({L}) {o}\n" for L, o in zip("ABCDE", options, strict=False)) if (shown or cot) else ""
    )
    question = f"{item['question']}\n{listing}"
    question = MATHV_BOXED_PROMPT + question if cot else question + MATHV_SHORT_PROMPT
    answer = _clean(str(item["answer"]))
    if options:
        answer_type, truth = "multiple_choice", answer
    elif re.fullmatch(r"-?\d+", answer):
        answer_type, truth = "int", answer
    elif re.fullmatch(r"-?\d*\.\d+", answer):
        answer_type, truth = "float", answer
    else:
        answer_type, truth = "text", answer
    return {
        "item": key, "source": "mathv", "question": question, "answer_type": answer_type,
        "choices": options, "truth": truth, "tolerance": None,
    }  # fmt: skip


def write_lines(path: Path, rows: list[dict]) -> None:
    body = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as out:  # mtime 0: the same bytes every build
        out.write(body.encode("utf-8"))


def main(mathvista_dir: str, mathv_dir: str) -> None:
    questions, replies, sources = [], [], {}
    for name, build, git_dir in (("mathvista", mathvista, mathvista_dir), ("mathv", mathv, mathv_dir)):
        q, r, provenance = build(Path(git_dir))
        questions += q
        replies += r
        sources[name] = provenance
    write_lines(HERE / "questions.jsonl.gz", questions)
    write_lines(HERE / "replies.jsonl.gz", replies)
    (HERE / "SOURCES.json").write_text(json.dumps(sources, indent=2) + "\n", encoding="utf-8")
    print(f"{len(questions)} questions, {len(replies)} replies")


if __name__ == "__main__":
    main(*sys.argv[1:3])
