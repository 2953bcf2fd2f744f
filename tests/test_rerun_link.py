"""A cached rerun whose rows are byte for byte those of the rerun before it keeps one copy on disk
(issue 39): its results.jsonl is a hard link, never written through."""

from __future__ import annotations

from pathlib import Path

from isodyn.runs.folder import RunFolder
from isodyn.runs.rundir import own_results
from isodyn.testing import OpenAIStub


def test_identical_reruns_share_one_results_file_and_never_write_through_it(tmp_path: Path, run_cli) -> None:
    words = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "models=openai/m",
             "seeds=isobench_parity", "modalities=latex,code", "variants=3", "quiet=1"]  # fmt: skip
    with OpenAIStub() as stub:
        for _ in range(3):
            assert run_cli("run", *words, f"api_base={stub.base_url}").code == 0
    live, first_rerun, second_rerun = (r / "results.jsonl" for r in sorted((tmp_path / "runs").iterdir()))
    assert live.read_bytes() != first_rerun.read_bytes()  # the live run's rows say no cache hit
    assert first_rerun.read_bytes() == second_rerun.read_bytes()
    assert first_rerun.stat().st_ino != live.stat().st_ino
    assert second_rerun.stat().st_ino == first_rerun.stat().st_ino  # one copy on disk
    assert first_rerun.stat().st_nlink == 2

    rows = first_rerun.read_bytes()
    own_results(RunFolder(second_rerun.parent))  # what a run does before it appends
    with second_rerun.open("ab") as out:
        out.write(b"{}\n")
    assert first_rerun.read_bytes() == rows and first_rerun.stat().st_nlink == 1
    assert second_rerun.read_bytes() == rows + b"{}\n"
