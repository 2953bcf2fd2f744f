"""`exp view` on a real run with render profiles and perturbations (issue 41): a cell shows the
pictures its variant was sent under every profile, side by side and labelled; arms, representations
and a seed's grid keep render and perturbation apart; the list filters by both.

The run goes through the loopback stub (tests/small_pictures.py): a model that answers right unless
the picture is small, so the `lowres` cells are wrong and the `default` ones right, and each profile's
verdict is known without asking the viewer.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

from isodyn.generators.base import SEEDS
from isodyn.runs.folder import RunFolder
from isodyn.testing import OpenAIStub
from isodyn.view.seeds import seed_view
from isodyn.view.server import Viewer, ViewerServer
from small_pictures import SmallPicturesFail
from user_cli import NO_KEYS

SEED = "dynamath_ring_area"  # a numeric truth; its picture is 420 px wide, 210 px under lowres
VARIANTS = 2
MIN_WIDTH = 300


@dataclass(frozen=True)
class ProfileRun:
    folder: Path
    rows: list[dict]
    server: ViewerServer

    def ask(self, path: str) -> tuple[int, bytes]:
        port = self.server.server_address[1]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data

    def api(self, path: str) -> dict:
        status, data = self.ask(path)
        assert status == 200, data
        return json.loads(data)

    def cell_id(
        self, modality: str, variant: int, render: str = "default", perturbation: str = "none"
    ) -> int:
        key = ("openai/m", "zeroshot", modality, SEED, variant, 0, render, perturbation)
        found = self.server.viewer.holder.current().find(key)
        assert found is not None, key
        return found


def sent_images(row: dict) -> list[str]:
    """The digests of the pictures a row's first call sent, from results.jsonl itself."""
    return [
        part["image_url"]["url"]
        for message in row["transcript"][0]["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProfileRun]:
    base = tmp_path_factory.mktemp("profiles")
    script = SmallPicturesFail(MIN_WIDTH)
    seed = SEEDS[SEED]()
    for index in range(VARIANTS):
        script.register(seed.variant(index, 0))
    words = [
        "run", "models=openai/m", "vision=yes", f"seeds={SEED}", "modalities=image,latex",
        f"variants={VARIANTS}", "renders=default,lowres", "perturbations=none,magnitude",
        f"out={base / 'runs'}", f"cache_dir={base / 'cache'}", "quiet=1",
    ]  # fmt: skip
    with OpenAIStub(script) as stub, pytest.MonkeyPatch.context() as patch:
        # module-scoped: conftest's isolation has not run yet, so it is done here
        patch.setenv("ISODYN_CACHE_DIR", str(base / "default-cache"))
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        for name in NO_KEYS:
            patch.delenv(name, raising=False)
        patch.setattr(sys, "argv", ["exp", *words, f"api_base={stub.base_url}"])
        from isodyn import cli

        try:
            cli.main()
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code
        (folder,) = (base / "runs").iterdir()
        rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
        server = ViewerServer(Viewer(RunFolder(folder)), 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield ProfileRun(folder, rows, server)
        finally:
            server.shutdown()
            server.server_close()


def row_key(row: dict) -> tuple:
    return (
        row["model"], row["strategy"], row["modality"], row["seed_id"], row["variant"], row["repeat"],
        row.get("render", "default"), row.get("perturbation", "none"),
    )  # fmt: skip


def row_of(run: ProfileRun, cell: int) -> dict:
    key = run.server.viewer.holder.current().cell_key(cell)
    found = [r for r in run.rows if row_key(r) == key]
    assert len(found) == 1, key
    return found[0]


def test_the_run_has_each_profile_and_perturbation(run: ProfileRun) -> None:
    shown = {(r["modality"], r.get("render", "default"), r.get("perturbation", "none")) for r in run.rows}
    assert len(run.rows) == 2 * 2 * VARIANTS + 2 * VARIANTS  # image: 2 renders x 2 perturbations
    assert ("image", "lowres", "magnitude") in shown and ("latex", "default", "magnitude") in shown
    plain = [r for r in run.rows if r["modality"] == "image" and r.get("perturbation", "none") == "none"]
    assert {r.get("render", "default"): r["correct"] for r in plain} == {"default": True, "lowres": False}


def test_a_cell_shows_its_variant_under_each_profile_side_by_side(run: ProfileRun) -> None:
    for variant in range(VARIANTS):
        own = run.cell_id("image", variant, "lowres")
        cell = run.api(f"/api/cell/{own}")
        assert cell["render"] == "lowres" and "perturbation" not in cell  # the default is left out
        profiles = cell["profiles"]
        assert [p["render"] for p in profiles] == ["default", "lowres"]  # the default first
        expected = {"default": run.cell_id("image", variant), "lowres": own}
        assert {p["render"]: p["cell"] for p in profiles} == expected
        assert {p["render"]: p["verdict"] for p in profiles} == {"default": "right", "lowres": "wrong"}
        widths = {}
        for profile in profiles:
            # each picture is the one that profile's cell sent, as results.jsonl records it
            assert profile["images"] == sent_images(row_of(run, profile["cell"])), profile["render"]
            (digest,) = profile["images"]
            status, png = run.ask(f"/image/{digest}")
            assert status == 200 and "sha256:" + hashlib.sha256(png).hexdigest() == digest
            widths[profile["render"]] = Image.open(io.BytesIO(png)).size[0]
        assert widths["lowres"] * 2 == widths["default"] >= MIN_WIDTH
        assert cell["images"] == profiles[1]["images"]  # the cell's own picture is its profile's


def test_profiles_are_of_the_same_perturbation_and_text_cells_have_none(run: ProfileRun) -> None:
    own = run.cell_id("image", 1, "default", "magnitude")
    profiles = run.api(f"/api/cell/{own}")["profiles"]
    assert {p["cell"] for p in profiles} == {own, run.cell_id("image", 1, "lowres", "magnitude")}
    unperturbed = run.api(f"/api/cell/{run.cell_id('image', 1)}")["profiles"]
    assert not {p["images"][0] for p in profiles} & {p["images"][0] for p in unperturbed}
    assert run.api(f"/api/cell/{run.cell_id('latex', 1)}")["profiles"] == []


def test_arms_and_representations_name_their_render_and_perturbation(run: ProfileRun) -> None:
    own = run.cell_id("image", 0, "lowres", "magnitude")
    cell = run.api(f"/api/cell/{own}")
    arms = {(a["modality"], a["render"], a["perturbation"]): a["cell"] for a in cell["arms"]}
    assert list(arms) == [  # per modality, the default render and the unperturbed variant first
        ("image", "default", "none"), ("image", "default", "magnitude"), ("image", "lowres", "none"),
        ("latex", "default", "none"), ("latex", "default", "magnitude"),
    ]  # fmt: skip
    assert arms[("image", "default", "none")] == run.cell_id("image", 0)
    (latex,) = cell["representations"]  # the latex cell of the same perturbation: the same numbers
    assert latex["cell"] == run.cell_id("latex", 0, "default", "magnitude")
    assert latex["perturbation"] == "magnitude" and latex["render"] == "default"
    expected = run.api(f"/api/cell/{latex['cell']}")["shown"]
    assert latex["question"] == expected != run.api(f"/api/cell/{run.cell_id('latex', 0)}")["shown"]


def test_the_list_filters_by_render_and_perturbation(run: ProfileRun) -> None:
    facets = run.api("/api/meta")["facets"]
    assert {f["value"]: f["count"] for f in facets["render"]} == {"default": 8, "lowres": 4}
    assert {f["value"]: f["count"] for f in facets["perturbation"]} == {"none": 6, "magnitude": 6}
    lowres = run.api("/api/cells?render=lowres&size=100")
    assert lowres["total"] == 4 and {r["render"] for r in lowres["rows"]} == {"lowres"}
    both = run.api("/api/cells?render=lowres&perturbation=magnitude")
    assert both["total"] == 2 and {r["perturbation"] for r in both["rows"]} == {"magnitude"}
    plain = run.api("/api/cells?render=default&perturbation=none&modality=image")
    assert plain["total"] == VARIANTS and all("render" not in r for r in plain["rows"])
    assert run.api("/api/cells?render=lowres&verdict=right")["total"] == 0
    assert run.api("/api/cells?render=nowhere")["total"] == 0


def test_a_seeds_grid_keeps_each_profile_and_perturbation_as_an_arm(run: ProfileRun) -> None:
    found = seed_view(run.server.viewer.holder.current(), SEED)
    assert found is not None
    rows = {(a.modality, a.render, a.perturbation): a for a in found.arms}
    assert len(found.arms) == 6 and all(len(a.squares) == VARIANTS for a in found.arms)
    assert all(s.cell is not None for a in found.arms for s in a.squares)  # none hidden by another
    assert list(rows)[:2] == [("image", "default", "none"), ("image", "default", "magnitude")]
    assert rows[("image", "default", "none")].solved
    assert rows[("image", "lowres", "none")].wrong == VARIANTS


def test_a_run_without_profiles_shows_none(tmp_path: Path) -> None:
    import view_runs as vr

    viewer = Viewer(RunFolder(vr.write_run(tmp_path)))
    cell = viewer.cell(viewer.holder.current().find((*vr.HOSTILE, 0)))
    assert cell.profiles == [] and {(a.render, a.perturbation) for a in cell.arms} == {("default", "none")}


# --- in a browser ---------------------------------------------------------------------------------
def test_the_page_shows_the_profiles_and_filters_by_them(run: ProfileRun) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    if shutil.which("chromium") is None:
        pytest.skip("no chromium on this machine")
    expect = sync_api.expect
    own = run.cell_id("image", 0, "lowres")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{run.server.url}#/cell/{own}")
        page.wait_for_selector("#profiles .profile")
        assert page.text_content("#arm") == "openai/m · zeroshot · image · lowres"
        shown = page.locator("#profiles .profile")
        assert [shown.nth(i).get_attribute("data-render") for i in range(2)] == ["default", "lowres"]
        assert shown.nth(0).locator(".profile-name").text_content() == "default"
        assert "right" in shown.nth(0).text_content() and "wrong" in shown.nth(1).text_content()
        expect(shown.nth(1).locator("img")).to_have_js_property("naturalWidth", 210)
        expect(shown.nth(0).locator("img")).to_have_js_property("naturalWidth", 420)
        page.goto(f"{run.server.url}#/cells")
        page.wait_for_selector("#rows tr.row")
        page.select_option("#f-render", "lowres")
        expect(page.locator("#count")).to_have_text("4 of 12 cells")
        page.select_option("#f-perturbation", "magnitude")
        expect(page.locator("#count")).to_have_text("2 of 12 cells")
        assert set(page.locator("#rows tr.row td:nth-child(6) .flag").all_text_contents()) == {
            "lowres", "perturbed: magnitude"
        }  # fmt: skip
        browser.close()
        assert errors == []
