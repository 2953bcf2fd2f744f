"""A run folder has one owner: `runs/` names its files, `RunFolder` reads them as their types."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import isodyn
from isodyn.errors import ConfigError
from isodyn.runs import files
from isodyn.runs.folder import RunFolder
from isodyn.runs.summary import RunSummary
from isodyn.testing import OpenAIStub, ScriptedReply

SRC = Path(isodyn.__file__).parent
RUN_FILES = {value for name, value in vars(files).items() if name.isupper() and isinstance(value, str)} - {
    files.REPORT,
    files.REPORT_HTML,
    files.FIGURES,
}  # a search's folder has a report and figures too


def file_names_spelled(source: str) -> list[int]:
    """Lines where a string constant is exactly the name of a run folder's file (prose in docstrings
    and messages may name them; code that builds a path may not)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in RUN_FILES
    ]


def test_only_runs_names_a_run_folders_files() -> None:
    spelled = {
        str(path.relative_to(SRC)): lines
        for path in sorted(SRC.rglob("*.py"))
        if path.parent.name != "runs" and (lines := file_names_spelled(path.read_text()))
    }
    assert spelled == {}


def test_a_planted_name_is_found() -> None:
    assert file_names_spelled('path = run_dir / "results.jsonl"\n') == [1]
    assert file_names_spelled('"""results.jsonl holds the rows."""\n') == []


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunFolder, Path]:
    from isodyn.commands.run import RunRequest, run_experiment
    from isodyn.runs.config import parse_overrides

    tmp = tmp_path_factory.mktemp("folder")
    with OpenAIStub(lambda request: ScriptedReply()) as stub:
        words = [
            "models=openai/folder", f"api_base={stub.base_url}", "seeds=isobench_parity", "variants=3",
            "modalities=latex,code", f"out={tmp / 'runs'}", f"cache_dir={tmp / 'cache'}", "quiet=1",
        ]  # fmt: skip
        done = run_experiment(RunRequest(parse_overrides(words)))
    return done.folder, tmp / "cache"


def test_a_finished_run_reads_as_its_types(run_folder: tuple[RunFolder, Path]) -> None:
    folder, cache = run_folder
    rows = folder.results_file.read_text().splitlines()
    config, summary, run = folder.config(), folder.summary(), folder.results()
    assert config.models == ("openai/folder",) and config.variants == 3
    assert summary is not None and summary.cells == len(rows) == len(run.results) == 6
    assert summary.complete and folder.is_complete()
    assert [r.variant for r in run.results] == [json.loads(line)["variant"] for line in rows]
    assert folder.cache_dir() == cache
    assert folder.marks().marks == [] and folder.judgements().records == []


def test_a_summary_written_whole_reads_back(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path)
    assert folder.summary() is None and not folder.is_complete()
    folder.write_summary(RunSummary(cells=2, complete=True, keys=("cells", "complete")))
    assert json.loads(folder.summary_file.read_text()) == {"cells": 2, "complete": True}
    assert folder.is_complete() and list(tmp_path.iterdir()) == [folder.summary_file]  # no temporary left
    folder.summary_file.write_text('{"cells": 2, "complete": tr')  # cut short by a crash
    assert folder.summary() is None and not folder.is_complete()


def test_a_folder_without_settings_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config\.json"):
        RunFolder(tmp_path).config()
    RunFolder(tmp_path).config_file.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="no readable settings"):
        RunFolder(tmp_path).config()
    assert RunFolder(tmp_path).cache_dir() is None


def test_the_run_and_rescore_write_summary_and_config_whole(tmp_path: Path, monkeypatch, run_cli) -> None:
    """summary.json and config.json have one writer, RunFolder's atomic one: a run and a rescore
    (merge has its own test in test_shard) write both through it, and nothing else writes them."""
    from isodyn.runs import folder as folder_module

    through_folder: list[Path] = []
    real_write = folder_module.write_atomic

    def recorded(path: Path, data: bytes) -> None:
        through_folder.append(path)
        real_write(path, data)

    monkeypatch.setattr(folder_module, "write_atomic", recorded)
    with OpenAIStub(lambda request: ScriptedReply()) as stub:
        done = run_cli("run", "models=openai/w", f"api_base={stub.base_url}", "seeds=isobench_parity",
                       "variants=2", "modalities=latex", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'cache'}", "quiet=1")  # fmt: skip
    assert done.code == 0, done.err
    (run,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    done = run_cli("rescore", str(run), "grader=dynamath")
    assert done.code == 0, done.err
    (rescored,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir() and p != run]
    written = [(p.parent, p.name) for p in through_folder]
    for folder in (run, rescored):
        for name in (files.SUMMARY, files.CONFIG):
            assert (folder, name) in written
            assert (folder / name).is_file()
