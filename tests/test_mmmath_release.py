r"""MM-MATH's published release (MM_Math.jsonl + images as a folder or a zip) read as isodyn seeds."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from isodyn.core import AnswerType, Level, Modality, Topic
from isodyn.datasets import ReleaseError
from isodyn.datasets.mmmath import (
    describe_mmmath,
    level_of,
    load_mmmath,
    mmmath_skipped,
    topic_of,
)
from isodyn.datasets.release_item import PNG_SIGNATURE
from isodyn.generators.base import UnsupportedModality
from isodyn.scoring import score_reply
from isodyn.scoring.extract import last_boxed

# The published row layout (kge-sun/MM-Math README, "Data Format"), labels as the authors' eval.py
# reads them (grades 七年级上学期 .., difficulty 容易 / 普通 / 困难) or in English.
ROWS: list[dict[str, Any]] = [
    {
        "question": "In circle O, chord AB = 6 and OC ⊥ AB at C. (1) Find AC. (2) Find the ratio OC : AC.",
        "file_name": "1.png",
        "solution": "(1) AC = \\frac{1}{2}AB, so AC = \\boxed{3}.\n"
        "(2) OC = 4.5, so OC : AC = \\boxed{\\frac{3}{2}}.",
        "year": "九年级上学期",
        "difficult": "普通",
        "knowledge": {"level_1": "Properties of Shapes", "level_2": "Circles"},
    },
    {
        "question": "The parabola in the figure is $y=-x^2+bx+c$. Find $b+c$ times 4.",
        "file_name": "2.jpg",  # a JPEG: rendered as PNG
        "solution": "From the figure $b=2$, $c=1$, so the value is $4(b+c)=\\boxed{12}$.",
        "year": "八年级下学期",
        "difficult": "容易",
        "knowledge": {"level_1": "函数", "level_2": "二次函数"},
    },
    {
        "question": "The three views of a solid are shown. Find the length of the space diagonal.",
        "file_name": "sub/3.png",  # a folder prefix the images folder does not repeat
        "solution": "The solid is a cube of edge 2, its diagonal is $\\boxed{2\\sqrt{3}}$.",
        "year": "seven",
        "difficult": "困难",
        "knowledge": ["立体几何", "三视图"],
    },
    {
        "question": "Using the bar chart, what is the probability that a chosen student walks to school?",
        "file_name": "4.png",
        "solution": "5 of the 20 students walk: $P=\\frac{5}{20}=\\boxed{0.25}$",
        "year": "Grade 8",
        "difficult": "easy",
        "knowledge": "统计与概率",
    },
    {
        "question": "Rotate triangle ABC about A. What is the angle of rotation?\n"
        "A. 30°  B. 45°  C. 60°  D. 90°",
        "file_name": "5.png",
        "solution": "AB maps to AB', and the angle BAB' is 60°. Therefore the answer is \\boxed{C}.",
        "year": "八年级上学期",
        "difficult": "普通",
        "knowledge": {"level_1": "Transformations of Shapes", "level_2": "Rotation"},
    },
    {
        "id": "mm-0006",
        "question": "Find $\\sin\\angle BAC$ in the figure.",
        "file_name": "6.png",
        "solution": "Hence $\\sin\\angle BAC=\\boxed{\\frac{\\sqrt{3}}{2}}$.",
        "year": "初三",
        "difficult": "困难",
        "knowledge": "Mystery knowledge point",  # no known label: algebra, label kept
    },
    {
        "question": "Find the coordinates of point P in the figure.",
        "file_name": "7.png",
        "solution": "P is 1 to the right of the origin and 2 up: $P\\boxed{(1, 2)}$.",
        "year": "七年级下学期",
        "difficult": "容易",
        "knowledge": "图形与坐标",
    },
    {
        "question": "Prove that AB = CD.",
        "file_name": "8.png",
        "solution": "Since triangles ABE and CDE are congruent, AB = CD.",  # a proof: no boxed answer
        "year": "八年级上学期",
        "difficult": "普通",
        "knowledge": "全等三角形",
    },
]
IDS = ["1", "2", "3", "4", "5", "mm-0006", "7"]
EXPECTED = {  # id -> (topic, level, grade, answer type, truth)
    "1": (Topic.PLANE_GEOMETRY, Level.HIGH_SCHOOL, 9, AnswerType.TEXT, "\\frac{3}{2}"),
    "2": (Topic.ALGEBRA, Level.HIGH_SCHOOL, 8, AnswerType.FLOAT, "12"),
    "3": (Topic.SOLID_GEOMETRY, Level.HIGH_SCHOOL, 7, AnswerType.TEXT, "2\\sqrt{3}"),
    "4": (Topic.STATISTICS, Level.HIGH_SCHOOL, 8, AnswerType.FLOAT, "0.25"),
    "5": (Topic.PLANE_GEOMETRY, Level.HIGH_SCHOOL, 8, AnswerType.MULTIPLE_CHOICE, "C"),
    "mm-0006": (Topic.ALGEBRA, Level.HIGH_SCHOOL, 9, AnswerType.TEXT, "\\frac{\\sqrt{3}}{2}"),
    "7": (Topic.ANALYTIC_GEOMETRY, Level.HIGH_SCHOOL, 7, AnswerType.TEXT, "(1, 2)"),
}  # fmt: skip


def image_bytes(n: int, fmt: str = "png") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (20, 14), (30 * n, 200 - 20 * n, 90)).save(buffer, format=fmt)
    return buffer.getvalue()


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def images_of(rows: list[dict[str, Any]]) -> dict[str, bytes]:
    """Image base name -> bytes, one distinct colour per row."""
    return {
        Path(row["file_name"]).name: image_bytes(n, "jpeg" if row["file_name"].endswith(".jpg") else "png")
        for n, row in enumerate(rows, start=1)
    }


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def folder_release(tmp_path: Path) -> Path:
    """MM_Math.jsonl beside an images/ folder."""
    root = tmp_path / "mmmath"
    write_jsonl(root / "MM_Math.jsonl", ROWS)
    (root / "images").mkdir()
    for name, data in images_of(ROWS).items():
        (root / "images" / name).write_bytes(data)
    return root


@pytest.fixture
def zip_release(tmp_path: Path) -> Path:
    """The Hugging Face repository's layout: MM_Math/MM_Math.jsonl and MM_Math/MM_Math.zip, whose
    members sit under a folder of their own."""
    root = tmp_path / "MM_Math_repo"
    write_jsonl(root / "MM_Math" / "MM_Math.jsonl", ROWS)
    with zipfile.ZipFile(root / "MM_Math" / "MM_Math.zip", "w") as archive:
        archive.writestr("MM_Math/", b"")
        for name, data in images_of(ROWS).items():
            archive.writestr(f"MM_Math/{name}", data)
    return root


def boxed_truth(solution: str) -> str:
    r"""The last \boxed{...} found by hand: from the last `\boxed{`, count braces to its match."""
    start = solution.rindex("\\boxed{") + len("\\boxed{")
    depth = 1
    for i in range(start, len(solution)):
        depth += {"{": 1, "}": -1}.get(solution[i], 0)
        if depth == 0:
            return solution[start:i].strip()
    raise AssertionError("unbalanced")


def one_line(exc: pytest.ExceptionInfo[ReleaseError]) -> str:
    message = str(exc.value)
    assert "\n" not in message and message.strip() == message and message
    return message


# ---- fields -------------------------------------------------------------------------------------


def test_problems_become_one_variant_seeds_with_their_fields(folder_release: Path) -> None:
    seeds = load_mmmath(folder_release)
    assert list(seeds) == IDS  # file order; an `id` column wins over the line number
    rows = {key: row for key, row in zip(IDS, ROWS, strict=False)}
    for key, seed in seeds.items():
        row = rows[key]
        topic, level, grade, kind, truth = EXPECTED[key]
        assert (seed.seed_id, seed.topic, seed.level, seed.answer_type) == (key, topic, level, kind)
        assert seed.variant_space == 1 and seed.memoizable is False
        assert seed.modalities == (Modality.IMAGE,)
        variant = seed.variant(0, base_seed=5)
        assert (variant.index, variant.base_seed, variant.variant_id) == (0, 5, f"{key}/0")
        assert variant.question == row["question"].strip()
        assert variant.solution == row["solution"]  # the reference solution, for process evaluation
        assert variant.answer == truth
        assert variant.params["image"] == row["file_name"]
        assert variant.params["image_source"] == f"images/{Path(row['file_name']).name}"
        assert variant.params["year"] == row["year"] and variant.params["grade"] == grade
        assert variant.params["difficult"] == row["difficult"]
        assert variant.params["knowledge"] == row["knowledge"]
        json.dumps(variant.to_json(), allow_nan=False)  # params are plain JSON
    assert seeds["1"].variant(0).params["boxes"] == 2
    assert seeds["1"].variant(0).params["difficulty"] == "medium"
    assert seeds["3"].variant(0).params["difficulty"] == "hard"
    assert seeds["5"].variant(0).choices == ("30°", "45°", "60°", "90°")
    assert all(seeds[k].variant(0).choices == () for k in IDS if k != "5")
    # the unknown label is kept; the topic falls back to algebra
    unknown = seeds["mm-0006"].variant(0).params
    assert unknown["topic_label"] is None and unknown["knowledge"] == "Mystery knowledge point"
    assert seeds["3"].variant(0).params["topic_label"] == "立体几何"


def test_truth_is_the_last_box_of_the_solution(folder_release: Path) -> None:
    seeds = load_mmmath(folder_release)
    for key, row in zip(IDS, ROWS, strict=False):
        variant = seeds[key].variant(0)
        by_hand = boxed_truth(row["solution"])
        assert variant.answer == by_hand == last_boxed(row["solution"])
    assert seeds["1"].variant(0).answer != "3"  # the first part's box is not the answer


def test_render_shows_the_image_as_png_with_the_question(folder_release: Path) -> None:
    seeds = load_mmmath(folder_release)
    originals = images_of(ROWS)
    for key, row in zip(IDS, ROWS, strict=False):
        variant = seeds[key].variant(0)
        shown = seeds[key].representation(variant, Modality.IMAGE)
        assert shown.modality is Modality.IMAGE and shown.text == variant.question
        assert shown.image_png is not None and shown.image_png.startswith(PNG_SIGNATURE)
        expected = pixels(originals[Path(row["file_name"]).name])
        assert np.abs(pixels(shown.image_png).astype(int) - expected.astype(int)).max() <= 8  # JPEG
    with pytest.raises(UnsupportedModality):
        seeds["1"].representation(seeds["1"].variant(0), Modality.LATEX)


def test_images_in_a_zip_with_the_data_file_one_folder_down(zip_release: Path) -> None:
    seeds = load_mmmath(zip_release)
    assert list(seeds) == IDS
    originals = images_of(ROWS)
    for key, row in zip(IDS, ROWS, strict=False):
        variant = seeds[key].variant(0)
        name = Path(row["file_name"]).name
        assert variant.params["image_source"] == f"MM_Math.zip:MM_Math/{name}"
        png = seeds[key].render(variant, Modality.IMAGE).image_png
        assert png is not None and png.startswith(PNG_SIGNATURE)
        assert np.abs(pixels(png).astype(int) - pixels(originals[name]).astype(int)).max() <= 8
    assert load_mmmath(zip_release / "MM_Math" / "MM_Math.jsonl", ("2",))["2"].variant(0).answer == "12"


def test_the_data_file_directly_images_beside_it(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "release" / "test.jsonl", ROWS[:2])
    for name, image in images_of(ROWS[:2]).items():
        (tmp_path / "release" / name).write_bytes(image)
    seeds = load_mmmath(data)
    assert list(seeds) == ["1", "2"]
    assert seeds["2"].variant(0).params["image_source"] == "2.jpg"
    # a .json file holding a list is read too
    listed = tmp_path / "release" / "listed.json"
    listed.write_text(json.dumps(ROWS[:2], ensure_ascii=False), encoding="utf-8")
    assert [s.variant(0).answer for s in load_mmmath(listed).values()] == ["\\frac{3}{2}", "12"]


def test_line_separators_inside_strings_are_text_not_line_breaks(tmp_path: Path) -> None:
    odd = {**ROWS[1], "question": "Find b+c.\u2028(Form feed \x0c and U+2029 \u2029 inside.)"}
    data = tmp_path / "MM_Math.jsonl"
    data.write_text("\r\n".join(json.dumps(r, ensure_ascii=False) for r in [ROWS[0], odd]) + "\r\n", "utf-8")
    for name, image in images_of(ROWS[:2]).items():
        (tmp_path / name).write_bytes(image)
    seeds = load_mmmath(tmp_path)
    assert list(seeds) == ["1", "2"] and seeds["2"].variant(0).question == odd["question"]


def test_keys_choose_problems_in_their_order(folder_release: Path) -> None:
    seeds = load_mmmath(folder_release, ("7", "mm-0006"))
    assert list(seeds) == ["7", "mm-0006"]


# ---- mapping --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knowledge", "topic"),
    [
        ("平面几何", Topic.PLANE_GEOMETRY),
        ("立体几何", Topic.SOLID_GEOMETRY),
        ("函数", Topic.ALGEBRA),
        ("一次函数", Topic.ALGEBRA),
        ("统计", Topic.STATISTICS),
        ("概率", Topic.STATISTICS),
        ("解析几何", Topic.ANALYTIC_GEOMETRY),
        ("平面直角坐标系", Topic.ANALYTIC_GEOMETRY),
        ("有理数", Topic.ARITHMETIC),
        ("Functions", Topic.ALGEBRA),
        ("Properties of Shapes", Topic.PLANE_GEOMETRY),
        ("Transformations of Shapes", Topic.PLANE_GEOMETRY),
        ({"level_1": "Transformations of Shapes", "level_2": "Projections and Views"}, Topic.SOLID_GEOMETRY),
        ({"level_1": "图形的性质", "level_2": "圆"}, Topic.PLANE_GEOMETRY),
        (["Statistics and Probability"], Topic.STATISTICS),
        ("something else", Topic.ALGEBRA),
        (None, Topic.ALGEBRA),
    ],
)
def test_knowledge_labels_map_to_topics(knowledge: Any, topic: Topic) -> None:
    found, label = topic_of(knowledge)
    assert found is topic
    assert (label is None) == (knowledge in ("something else", None))


@pytest.mark.parametrize(
    ("year", "level", "grade"),
    [
        ("七年级上学期", Level.HIGH_SCHOOL, 7),
        ("九年级下学期", Level.HIGH_SCHOOL, 9),
        ("初一", Level.HIGH_SCHOOL, 7),
        ("初中", Level.HIGH_SCHOOL, None),
        ("nine", Level.HIGH_SCHOOL, 9),
        ("Grade 8", Level.HIGH_SCHOOL, 8),
        ("高二", Level.HIGH_SCHOOL, 11),
        ("五年级", Level.ELEMENTARY, 5),
        ("小学", Level.ELEMENTARY, None),
        ("undergraduate", Level.UNDERGRADUATE, None),
        ("second term", Level.HIGH_SCHOOL, None),
        (None, Level.HIGH_SCHOOL, None),
    ],
)
def test_grades_map_to_levels(year: Any, level: Level, grade: int | None) -> None:
    assert level_of(year) == (level, grade)


# ---- skipped problems and errors --------------------------------------------------------------------


def test_a_problem_without_a_box_is_skipped_with_its_reason(folder_release: Path) -> None:
    skipped = mmmath_skipped(folder_release)
    assert [(s.key, s.where) for s in skipped] == [("8", "line 8")]
    assert "no \\boxed{} answer" in skipped[0].reason
    assert "8" not in load_mmmath(folder_release)
    with pytest.raises(ReleaseError) as exc:
        load_mmmath(folder_release, ("8",))
    assert "problem 8 (line 8)" in one_line(exc) and "skipped" in one_line(exc)


@pytest.mark.parametrize(
    ("solution", "reason"),
    [
        ("", "solution is empty"),
        ("So the answer is \\boxed{}.", "last \\boxed{} is empty"),
        ("First \\boxed{2}, then \\boxed{\\frac{3}{4}", "never closed"),
        ("No box at all: 5.", "no \\boxed{} answer"),
    ],
)
def test_every_unusable_solution_is_a_recorded_skip(tmp_path: Path, solution: str, reason: str) -> None:
    rows = [*ROWS[:2], {**ROWS[0], "solution": solution, "file_name": "missing.png"}]
    write_jsonl(tmp_path / "MM_Math.jsonl", rows)
    for name, image in images_of(ROWS[:2]).items():
        (tmp_path / name).write_bytes(image)
    assert list(load_mmmath(tmp_path)) == ["1", "2"]  # a skipped problem's image is never looked for
    (skip,) = mmmath_skipped(tmp_path)
    assert skip.key == "3" and reason in skip.reason and "\n" not in str(skip)


def _layout(tmp_path: Path, rows: list[dict[str, Any]] | None = None, text: str | None = None) -> Path:
    root = tmp_path / "broken"
    root.mkdir(exist_ok=True)
    data = root / "MM_Math.jsonl"
    if text is not None:
        data.write_text(text, encoding="utf-8")
    else:
        write_jsonl(data, rows if rows is not None else ROWS)
    (root / "images").mkdir(exist_ok=True)
    for name, image in images_of(ROWS).items():
        (root / "images" / name).write_bytes(image)
    return root


def _lines(rows: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(row, ensure_ascii=False) for row in rows]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing image", ["MM_Math.jsonl line 4", "problem 4", "'4.png' is missing"]),
        ("empty line", ["MM_Math.jsonl line 3 is empty"]),
        ("truncated line", ["MM_Math.jsonl line 7 is truncated"]),
        ("garbage line", ["MM_Math.jsonl line 2 is not valid JSON"]),
        ("not an object", ["MM_Math.jsonl line 2 is a JSON list"]),
        ("no question", ["MM_Math.jsonl line 5", "problem 5 has no 'question' column"]),
        ("no file_name", ["line 1", "problem 1 has an empty 'file_name' column"]),
        ("no solution", ["line 2", "problem 2 has no 'solution' column"]),
        ("solution not text", ["line 2", "problem 2 has a non-text 'solution' column"]),
        ("duplicate id", ["line 2", "problem id '1' is also on line 1"]),
        ("bad id", ["line 1", "id [1] is not a non-empty string or integer"]),
        ("year a list", ["line 1", "'year' is not a single label"]),
        ("empty file", ["MM_Math.jsonl is empty"]),
        ("all skipped", ["no usable problems (1 skipped: problem 1 (line 1)"]),
        ("unknown key", ["MM_Math.jsonl", "no problem '99'"]),
        ("no data file", ["no MM_Math.jsonl"]),
        ("no folder", ["does not exist"]),
        ("several data files", ["several .jsonl files (a.jsonl, b.jsonl)"]),
    ],
)
def test_broken_releases_are_one_line_errors(tmp_path: Path, case: str, expected: list[str]) -> None:
    keys: tuple[str, ...] = ()
    lines = _lines(ROWS)
    if case == "missing image":
        root = _layout(tmp_path)
        (root / "images" / "4.png").unlink()
    elif case == "empty line":
        root = _layout(tmp_path, text="\n".join([*lines[:2], "", *lines[2:]]) + "\n")
    elif case == "truncated line":
        root = _layout(tmp_path, text="\n".join(lines[:6]) + "\n" + lines[6][:40])
    elif case == "garbage line":
        root = _layout(tmp_path, text="\n".join([lines[0], "{oops", *lines[1:]]))
    elif case == "not an object":
        root = _layout(tmp_path, text="\n".join([lines[0], "[1, 2]", *lines[1:]]))
    elif case == "no question":
        root = _layout(tmp_path, [*ROWS[:4], {k: v for k, v in ROWS[4].items() if k != "question"}])
    elif case == "no file_name":
        root = _layout(tmp_path, [{**ROWS[0], "file_name": ""}, *ROWS[1:]])
    elif case == "no solution":
        root = _layout(tmp_path, [ROWS[0], {k: v for k, v in ROWS[1].items() if k != "solution"}])
    elif case == "solution not text":
        root = _layout(tmp_path, [ROWS[0], {**ROWS[1], "solution": ["\\boxed{1}"]}])
    elif case == "duplicate id":
        root = _layout(tmp_path, [ROWS[0], {**ROWS[1], "id": 1}])
    elif case == "bad id":
        root = _layout(tmp_path, [{**ROWS[0], "id": [1]}])
    elif case == "year a list":
        root = _layout(tmp_path, [{**ROWS[0], "year": ["七年级", "八年级"]}])
    elif case == "empty file":
        root = _layout(tmp_path, text="\n\n")
    elif case == "all skipped":
        root = _layout(tmp_path, [ROWS[7]])
    elif case == "unknown key":
        root, keys = _layout(tmp_path), ("1", "99")
    elif case == "no data file":
        root = tmp_path / "empty"
        root.mkdir()
    elif case == "no folder":
        root = tmp_path / "nowhere"
    else:
        root = tmp_path / "two"
        write_jsonl(root / "a.jsonl", ROWS[:1])
        write_jsonl(root / "b.jsonl", ROWS[:1])
    with pytest.raises(ReleaseError) as exc:
        load_mmmath(root, keys)
    message = one_line(exc)
    for part in expected:
        assert part in message


def test_a_missing_zip_member_is_a_one_line_error(zip_release: Path) -> None:
    archive = zip_release / "MM_Math" / "MM_Math.zip"
    with zipfile.ZipFile(archive, "w") as rewritten:  # every image but 5.png
        for name, data in images_of(ROWS).items():
            if name != "5.png":
                rewritten.writestr(f"MM_Math/{name}", data)
    assert list(load_mmmath(zip_release, ("1", "2"))) == ["1", "2"]  # only the chosen are checked
    with pytest.raises(ReleaseError) as exc:
        load_mmmath(zip_release)
    message = one_line(exc)
    assert "MM_Math.jsonl line 5" in message and "'5.png' is missing" in message
    assert "MM_Math.zip" in message


def test_variant_index_other_than_zero_is_an_error(folder_release: Path) -> None:
    seed = load_mmmath(folder_release)["1"]
    with pytest.raises(ReleaseError) as exc:
        seed.variant(1)
    assert "has 1 variant" in one_line(exc)


def test_an_edited_file_is_read_again(folder_release: Path) -> None:
    seed = load_mmmath(folder_release)["2"]
    rows = [dict(row) for row in ROWS]
    rows[1]["solution"] = rows[1]["solution"].replace("\\boxed{12}", "\\boxed{13} (corrected)")
    write_jsonl(folder_release / "MM_Math.jsonl", rows)
    assert seed.variant(0).answer == "13"


# ---- describe ---------------------------------------------------------------------------------------


def test_describe_counts_problems_images_and_skips(folder_release: Path) -> None:
    (folder_release / "images" / "7.png").unlink()
    lines = describe_mmmath(folder_release)
    text = "\n".join(lines)
    assert "8 rows, 7 problems, 1 skipped" in lines[0]
    assert "images: 6 of 7 found" in text
    assert "missing image: problem 7 (line 7): '7.png'" in text
    assert "skipped: problem 8 (line 8): its solution has no \\boxed{} answer" in text
    assert "plane_geometry 2" in text and "statistics 1" in text
    assert "taken as algebra): problems mm-0006" in text
    assert all("\n" not in line for line in lines)


# ---- scoring: an answerer that knows the truth scores 100% --------------------------------------------


@pytest.mark.parametrize("layout", ["folder_release", "zip_release"])
def test_an_answerer_that_knows_the_truth_scores_everything(
    layout: str, request: pytest.FixtureRequest
) -> None:
    seeds = load_mmmath(request.getfixturevalue(layout))
    graded = []
    for seed in seeds.values():
        variant = seed.variant(0)
        truth = boxed_truth(variant.solution)  # the truth as published, not as stored
        as_json = json.dumps({"solution": "s", "short answer": truth}, ensure_ascii=False)
        boxed = f"Working as in the figure, the answer is \\boxed{{{truth}}}."
        both = json.dumps(
            {"solution": f"s, so \\boxed{{{truth}}}", "short answer": truth}, ensure_ascii=False
        )
        scores = [
            score_reply(as_json, variant),
            score_reply(boxed, variant),
            score_reply(boxed, variant, grader="mmmath"),
            score_reply(both, variant, grader="mmmath"),
            score_reply(both, variant),
        ]
        graded += [(variant.seed_id, s.grader, s.correct, s.reason) for s in scores]
    assert all(correct for _, _, correct, _ in graded), [g for g in graded if not g[2]]
    # and the grading is not vacuous: a wrong answer is wrong
    wrong = score_reply("the answer is \\boxed{7.5}", seeds["2"].variant(0), grader="mmmath")
    assert (wrong.correct, wrong.reason) == (False, "ok")
