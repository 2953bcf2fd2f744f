"""`exp view` in headless Chromium: filters, a cell with its highlighted answer, a hostile reply shown
as text with no script run, a mark saved, a seed's grid, two arms side by side, pictures and their
placeholder. One browser for the module; the synthetic run is tests/view_runs.py."""

from __future__ import annotations

import io
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import view_runs as vr
from isodyn.runs.folder import RunFolder
from isodyn.runs.marks import read_marks
from isodyn.view.server import Viewer, ViewerServer

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
if shutil.which("chromium") is None:
    pytest.skip("no chromium on this machine", allow_module_level=True)


def tiny_png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


class FakeImages:
    """The render cache's contract: a PNG by digest, or None."""

    def __init__(self) -> None:
        self.png = tiny_png()

    def image(self, digest: str) -> bytes | None:
        return self.png if digest == vr.digest("s1", 0) else None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[tuple[str, Path, Viewer]]:
    run_dir = vr.write_run(tmp_path)
    state = Viewer(RunFolder(run_dir), images=FakeImages)
    server = ViewerServer(state, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.url, run_dir, state
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    opened = browser.new_page(viewport={"width": 1280, "height": 800})
    opened.errors = []

    def console(message) -> None:  # a picture the render cache lacks is a 404 the page expects
        if message.type == "error" and "/image/" not in (message.location or {}).get("url", ""):
            opened.errors.append(message.text)

    opened.on("console", console)
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    yield opened
    opened.close()


def cell_id(state: Viewer, key: tuple[str, str, str, str, int]) -> int:
    found = state.holder.current().find((*key, 0))
    assert found is not None
    return found


def test_filters_narrow_the_list(page, viewer) -> None:
    url, _, _ = viewer
    page.goto(url)
    page.wait_for_selector("#rows tr.row")
    assert page.text_content("#count") == "72 of 72 cells"
    assert page.locator("#rows tr.row").count() == 72
    page.select_option("#f-model", "m-b")
    expect(page.locator("#count")).to_have_text("36 of 72 cells")
    page.select_option("#f-verdict", "wrong")
    expected = sum(vr.verdict_of(k) == "wrong" for k in vr.all_keys() if k[0] == "m-b")
    expect(page.locator("#count")).to_have_text(f"{expected} of 72 cells")
    assert page.locator("#rows tr.row").count() == expected
    assert set(page.locator("#rows tr.row td:nth-child(4)").all_text_contents()) == {"m-b"}
    page.select_option("#f-sort", "failed")
    page.wait_for_url("**sort=failed**")
    expect(page.locator("#rows tr.row").first.locator("td").nth(7)).to_have_text("3 of 3")
    first = page.locator("#rows tr.row").first.locator("td").all_text_contents()
    assert first[0] == "s2" and first[4] == "cot" and first[7] == "3 of 3"
    page.click("#clear")
    expect(page.locator("#count")).to_have_text("72 of 72 cells")
    assert page.errors == []


def test_a_cell_shows_its_truth_and_the_answer_read_highlighted(page, viewer) -> None:
    url, _, state = viewer
    hostile = cell_id(state, vr.HOSTILE)
    page.goto(url)
    page.click(f"#rows tr.row[data-id='{hostile}'] td:nth-child(2)")
    page.wait_for_selector(f"#reply[data-id='{hostile}']")
    assert page.text_content("#truth") == "5"
    assert page.text_content("#reply mark.answer-span") == "5"
    assert page.text_content("#reply") == vr.HOSTILE_REPLY  # the markup shown as the text it is
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src='x']").count() == 0 and page.locator("#main script").count() == 0
    # the other representation of the same variant: the image cell's picture, served by digest
    picture = page.locator(".rep .figure img")
    expect(picture).to_have_js_property("naturalWidth", 40)  # loaded: waited for, not read at once
    assert picture.evaluate("img => img.complete") is True
    assert page.errors == []


def test_a_character_beyond_the_bmp_does_not_shift_the_highlight(page, viewer) -> None:
    url, _, state = viewer
    page.goto(f"{url}#/cell/{cell_id(state, vr.EMOJI)}")
    page.wait_for_selector("#reply mark.answer-span")
    assert page.text_content("#reply mark.answer-span") == "6"


def test_a_missing_picture_shows_a_placeholder(page, viewer) -> None:
    url, _, state = viewer
    page.goto(f"{url}#/cell/{cell_id(state, vr.JUDGED)}")
    page.wait_for_selector(".placeholder")
    assert "not in the run's render cache" in page.text_content(".placeholder")
    assert "27" in page.text_content("#judge")


def test_a_mark_is_saved_to_marks_jsonl(page, viewer) -> None:
    url, run_dir, state = viewer
    page.goto(f"{url}#/review")
    page.wait_for_selector("#rows tr.row")
    assert page.text_content("#count") == "4 verdicts to review"
    ambiguous = cell_id(state, vr.AMBIGUOUS)
    page.click(f"#rows tr.row[data-id='{ambiguous}'] td:nth-child(2)")
    page.wait_for_selector("#mark-wrong-none")
    assert page.locator("#mark-wrong-wrong").count() == 0  # the grader's own reading is "wrong"
    page.fill("#mark-note", "two values, no commitment")
    page.click("#mark-wrong-none")
    page.wait_for_url(lambda address: f"#/cell/{ambiguous}?" not in address)  # on to the next one
    (mark,) = read_marks(run_dir).marks
    assert mark.key == (*vr.AMBIGUOUS, 0, "default", "none")  # the default render, unperturbed
    assert not mark.verdict_right and mark.reading == "none"
    assert mark.note == "two values, no commitment"
    page.goto(f"{url}#/review")
    expect(page.locator("#count")).to_have_text("3 verdicts to review")


def test_a_seed_page_and_two_arms_side_by_side(page, viewer) -> None:
    url, _, state = viewer
    page.goto(f"{url}#/seed/s2")
    page.wait_for_selector("#seed-grid")
    assert page.locator("#seed-grid tr").count() == 1 + 8
    solved = sum(
        all(vr.verdict_of((m, s, mo, "s2", v)) == "right" for v in vr.VARIANTS)
        for m in vr.MODELS for s in vr.STRATEGIES for mo in vr.MODALITIES
    )  # fmt: skip
    assert page.text_content("#worst").startswith(f"Worst case: {solved} of 8 arms")
    page.goto(f"{url}#/cell/{cell_id(state, vr.DISAGREE)}")
    page.wait_for_selector("#compare-with")
    other = cell_id(state, ("m-a", "cot", "latex", "s10", 0))
    page.select_option("#compare-with", str(other))
    page.wait_for_selector("#compare .reply >> nth=1")
    titles = page.locator("#compare h1").all_text_contents()
    assert titles == ["m-b · cot · latex", "m-a · cot · latex"]
    assert page.errors == []


def test_a_slow_page_the_user_left_does_not_replace_the_one_they_went_to(page, viewer) -> None:
    url, _, state = viewer
    hostile = cell_id(state, vr.HOSTILE)
    served = state.cell

    def slowly(cell: int) -> object:
        time.sleep(1.0)  # a cell that takes long to read: the user moves on meanwhile
        return served(cell)

    state.cell = slowly  # type: ignore[method-assign]
    page.goto(f"{url}#/cell/{hostile}")
    page.goto(f"{url}#/review")
    expect(page.locator("#count")).to_have_text("4 verdicts to review")
    page.wait_for_timeout(1500)  # the cell's reply has come back by now, and was dropped
    assert page.locator("#count").count() == 1 and page.locator("#reply").count() == 0
    assert page.errors == []
