"""A search's hard set written and run again: the confirmed failing variants, one item per genome,
asked through `exp run dataset=FOLDER` against the loopback stub exactly as the search saw them;
and a damaged or crafted hard set refused with one line (exit 2)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from isodyn.core import DEMO_INDEX_START, Modality, Variant
from isodyn.datasets import ReleaseError
from isodyn.datasets.hardset import HARDSET_FILE, HardVariant, item_id, load_hardset
from isodyn.datasets.kinds import load_dataset, resolved, split_spec
from isodyn.generators import SeedProgram, get_seed
from isodyn.generators.tape import Genome, Value, realize, tweakable
from isodyn.search.hardset import write_hardset
from isodyn.search.trials import Asked, Searcher, Trial, TrialStatus, Unit
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text

ABS, DISTANCE = "dynamath_shifted_abs", "dynamath_point_distance"
ANSWER = ScriptedReply(text=json.dumps({"solution": "stub", "short answer": "A"}))

# ------------------------------------------------------------------------------------ fixtures


def tweaked(seed_id: str, index: int) -> Genome:
    """Variant `index` of the seed with one draw set to the low end of its range, the first such
    change that gives another variant."""
    seed, genome = get_seed(seed_id), Genome(seed_id, index)
    untouched = realize(seed, genome)
    for draw in tweakable(untouched.draws):
        if draw.size != 1 or draw.value == draw.low:
            continue
        low: Value = float(draw.low) if draw.kind in ("random", "uniform") else int(draw.low)
        changed = genome.with_tweaks({draw.position: low})
        if realize(seed, changed).variant.params != untouched.variant.params:
            return changed
    raise AssertionError(f"no draw of {seed_id} variant {index} changes it when set to its low end")


def trial(genome: Genome, status: TrialStatus, model: str = "openai/a", number: int = 0) -> Trial:
    wrong = Asked(0, False, True, "A", 1, False, "ok")
    unit = Unit(model, "zeroshot", Modality.LATEX, genome.seed_id)
    return Trial(unit, Searcher.RANDOM, number, genome, {}, "truth", (wrong,), status)


GENOMES = (Genome(ABS, 3), tweaked(ABS, 7), Genome(DISTANCE, 5))


def search_trials() -> list[Trial]:
    """Three confirmed variants (one confirmed twice by two models, once again by the same unit),
    and variants the search did not confirm."""
    confirmed = TrialStatus.CONFIRMED
    return [
        trial(GENOMES[0], confirmed, "openai/a", 0),
        trial(GENOMES[1], confirmed, "openai/a", 1),
        trial(GENOMES[0], confirmed, "openai/b", 0),
        trial(GENOMES[0], confirmed, "openai/a", 2),
        trial(GENOMES[2], confirmed, "openai/a", 0),
        trial(Genome(ABS, 11), TrialStatus.PASSED),
        trial(Genome(DISTANCE, 12), TrialStatus.FLUKE),
        trial(Genome(DISTANCE, 13), TrialStatus.UNCLEAR),
    ]


def seeds() -> dict[str, SeedProgram]:
    return {ABS: get_seed(ABS), DISTANCE: get_seed(DISTANCE)}


def hard_set(folder: Path) -> Path:
    write_hardset(folder, search_trials(), seeds())
    return folder


def variant_of(genome: Genome) -> Variant:
    """The hard variant, realized here independently of the hard set."""
    return realize(get_seed(genome.seed_id), genome).variant


def items(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / HARDSET_FILE).read_text().splitlines()]


def rewrite(folder: Path, lines: list[Any]) -> None:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    (folder / HARDSET_FILE).write_text(text)


def run_words(dataset: str, tmp_path: Path, api_base: str, *extra: str) -> list[str]:
    return ["run", f"dataset={dataset}", "models=openai/stub", f"api_base={api_base}", "modalities=latex",
            "strategies=zeroshot", "quiet=1", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}",
            *extra]  # fmt: skip


# ------------------------------------------------------------------------------------ writing


def test_only_confirmed_variants_are_written_one_per_genome_with_their_finders_merged(tmp_path: Path) -> None:
    summary = write_hardset(tmp_path / "hard", search_trials(), seeds())
    assert (summary.items, summary.seeds, summary.path) == (3, 2, tmp_path / "hard" / HARDSET_FILE)
    written = items(tmp_path / "hard")
    in_order = sorted(GENOMES, key=lambda g: (g.seed_id, item_id(g)))  # by seed id, then by item id
    assert [w["genome"] for w in written] == [g.to_json() for g in in_order]
    by_id = {w["id"]: w for w in written}
    first = by_id[item_id(GENOMES[0])]
    assert [f["model"] for f in first["found_by"]] == ["openai/a", "openai/b"]
    assert first["found_by"][0] == {"model": "openai/a", "strategy": "zeroshot", "modality": "latex",
                                    "searcher": "random"}  # fmt: skip
    for genome in GENOMES:
        item, variant = by_id[item_id(genome)], variant_of(genome)
        assert item["id"].startswith(f"{genome.seed_id}~") and len(item["id"].rpartition("~")[2]) == 12
        assert (item["question"], item["answer"], item["fingerprint"]) == (
            variant.question, variant.answer, variant.fingerprint())  # fmt: skip
    assert variant_of(GENOMES[1]).params != variant_of(Genome(ABS, 7)).params  # the tweak changed it
    assert "exp run dataset=" in (tmp_path / "hard" / "README.md").read_text()


def test_an_empty_hard_set_is_an_empty_file_and_a_run_on_it_says_so(tmp_path: Path, run_cli: Any) -> None:
    summary = write_hardset(tmp_path / "hard", [trial(Genome(ABS, 1), TrialStatus.PASSED)], seeds())
    assert summary.empty and "empty" in summary.line()
    assert (tmp_path / "hard" / HARDSET_FILE).read_bytes() == b""
    done = run_cli(*run_words(str(tmp_path / "hard"), tmp_path, "http://127.0.0.1:9"))
    assert done.code == 2 and len(done.lines) == 1 and "no items" in done.err


# ------------------------------------------------------------------------------------ reading


def test_a_run_on_the_folder_asks_exactly_the_hard_variants(tmp_path: Path, run_cli: Any) -> None:
    folder = hard_set(tmp_path / "hard")
    with OpenAIStub(lambda request: ANSWER) as stub:
        done = run_cli(*run_words(str(folder), tmp_path, stub.base_url))  # no prefix: the folder says
        prompts = [prompt_text(r) for r in stub.requests]
    assert done.code == 0, done.err
    assert len(prompts) == len(GENOMES)
    for genome in GENOMES:
        variant = variant_of(genome)
        shown = get_seed(genome.seed_id).representation(variant, Modality.LATEX).text
        assert sum(shown in p for p in prompts) == 1 and any(variant.question in p for p in prompts)
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    truths = {item["id"]: item["answer"] for item in items(folder)}
    assert {r["seed_id"]: r["truth"] for r in rows} == truths and len(rows) == len(truths)


def test_a_hard_variant_is_fixed_and_its_demonstrations_are_fresh_variants(tmp_path: Path) -> None:
    folder = hard_set(tmp_path / "hard")
    seeds = load_dataset(f"hardset:{folder / HARDSET_FILE}")
    hard = seeds[item_id(GENOMES[1])]
    assert isinstance(hard, HardVariant) and hard.variant_space == 1 and not hard.memoizable
    assert hard.modalities == get_seed(ABS).modalities and hard.topic == get_seed(ABS).topic
    asked = hard.variant(0, 0)
    assert asked.seed_id == item_id(GENOMES[1]) and asked.index == 0
    assert hard.variant(0, 99) == asked  # the run's base seed does not change it
    expected = variant_of(GENOMES[1])
    assert replace(asked, seed_id=ABS, index=GENOMES[1].index) == expected  # the search's variant, renamed
    demo = hard.variant(DEMO_INDEX_START, 0)
    assert demo.params == get_seed(ABS).variant(DEMO_INDEX_START, 0).params != asked.params
    shown = hard.representation(asked, Modality.LATEX).text
    assert shown == get_seed(ABS).representation(expected, Modality.LATEX).text


def test_seeds_names_items_or_their_real_seeds(tmp_path: Path) -> None:
    folder = hard_set(tmp_path / "hard")
    assert list(load_hardset(folder, (ABS,))) == sorted([item_id(GENOMES[0]), item_id(GENOMES[1])])
    assert list(load_hardset(folder, (item_id(GENOMES[2]),))) == [item_id(GENOMES[2])]
    with pytest.raises(ReleaseError, match="no item or seed 'nope'"):
        load_hardset(folder, ("nope",))


def test_a_plain_value_naming_the_folder_or_the_file_is_a_hard_set(tmp_path: Path) -> None:
    folder = hard_set(tmp_path / "hard")
    for value in (str(folder), str(folder / HARDSET_FILE), f"hardset:{folder}"):
        assert split_spec(value)[0].name == "hardset"
        assert resolved(value) == f"hardset:{split_spec(value)[1].resolve()}"
    assert split_spec(str(tmp_path))[0].name == "dynamath"  # a folder without one: DynaMath's release


def test_describe_says_how_many_of_which_seeds_and_who_found_them(tmp_path: Path, run_cli: Any) -> None:
    folder = hard_set(tmp_path / "hard")
    done = run_cli("describe", str(folder))
    assert done.code == 0, done.err
    assert "3 hard variants of 2 seeds" in done.out and "openai/b · zeroshot · latex · random (1)" in done.out


# ------------------------------------------------------------------------------------ hostile


def edited(field: str, value: Any) -> Any:
    def edit(item: dict[str, Any]) -> dict[str, Any]:
        return {**item, field: value}

    return edit


def unknown_seed(item: dict[str, Any]) -> dict[str, Any]:
    genome = Genome("no_such_seed", 1)
    return {**item, "genome": genome.to_json(), "seed_id": "no_such_seed", "id": item_id(genome)}


def huge_tweaks(count: int) -> Any:
    def edit(item: dict[str, Any]) -> dict[str, Any]:
        genome = {**item["genome"], "tweaks": [[0, [0] * count]]}
        return {**item, "genome": genome}

    return edit


def impossible_tweak(item: dict[str, Any]) -> dict[str, Any]:
    """A genome whose tweaks fit no draw and whose id matches it: realizing gives another variant."""
    genome = Genome.from_json(item["genome"]).with_tweaks({0: 0.5, 1: 0.5})
    return {**item, "genome": genome.to_json(), "id": item_id(genome)}


def without_found_by(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != "found_by"}


def huge_index(item: dict[str, Any]) -> str:
    return json.dumps(item).replace('"index": ', '"index": ' + "9" * 5000, 1)


HOSTILE = {
    "damaged JSON": (lambda item: json.dumps(item)[:-9], "line 2 is not valid JSON"),
    "a non-object line": (lambda item: [1, 2], "line 2 is a JSON list, not an object"),
    "unknown seed": (unknown_seed, "unknown seed 'no_such_seed'"),
    "edited answer": (edited("answer", "42"), "the item was edited"),
    "edited fingerprint": (edited("fingerprint", "0" * 16), "the seed program changed since the search"),
    "id mismatch": (edited("id", f"{ABS}~000000000000"), "is not the one its genome gives"),
    "a tweak list of 10^6 numbers": (huge_tweaks(10**6), "the line is"),
    "a tweak list over the genome bound": (huge_tweaks(5000), "its genome is refused"),
    "an oversized line": (edited("question", "x" * 1_100_000), "over the bound"),
    "a missing field": (without_found_by, "no field 'found_by'"),
    "an unknown field": (edited("extra", 1), "unknown field 'extra'"),
    "a tweak that changes the variant": (impossible_tweak, "the seed program changed"),
    "an integer of 5000 digits": (huge_index, "line 2 is not valid JSON"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_damaged_or_crafted_line_is_refused_with_one_line(tmp_path: Path, run_cli: Any, case: str) -> None:
    folder = hard_set(tmp_path / "hard")
    edit, said = HOSTILE[case]
    lines = items(folder)
    rewrite(folder, [lines[0], edit(lines[1]), *lines[2:]])
    done = run_cli(*run_words(str(folder), tmp_path, "http://127.0.0.1:9"))
    assert done.code == 2, done.err
    assert len(done.lines) == 1 and said in done.err and f"{HARDSET_FILE} line 2" in done.err, done.err


def test_a_repeated_item_and_a_blank_line_are_refused(tmp_path: Path) -> None:
    folder = hard_set(tmp_path / "hard")
    lines = items(folder)
    rewrite(folder, [*lines, lines[0]])
    with pytest.raises(ReleaseError, match=f"line {len(lines) + 1} repeats item .* of line 1"):
        load_hardset(folder)
    rewrite(folder, [lines[0], "", *lines[1:]])
    with pytest.raises(ReleaseError, match="line 2 is empty"):
        load_hardset(folder)


def test_a_symlinked_hard_set_leading_outside_its_folder_is_refused(tmp_path: Path, run_cli: Any) -> None:
    elsewhere = hard_set(tmp_path / "elsewhere")
    folder = tmp_path / "shared"
    folder.mkdir()
    os.symlink(elsewhere / HARDSET_FILE, folder / HARDSET_FILE)
    done = run_cli(*run_words(str(folder), tmp_path, "http://127.0.0.1:9"))
    assert done.code == 2 and len(done.lines) == 1 and "leads outside" in done.err, done.err


def test_the_file_and_item_bounds_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = hard_set(tmp_path / "hard")
    monkeypatch.setenv("ISODYN_MAX_ITEMS", "2")
    with pytest.raises(ReleaseError, match="the number of items is 3, over the bound of 2"):
        load_hardset(folder)
    monkeypatch.delenv("ISODYN_MAX_ITEMS")
    monkeypatch.setenv("ISODYN_MAX_FILE_MB", "0.0005")
    with pytest.raises(ReleaseError, match="over the bound of 500 bytes"):
        load_hardset(folder)
