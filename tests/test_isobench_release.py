"""IsoBench's published release (`isobench/IsoBench`) read as seeds: one file or folder per task,
parquet or JSON lines, fixtures written here in the published field layout."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from isodyn.core import AnswerType, Level, Modality, Topic
from isodyn.datasets import ReleaseError
from isodyn.datasets.isobench import describe_isobench, load_isobench
from isodyn.datasets.release_item import PNG_SIGNATURE
from isodyn.scoring import score_reply

PGN_1 = "1. e4 e5 2. Nf3 Nc6 3. Bb5 Bc5 4. Bxc6 dxc6 5. Nc3 Bg4 6. Na4 Bb4 7. c3 Bd6 8. d4 f6 9. dxe5 fxe5"
FEN_1 = "r2qk1nr/ppp3pp/2pb4/4p3/N3P1b1/2P2N2/PP3PPP/R1BQK2R w KQkq - 0 10"
ANL_1 = "White: Ke1, Qd1, Ra1, Rh1, Bc1, Na4, Nf3; Black: Ke8, Qd8, Ra8, Rh8, Bd6, Bg4, Ng8"
FEN_2 = "8/8/8/8/p1k5/K7/8/8 b - - 0 54"
PNG_2 = "1. d4 d5 2. c4 e6 3. Nc3 Nf6"
FEN_3 = "r2qk1nr/ppp3pp/2pb4/3Qp3/N3P1b1/2P2N2/PP3PPP/R1B1K2R b KQkq - 1 10"
ANL_3 = "White: Ke1, Qd5, Ra1, Rh1, Bc1, Na4, Nf3; Black: Ke8, Qd8, Ra8, Rh8, Bd6, Bg4, Ng8"

# task -> rows in the published fields (without the image), as on the dataset card
ROWS: dict[str, list[dict[str, Any]]] = {
    "math_parity": [
        {"domain": 5.0, "latex": "$$f(x) = - \\frac{2 x^{5}}{2 x^{8} + 11.16}$$",
         "code": "f(x) = -2*x**5/(2*x**8 + 11.16)", "label": "odd", "id": "parity-17"},
        {"domain": 4.0, "latex": "$$f(x) = - \\frac{20.62}{4 x^{6} + 25.18}$$",
         "code": "f(x) = -20.62/(4*x**6 + 25.18)", "label": "even", "id": "parity-18"},
        {"domain": 5.0, "latex": "$$f(x) = \\frac{x^{3} + 1}{x^{2} + 2}$$",
         "code": "f(x) = (x**3 + 1)/(x**2 + 2)", "label": "neither", "id": "parity-19"},
    ],
    "math_convexity": [
        {"domain": "x > 0", "latex": "$$f(x) = 0.32 \\log{\\left(x \\right)} + 7.13$$",
         "code": "f(x) = 0.32*log(x) + 7.13", "label": "concave", "id": "convexity-3"},
        {"domain": None, "latex": "$$f(x) = 2.23 \\left|{x}\\right| + 6.64$$",
         "code": "f(x) = 2.23*Abs(x) + 6.64", "label": "convex", "id": "convexity-4"},
    ],
    "graph_connectivity": [
        {"query_nodes_color": "red", "adjacency_matrix": "[[0, 1, 0], [1, 0, 0], [0, 0, 0]]",
         "query_node_1": 0, "query_node_2": 1, "label": True, "id": "conn-1"},
        {"query_nodes_color": "red",
         "adjacency_matrix": "[[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]",
         "query_node_1": 1, "query_node_2": 3, "label": False, "id": "conn-2"},
    ],
    "graph_maxflow": [
        {"source_node": 0, "source_node_color": "green", "sink_node": 2, "sink_node_color": "red",
         "adjacency_matrix": "[[0, 1, 4], [0, 0, 6], [0, 0, 0]]", "label": 5, "id": "flow-1"},
        {"source_node": 0, "source_node_color": "green", "sink_node": 3, "sink_node_color": "red",
         "adjacency_matrix": "[[0, 7, 8, 9], [0, 0, 0, 8], [0, 8, 0, 8], [0, 0, 0, 0]]", "label": 24,
         "id": "flow-2"},
    ],
    "winner_id": [
        {"anl": ANL_1, "pgn": PGN_1, "fen": FEN_1, "label": "Black", "id": "win-1"},
        {"anl": "White: Ka3; Black: Kc4, pa4", "pgn": PNG_2, "fen": FEN_2, "label": "Draw", "id": "win-2"},
        {"anl": ANL_3, "pgn": PGN_1 + " 10. Qd5", "fen": FEN_3, "label": "White", "id": "win-3"},
    ],
    "puzzle": [
        {"anl": "White: Ka3; Black: Kc4, pa4", "pgn": PNG_2, "fen": FEN_2, "label": "c4b5", "id": "pz-1"},
        {"anl": ANL_1, "pgn": PGN_1, "fen": FEN_1, "label": "d1d5", "id": "pz-2"},
    ],
    "physics": [
        {"question": "Which property matches this object?", "choices": "['rough', 'stretchy']", "label": 0,
         "description": "The object is rock.", "id": "phys-1"},
        {"question": "Think about the magnetic force between the magnets in each pair. Which of the "
                     "following statements is true?",
         "choices": "['The magnitude of the magnetic force is the same in both pairs.', "
                    "'The magnitude of the magnetic force is greater in Pair 1.', "
                    "'The magnitude of the magnetic force is greater in Pair 2.']",
         "label": 2, "description": "Magnet B is larger in Pair 2 than in Pair 1.", "id": "phys-2"},
    ],
    "chemistry": [
        {"question": "Which of these is an element?", "choices": "['water', 'oxygen', 'salt']", "label": 1,
         "description": "Three molecules: H2O, O2 and NaCl.", "id": "chem-1"},
    ],
}  # fmt: skip

# written independently of the loader: each task's options in order, and what each family shows
CHOICES = {
    "math_parity": ("even", "odd", "neither"),
    "math_convexity": ("convex", "concave"),
    "graph_connectivity": ("Yes", "No"),
    "winner_id": ("White", "Black", "Draw"),
}
TEXT_FIELDS = {  # task -> (field, modality) of its text representations
    "math_parity": (("latex", Modality.LATEX), ("code", Modality.CODE)),
    "math_convexity": (("latex", Modality.LATEX), ("code", Modality.CODE)),
    "graph_connectivity": (("adjacency_matrix", Modality.LATEX),),
    "graph_maxflow": (("adjacency_matrix", Modality.LATEX),),
    "winner_id": (("fen", Modality.LATEX), ("pgn", Modality.CODE), ("anl", Modality.STORY)),
    "puzzle": (("fen", Modality.LATEX), ("pgn", Modality.CODE), ("anl", Modality.STORY)),
    "physics": (("description", Modality.STORY),),
    "chemistry": (("description", Modality.STORY),),
}
TOPICS = {
    "math": Topic.ISO_MATH, "graph": Topic.ISO_ALGORITHMS, "winner": Topic.ISO_GAMES,
    "puzzle": Topic.ISO_GAMES, "physics": Topic.ISO_SCIENCE, "chemistry": Topic.ISO_SCIENCE,
}  # fmt: skip


def expected_truth(task: str, row: dict[str, Any]) -> str:
    label = row["label"]
    if task in ("physics", "chemistry"):
        return "ABC"[label]
    if task == "graph_connectivity":
        return "A" if label else "B"
    if task in CHOICES:
        return "ABC"[CHOICES[task].index(label)]
    return str(label)


def picture(color: tuple[int, int, int], fmt: str = "png") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (20, 12), color).save(buffer, format=fmt)
    return buffer.getvalue()


def color_of(task: str, n: int) -> tuple[int, int, int]:
    return (10 + 20 * list(ROWS).index(task), 40 * n, 200)


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path)


def write_release(root: Path, fmt: str) -> Path:
    """The release in `fmt`: parquet as `<task>/validation-00000-of-00001.parquet` with the Hugging
    Face image struct; JSON lines as `<task>.jsonl` with pictures as base64 structs, bare base64, a
    data URL or a relative path (puzzle's second picture is a JPEG)."""
    for task, rows in ROWS.items():
        records = []
        for n, row in enumerate(rows):
            jpeg = task == "puzzle" and n == 1
            data = picture(color_of(task, n), "jpeg" if jpeg else "png")
            if fmt == "parquet":
                image: Any = {"bytes": data, "path": f"{task}-{n}.png"}
            else:
                encoded = base64.b64encode(data).decode()
                style = n % 4
                if style == 0:
                    image = {"bytes": encoded, "path": None}
                elif style == 1:
                    (root / "images").mkdir(parents=True, exist_ok=True)
                    (root / "images" / f"{task}-{n}.img").write_bytes(data)
                    image = f"images/{task}-{n}.img"
                elif style == 2:
                    image = f"data:image/png;base64,{encoded}"
                else:
                    image = encoded
            records.append({"image": image, **row})
        if fmt == "parquet":
            write_parquet(root / task / "validation-00000-of-00001.parquet", records)
        else:
            root.mkdir(parents=True, exist_ok=True)
            (root / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


@pytest.fixture(params=["parquet", "jsonl"])
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return write_release(tmp_path / f"IsoBench-{request.param}", request.param)


def test_every_item_is_a_seed_with_its_truth_and_representations(release: Path) -> None:
    seeds = load_isobench(release)
    assert list(seeds) == [f"{task}-{n}" for task in ("math_parity", "math_convexity", "graph_connectivity",
                           "graph_maxflow", "winner_id", "puzzle", "chemistry", "physics")
                           for n in range(len(ROWS[task]))]  # fmt: skip
    for task, rows in ROWS.items():
        for n, row in enumerate(rows):
            seed = seeds[f"{task}-{n}"]
            variant = seed.variant(0)
            assert variant.answer == expected_truth(task, row)
            assert seed.variant_space == 1 and not seed.memoizable
            assert seed.level is Level.UNDERGRADUATE
            assert seed.topic is next(t for prefix, t in TOPICS.items() if task.startswith(prefix))
            assert seed.modalities == (Modality.IMAGE, *(m for _, m in TEXT_FIELDS[task]))
            assert variant.params["release_id"] == row["id"]
            image = seed.representation(variant, Modality.IMAGE)
            assert image.image_png is not None and image.image_png.startswith(PNG_SIGNATURE)
            sent = pixels(image.image_png)
            expected = pixels(picture(color_of(task, n)))
            tolerance = 8 if task == "puzzle" and n == 1 else 0  # the JPEG arrives converted
            assert np.abs(sent.astype(int) - expected.astype(int)).max() <= tolerance


def test_choices_and_truth_letters(release: Path) -> None:
    seeds = load_isobench(release)
    parity = seeds["math_parity-0"].variant(0)
    assert parity.answer_type is AnswerType.MULTIPLE_CHOICE
    assert parity.choices == ("even", "odd", "neither") and parity.answer == "B"  # odd
    assert parity.question.endswith("choices: (A) even, (B) odd, (C) neither")
    assert seeds["math_parity-2"].variant(0).answer == "C"
    convex = seeds["math_convexity-0"].variant(0)
    assert (convex.choices, convex.answer) == (("convex", "concave"), "B")
    assert "x > 0" in convex.question
    assert "domain" not in seeds["math_convexity-1"].variant(0).question
    assert [seeds[f"graph_connectivity-{n}"].variant(0).answer for n in range(2)] == ["A", "B"]
    assert seeds["graph_connectivity-1"].variant(0).choices == ("Yes", "No")
    flow = seeds["graph_maxflow-1"].variant(0)
    assert (flow.answer_type, flow.answer, flow.choices) == (AnswerType.INT, "24", ())
    assert [seeds[f"winner_id-{n}"].variant(0).answer for n in range(3)] == ["B", "C", "A"]
    puzzle = seeds["puzzle-0"].variant(0)
    assert (puzzle.answer_type, puzzle.answer) == (AnswerType.TEXT, "c4b5")
    magnets = seeds["physics-1"].variant(0)
    assert magnets.choices[2] == "The magnitude of the magnetic force is greater in Pair 2."
    assert magnets.answer == "C"
    assert magnets.question.endswith(
        "choices: (A) The magnitude of the magnetic force is the same in both pairs., "
        "(B) The magnitude of the magnetic force is greater in Pair 1., "
        "(C) The magnitude of the magnetic force is greater in Pair 2."
    )
    assert seeds["chemistry-0"].variant(0).choices == ("water", "oxygen", "salt")
    assert seeds["chemistry-0"].variant(0).answer == "B"


def test_an_answerer_that_knows_the_truth_scores_everything(release: Path) -> None:
    seeds = load_isobench(release)
    cells = 0
    for seed_id, seed in seeds.items():
        task, n = seed_id.rsplit("-", 1)
        row = ROWS[task][int(n)]
        variant = seed.variant(0)
        truth = expected_truth(task, row)
        reply = json.dumps({"solution": "s", "short answer": truth})
        wrong = "Z" if variant.choices else "999" if variant.answer_type is AnswerType.INT else "h1h2"
        for modality in seed.modalities:
            shown = seed.representation(variant, modality)
            assert score_reply(reply, variant).correct, (seed_id, modality)
            assert not score_reply(json.dumps({"solution": "s", "short answer": wrong}), variant).correct
            assert variant.question in shown.text
            if modality is not Modality.IMAGE:
                assert shown.image_png is None
                field = next(f for f, m in TEXT_FIELDS[task] if m is modality)
                assert str(row[field]) in shown.text, (seed_id, modality)
            cells += 1
    assert cells == sum(len(rows) * (1 + len(TEXT_FIELDS[t])) for t, rows in ROWS.items())


def test_image_text_carries_the_question_and_what_the_text_forms_do_not_need(release: Path) -> None:
    seeds = load_isobench(release)
    conn = seeds["graph_connectivity-1"]
    image = conn.representation(conn.variant(0), Modality.IMAGE).text
    assert "node 1 and node 3" in image and "drawn in red" in image and "[[" not in image
    flow = seeds["graph_maxflow-0"]
    assert "source node 0 is drawn in green" in flow.representation(flow.variant(0), Modality.IMAGE).text
    puzzle = seeds["puzzle-0"]
    assert "Black is to move" in puzzle.representation(puzzle.variant(0), Modality.IMAGE).text


def test_keys_select_items_in_order(release: Path) -> None:
    seeds = load_isobench(release, ("physics-1", "math_parity-0"))
    assert list(seeds) == ["physics-1", "math_parity-0"]
    with pytest.raises(ReleaseError, match="no item 'physics-7'") as caught:
        load_isobench(release, ("physics-0", "physics-7", "nothing"))
    assert "\n" not in str(caught.value)
    with pytest.raises(ReleaseError, match="no variant 1"):
        seeds["physics-1"].variant(1)


def test_a_single_file_and_a_task_folder_are_releases_too(release: Path) -> None:
    one = next(release.rglob("winner_id*")) if release.name.endswith("jsonl") else release / "winner_id"
    seeds = load_isobench(one)
    assert list(seeds) == ["winner_id-0", "winner_id-1", "winner_id-2"]
    if one.is_dir():
        shard = next(one.glob("*.parquet"))
        assert list(load_isobench(shard)) == list(seeds)  # the task is named by the folder


def test_describe_says_what_the_release_holds(release: Path) -> None:
    lines = describe_isobench(release)
    assert lines[0].endswith("17 items in 8 of 10 tasks")
    winner = next(line for line in lines if "winner_id:" in line)
    assert "3 items" in winner and "image, latex, code, story" in winner and "multiple choice" in winner
    assert any("chemistry: 1 item from" in line for line in lines)
    assert any("graph_maxflow: 2 items" in line and "answers int" in line for line in lines)
    assert all("\n" not in line for line in lines)


def test_hub_tree_layout_with_validation_folders(tmp_path: Path) -> None:
    """The parquet-converter branch keeps `<task>/validation/0000.parquet`; an id column may be absent."""
    image = {"bytes": picture((1, 2, 3)), "path": None}
    rows = [{"image": image, **{k: v for k, v in r.items() if k != "id"}} for r in ROWS["physics"]]
    write_parquet(tmp_path / "physics" / "validation" / "0000.parquet", rows)
    seeds = load_isobench(tmp_path)
    assert list(seeds) == ["physics-0", "physics-1"]
    assert seeds["physics-0"].variant(0).params["release_id"] == ""


def test_aliases_for_field_names(tmp_path: Path) -> None:
    record = {"IMAGE": base64.b64encode(picture((9, 9, 9))).decode(), "Answer": "even",
              "LaTeX": "$$f(x) = x^2$$", "xlim": 3.0, "level": "high school"}  # fmt: skip
    (tmp_path / "parity.jsonl").write_text(json.dumps(record) + "\n")
    seed = load_isobench(tmp_path)["math_parity-0"]
    assert seed.modalities == (Modality.IMAGE, Modality.LATEX) and seed.level is Level.HIGH_SCHOOL
    assert seed.variant(0).answer == "A" and seed.variant(0).params["facts"] == {"domain": 3.0}


def test_json_layouts(tmp_path: Path) -> None:
    """A JSON list, a split holding a list, records keyed by id, and JSON lines under a .json name."""
    records = [{"image": base64.b64encode(picture((n, n, n))).decode(), **row}
               for n, row in enumerate(ROWS["graph_maxflow"])]  # fmt: skip
    forms = {
        "list": json.dumps(records),
        "split": json.dumps({"validation": records}),
        "keyed": json.dumps({r["id"]: {k: v for k, v in r.items() if k != "id"} for r in records}),
        "lines": "".join(json.dumps(r) + "\n" for r in records),
    }
    for form, text in forms.items():
        (tmp_path / form).mkdir()
        (tmp_path / form / "graph_maxflow.json").write_text(text)
        seeds = load_isobench(tmp_path / form)
        assert [s.variant(0).answer for s in seeds.values()] == ["5", "24"], form
        assert [s.variant(0).params["release_id"] for s in seeds.values()] == ["flow-1", "flow-2"], form
    (tmp_path / "scalar").mkdir()
    (tmp_path / "scalar" / "graph_maxflow.json").write_text('"just text"')
    assert "expected a list of records" in one_line_error(tmp_path / "scalar")


# ------------------------------------------------------------------------------------------- errors


def one_line_error(path: Path, keys: tuple[str, ...] = ()) -> str:
    with pytest.raises(ReleaseError) as caught:
        load_isobench(path, keys)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_missing_images_name_the_file_and_item(tmp_path: Path) -> None:
    rows = [{"image": {"bytes": picture((1, 1, 1)), "path": None}, **ROWS["puzzle"][0]},
            {"image": None, **ROWS["puzzle"][1]}]  # fmt: skip
    write_parquet(tmp_path / "pq" / "puzzle" / "validation-00000-of-00001.parquet", rows)
    message = one_line_error(tmp_path / "pq")
    assert "validation-00000-of-00001.parquet item 1 (id pz-2) has no image" in message

    line = {"image": "images/gone.png", **ROWS["chemistry"][0]}
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "chemistry.jsonl").write_text(json.dumps(line) + "\n")
    message = one_line_error(tmp_path / "js")
    assert "chemistry.jsonl item 0 (id chem-1)" in message and "'images/gone.png' is missing" in message

    (tmp_path / "js" / "chemistry.jsonl").write_text(json.dumps({**ROWS["chemistry"][0], "image": ""}) + "\n")
    assert "chemistry.jsonl item 0 (id chem-1) has no image" in one_line_error(tmp_path / "js")

    bad = {**ROWS["chemistry"][0], "image": base64.b64encode(b"not a picture at all").decode()}
    (tmp_path / "js" / "chemistry.jsonl").write_text(json.dumps(bad) + "\n")
    message = one_line_error(tmp_path / "js")
    assert "chemistry.jsonl item 0 (id chem-1): image is not a readable picture" in message


def test_files_with_other_columns_are_refused(tmp_path: Path) -> None:
    image = {"bytes": picture((5, 5, 5)), "path": None}
    write_parquet(
        tmp_path / "pq" / "math_parity" / "validation-00000.parquet",
        [{"image": image, **ROWS["chemistry"][0]}],
    )  # a science table under a math name
    message = one_line_error(tmp_path / "pq")
    assert "validation-00000.parquet: not the columns of IsoBench's math_parity: no latex or code" in message
    assert "found image, question, choices" in message

    (tmp_path / "js").mkdir()
    other = [{"image": "x.png", "prompt_text": "?", "y": 1}]
    (tmp_path / "js" / "physics.json").write_text(json.dumps(other))
    message = one_line_error(tmp_path / "js")
    assert "physics.json: not the columns of IsoBench's physics: no label, question, choices" in message


def test_bad_values_name_the_item(tmp_path: Path) -> None:
    record = {"image": base64.b64encode(picture((3, 3, 3))).decode(), **ROWS["winner_id"][0], "label": "Blue"}
    (tmp_path / "winner_id.jsonl").write_text(json.dumps(record) + "\n")
    message = one_line_error(tmp_path)
    assert "winner_id.jsonl item 0 (id win-1): label 'Blue' is not one of White, Black, Draw" in message
    record = {**record, "label": "Black", "fen": None, "pgn": None, "anl": None}
    (tmp_path / "winner_id.jsonl").write_text(json.dumps(record) + "\n")
    seed = load_isobench(tmp_path)["winner_id-0"]  # a column without values: image only
    assert seed.modalities == (Modality.IMAGE,)
    record = {"image": record["image"], **ROWS["physics"][0], "label": 5}
    (tmp_path / "winner_id.jsonl").unlink()
    (tmp_path / "physics.jsonl").write_text(json.dumps(record) + "\n")
    assert "physics.jsonl item 0 (id phys-1): label 5 names none of the 2 choices" in one_line_error(tmp_path)


def test_empty_files_are_refused(tmp_path: Path) -> None:
    for name, text in (("physics.jsonl", ""), ("physics.json", "[]"), ("physics.jsonl", "\n\n")):
        folder = tmp_path / name.replace(".", "_") / str(len(text))
        folder.mkdir(parents=True)
        (folder / name).write_text(text)
        message = one_line_error(folder)
        assert str(folder / name) in message and ("is empty" in message or "has no items" in message)
    empty = tmp_path / "pq" / "puzzle"
    empty.mkdir(parents=True)
    (empty / "validation-00000.parquet").write_bytes(b"")
    assert "validation-00000.parquet is empty" in one_line_error(tmp_path / "pq")
    write_parquet(tmp_path / "pq2" / "puzzle.parquet", [])
    message = one_line_error(tmp_path / "pq2")
    assert "puzzle.parquet" in message
    (tmp_path / "pq3").mkdir()
    (tmp_path / "pq3" / "puzzle.parquet").write_bytes(b"PAR1 damaged")
    assert "puzzle.parquet: cannot read it as parquet" in one_line_error(tmp_path / "pq3")
    (tmp_path / "nothing").mkdir()
    assert "no IsoBench files" in one_line_error(tmp_path / "nothing")
    assert "does not exist" in one_line_error(tmp_path / "nowhere")


def test_unknown_tasks_are_refused(tmp_path: Path) -> None:
    (tmp_path / "algebra.jsonl").write_text(json.dumps({"image": "x.png", "label": 1}) + "\n")
    message = one_line_error(tmp_path)
    assert "algebra.jsonl: unknown IsoBench task 'algebra'" in message and "math_parity" in message
    single = tmp_path / "geometry" / "validation-00000.parquet"
    write_parquet(single, [{"image": None, "label": 1}])
    assert "unknown IsoBench task 'geometry'" in one_line_error(single)


def test_one_task_in_two_formats_is_refused(tmp_path: Path) -> None:
    write_release(tmp_path, "jsonl")
    write_parquet(
        tmp_path / "physics" / "validation-00000.parquet",
        [{"image": {"bytes": picture((1, 1, 1)), "path": None}, **ROWS["physics"][0]}],
    )
    assert "task physics is given twice" in one_line_error(tmp_path)


# ------------------------------------------------------------------------------- through the runner


def test_a_run_through_the_loopback_stub(tmp_path: Path) -> None:
    """`exp run dataset=isobench:PATH` end to end: a stub that knows every truth answers every cell
    (image, LaTeX, code, story) and every answer is graded correct."""
    from isodyn.experiments import plan as planning
    from isodyn.experiments import runner
    from isodyn.runs import rundir
    from isodyn.runs.config import parse_overrides
    from isodyn.testing import OpenAIStub, ScriptedReply

    datasets = pytest.importorskip("isodyn.datasets.kinds")
    if "isobench" not in getattr(datasets, "DATASETS", {}):
        pytest.skip("the runner does not read dataset=isobench:PATH")
    root = write_release(tmp_path / "release", "parquet")
    seeds = load_isobench(root)
    by_text, by_picture = {}, {}  # what the model is shown -> the truth
    for seed in seeds.values():
        variant = seed.variant(0)
        for modality in seed.modalities:
            shown = seed.representation(variant, modality)
            if shown.image_png is None:
                by_text[shown.text] = variant.answer
            else:
                by_picture[hashlib.sha256(pixels(shown.image_png).tobytes()).hexdigest()] = variant.answer
    assert len(by_text) + len(by_picture) == sum(len(seed.modalities) for seed in seeds.values())

    def oracle(request: dict) -> ScriptedReply:
        parts = [p for m in request["messages"] if isinstance(m["content"], list) for p in m["content"]]
        urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
        if urls:
            sent = base64.b64decode(urls[0].split(",", 1)[1])
            answer = by_picture[hashlib.sha256(pixels(sent).tobytes()).hexdigest()]
        else:
            said = "\n".join(t for m in request["messages"] for t in texts(m["content"]))
            answer = next(a for shown, a in by_text.items() if shown in said)
        return ScriptedReply(text=json.dumps({"solution": "s", "short answer": answer}))

    with OpenAIStub(oracle) as stub:
        words = [f"dataset=isobench:{root}", "models=openai/vlm", f"api_base={stub.base_url}",
                 "vision=yes", "modalities=image,latex,code,story", f"out={tmp_path / 'runs'}",
                 f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip
        plan = planning.plan_experiment(parse_overrides(words))
        result = asyncio.run(runner.execute(plan, rundir.new_run_dir(plan.config)))
    cells = sum(len(seed.modalities) for seed in seeds.values())
    assert len(result.rows) == cells and all(r["correct"] for r in result.rows)
    assert {r["modality"] for r in result.rows} == {"image", "latex", "code", "story"}


def texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content if part.get("type") == "text"]
