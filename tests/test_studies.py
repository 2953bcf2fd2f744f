"""The product's own example as written, study files with overrides on top, and model aliases,
through the real command line against the loopback stub."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import user_cli
from isodyn.testing import OpenAIStub, ScriptedReply

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def exp(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """No user-level isodyn.toml in reach: the tests' model names must come from the study."""
    env = user_cli.user_env(XDG_CONFIG_HOME=str(cwd / "no-user-config"))
    return user_cli.exp(*args, cwd=cwd, env=env, timeout=600)


def rows_of(out: Path) -> list[dict]:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def answer(request: dict) -> ScriptedReply:
    return ScriptedReply(text=json.dumps({"solution": "s", "short answer": "A"}))


def test_the_products_own_example_runs_as_written(tmp_path: Path) -> None:
    # a user's isodyn.toml points `gemini` at their own OpenAI-compatible server (the stub here)
    (tmp_path / "isodyn.toml").write_text(
        '[models]\ngemini = { id = "openai/gemini-1.5-pro", vision = true }\n'
    )
    with OpenAIStub(answer) as stub:
        example = ["strategies=cot,isosp", "models=gpt-4o,gemini"]  # the one-line description's command
        done = exp("run", *example, f"api_base={stub.base_url}", "seeds=isobench_parity", "variants=1",
                   "out=runs", "cache_dir=cache", "quiet=1", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = rows_of(tmp_path / "runs")
    assert {r["strategy"] for r in rows} == {"cot3", "isosp"}  # one canonical name however spelled
    assert {r["model"] for r in rows} == {"gpt-4o", "openai/gemini-1.5-pro"}  # resolved ids, never aliases
    assert all(r["reason"] in ("ok", "extraction_failed") or r["reason"].startswith("skipped") for r in rows)
    assert any(r["modality"] == "image" and r["reason"] == "ok" for r in rows)  # both read images


@pytest.mark.parametrize("study", ["dynamath.toml", "isobench.toml"])
def test_the_example_studies_run_with_overrides_on_top(tmp_path: Path, study: str) -> None:
    shutil.copy(EXAMPLES / study, tmp_path / study)
    with OpenAIStub(answer) as stub:
        done = exp("run", study, "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes", "variants=1",
                   "out=runs", "cache_dir=cache", "quiet=1", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = rows_of(tmp_path / "runs")
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert (run_dir / "study.toml").read_text() == (EXAMPLES / study).read_text()  # kept as used
    config = json.loads((run_dir / "config.json").read_text())
    assert config["models"] == ["openai/vlm"] and config["variants"] == 1  # the overrides won
    if study == "dynamath.toml":
        assert {r["strategy"] for r in rows} == {"zeroshot", "cot3"} and {r["modality"] for r in rows} == {
            "image"
        }
        assert len({r["seed_id"] for r in rows}) >= 60 and config["grader"] == "dynamath"
    else:
        assert {r["strategy"] for r in rows} == {"zeroshot", "isocb", "isosp"}
        assert {r["modality"] for r in rows} == {"image", "latex", "code", "story"}


def test_a_study_dry_run_shows_the_resolved_grid(tmp_path: Path) -> None:
    done = exp("run", str(EXAMPLES / "isobench.toml"), "models=openai/vlm", "api_base=http://127.0.0.1:9/v1",
               "dry_run=1", "cache_dir=cache", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1 models x 3 strategies x 4 modalities x 11 seeds x 8 variants" in done.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('models = ["gpt-4o"]\ncolour = "red"\n', "study.toml, line 2, key 'colour': unknown setting"),
        ("variants = [1, 2]\n", "study.toml, line 1, key 'variants': expected one value, not a list"),
        ("variants = { a = 1 }\n", "key 'variants': expected a string, a number"),
        ('models = ["gpt-4o"\n', "study.toml: "),
        ("variants = 0\n", "bad value for variants"),
    ],
)
def test_a_bad_study_file_is_one_line_naming_file_line_and_key(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "study.toml").write_text(content)
    done = exp("run", "study.toml", "dry_run=1", "cache_dir=cache", cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("config", "words", "message"),
    [
        ("", ["models=gemnii"], "unknown model 'gemnii'"),
        ('[models]\nmine = "no-such-provider-xyz/model"\n', ["models=mine"], "(alias 'mine' from"),
        (
            '[models]\nmine = { id = "openai/x", vision = "maybe" }\n',
            ["models=mine"],
            "models.mine.vision must be",
        ),
        ("[models\n", ["models=gpt-4o"], "isodyn.toml"),
    ],
)
def test_bad_aliases_are_one_line_errors(tmp_path: Path, config: str, words: list[str], message: str) -> None:
    if config:
        (tmp_path / "isodyn.toml").write_text(config)
    done = exp("run", *words, "dry_run=1", "cache_dir=cache", cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_model_table_says_where_each_name_comes_from(tmp_path: Path) -> None:
    (tmp_path / "isodyn.toml").write_text('[models]\ngemini = "gemini/gemini-2.0-flash"\n')
    done = exp("list", "models", cwd=tmp_path)
    assert done.returncode == 0
    line = next(x for x in done.stdout.splitlines() if "│ gemini " in x)
    assert "gemini/gemini-2.0-flash" in line and "isodyn.toml" in line
    assert any("│ claude " in x and "built-in" in x for x in done.stdout.splitlines())
