"""Shards (`shard=i/N`) and `exp merge`: the partition of a grid's cells, then shard runs on the
loopback stub, each with its own cache, merged and compared with the run one machine makes."""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import isodyn
import isodyn.analysis.run_report as analysis_report
from isodyn.commands.run import RunRequest, run_experiment
from isodyn.core import Modality
from isodyn.errors import ConfigError
from isodyn.experiments.cells import recorded_key
from isodyn.experiments.grid import Grid
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.shard import assign_shards, cell_digest, cell_digests, shard_grid
from isodyn.prompts import prompt_digest
from isodyn.runs.calls import Call
from isodyn.runs.config import parse_overrides
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell, CellResult
from isodyn.runs.results import read_results
from isodyn.runs.saved_config import saved_config
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import NO_KEYS

# ---- the partition ------------------------------------------------------------------------------

names = st.text(min_size=1, max_size=6)  # any characters: quotes, backslashes, non-ASCII


@st.composite
def grids(draw: st.DrawFn, most_variants: int = 5) -> Grid:
    """A grid as `expand_grid` makes them: every combination of the drawn names and numbers."""
    models = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    strategies = draw(st.lists(names, min_size=1, max_size=2, unique=True))
    modalities = draw(st.lists(st.sampled_from(list(Modality)), min_size=1, max_size=4, unique=True))
    seeds = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    variants, repeats = draw(st.integers(1, most_variants)), draw(st.integers(1, 3))
    cells = tuple(
        Cell(model, strategy, modality, seed, variant, repeat)
        for seed in seeds for modality in modalities for model in models for strategy in strategies
        for variant in range(variants) for repeat in range(repeats)
    )  # fmt: skip
    return Grid(cells, ())


@settings(deadline=None, max_examples=150)
@given(grid=grids(), data=st.data())
def test_every_cell_is_in_one_shard_and_the_shards_are_balanced(grid: Grid, data: st.DataObject) -> None:
    count = data.draw(st.integers(1, len(grid.cells) + 3), label="N")
    owner = assign_shards(grid.cells, count)
    assert len(owner) == len(grid.cells) and all(0 <= shard < count for shard in owner)
    sizes = Counter(owner)
    low, high = divmod(len(grid.cells), count)[0], math.ceil(len(grid.cells) / count)
    assert all(low <= sizes[shard] <= high for shard in range(count))  # none empty unless N > cells


@settings(deadline=None, max_examples=60)
@given(grid=grids(most_variants=3), count=st.integers(1, 9))
def test_the_shards_of_a_grid_are_disjoint_and_cover_it(grid: Grid, count: int) -> None:
    seen: list[Cell] = []
    for index in range(1, count + 1):
        try:
            shard = shard_grid(grid, (index, count))
        except ConfigError as exc:
            assert count > len(grid.cells), exc  # only a grid with fewer cells than shards has an empty one
            assert "holds no cell" in str(exc) and "\n" not in str(exc)
            continue
        assert list(shard.cells) == [c for c in grid.cells if c in set(shard.cells)]  # grid order kept
        seen.extend(shard.cells)
    assert sorted(seen) == sorted(grid.cells)  # each cell once: no cell lost, none twice


@given(cells=st.lists(st.builds(Cell, names, names, st.sampled_from(list(Modality)), names,
                                st.integers(0, 10**6), st.integers(0, 999)), max_size=20))  # fmt: skip
def test_the_quick_digests_are_the_plain_definition(cells: list[Cell]) -> None:
    assert cell_digests(cells) == [cell_digest(cell) for cell in cells]


def _large_grid(variants: int = 25, models: int = 4) -> tuple[Cell, ...]:
    return tuple(
        Cell(f"openai/m{m}", strategy, modality, f"seed{s}", v, 0)
        for m in range(models) for strategy in ("zeroshot", "cot3") for modality in Modality
        for s in range(20) for v in range(variants)
    )  # fmt: skip


@pytest.mark.parametrize("count", [8, 64])
def test_a_large_grid_is_balanced_overall_and_per_model(count: int) -> None:
    """Overall the sizes differ by at most one (by construction). Per model (slow models make slow
    shards), a shard's count of one model's M cells is near binomial(M, 1/N), as with a uniform hash:
    each is held within 5 standard deviations, a bound a uniform assignment passes with odds better
    than 1 in 10^4 for all of these shards together, and that grid-order dealing (a model's cells
    together) would break."""
    cells = _large_grid()
    owner = assign_shards(cells, count)
    sizes = Counter(owner)
    assert max(sizes.values()) - min(sizes.values()) <= 1 and len(sizes) == count
    for model in {c.model for c in cells}:
        mine = Counter(shard for cell, shard in zip(cells, owner, strict=True) if cell.model == model)
        m = sum(mine.values())
        bound = 5 * math.sqrt(m / count * (1 - 1 / count))
        assert all(abs(mine[s] - m / count) <= bound for s in range(count)), (model, mine)


@pytest.mark.parametrize(
    ("count", "grown"), [(8, {"variants": 30}), (8, {"models": 5}), (64, {"variants": 30})]
)
def test_extending_a_grid_moves_few_cells(count: int, grown: dict[str, int]) -> None:
    """A cell changes shard only when it is among the last to prefer its shard, about sqrt(N/C) of
    the cells (the spread of a binomial count); dealing in grid order would move (N-1)/N of them."""
    before = _large_grid()
    after = dict(zip(_large_grid(**grown), assign_shards(_large_grid(**grown), count), strict=True))
    moved = sum(
        after[cell] != shard for cell, shard in zip(before, assign_shards(before, count), strict=True)
    )
    assert moved / len(before) <= math.sqrt(count / len(before)), moved


# The partition of this grid, pinned: every machine and isodyn version must cut a run's grid alike, or
# the shards of one run made by two of them would overlap and leave cells out.
GOLDEN_CELLS = (
    "[Cell(m, s, mod, seed, v, r) for m in ('openai/gpt-4o', 'gemini/é') for s in ('zeroshot', 'cot3') "
    "for mod in Modality for seed in ('isobench_parity', 'q\"1') for v in range(3) for r in range(2)]"
)
GOLDEN = (
    "30143024440032232120001404232303411140430432433212424434420013342033440414141000423321302224220334"
    "1140211412433114003101031012332241004041133111342114002231402022221011313324323440314210210023"
)


def test_the_partition_is_pinned_and_the_same_in_a_fresh_interpreter() -> None:
    cells = eval(GOLDEN_CELLS, {"Cell": Cell, "Modality": Modality})
    assert "".join(map(str, assign_shards(cells, 5))) == GOLDEN
    script = (
        "from isodyn.core import Modality; from isodyn.runs.record import Cell; "
        "from isodyn.experiments.shard import assign_shards; "
        f"print(''.join(map(str, assign_shards({GOLDEN_CELLS}, 5))))"
    )
    for hash_seed in ("1", "4242"):  # str hashes differ between these interpreters
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == GOLDEN


def test_a_plan_of_shards_is_the_plan_of_the_grid(tmp_path: Path) -> None:
    words = [
        f"out={tmp_path / 'r'}",
        f"cache_dir={tmp_path / 'c'}",
        "seeds=isobench_parity,isobench_connectivity",
    ]
    whole = plan_experiment(parse_overrides(words)).grid
    parts = [plan_experiment(parse_overrides([*words, f"shard={i}/4"])).grid for i in range(1, 5)]
    assert sorted(c for p in parts for c in p.cells) == sorted(whole.cells)
    assert all(p.not_renderable == whole.not_renderable for p in parts)


def test_every_setting_reads_back_from_config_json() -> None:
    """saved_config knows the type of every setting (a new one of another type fails here)."""
    words = ["models=openai/a,openai/b", "strategies=cot3,zeroshot", "modalities=latex,code", "variants=2",
             "seeds=isobench_parity", "temperature=0.5", "max_cost=2", "api_base=http://127.0.0.1:9/v1",
             "vision=openai/a", "shard=2/5", "rpm=60"]  # fmt: skip
    config = parse_overrides(words)
    assert saved_config(json.loads(json.dumps(config.to_json())), "config.json") == config
    with pytest.raises(ConfigError, match=r"config.json: models is 5, not a list of text"):
        saved_config({"models": 5}, "config.json")


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (
            ["seeds=isobench_parity", "variants=1", "modalities=latex", "shard=2/2"],
            "shard=2/2 holds no cell: the grid has 1 cell; choose N at most 1",
        ),
        (
            ["repeats=1000", "variants=1000", "seeds=all", "shard=1/8"],
            "more than 2,000,000",
        ),  # the whole grid
    ],
)
def test_bad_shards_stop_the_run_in_one_line(run_cli, tmp_path: Path, words: list[str], says: str) -> None:
    done = run_cli("run", "dry_run=1", f"out={tmp_path / 'r'}", f"cache_dir={tmp_path / 'c'}", *words)
    assert done.code == 2 and len(done.lines) == 1 and says in done.lines[0], done.err


# ---- shard runs on the loopback stub, merged --------------------------------------------------------

STUDY = """models = ["openai/m"]
seeds = ["isobench_parity", "isobench_connectivity"]
variants = 3
modalities = ["latex", "code"]
"""


def _answer(request: dict) -> ScriptedReply:
    """A or B, by the prompt: the same cell gets the same reply wherever it runs; verdicts vary."""
    letter = "AB"[hashlib.sha256(json.dumps(request["messages"]).encode()).digest()[0] % 2]
    return ScriptedReply(text=json.dumps({"solution": "s", "short answer": letter}))


@dataclass(frozen=True)
class Made:
    stub: OpenAIStub
    study: Path
    words: tuple[str, ...]  # what every run here adds to the study: the stub's address, quiet
    whole: Path  # the run of the whole grid on one machine
    shards: tuple[Path, ...]  # shards 1, 2, 3 of 3, each run with its own cache


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("shards")
    with pytest.MonkeyPatch.context() as patch, OpenAIStub(_answer) as stub:
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        for name in NO_KEYS:
            patch.delenv(name, raising=False)
        (study := root / "study.toml").write_text(STUDY)
        words = (f"api_base={stub.base_url}", "quiet=1")

        def run(*more: str) -> Path:
            return run_experiment(RunRequest.from_words([*words, *more], study)).folder.path

        with pytest.MonkeyPatch.context() as reports:
            _no_reports(reports)
            whole = run(f"out={root / 'whole'}", f"cache_dir={root / 'cache-whole'}")
            shards = tuple(
                run(f"shard={i}/3", f"out={root / 'shards'}", f"cache_dir={root / f'cache-{i}'}")
                for i in (1, 2, 3)
            )
        yield Made(stub, study, words, whole, shards)


def _no_reports(patch: pytest.MonkeyPatch) -> None:
    """Reports cost seconds each; the merged run's own is checked in the first merge test."""
    import isodyn.commands.merge as merge_command

    def skipped(folder: RunFolder, results: object) -> Path:
        return folder.report_file

    patch.setattr(analysis_report, "write_report", skipped)
    patch.setattr(merge_command, "write_report", skipped)


def _verdicts(run_dir: Path) -> dict[tuple, bool | None]:
    return {r.key: r.correct for r in read_results(run_dir).results}


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_merged_shards_are_the_run_of_the_whole_grid(made: Made, run_cli, tmp_path: Path) -> None:
    out, cache = tmp_path / "merged", tmp_path / "cache"
    before = {shard: _files(shard) for shard in made.shards}
    done = run_cli("merge", *map(str, made.shards), f"out={out}", f"cache_dir={cache}")
    assert done.code == 0, done.err
    assert "merged shards 1, 2, 3 of 3: 9 cells, complete" in done.err
    assert all(_files(shard) == files for shard, files in before.items())  # the shards only read
    (merged,) = out.iterdir()
    assert merged.name.rsplit("-", 1)[1] == made.whole.name.rsplit("-", 1)[1]  # the whole run's identity
    assert _verdicts(merged) == _verdicts(made.whole) and len(_verdicts(merged)) == 9
    assert len({v for v in _verdicts(merged).values()}) == 2  # the stub's replies are right and wrong
    config = json.loads((merged / "config.json").read_text())
    assert config["shard"] is None  # what made the shards, recorded: the same for each
    assert (config["isodyn_version"], config["prompt_digest"]) == (isodyn.__version__, prompt_digest())
    summary, shard_summaries = _summary(merged), [_summary(s) for s in made.shards]
    assert summary["complete"] is True and summary["cells"] == 9
    assert summary["calls_made"] == sum(s["calls_made"] for s in shard_summaries) == 9
    assert summary["shards"] == {"of": 3, "merged": [1, 2, 3], "missing": [], "unfinished": []}
    log = (merged / "log.jsonl").read_text().splitlines()
    assert len(log) == sum(len((s / "log.jsonl").read_text().splitlines()) for s in made.shards) + 1
    assert json.loads(log[-1])["event"] == "merge"
    assert (merged / "study.toml").read_text() == STUDY
    assert "openai/m" in (merged / "report.md").read_text()  # what `exp report` writes

    asked = len(made.stub.requests)  # an unsharded run here finds the merged run complete: replays it
    rerun = run_cli("run", str(made.study), *made.words, f"out={out}", f"cache_dir={cache}")
    assert rerun.code == 0, rerun.err
    assert len(made.stub.requests) == asked
    (replayed,) = [p for p in out.iterdir() if p != merged]
    assert _summary(replayed)["calls_made"] == 0 and _summary(replayed)["cache_hits"] == 9
    assert _verdicts(replayed) == _verdicts(made.whole)


def test_a_missing_shard_is_named_and_exp_run_finishes_the_merged_run(
    made: Made, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, cache = tmp_path / "merged", tmp_path / "cache"
    done = run_cli("merge", str(made.shards[0]), str(made.shards[2]), f"out={out}", f"cache_dir={cache}")
    assert done.code == 0, done.err
    assert "shard(s) 2 of 3 missing" in done.err and "1, 3 of 3: 6 cells, not complete" in done.err
    (merged,) = out.iterdir()
    summary = _summary(merged)
    assert summary["complete"] is False and summary["shards"]["missing"] == [2] and summary["cells"] == 6
    _no_reports(monkeypatch)

    asked = len(made.stub.requests)  # the same settings without shard= resume it: shard 2's cells only
    rerun = run_cli("run", str(made.study), *made.words, f"out={out}", f"cache_dir={cache}")
    assert rerun.code == 0, rerun.err
    assert list(out.iterdir()) == [merged]
    assert len(made.stub.requests) - asked == len(_verdicts(made.shards[1])) == 3
    assert _summary(merged)["complete"] is True and _verdicts(merged) == _verdicts(made.whole)


def test_a_damaged_line_is_set_aside_and_the_merged_run_is_not_complete(
    made: Made, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_reports(monkeypatch)
    shards = [shutil.copytree(s, tmp_path / s.name) for s in made.shards]
    with (shards[1] / "results.jsonl").open("ab") as rows:
        rows.write(b'{"model": "cut sho')
    damaged = (shards[1] / "results.jsonl").read_bytes()
    done = run_cli("merge", *map(str, shards), f"out={tmp_path / 'merged'}", f"cache_dir={tmp_path / 'c'}")
    assert done.code == 0, done.err
    assert "1 damaged line" in done.err and "shard 2 of 3" in done.err
    (merged,) = (tmp_path / "merged").iterdir()
    assert _summary(merged)["complete"] is False and _summary(merged)["shards"]["unfinished"] == [2]
    assert _verdicts(merged) == _verdicts(made.whole)
    assert (shards[1] / "results.jsonl").read_bytes() == damaged  # never repaired in place
    assert not (shards[1] / "results.damaged.jsonl").exists()


def _copy(made: Made, tmp_path: Path, index: int, name: str, **config: object) -> Path:
    """A copy of shard `index` (1-based) with some of its config.json replaced."""
    copy = shutil.copytree(made.shards[index - 1], tmp_path / name)
    saved = json.loads((copy / "config.json").read_text())
    (copy / "config.json").write_text(json.dumps(saved | config))
    return copy


def _linked_log(made: Made, tmp_path: Path) -> Path:
    copy = shutil.copytree(made.shards[1], tmp_path / "linked")
    (tmp_path / "secret.txt").write_text("PRIVATE KEY\n")
    (copy / "log.jsonl").unlink()
    (copy / "log.jsonl").symlink_to(tmp_path / "secret.txt")
    return copy


def _fifo_log(made: Made, tmp_path: Path) -> Path:
    copy = shutil.copytree(made.shards[1], tmp_path / "fifo")
    (copy / "log.jsonl").unlink()
    os.mkfifo(copy / "log.jsonl")  # read, it would wait forever for a writer
    return copy


def _empty(tmp_path: Path) -> Path:
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty"


def _forged(made: Made, tmp_path: Path, name: str, model: str | None = None) -> Path:
    """A copy of shard 2 whose first row holds a forged reply: filed under the key of another
    model's request (`model` None), or recorded as a call to `model` under that request's own key."""
    copy = shutil.copytree(made.shards[1], tmp_path / name)
    rows = [json.loads(line) for line in (copy / "results.jsonl").read_text().splitlines()]
    config = saved_config(json.loads((copy / "config.json").read_text()), "config.json")
    call = rows[0]["transcript"][0]
    victims = Call.from_json({**call, "model": "openai/victim"})
    cell = CellResult.from_row(rows[0]).cell
    call |= {"response": "FORGED", "key": recorded_key(config, cell, victims)}
    if model is not None:
        call["model"] = model
    (copy / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return copy


REFUSALS = {
    # name: (the runs, as a function of the fixture and a scratch folder; a phrase of the one line)
    "different experiments": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "other", variants=4)],
        "are runs of different experiments: variants is 3 in the first and 4 in the second",
    ),
    "a shard given twice": (
        lambda m, t: [m.shards[0], m.shards[1], m.shards[0]],
        "shard 1 of 3 is given twice",
    ),
    "a copy of a shard": (
        lambda m, t: [m.shards[0], shutil.copytree(m.shards[0], t / "copy")],
        "shard 1 of 3 is given twice",
    ),
    "overlapping runs": (
        lambda m, t: [m.shards[0], _copy(m, t, 1, "relabelled", shard=[2, 3])],
        "overlap: both hold the cell",
    ),
    "not a shard": (lambda m, t: [m.shards[0], m.whole], "is not a shard"),
    "shards of another N": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "of-two", shard=[2, 2])],
        "merge the shards of one N",
    ),
    "a folder that is no run": (
        lambda m, t: [m.shards[0], _empty(t)],
        "is not a run folder (no results.jsonl)",
    ),
    "no such folder": (lambda m, t: [m.shards[0], t / "nowhere"], "is not a run folder (no such folder)"),
    "a damaged config": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "bad-models", models=5)],
        "models is 5, not a list of text",
    ),
    "a linked file": (lambda m, t: [m.shards[0], _linked_log(m, t)], "log.jsonl is a symbolic link"),
    "a FIFO for a file": (lambda m, t: [m.shards[0], _fifo_log(m, t)], "log.jsonl is not a regular file"),
    "a reply under another request's key": (
        lambda m, t: [m.shards[0], _forged(m, t, "forged")],
        "its cache key does not match the request it records",
    ),
    "a call to a model the cell does not ask": (
        lambda m, t: [m.shards[0], _forged(m, t, "victim", model="openai/victim")],
        "its call names the model 'openai/victim', which the cell does not ask",
    ),
    "another isodyn version": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "older", isodyn_version="0.0.1")],
        f'made by different code: isodyn_version is "{isodyn.__version__}" in the first and "0.0.1"',
    ),
    "other prompt templates": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "reworded", prompt_digest="0" * 64)],
        f'made by different code: prompt_digest is "{prompt_digest()}" in the first and "{"0" * 64}"',
    ),
    "a config key this isodyn does not know": (
        lambda m, t: [m.shards[0], _copy(m, t, 2, "unknown", colour="red")],
        '"colour" is no setting this isodyn knows',
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_merge_refuses_in_one_line(made: Made, run_cli, tmp_path: Path, case: str) -> None:
    runs, says = REFUSALS[case]
    out = tmp_path / "merged"
    done = run_cli("merge", *map(str, runs(made, tmp_path)), f"out={out}", f"cache_dir={tmp_path / 'c'}")
    assert done.code == 2, done.err
    assert len(done.lines) == 1 and done.lines[0].startswith("error:"), done.err
    assert says in done.lines[0], done.err
    assert not out.exists() and not (tmp_path / "c").exists()  # nothing written
    assert "PRIVATE KEY" not in done.out + done.err


def test_a_forged_reply_is_refused_naming_the_shard_and_the_cell(made: Made, run_cli, tmp_path: Path) -> None:
    forged = _forged(made, tmp_path, "forged")
    row = json.loads((forged / "results.jsonl").read_text().splitlines()[0])
    done = run_cli("merge", *map(str, made.shards[:1]), str(forged), f"out={tmp_path / 'm'}",
                   f"cache_dir={tmp_path / 'c'}")  # fmt: skip
    assert done.code == 2 and len(done.lines) == 1, done.err
    cell = " ".join(str(row[k]) for k in ("model", "strategy", "modality", "seed_id", "variant", "repeat"))
    assert f"{forged}: the row of the cell {json.dumps(cell)}" in done.lines[0]
    assert not (tmp_path / "c").exists()  # no reply stored, under any key


@pytest.mark.parametrize("out_exists", [False, True])
def test_a_merge_that_cannot_write_leaves_no_run(
    made: Made, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out_exists: bool
) -> None:
    import isodyn.commands.merge as merge_command
    import isodyn.runs.folder as run_folder

    _no_reports(monkeypatch)
    written = merge_command.write_atomic

    def full_disk(path: Path, data: bytes) -> None:
        if path.name == "summary.json":  # the last file: every other one is written by then
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        written(path, data)

    monkeypatch.setattr(merge_command, "write_atomic", full_disk)
    monkeypatch.setattr(run_folder, "write_atomic", full_disk)  # summary.json: RunFolder.write_summary
    out = tmp_path / "merged"
    if out_exists:
        out.mkdir()
    done = run_cli("merge", *map(str, made.shards), f"out={out}", f"cache_dir={tmp_path / 'c'}")
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0].startswith("error: the disk is full"), done.err
    assert (list(out.iterdir()) == []) if out_exists else not out.exists()


def test_a_file_over_the_bound_is_refused(made: Made, run_cli, tmp_path: Path, monkeypatch) -> None:
    copy = shutil.copytree(made.shards[1], tmp_path / "big")
    with (copy / "log.jsonl").open("a") as log:
        log.write('{"event": "note"}\n' * 20_000)  # 360 kB
    monkeypatch.setenv("ISODYN_MAX_FILE_MB", "0.1")
    done = run_cli(
        "merge", str(made.shards[0]), str(copy), f"out={tmp_path / 'm'}", f"cache_dir={tmp_path / 'c'}"
    )
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert "log.jsonl" in done.lines[0] and "raise it with ISODYN_MAX_FILE_MB" in done.lines[0]
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["out={t}/x"], "name the shard runs to merge"),
        (["{s}", "colour=red"], "unknown setting 'colour'"),
        (["{s}", "out={s}/inside"], "is inside the run"),
    ],
)
def test_bad_merge_words_are_one_line(
    made: Made, run_cli, tmp_path: Path, words: list[str], says: str
) -> None:
    typed = [w.format(t=tmp_path, s=made.shards[0]) for w in words]
    done = run_cli("merge", *typed, f"cache_dir={tmp_path / 'c'}")
    assert done.code == 2 and len(done.lines) == 1 and says in done.lines[0], done.err
    assert not (made.shards[0] / "inside").exists()


def test_a_shard_run_says_which_shard_it_is(
    made: Made, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_reports(monkeypatch)
    done = run_cli("run", str(made.study), *made.words, "shard=2/3", f"out={tmp_path / 'r'}",
                   f"cache_dir={tmp_path / 'c'}")  # fmt: skip
    assert done.code == 0, done.err
    assert "shard 2 of 3: 3 cells:" in done.err
    (run_dir,) = (tmp_path / "r").iterdir()
    assert json.loads((run_dir / "config.json").read_text())["shard"] == [2, 3]
    assert _verdicts(run_dir) == _verdicts(made.shards[1])  # the same cells as shard 2 made before
