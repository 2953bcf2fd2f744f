"""Build the per-source reply corpus from public evaluation logs (run by a developer, not by the tests).

    python tests/corpus/sources/build.py ZEROEVAL_GIT_DIR MMLU_PRO_GIT_DIR MMMU_GIT_DIR KOR_BENCH_GIT_DIR

Each argument is a git directory of the source's public repository (a bare snapshot is enough: files
are read with `git show` at the commit the snapshot holds). Writes, beside this file, one
`<source>.jsonl.gz` per source (one row per reply, the shared row of `Row` in __init__.py) and
`SOURCES.json` (repository, commit, paths, licence, attribution, models, years, newest model).

Each source is sampled deterministically (a hash of the row id), stratified by model, to about 3,000
replies, so the folder stays a few MB. Only math-heavy items are kept.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import importlib
import io
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).parent
LETTERS = "ABCDEFGHIJ"


# ---- reading a snapshot ---------------------------------------------------------------------------


def git_bytes(git_dir: Path, path: str) -> bytes | None:
    """A file at the snapshot's HEAD, or None when the snapshot lacks it (large or LFS files)."""
    out = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"], capture_output=True)
    if out.returncode != 0 or out.stdout.startswith(b"version https://git-lfs"):
        return None
    return out.stdout


def git_commit(git_dir: Path) -> str:
    command = ["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"]
    return subprocess.run(command, capture_output=True, text=True).stdout.strip()


def sample(rows: list[dict], per_model: int) -> list[dict]:
    """At most `per_model` rows of each model, chosen by a hash of the id (the same every build)."""
    by_model: dict[str, list[dict]] = {}
    for row in rows:
        by_model.setdefault(row["model"], []).append(row)
    kept = []
    for model in sorted(by_model):
        ranked = sorted(by_model[model], key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
        kept += sorted(ranked[:per_model], key=lambda r: r["id"])
    return kept


def row(
    source: str, model: str, item: str, question: str, answer_type: str, choices: Iterable[str],
    truth: str, reply: str, label: bool | None, bench_answer: object, tolerance: float | None = None,
) -> dict:  # fmt: skip
    return {
        "id": f"{source}:{model}:{item}", "source": source, "model": model, "item": item,
        "question": question, "answer_type": answer_type, "choices": list(choices), "truth": truth,
        "tolerance": tolerance, "reply": reply, "label": label,
        "bench_answer": None if bench_answer is None else str(bench_answer),
    }  # fmt: skip


def number_type(truth: str) -> str:
    if re.fullmatch(r"-?\d+", truth):
        return "int"
    if re.fullmatch(r"-?\d*\.\d+", truth):
        return "float"
    return "text"


# ---- ZeroEval (WildEval/ZeroEval): MATH level 5 and GSM8K, JSON replies ----------------------------

ZEROEVAL_MODELS = (
    "chatgpt-4o-latest-24-09-07", "claude-3-5-haiku-20241022", "claude-3-5-sonnet-20241022",
    "gemini-1.5-pro", "gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18", "grok-2-1212",
    "Meta-Llama-3.1-70B-Instruct", "o1-mini-2024-09-12", "o1-preview-2024-09-12", "Qwen2.5-72B-Instruct",
    "deepseek-v2.5-0908",
)  # fmt: skip
ZEROEVAL_TASKS = ("math-l5", "gsm")


def zeroeval_verdicts(git_dir: Path, path: str, model: str) -> list[dict]:
    """ZeroEval's own verdict per item: its evaluation module, read from the snapshot and run on the
    log as its summary script runs it (kept out of this repository)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("eval_utils.py", "math_eval.py"):
            (Path(tmp) / name).write_bytes(git_bytes(git_dir, f"src/evaluation/{name}") or b"")
        log = Path(tmp) / "log.json"
        log.write_bytes(git_bytes(git_dir, path) or b"[]")
        sys.path.insert(0, tmp)
        try:
            math_eval = importlib.import_module("math_eval")
            quiet = io.StringIO()
            stdout, sys.stdout = sys.stdout, quiet
            try:
                _, parsed = math_eval.eval_model(f"{model}%greedy", str(log))
            finally:
                sys.stdout = stdout
        finally:
            sys.path.remove(tmp)
            sys.modules.pop("math_eval", None)
            sys.modules.pop("eval_utils", None)
    return parsed


def zeroeval(git_dir: Path) -> tuple[list[dict], dict]:
    rows, used = [], []
    for task in ZEROEVAL_TASKS:
        for model in ZEROEVAL_MODELS:
            path = f"result_dirs/{task}/{model}.json"
            if git_bytes(git_dir, path) is None:
                continue
            used.append(path)
            for item in zeroeval_verdicts(git_dir, path, model):
                matched = item["matched"]
                truth = item["answer"].replace("#", "").strip()
                raw = (item.get("model_answer") or {}).get("raw")
                rows.append(row(
                    "zeroeval", model, f"{task}:{item['id']}", str(item["chat_history"][0]),
                    number_type(truth.replace(",", "")), (), truth, str(item["output"][0]),
                    matched if isinstance(matched, bool) else False, raw,
                ))  # fmt: skip
    provenance = {
        "repository": "github.com/WildEval/ZeroEval", "commit": git_commit(git_dir), "paths": sorted(used),
        "licence": "Apache-2.0",
        "attribution": "Bill Yuchen Lin, ZeroEval: A Unified Framework for Evaluating Language Models "
        "(2024, CITATION.cff); zero-shot JSON-format replies to MATH level 5 and GSM8K as released in "
        "result_dirs/; labels are ZeroEval's own verdicts (src/evaluation/math_eval.py run on the logs)",
    }  # fmt: skip
    return rows, provenance


# ---- MMLU-Pro (TIGER-AI-Lab/MMLU-Pro): 10-option multiple choice, CoT replies ----------------------

MMLU_PRO_RUNS = {  # model -> zip in eval_results/ (the snapshot lacks the larger zips)
    "gemini-1.5-pro-002": "model_outputs_gemini-1.5-pro-002_5shots.zip",
    "gemini-1.5-flash-002": "model_outputs_gemini-1.5-flash-002_5shots.zip",
    "Llama-3.1-70B-Instruct": "model_outputs_Meta-Llama-3_1-70B-Instruct_5shots.zip",
    "Llama-3.1-8B-Instruct": "model_outputs_Meta-Llama-3_1-8B-Instruct_5shots.zip",
    "jamba-1.5-large": "model_outputs_jamba-1.5-large_5shots.zip",
    "mathstral-7B": "model_outputs_mathstral-7B_5shots.zip",
    "DeepSeek-Coder-V2": "model_outputs_DeepSeek-Coder-V2_5shots.zip",
}
MMLU_PRO_CATEGORIES = ("math", "physics", "engineering", "chemistry")
MMLU_PRO_INSTRUCTION = (  # evaluate_from_api.py: the header before the five worked examples (not kept)
    "The following are multiple choice questions (with answers) about {}. Think step by step and then "
    'output the answer in the format of "The answer is (X)" at the end.\n\n'
)


def mmlu_pro_question(item: dict, options: list[str]) -> str:
    listing = "".join(f"{LETTERS[i]}. {option}\n" for i, option in enumerate(options))
    return (
        MMLU_PRO_INSTRUCTION.format(item["category"])
        + f"Question: {item['question']}\nOptions: {listing}Answer: Let's think step by step."
    )


def mmlu_pro(git_dir: Path) -> tuple[list[dict], dict]:
    rows, used = [], []
    for model, name in MMLU_PRO_RUNS.items():
        blob = git_bytes(git_dir, f"eval_results/{name}")
        if blob is None:
            continue
        used.append(f"eval_results/{name}")
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            data = json.loads(archive.read(archive.namelist()[0]))
        for item in data:
            if not isinstance(item, dict) or item["category"] not in MMLU_PRO_CATEGORIES:  # 43 stray strings
                continue
            options = [str(o) for o in _listed(item["options"])]
            reply = item.get("model_outputs") or item.get("generated_text") or ""
            pred = item.get("pred")
            rows.append(row(
                "mmlu_pro", model, str(item["question_id"]), mmlu_pro_question(item, options),
                "multiple_choice", options, item["answer"], str(reply),
                None if pred is None else pred == item["answer"], pred,
            ))  # fmt: skip
    provenance = {
        "repository": "github.com/TIGER-AI-Lab/MMLU-Pro", "commit": git_commit(git_dir),
        "paths": sorted(used), "licence": "Apache-2.0",
        "attribution": "Wang et al., MMLU-Pro: A More Robust and Challenging Multi-Task Language "
        "Understanding Benchmark (NeurIPS 2024 Datasets and Benchmarks); 5-shot CoT outputs as released in "
        "eval_results/ (math, physics, engineering, chemistry); label: the benchmark's extraction `pred` "
        "equals the answer (null where it extracted nothing and scores a random guess)",
    }  # fmt: skip
    return rows, provenance


def _listed(value: object) -> list:
    return value if isinstance(value, list) else ast.literal_eval(str(value))


# ---- MMMU-Pro (MMMU-Benchmark/MMMU): 10-option multiple choice, gpt-4o, text and vision settings ---

MMMU_PRO_RUNS = {
    "gpt-4o:standard-cot": "mmmu-pro/output/gpt-4o_standard(10 options)_cot.jsonl",
    "gpt-4o:standard-direct": "mmmu-pro/output/gpt-4o_standard(10 options)_direct.jsonl",
    "gpt-4o:vision-cot": "mmmu-pro/output/gpt-4o_vision_cot.jsonl",
    "gpt-4o:vision-direct": "mmmu-pro/output/gpt-4o_vision_direct.jsonl",
}
MMMU_PRO_SUBJECTS = (
    "Math", "Physics", "Chemistry", "Electronics", "Energy_and_Power", "Mechanical_Engineering",
    "Architecture_and_Engineering", "Materials", "Accounting", "Finance", "Economics", "Computer_Science",
)  # fmt: skip
MMMU_PRO_PROMPTS = {  # mmmu-pro/prompts.yaml
    ("cot", "vision"): "Write out the multiple-choice question in the image and then solve it. The last line "
    "of your response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER "
    "is one of options. Think step by step before answering.",
    ("cot", "standard"): "Answer the preceding multiple choice question. The last line of your response "
    "should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of options. "
    "Think step by step before answering.",
    ("direct", "vision"): "Answer with the option letter from the given choices directly. The last line of "
    "your response should be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is "
    "one of options.",
    ("direct", "standard"): "Answer with the option letter from the given choices directly.",
}


def mmmu_pro_question(item: dict, options: list[str], setting: str) -> str:
    """The question and options as shown (as text in `standard`, inside the image in `vision`),
    then the setting's instruction."""
    shown, mode = setting.split("-")
    listing = "".join(f"{LETTERS[i]}. {option}\n" for i, option in enumerate(options))
    return f"{item['question']}\n{listing}{MMMU_PRO_PROMPTS[(mode, shown)]}"


def mmmu_pro(git_dir: Path) -> tuple[list[dict], dict]:
    rows, used = [], []
    for model, path in MMMU_PRO_RUNS.items():
        blob = git_bytes(git_dir, path)
        if blob is None:
            continue
        used.append(path)
        for line in blob.decode("utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            options = [str(o) for o in _listed(item["options"])]
            if item["subject"] not in MMMU_PRO_SUBJECTS or len(options) > len(LETTERS):
                continue
            verdict = str(item["if_right"]).strip().lower() == "true"
            rows.append(row(
                "mmmu_pro", model, item["id"], mmmu_pro_question(item, options, model.split(":")[1]),
                "multiple_choice", options, item["answer"], str(item.get("response") or ""), verdict,
                item.get("pred_indexs"),
            ))  # fmt: skip
    provenance = {
        "repository": "github.com/MMMU-Benchmark/MMMU", "commit": git_commit(git_dir),
        "paths": sorted(used), "licence": "Apache-2.0",
        "attribution": "Yue et al., MMMU-Pro: A More Robust Multi-discipline Multimodal Understanding "
        "Benchmark (ACL 2025); gpt-4o outputs as released in mmmu-pro/output/ (math, science, engineering "
        "and business subjects); label: the benchmark's `if_right`",
    }  # fmt: skip
    return rows, provenance


# ---- KOR-Bench (KOR-Bench/KOR-Bench): custom operations, answers in [[...]] -------------------------

KOR_MODELS = (
    "DeepSeek-V2.5", "Meta-Llama-3.1-405B-Instruct", "Meta-Llama-3.1-70B-Instruct",
    "Mistral-Large-Instruct-2407", "Phi-3.5-MoE-instruct", "Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct",
    "c4ai-command-r-plus-08-2024", "claude-3-5-sonnet-20240620", "gemini-1.5-pro", "gemma-2-27b-it",
    "gpt-4o-2024-08-06", "yi-large",
)  # fmt: skip


def kor_bench(git_dir: Path) -> tuple[list[dict], dict]:
    import yaml

    template = yaml.safe_load(git_bytes(git_dir, "config/prompt/zero-shot.yaml") or b"")
    template = template["operation_prompt_format"][0]
    rules = {r["idx"]: r for r in _jsonl(git_bytes(git_dir, "data/operation/rule.jsonl"))}
    items = {r["idx"]: r for r in _jsonl(git_bytes(git_dir, "data/operation/sample.jsonl"))}
    used = ["config/prompt/zero-shot.yaml", "data/operation/rule.jsonl", "data/operation/sample.jsonl"]
    rows = []
    for model in KOR_MODELS:
        path = f"eval/results/0923_main/evaluation_{model}_operation_zero-shot.jsonl.json"
        blob = git_bytes(git_dir, path)
        if blob is None:
            continue
        used.append(path)
        for result in json.loads(blob):
            item = items[result["idx"]]
            question = template.format(rules[item["rule_id"]]["rule_content"], item["question"])
            truth = re.sub(r"^\[\[(.*)\]\]$", r"\1", str(result["answer"]).strip(), flags=re.S)
            rows.append(row(
                "kor_bench", model, f"operation:{result['idx']}", question, number_type(truth), (), truth,
                str(result.get("response") or ""), str(result["is_correct"]).strip().lower() == "true",
                result.get("response_text"),  # the benchmark's extraction
            ))  # fmt: skip
    provenance = {
        "repository": "github.com/KOR-Bench/KOR-Bench", "commit": git_commit(git_dir), "paths": used,
        "licence": "Apache-2.0",
        "attribution": "Ma et al., KOR-Bench: Benchmarking Language Models on Knowledge-Orthogonal Reasoning "
        "Tasks (ICLR 2025); zero-shot replies to the operation task as released in eval/results/0923_main/; "
        "label: the benchmark's `is_correct`",
    }  # fmt: skip
    return rows, provenance


def _jsonl(blob: bytes | None) -> list[dict]:
    return [json.loads(line) for line in (blob or b"").decode("utf-8").splitlines() if line.strip()]


# ---- writing --------------------------------------------------------------------------------------

BUILDERS: dict[str, tuple[Callable[[Path], tuple[list[dict], dict]], int, dict]] = {
    # source -> builder, replies kept per model, what SOURCES.json records of its models
    "zeroeval": (zeroeval, 260, {"years": [2024], "newest_model": "2024-12"}),  # grok-2-1212
    "mmlu_pro": (mmlu_pro, 450, {"years": [2024], "newest_model": "2024-09"}),  # gemini-1.5-*-002
    "mmmu_pro": (mmmu_pro, 750, {"years": [2024], "newest_model": "2024-08"}),  # gpt-4o
    "kor_bench": (kor_bench, 250, {"years": [2024], "newest_model": "2024-09"}),  # Qwen2.5, c4ai-08-2024
}


def write_lines(path: Path, rows: list[dict]) -> None:
    body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as out:  # mtime 0: the same bytes every build
        out.write(body.encode("utf-8"))


def main(*git_dirs: str) -> None:
    sources = {}
    for (name, (build, per_model, models_meta)), git_dir in zip(BUILDERS.items(), git_dirs, strict=True):
        rows, provenance = build(Path(git_dir))
        kept = sample(rows, per_model)
        write_lines(HERE / f"{name}.jsonl.gz", kept)
        models = sorted({r["model"] for r in kept})
        sources[name] = {**provenance, "rows": len(kept), "models": models, **models_meta}
        print(f"{name}: {len(kept)} rows of {len(rows)}, {len(models)} models")  # counts only
    (HERE / "SOURCES.json").write_text(json.dumps(sources, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
