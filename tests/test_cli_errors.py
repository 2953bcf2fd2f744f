"""Bad input: a one-line error naming the problem and the choices, exit code 2, nothing written."""

from functools import partial

import pytest

import user_cli

exp = partial(user_cli.exp, timeout=120)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["bogus=1"], "unknown setting 'bogus'; valid: models, strategies"),
        (["variants"], "expected key=value"),
        (["variants=zero"], "bad value for variants"),
        (["repeats=0"], "bad value for repeats"),
        (["modalities=smell"], "unknown modality 'smell'; valid: image, latex, code, story"),
        (["strategies=telepathy"], "unknown strategy 'telepathy'; valid: cot3, dspy, isocb, isosp, selfdemo"),
        (["seeds=nope"], "unknown seed 'nope'; valid: "),
        (["models=local/gpt-9"], "unknown local model 'local/gpt-9'; embedded models: local/smollm2-135m"),
        (
            ["models=totally-unknown-model-xyz"],
            "unknown model 'totally-unknown-model-xyz': litellm cannot route",
        ),
        (["models=gpt-4o"], "needs the environment variable OPENAI_API_KEY"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, expected) -> None:
    out = tmp_path / "runs"
    result = exp("run", *args, f"out={out}", f"cache_dir={tmp_path / 'cache'}", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert expected in " ".join(result.stderr.split())
    assert not out.exists()
    assert not (tmp_path / "cache").exists()


def test_report_on_missing_run_dir(tmp_path) -> None:
    result = exp("report", str(tmp_path / "nope"), cwd=tmp_path)
    assert result.returncode == 2
    assert "no results.jsonl" in result.stderr
