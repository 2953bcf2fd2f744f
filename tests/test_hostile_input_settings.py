"""Hostile settings and servers: non-finite numbers, addresses that are no server's, credentials in a
URL, a study file that would send a key away, servers that stall (Retry-After) or echo the key.

Refusals go through the command line in this process (typer's runner: one line on stderr, exit 2);
calls go to the loopback stub."""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import json
import math
import time
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import user_cli
from isodyn.cache import ResponseCache
from isodyn.cli import app
from isodyn.errors import ConfigError
from isodyn.experiments.call_errors import parse_retry_after
from isodyn.experiments.llm import CachedClient, Limits, RunLog
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.models.requests import ModelRequest
from isodyn.runs.config import ExperimentConfig, parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

CRED = "cred-5f1e0c9a7b3d2e4f"  # neither its variable's name nor its shape looks like a key
RUN = ["seeds=isobench_parity", "variants=1", "modalities=latex", "quiet=1", "models=openai/m"]


def exp_run(tmp_path: Path, *words: str) -> tuple[int, str]:
    """`exp run WORDS` in this process: exit code and stderr."""
    where = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}"]
    result = CliRunner().invoke(app, ["run", *words, *where])
    return result.exit_code, result.stderr


def one_line_error(code: int, stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, stderr)
    return lines[0]


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]


def strict_json(path: Path) -> object:
    """json.loads that refuses NaN and Infinity, as every JSON reader outside Python does."""

    def refuse(token: str) -> None:
        raise ValueError(f"{path} holds {token}")

    return json.loads(path.read_text(), parse_constant=refuse)


# ---- numbers: finite, for every float setting ----------------------------------------------------


@pytest.mark.parametrize(
    ("word", "says"),
    [
        ("max_cost=nan", "must be a finite number"),
        ("max_cost=$inf", "must be a finite number"),
        ("temperature=nan", "must be a finite number"),
        ("temperature=inf", "must be a finite number"),
        ("timeout=1e309", "must be a finite number"),  # overflows to inf
        ("timeout=1e300", "must be at most 86,400 seconds"),
        ("rpm=1" + "0" * 400, "must be at most"),  # float() of it raised OverflowError: a traceback
        ("tpm=-inf", "invalid literal"),
    ],
)
def test_float_settings_are_finite(tmp_path: Path, word: str, says: str) -> None:
    line = one_line_error(*exp_run(tmp_path, "dry_run=1", word))
    assert f"bad value for {word.partition('=')[0]}" in line and says in line
    assert not (tmp_path / "runs").exists()


def test_a_study_file_cannot_slip_nan_in(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text("max_cost = nan\n")  # TOML has nan and inf literals
    line = one_line_error(*exp_run(tmp_path, str(study), "dry_run=1"))
    assert "bad value for max_cost: 'nan'" in line


def test_a_config_built_in_code_is_finite_too() -> None:
    with pytest.raises(ConfigError, match="max_cost must be a finite number"):
        ExperimentConfig(max_cost=math.nan)
    with pytest.raises(ConfigError, match="temperature must be a finite number"):
        replace(ExperimentConfig(), temperature=math.inf)


def test_the_run_log_is_strict_json(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "log.jsonl")
    with pytest.raises(ValueError, match="JSON compliant"):
        log.event("call", cost_usd=math.nan)
    log.event("call", cost_usd=0.5)
    log.close()
    written = strict_json(tmp_path / "log.jsonl")  # one line: the NaN event wrote nothing
    assert isinstance(written, dict) and written["cost_usd"] == 0.5


# ---- addresses ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("http://[::1", "Invalid IPv6 URL"),  # was a traceback
        ("file:///etc/passwd", "the scheme must be http or https, not 'file'"),
        ("http://127.0.0.1:99999/v1", "Port out of range"),
        ("http://127.0.0.1:0/v1", "port 0"),
        ("http:///v1", "names no host"),
        ("http://127.0.0.1:8000/v1?token=x", "?query or #fragment"),
        ("http://127.0.0.1:8000/v1\r\nX-Injected: 1", "line break or another control character"),
    ],
)
def test_an_address_that_is_no_server_is_one_line(tmp_path: Path, address: str, says: str) -> None:
    line = one_line_error(*exp_run(tmp_path, *RUN, f"api_base={address}"))
    assert line.startswith("error: bad value for api_base") and says in line


def test_credentials_in_the_address_are_refused_and_never_shown(tmp_path: Path) -> None:
    line = one_line_error(*exp_run(tmp_path, *RUN, "api_base=http://admin:hunter22@127.0.0.1:8000/v1"))
    assert "'http://***@127.0.0.1:8000/v1'" in line and "api_key_env" in line
    assert "hunter22" not in line and "admin" not in line
    assert not (tmp_path / "runs").exists()


def test_the_malformed_address_as_a_user_types_it(tmp_path: Path) -> None:
    done = user_cli.exp("run", *RUN, "api_base=http://[::1", "out=runs", "cache_dir=cache", cwd=tmp_path,
                        timeout=120)  # fmt: skip
    line = one_line_error(done.returncode, done.stderr)
    assert "is not a server address (Invalid IPv6 URL)" in line and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("word", "says"),
    [
        ("models=openai/m\r\nX-Injected: 1", "bad value for models"),
        ("describer=openai/m\nx", "bad value for describer"),
        ("dataset=release\u2028evil", "bad value for dataset"),
    ],
)
def test_no_setting_holds_a_line_break(tmp_path: Path, word: str, says: str) -> None:
    line = one_line_error(*exp_run(tmp_path, "dry_run=1", word))
    assert says in line and "control character" in line


@pytest.mark.parametrize("value", ["sk-line\r\nX-Injected: 1", "two words", "   "])
def test_a_key_that_would_break_its_header_is_refused_unquoted(tmp_path, monkeypatch, value) -> None:
    monkeypatch.setenv("MY_CRED", value)
    line = one_line_error(
        *exp_run(tmp_path, *RUN, "api_base=http://127.0.0.1:8000/v1", "api_key_env=MY_CRED")
    )
    assert "bad value for api_key_env: 'MY_CRED'" in line and ("empty" in line or "line break" in line)
    assert "X-Injected" not in line and "words" not in line


# ---- a shared study file and your key ---------------------------------------------------------------


def test_a_study_that_names_a_server_and_a_key_is_refused_unless_trusted(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CRED)
    study = tmp_path / "shared.toml"
    study.write_text('api_base = "http://collector.example:8000/v1"\napi_key_env = "OPENAI_API_KEY"\n'
                     'models = ["openai/m"]\nseeds = ["isobench_parity"]\nvariants = 1\n')  # fmt: skip
    line = one_line_error(*exp_run(tmp_path, str(study), "dry_run=1"))
    assert "$OPENAI_API_KEY" in line and "collector.example" in line and "--trust-study" in line
    assert CRED not in line
    code, stderr = exp_run(tmp_path, str(study), "dry_run=1", "--trust-study")
    assert code == 0 and "Nothing was called" in stderr, stderr
    # the server typed by the user is the user's choice: no question asked
    code, stderr = exp_run(tmp_path, str(study), "dry_run=1", "api_base=http://collector.example:8000/v1")
    assert code == 0, stderr
    # the key named on the command line goes to the study's server all the same: refused
    study.write_text('api_base = "http://collector.example:8000/v1"\nmodels = ["openai/m"]\n'
                     'seeds = ["isobench_parity"]\nvariants = 1\n')  # fmt: skip
    line = one_line_error(*exp_run(tmp_path, str(study), "dry_run=1", "api_key_env=OPENAI_API_KEY"))
    assert "$OPENAI_API_KEY" in line
    code, stderr = exp_run(tmp_path, str(study), "dry_run=1")  # a server, no key: nothing to send
    assert code == 0, stderr


# ---- Retry-After ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("1e400", None),  # inf: was a wait of forever
        ("nan", None),
        ("-5", None),
        ("soon", None),
        ("0x10", None),
        ("86400", 86400.0),  # read as sent; the caller caps it
        (" 2.5 ", 2.5),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 0.0),  # a date in the past: now
        (email.utils.formatdate(1_000_000_030.0, usegmt=True), 30.0),
        ("Wed, 21 Oct 2015 07:28:00", None),  # no zone: not an HTTP date
    ],
)
def test_retry_after_values(header: str, seconds: float | None) -> None:
    assert parse_retry_after(header, now=1_000_000_000.0) == seconds


@pytest.mark.parametrize("header", ["86400", "1e400", "-5"])
def test_a_stalling_retry_after_is_capped_by_timeout(tmp_path: Path, header: str) -> None:
    sent = itertools.count()

    def stall_once(request: dict) -> ScriptedReply:
        return (
            ScriptedReply("slow down", 429, {"Retry-After": header}) if next(sent) == 0 else ScriptedReply()
        )

    with OpenAIStub(stall_once) as stub:
        started = time.monotonic()
        outcome = run([*RUN, f"api_base={stub.base_url}", "timeout=1", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'cache'}"])  # fmt: skip
        waited = time.monotonic() - started
        assert len(stub.requests) == 2  # litellm retried nothing itself: the second is ours
    (retry,) = [e for e in events(outcome.folder.path) if e["event"] == "retry"]
    assert retry["reason"] == "error:rate_limit" and retry["wait_s"] <= 1.0
    assert outcome.summary.calls_made == 2 and outcome.rows[0]["reason"] == "ok"
    assert waited < 60
    strict_json(outcome.folder.summary_file)
    strict_json(outcome.folder.config_file)


# ---- what is retried ------------------------------------------------------------------------------------


def test_a_request_the_client_refuses_is_not_sent_retried_or_counted(tmp_path: Path) -> None:
    # an address that got past the settings (built in code): the client refuses it before sending
    with OpenAIStub() as stub:
        base = stub.base_url.replace("http://", "http://user:pass@")
        client = CachedClient(ResponseCache(tmp_path / "responses"), Limits(max_retries=6),
                              log=RunLog(tmp_path / "log.jsonl"))  # fmt: skip
        request = ModelRequest(model="openai/m", messages=[{"role": "user", "content": "hi"}],
                               params={"max_tokens": 5}, api_base=base)  # fmt: skip
        with pytest.raises(Exception, match="credentials encoded in URL") as raised:
            asyncio.run(client.complete(request))
        assert stub.requests == []
    client.log.close()
    assert client.calls_made == 0 and client.retries == 0
    logged = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [(e["event"], e["reason"]) for e in logged] == [("refused", "error:client")]
    assert type(raised.value).__module__.startswith("litellm")


@pytest.mark.parametrize(("status", "tries"), [(409, 1), (418, 1), (413, 1), (408, 3)])
def test_a_4xx_is_final_except_408_and_429(tmp_path: Path, status: int, tries: int) -> None:
    with OpenAIStub(lambda request: ScriptedReply("no", status)) as stub:
        outcome = run([*RUN, f"api_base={stub.base_url}", "max_retries=2", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'cache'}"])  # fmt: skip
        assert len(stub.requests) == tries
    assert outcome.summary.calls_made == tries and outcome.summary.errors == 1


# ---- the key, whatever its variable is called ----------------------------------------------------------


def test_a_key_in_any_variable_is_redacted_from_everything_written(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MY_CRED", CRED)
    stub = OpenAIStub()

    def echo(request: dict) -> ScriptedReply:  # a server that says back what it was sent
        sent = next(v for k, v in stub.headers[-1].items() if k.lower() == "authorization")
        if "even function" in json.dumps(request):  # the parity questions: an error that quotes it
            return ScriptedReply(f"invalid key {sent}", 401)
        return ScriptedReply(json.dumps({"solution": f"you sent {sent}", "short answer": "A"}))

    stub.script = echo
    with stub:
        outcome = run([*RUN, "seeds=isobench_parity,isobench_connectivity", "variants=2",
                       f"api_base={stub.base_url}", "api_key_env=MY_CRED", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'cache'}"])  # fmt: skip
        assert all(CRED in str(h.values()) for h in stub.headers)  # it was really sent
    reasons = {r["reason"] for r in outcome.rows}
    assert "error:auth" in reasons and reasons & {"ok", "extraction_failed"}  # both echoes happened
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"log.jsonl", "results.jsonl", "config.json", "summary.json"}
    for path in written:
        assert CRED.encode() not in path.read_bytes(), path
    text = outcome.folder.results_file.read_text()
    assert "you sent Bearer [REDACTED]" in text and "invalid key Bearer [REDACTED]" in text
