"""`exp run` starts with the cyclic collector paused (imports and planning, litellm's import
above all) and gives it back as it was, even when planning fails. No timing is asserted here:
benchmarks/first_call.py prints the time to the first call."""

from __future__ import annotations

import gc

import pytest

from isodyn.commands.run import RunRequest, estimate_run
from isodyn.errors import ConfigError
from isodyn.models.catalog import collection_paused


@pytest.fixture(autouse=True)
def collector_restored():
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


def test_paused_then_as_it_was() -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # a caller that had it off keeps it off


def test_given_back_when_planning_fails(tmp_path) -> None:
    gc.enable()
    words = ["seeds=nope", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "dry_run=1"]
    with pytest.raises(ConfigError, match="unknown seed"):
        estimate_run(RunRequest.from_words(words))
    assert gc.isenabled()


def test_given_back_after_a_dry_run(tmp_path) -> None:
    gc.enable()
    words = ["seeds=isobench_parity", "modalities=latex", "variants=1", "models=openai/bench",
             "api_base=http://127.0.0.1:9/v1", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}",
             "dry_run=1"]  # fmt: skip
    assert estimate_run(RunRequest.from_words(words)).cells > 0
    assert gc.isenabled()
