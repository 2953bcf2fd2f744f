"""Render profiles and perturbations through a whole run (issue 41): a stub model planted to fail on
low-resolution pictures and on noop clauses shows both effects in the report's findings with their
intervals; a planted null (right or wrong by the variant alone, whatever the profile or clause)
shows neither; a cached rerun makes no call; a profile of isodyn.toml is drawn by `exp run`."""

from __future__ import annotations

import base64
import hashlib
import json
import random
from pathlib import Path

import pytest

from isodyn.core import Modality
from isodyn.generators import all_seeds, get_seed
from isodyn.generators.perturb import parse_perturbation, perturb
from isodyn.modalities.images import png_size
from isodyn.modalities.profiles import derive, resolve_profiles
from isodyn.runs.folder import RunFolder
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text, wrong_answer

VARIANTS = 2


def noop_image_seeds(count: int) -> list[str]:
    return sorted(
        s
        for s, seed in all_seeds().items()
        if "noop" in seed.perturbations and Modality.IMAGE in seed.modalities
    )[:count]


SEEDS = noop_image_seeds(8)


class Planted:
    """Knows every asked variant by the picture it is sent (the default one and the lowres one) and
    its noop clause. `fails_on` says which conditions it answers wrong: "lowres" (the picture drawn
    under lowres), "noop" (the clause in the prompt), or none: then a variant's own hash decides (the
    planted null: right or wrong alike under every profile and clause)."""

    def __init__(self, fails_on: frozenset[str]) -> None:
        self.fails_on = fails_on
        self.pictures: dict[str, tuple[str, bool]] = {}  # base64 PNG -> (variant key, lowres)
        self.truths: dict[str, tuple[str, tuple[str, ...], str]] = {}  # key -> (answer, choices, clause)
        lowres = resolve_profiles(["lowres"])[0]
        for seed_id in SEEDS:
            seed = get_seed(seed_id)
            for index in range(VARIANTS):
                key = f"{seed_id}/{index}"
                plain = seed.variant(index)
                drawn = seed.representation(plain, Modality.IMAGE)
                self.pictures[base64.b64encode(drawn.image_png or b"").decode()] = (key, False)
                small = derive(lowres, drawn).image_png or b""
                self.pictures[base64.b64encode(small).decode()] = (key, True)
                clause = perturb(seed, plain, parse_perturbation("noop")).params["noop"]
                self.truths[key] = (plain.answer, plain.choices, clause)

    def __call__(self, request: dict) -> ScriptedReply:
        said = prompt_text(request)
        found = self.pictures.get(_image_data(request) or "")
        if found is None:
            return ScriptedReply(text=json.dumps({"solution": "unknown", "short answer": "?"}))
        key, small = found
        answer, choices, clause = self.truths[key]
        wrong = self._wrong(key, small, clause in said)
        rng = random.Random(hashlib.sha256(said.encode()).digest())
        # a wrong option, or words with no answer in them ("3:15 (wrong)" would still read as 3:15)
        reply = (wrong_answer(answer, list(choices), rng) if choices else "cannot tell") if wrong else answer
        return ScriptedReply(text=json.dumps({"solution": "s", "short answer": reply}))

    def _wrong(self, key: str, small: bool, noop: bool) -> bool:
        if not self.fails_on:
            return hashlib.sha256(key.encode()).digest()[0] < 100  # about 40% of variants, any showing
        return ("lowres" in self.fails_on and small) or ("noop" in self.fails_on and noop)


def _image_data(request: dict) -> str | None:
    for message in request.get("messages", []):
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                return str(part["image_url"]["url"].split(",", 1)[1])
    return None


def _image_width(request: dict) -> int | None:
    data = _image_data(request)
    return None if data is None else png_size(base64.b64decode(data))[0]


def run_words(stub: OpenAIStub, root: Path) -> list[str]:
    return [
        "models=openai/planted", f"api_base={stub.base_url}", "vision=yes", f"seeds={','.join(SEEDS)}",
        "modalities=image", f"variants={VARIANTS}", "renders=default,lowres", "perturbations=none,noop",
        f"out={root / 'runs'}", f"cache_dir={root / 'cache'}", "quiet=1",
    ]  # fmt: skip


def findings_of(report: str) -> list[str]:
    return [line for line in report.splitlines() if "on the same variants (" in line]


@pytest.fixture(scope="module")
def planted_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    """A run against each planted model: its folder and the calls it made."""
    from isodyn.commands.run import RunRequest, run_experiment
    from isodyn.runs.config import parse_overrides

    made = {}
    for name, fails_on in (("effects", frozenset({"lowres", "noop"})), ("null", frozenset())):
        root = tmp_path_factory.mktemp(name)
        with OpenAIStub(Planted(fails_on)) as stub:
            done = run_experiment(RunRequest(parse_overrides(run_words(stub, root))))
            made[name] = (done.folder.path, len(stub.requests))
    return made


def test_the_grid_holds_every_profile_and_perturbation(planted_runs) -> None:
    folder, calls = planted_runs["effects"]
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    shown = {(r["render"], r["perturbation"]) for r in rows}
    assert shown == {("default", "none"), ("default", "noop"), ("lowres", "none"), ("lowres", "noop")}
    assert len(rows) == calls == len(SEEDS) * VARIANTS * 4
    noop = [r for r in rows if r["perturbation"] == "noop"]
    assert all(r["question"] and r["truth"] for r in noop)


def test_planted_failures_are_findings_with_intervals(planted_runs) -> None:
    folder, _ = planted_runs["effects"]
    report = (folder / "report.md").read_text()
    found = findings_of(report)
    lowres = [line for line in found if "under render lowres" in line]
    noop = [line for line in found if "under perturbation noop" in line]
    assert len(lowres) == 1 and len(noop) == 1, found
    for line in lowres + noop:
        assert "100.0 points lower than under" in line
        assert "simultaneous interval [-100.0, -100.0]" in line and "Holm p = 0.00781" in line
    assert "## Render sensitivity" in report and "## Perturbations" in report
    # the plain tables read the plain cells only: the planted model is right on every one of them
    assert "| openai/planted | zeroshot | image | 16 | 0 | 0 | 0 | 100.0 [100.0, 100.0] |" in report
    assert "- renders: default, lowres" in report and "- perturbations: none, noop" in report


def test_a_planted_null_shows_no_effect(planted_runs) -> None:
    folder, _ = planted_runs["null"]
    report = (folder / "report.md").read_text()
    assert findings_of(report) == []
    assert "## Render sensitivity" in report and "established" not in report


def test_a_cached_rerun_makes_no_call(planted_runs, tmp_path: Path) -> None:
    from isodyn.commands.run import RunRequest, run_experiment
    from isodyn.runs.config import parse_overrides

    folder, _ = planted_runs["effects"]
    root = folder.parent.parent
    with OpenAIStub(Planted(frozenset({"lowres", "noop"}))) as stub:
        words = [w for w in run_words(stub, root) if not w.startswith(("api_base=", "out="))]
        # the same server address is part of every cache key: reuse the first run's through its config
        first_base = RunFolder(folder).config().api_base
        again = run_experiment(
            RunRequest(parse_overrides([*words, f"api_base={first_base}", f"out={tmp_path}"]))
        )
        assert stub.requests == []
    assert again.summary.calls_made == 0 and again.summary.cache_hits == again.summary.cells > 0


def test_a_profile_of_isodyn_toml_is_drawn_by_a_run(tmp_path: Path, monkeypatch, run_cli) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    (tmp_path / "isodyn.toml").write_text('[renders.tiny]\ndownscale = 0.25\npalette = "gray"\n')
    seen: list[int] = []

    def answer(request: dict) -> ScriptedReply:
        width = _image_width(request)
        if width is not None:
            seen.append(width)
        return ScriptedReply()

    with OpenAIStub(answer) as stub:
        done = run_cli("run", "models=openai/m", f"api_base={stub.base_url}", "vision=yes",
                       f"seeds={SEEDS[0]}", "modalities=image", "variants=1", "renders=default,tiny",
                       "out=runs", "cache_dir=cache", "quiet=1")  # fmt: skip
    assert done.code == 0, done.err
    assert len(seen) == 2 and min(seen) <= max(seen) // 3  # a quarter of the width, about
    listed = run_cli("list", "renders")
    assert listed.code == 0 and "tiny" in listed.out
    refused = run_cli("run", "models=openai/m", "renders=nosuch", "dry_run=1", "quiet=1")
    assert refused.code == 2 and "unknown render profile 'nosuch'" in refused.err


def test_a_gray_picture_of_a_question_naming_a_colour_is_skipped_not_graded(tmp_path: Path, run_cli) -> None:
    """Gray keeps what a picture shows except its hues: "the red ring" cannot be read from it, so
    such a cell is skipped (and left out of the paired comparison), the default one graded."""
    with OpenAIStub(lambda request: ScriptedReply()) as stub:
        done = run_cli("run", "models=openai/m", f"api_base={stub.base_url}", "vision=yes",
                       "seeds=dynamath_ring_area,dynamath_magic_square", "modalities=image", "variants=2",
                       "renders=default,gray", f"cache_dir={tmp_path / 'cache'}",
                       f"out={tmp_path / 'runs'}", "quiet=1")  # fmt: skip
    assert done.code == 0, done.err
    (folder,) = (tmp_path / "runs").iterdir()
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        coloured = row["seed_id"] == "dynamath_ring_area"  # "What is the area of the red ring?"
        gray_and_coloured = row["render"] == "gray" and coloured
        assert row["reason"].startswith("skipped") == gray_and_coloured, row["reason"]
        if gray_and_coloured:
            assert "removes the colours the question names" in row["reason"]
    assert sum(row["reason"].startswith("skipped") for row in rows) == 2
