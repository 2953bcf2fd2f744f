"""The catalogue of bad input (`CASES`): each `Case` builds its files in a scratch directory, names the
words a user types, and says the exit code and a phrase of the one-line answer a careful tool gives.
`testing/bad_input.py` runs them.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from isodyn.runs.folder import RunFolder
from isodyn.testing.bad_input import Case, Setup, closed_port

# Listening sockets the replica case opened: kept open until the process ends, since a case has no
# teardown and the command (in this process or a child) must find the port answering.
_LISTENING: list[socket.socket] = []


def _one_replica_down(scratch: Path) -> list[str]:
    """api_base naming two replicas on 127.0.0.1: one port that accepts connections (a listening
    socket is enough for the probe; a dry run sends no request), one where nothing listens."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    _LISTENING.append(listening)
    live = listening.getsockname()[1]
    return [f"api_base=http://127.0.0.1:{live}/v1,http://127.0.0.1:{closed_port()}/v1"]


def _file(name: str, content: bytes | str) -> Setup:
    def make(scratch: Path) -> list[str]:
        path = scratch / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return []

    return make


def _damaged_cache(scratch: Path) -> list[str]:
    """A cache isodyn made (its marker is there) whose reply store is no database any more."""
    from isodyn.cache.folder import Stores
    from isodyn.cache.stores import mark

    Stores(scratch / "c").responses.mkdir(parents=True)
    mark(scratch / "c")
    (Stores(scratch / "c").responses / "cache.db").write_bytes(b"not sqlite" * 100)
    return []


def _parquet(path: Path) -> list[str]:
    import pandas as pd

    path.parent.mkdir(parents=True)
    pd.DataFrame({"a": [1], "b": ["x"]}).to_parquet(path)
    return []


def _folder(name: str) -> Setup:
    def make(scratch: Path) -> list[str]:
        (scratch / name).mkdir(parents=True)
        return []

    return make


def _run_dir(rows: bytes | str | None, config: str | None = "{}") -> Setup:
    def make(scratch: Path) -> list[str]:
        run = scratch / "run"
        run.mkdir()
        if rows is not None:
            RunFolder(run).results_file.write_bytes(rows.encode() if isinstance(rows, str) else rows)
        if config is not None:
            RunFolder(run).config_file.write_text(config)
        return []

    return make


ROW = json.dumps(
    {
        "model": "m",
        "strategy": "zeroshot",
        "modality": "latex",
        "seed_id": "isobench_parity",
        "variant": 0,
        "repeat": 0,
        "reason": "ok",
        "correct": True,
        "extracted": "A",
        "truth": "A",
        "answer_type": "multiple_choice",
        "choices": ["even", "odd", "neither"],
        "response": '{"short answer": "A"}',
        "topic": "iso_math",
        "level": "high_school",
    }
)
DRY = ("run", "dry_run=1", "out={scratch}/runs", "cache_dir={scratch}/cache")


def _run(*words: str) -> tuple[str, ...]:
    return (*DRY, *words)


CASES: tuple[Case, ...] = (
    # ---- run settings: unknown, misspelled, malformed, out of range
    Case("unknown key", _run("colour=red"), 2, "unknown setting 'colour'"),
    Case("misspelled key", _run("modle=openai/x"), 2, "unknown setting 'modle'"),
    Case("word without =", _run("variants"), 2, "expected key=value"),
    Case("empty key", _run("=5"), 2, "expected key=value"),
    Case("variants not a number", _run("variants=abc"), 2, "bad value for variants"),
    Case("variants zero", _run("variants=0"), 2, "bad value for variants"),
    Case("variants negative", _run("variants=-3"), 2, "bad value for variants"),
    Case("variants fractional", _run("variants=1.5"), 2, "bad value for variants"),
    Case("variants beyond the seeds", _run("variants=2000000"), 2, "variants must be at most"),
    Case("repeats zero", _run("repeats=0"), 2, "bad value for repeats"),
    Case("repeats a billion", _run("repeats=1000000000"), 2, "bad value for repeats"),
    Case("grid too large", _run("repeats=1000", "variants=1000", "seeds=all"), 2, "more than 2,000,000"),
    Case("temperature negative", _run("temperature=-1"), 2, "bad value for temperature"),
    Case("temperature a word", _run("temperature=hot"), 2, "bad value for temperature"),
    Case("max_tokens zero", _run("max_tokens=0"), 2, "bad value for max_tokens"),
    Case("concurrency zero", _run("concurrency=0"), 2, "bad value for concurrency"),
    Case("concurrency huge", _run("concurrency=99999"), 2, "bad value for concurrency"),
    Case("rpm zero", _run("rpm=0"), 2, "bad value for rpm"),
    Case("tpm negative", _run("tpm=-5"), 2, "bad value for tpm"),
    Case("max_retries negative", _run("max_retries=-1"), 2, "bad value for max_retries"),
    Case("max_retries huge", _run("max_retries=1000"), 2, "bad value for max_retries"),
    Case("timeout zero", _run("timeout=0"), 2, "bad value for timeout"),
    Case("timeout negative", _run("timeout=-1"), 2, "bad value for timeout"),
    Case("timeout nan", _run("timeout=nan"), 2, "bad value for timeout"),
    Case("max_cost a word", _run("max_cost=lots"), 2, "bad value for max_cost"),
    Case("max_cost negative", _run("max_cost=-1"), 2, "bad value for max_cost"),
    Case("dry_run maybe", ("run", "dry_run=maybe"), 2, "bad value for dry_run"),
    Case("quiet perhaps", _run("quiet=perhaps"), 2, "bad value for quiet"),
    Case("base_seed a word", _run("base_seed=abc"), 2, "bad value for base_seed"),
    Case("unknown grader", _run("grader=nope"), 2, "bad value for grader"),
    Case("unknown strategy", _run("strategies=telepathy"), 2, "unknown strategy 'telepathy'"),
    Case("sc@1", _run("strategies=sc@1"), 2, "self-consistency needs k >= 2"),
    Case("two base strategies", _run("strategies=cot3+zeroshot"), 2, "combines two base strategies"),
    Case("a modifier twice", _run("strategies=antimem+antimem"), 2, "names antimem twice"),
    Case("empty strategies", _run("strategies="), 2, "strateg"),
    Case("unknown modality", _run("modalities=smell"), 2, "bad value for modalities"),
    Case("empty modalities", _run("modalities="), 2, "bad value for modalities"),
    Case("unknown seed", _run("seeds=nope"), 2, "unknown seed 'nope'"),
    Case("unknown local model", _run("models=local/gpt-9"), 2, "unknown local model"),
    Case("unroutable model", _run("models=totally-unknown-model-xyz"), 2, "litellm cannot route"),
    Case(
        "hosted model without its key",
        (
            "run",
            "out={scratch}/runs",
            "cache_dir={scratch}/cache",
            "models=gpt-4o-mini",
            "seeds=isobench_parity",
            "variants=1",
        ),
        2,
        "OPENAI_API_KEY",
    ),  # stops at its plan
    Case(
        "dry run of a hosted model without its key", _run("models=gpt-4o-mini"), 0, "not set: OPENAI_API_KEY"
    ),
    Case("vision maybe", _run("vision=maybe"), 2, "'maybe' is not a model of this run"),
    Case("empty api_base", _run("api_base="), 2, "bad value for api_base"),
    Case("api_key_env not a name", _run("api_key_env=1BAD"), 2, "bad value for api_key_env"),
    Case("api_key_env not set", _run("api_key_env=NOT_SET_ANYWHERE_42"), 2, "is not set"),
    Case("batch with the embedded model", _run("batch=1", "models=local/smollm2-135m"), 2, "no batch API"),
    Case("batch_size zero", _run("batch_size=0"), 2, "bad value for batch_size"),
    Case("batch_size over 50,000", _run("batch_size=50001"), 2, "bad value for batch_size"),
    Case("batch_wait negative", _run("batch_wait=-1"), 2, "bad value for batch_wait"),
    Case("batch_fallback unknown", _run("batch_fallback=retry"), 2, "bad value for batch_fallback"),
    Case("a key twice", _run("variants=2", "variants=3"), 2, "variants is given twice"),
    Case("a key twice by its alias", _run("model=openai/a", "models=openai/b"), 2, "models is given twice"),
    Case("dataset missing", _run("dataset={scratch}/nowhere"), 2, "dataset"),
    Case(
        "dataset empty folder",
        _run("dataset={scratch}/empty"),
        2,
        "dataset",
        setup=_folder("empty"),
    ),
    Case("dataset a file", _run("dataset={scratch}/data.json"), 2, "dataset", setup=_file("data.json", "{}")),
    Case(
        "dataset with damaged json",
        _run("dataset={scratch}/rel"),
        2,
        "dataset",
        setup=_file("rel/trial1/dataset.json", "{not json"),
    ),
    Case(
        "out is a file",
        ("run", "dry_run=1", "out={scratch}/afile", "cache_dir={scratch}/c"),
        2,
        "is a file",
        setup=_file("afile", "x"),
    ),
    Case(
        "cache_dir is a file",
        ("run", "dry_run=1", "out={scratch}/r", "cache_dir={scratch}/afile"),
        2,
        "is a file",
        setup=_file("afile", "x"),
    ),
    Case(
        "out with spaces and unicode",
        ("run", "dry_run=1", "out={scratch}/dir with spaces/ünïcödé", "cache_dir={scratch}/cäche dir"),
        0,
        "Nothing was called or written",
    ),
    Case(
        "server that refuses",
        (
            "run",
            "models=openai/m",
            "api_base=http://127.0.0.1:{port}/v1",
            "seeds=isobench_parity",
            "variants=1",
            "modalities=latex",
            "out={scratch}/r",
            "cache_dir={scratch}/c",
            "quiet=1",
        ),
        2,
        "cannot reach api_base",
    ),
    Case(
        "api_base not a url",
        (
            "run",
            "models=openai/m",
            "api_base=not a url",
            "seeds=isobench_parity",
            "variants=1",
            "modalities=latex",
            "out={scratch}/r",
            "cache_dir={scratch}/c",
            "quiet=1",
        ),
        2,
        "is not a server address",
    ),
    Case(
        "release with an empty dataset.json",
        _run("dataset={scratch}/rel"),
        2,
        "cannot read it as JSON",
        setup=_file("rel/trial1/dataset.json", ""),
    ),
    Case(
        "release whose image is missing",
        _run("dataset={scratch}/rel"),
        2,
        "image 'image/1.png' is missing",
        setup=_file(
            "rel/trial1/dataset.json",
            json.dumps(
                {
                    "1": {
                        "question": "q",
                        "answer": "1",
                        "image": "image/1.png",
                        "answer_type": "float",
                        "subject": "algebra",
                        "level": "high school",
                    }
                }
            ),
        ),
    ),
    Case(
        "parquet release with other columns",
        _run("dataset={scratch}/pq"),
        2,
        "no column",
        setup=lambda scratch: _parquet(scratch / "pq" / "sample_variant1.parquet"),
    ),
    Case("unknown dataset prefix is a path", _run("dataset=nosuchkind:{scratch}/x"), 2, "does not exist"),
    Case("describe a folder that is no dataset", ("describe", "{scratch}"), 2, "no trial<N>/dataset.json"),
    # ---- report, compare, rescore, judge on damaged or missing runs
    Case("report on no such path", ("report", "{scratch}/nowhere"), 2, "no results.jsonl"),
    Case(
        "report on a folder without results",
        ("report", "{scratch}/run"),
        2,
        "no results.jsonl",
        setup=_run_dir(None),
    ),
    Case("report on an empty results file", ("report", "{scratch}/run"), 0, "report:", setup=_run_dir("")),
    Case(
        "report on only garbage",
        ("report", "{scratch}/run"),
        0,
        "1 damaged line",
        setup=_run_dir("\x00\x00garbage\n"),
    ),
    Case(
        "report with a damaged line",
        ("report", "{scratch}/run"),
        0,
        "1 damaged line",
        setup=_run_dir(ROW + "\n{cut\n" + ROW.replace('"variant": 0', '"variant": 1') + "\n"),
    ),
    Case(
        "report with a damaged config",
        ("report", "{scratch}/run"),
        0,
        "report:",
        setup=_run_dir(ROW + "\n", config="{oops"),
    ),
    Case(
        "report with a row that is a list",
        ("report", "{scratch}/run"),
        0,
        "1 damaged line",
        setup=_run_dir("[1, 2, 3]\n" + ROW + "\n"),
    ),
    Case(
        "report on a csv without columns",
        ("report", "{scratch}/t.csv"),
        2,
        "lacks column",
        setup=_file("t.csv", "a,b\n1,2\n"),
    ),
    Case("report on an empty csv", ("report", "{scratch}/t.csv"), 2, "", setup=_file("t.csv", "")),
    Case(
        "report on a csv with bad verdicts",
        ("report", "{scratch}/t.csv"),
        2,
        "cannot read",
        setup=_file("t.csv", "seed_id,variant,correct\ns,0,maybe\n"),
    ),
    Case(
        "report on a binary file",
        ("report", "{scratch}/t.csv"),
        2,
        "",
        setup=_file("t.csv", bytes(range(256)) * 4),
    ),
    Case(
        "report bad resamples",
        ("report", "{scratch}/run", "resamples=abc"),
        2,
        "bad value for resamples",
        setup=_run_dir(ROW + "\n"),
    ),
    Case(
        "compare three runs",
        ("compare", "{scratch}/a", "{scratch}/b", "{scratch}/c"),
        2,
        "give one run directory",
    ),
    Case(
        "compare by colour",
        ("compare", "{scratch}/run", "by=colour"),
        2,
        "bad value for by",
        setup=_run_dir(ROW + "\n"),
    ),
    Case(
        "rescore unknown grader",
        ("rescore", "{scratch}/run", "grader=nope"),
        2,
        "bad value for grader",
        setup=_run_dir(ROW + "\n"),
    ),
    Case(
        "rescore audit without judge",
        ("rescore", "{scratch}/run", "audit=5"),
        2,
        "audit=N needs judge",
        setup=_run_dir(ROW + "\n"),
    ),
    Case("rescore on no run", ("rescore", "{scratch}/nowhere"), 2, "no results.jsonl"),
    Case(
        "judge without a model",
        ("judge", "{scratch}/run"),
        2,
        "judge=MODEL is required",
        setup=_run_dir(ROW + "\n"),
    ),
    # ---- cache, list, generate
    Case("cache unknown action", ("cache", "frobnicate"), 2, "unknown cache action"),
    Case("cache prune without age", ("cache", "prune", "cache_dir={scratch}/c"), 2, "older_than"),
    Case(
        "cache prune bad age",
        ("cache", "prune", "older_than=abc", "cache_dir={scratch}/c"),
        2,
        "bad value for older_than",
    ),
    Case(
        "cache stats on a damaged store",
        ("cache", "stats", "cache_dir={scratch}/c"),
        2,
        "exp cache repair",
        setup=_damaged_cache,
    ),
    Case(
        "cache clear on a damaged store",
        ("cache", "clear", "cache_dir={scratch}/c"),
        0,
        "deleted",
        setup=_damaged_cache,
    ),
    Case(
        "cache repair on a damaged store",
        ("cache", "repair", "cache_dir={scratch}/c"),
        0,
        "set aside",
        setup=_damaged_cache,
    ),
    Case("list colours", ("list", "colours"), 2, "cannot list 'colours'"),
    Case("generate unknown task", ("generate", "task=nope", "out={scratch}/g"), 2, "nope"),
    # ---- several replicas of one server, one of them refusing connections: a warning, the run goes on
    Case(
        "one replica of several refusing connections",
        _run("models=openai/m", "modalities=latex", "vision=no"),
        0,
        "api_base replica not answering",
        setup=_one_replica_down,
    ),
)
