"""Hostile releases and study files: every path an importer reads stays inside the release, every
read has a bound, and bad input ends in one line (ReleaseError / ConfigError, exit 2 at the command).
Every release here is written by the test into tmp_path."""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import struct
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from PIL import Image
from typer.testing import CliRunner

from isodyn.cli import app
from isodyn.datasets import ReleaseError
from isodyn.datasets.dynamath import release_seeds
from isodyn.datasets.dynamath_programs import describe_programs
from isodyn.datasets.isobench import load_isobench
from isodyn.datasets.mmmath import load_mmmath
from isodyn.errors import ConfigError
from isodyn.runs.config import study_words


def png(color: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (12, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="png")
    return buffer.getvalue()


def refusal(call: Callable[[], Any], kind: type[Exception] = ReleaseError) -> str:
    """The one-line message `call` is refused with."""
    with pytest.raises(kind) as caught:
        call()
    message = str(caught.value)
    assert message and "\n" not in message
    return message


def exp(*args: str) -> tuple[int, str]:
    """`exp ARGS` in this process: (exit code, stderr)."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stderr


# ------------------------------------------------------------------------------------ fixtures


def dynamath(root: Path, image: str = "image/1.png", trials: int = 1, **fields: Any) -> Path:
    """A DynaMath release of one item per trial; its picture is image/1.png in every trial."""
    for trial in range(1, trials + 1):
        folder = root / f"trial{trial}"
        (folder / "image").mkdir(parents=True)
        (folder / "image" / "1.png").write_bytes(png((40 * trial, 90, 90)))
        item = {"question": "What is x?", "answer": "3", "image": image, "answer_type": "float",
                "subject": "algebra", "level": "high school", **fields}  # fmt: skip
        (folder / "dataset.json").write_text(json.dumps({"1": item}))
    return root


def isobench_jsonl(root: Path, image: Any, **fields: Any) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    row = {"id": "chem-1", "question": "Which is an element?", "choices": "['water', 'oxygen']",
           "label": 1, "image": image, **fields}  # fmt: skip
    (root / "chemistry.jsonl").write_text(json.dumps(row) + "\n")
    return root


def isobench_parquet(root: Path, rows: list[dict[str, Any]]) -> Path:
    folder = root / "math_parity"
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(folder / "validation-00000-of-00001.parquet", compression="zstd")
    return root


def parity_row(**fields: Any) -> dict[str, Any]:
    return {"id": "p-1", "image": {"bytes": png(), "path": None}, "latex": "$$f(x) = x^2$$",
            "code": "f(x) = x**2", "label": "even", **fields}  # fmt: skip


def mmmath(root: Path, names: list[str], images: dict[str, bytes] | None = None) -> Path:
    """MM_Math.jsonl with one problem per name in `names` (ids 1, 2, ...), images in images/."""
    (root / "images").mkdir(parents=True)
    rows = [{"question": f"Find x ({n}).", "solution": "so \\boxed{3}", "file_name": name}
            for n, name in enumerate(names, 1)]  # fmt: skip
    (root / "MM_Math.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for name, data in (images or {}).items():
        (root / "images" / name).write_bytes(data)
    return root


def mmmath_zip(root: Path, members: dict[str, bytes], file_names: list[str]) -> Path:
    root.mkdir(parents=True)
    rows = [{"question": "Find x.", "solution": "\\boxed{3}", "file_name": name} for name in file_names]
    (root / "MM_Math.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with zipfile.ZipFile(root / "MM_Math.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)  # writestr keeps the name as given (.., C:, backslashes)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A picture outside every release: what a hostile path reaches for."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(png((1, 2, 3)))
    return secret


@pytest.fixture
def alarm() -> Iterator[None]:
    """Fail rather than hang when a read would block (a FIFO)."""

    def timeout(signum: int, frame: Any) -> None:
        raise TimeoutError("blocked")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------------------- paths: the issue


def test_a_dynamath_image_climbing_out_of_the_release_is_refused(tmp_path: Path, outside: Path) -> None:
    root = dynamath(tmp_path / "a" / "b" / "rel", image="../../../../secret.png")
    assert (root / "trial1" / "../../../../secret.png").resolve() == outside  # it does reach it
    message = refusal(lambda: release_seeds(root))
    assert "trial1/dataset.json item 1" in message and "'../../../../secret.png'" in message
    assert "leads outside the release folder" in message


def test_an_absolute_dynamath_image_is_one_line_at_describe(tmp_path: Path, outside: Path) -> None:
    root = dynamath(tmp_path / "rel", image=str(outside))
    code, err = exp("describe", str(root))
    assert code == 2 and err.count("\n") == 1, err
    assert "item 1" in err and str(outside) in err and "leads outside" in err


def test_an_absolute_path_inside_the_release_is_read(tmp_path: Path) -> None:
    root = dynamath(tmp_path / "rel", image=str(tmp_path / "rel" / "trial1" / "image" / "1.png"))
    assert release_seeds(root)["1"].variant(0).params["image"] == "trial1/image/1.png"


@pytest.mark.parametrize("how", ["climbing", "absolute", "nul"])
def test_isobench_image_paths_outside_or_with_nul_are_refused(
    tmp_path: Path, outside: Path, how: str
) -> None:
    image = {"climbing": "../secret.png", "absolute": str(outside), "nul": "pic.png\x00.txt"}[how]
    root = isobench_jsonl(tmp_path / "iso", image)
    message = refusal(lambda: load_isobench(root))
    assert "chemistry.jsonl item 0 (id chem-1)" in message
    assert ("NUL" in message) if how == "nul" else ("leads outside" in message and repr(image) in message)


# ------------------------------------------------------------------------------------- symlinks


def test_a_symlink_inside_the_release_pointing_outside_is_refused(tmp_path: Path, outside: Path) -> None:
    root = dynamath(tmp_path / "rel")
    link = root / "trial1" / "image" / "1.png"
    link.unlink()
    link.symlink_to(outside)
    message = refusal(lambda: release_seeds(root))
    assert "item 1" in message and "image/1.png" in message and str(outside) in message


def test_a_symlink_that_stays_inside_is_read(tmp_path: Path) -> None:
    root = dynamath(tmp_path / "rel")
    image = root / "trial1" / "image"
    (image / "real.png").write_bytes((image / "1.png").read_bytes())
    (image / "1.png").unlink()
    (image / "1.png").symlink_to(image / "real.png")
    variant = release_seeds(root)["1"].variant(0)
    assert variant.params["image"] == "trial1/image/1.png"  # shown as named


def test_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    root = dynamath(tmp_path / "rel")
    image = root / "trial1" / "image"
    (image / "1.png").unlink()
    (image / "1.png").symlink_to(image / "loop.png")
    (image / "loop.png").symlink_to(image / "1.png")
    message = refusal(lambda: release_seeds(root))
    assert "item 1" in message and "cannot be resolved" in message


def test_a_release_folder_that_is_itself_a_symlink_is_allowed(tmp_path: Path) -> None:
    real = dynamath(tmp_path / "elsewhere" / "DynaMath", trials=2)
    link = tmp_path / "mine"
    link.symlink_to(real, target_is_directory=True)
    seeds = release_seeds(link)
    assert [seeds["1"].variant(i).params["image"] for i in range(2)] == ["trial1/image/1.png",
                                                                        "trial2/image/1.png"]


def test_a_trial_folder_linked_from_outside_is_refused(tmp_path: Path) -> None:
    root = dynamath(tmp_path / "rel")
    other = dynamath(tmp_path / "other")
    (root / "trial2").symlink_to(other / "trial1", target_is_directory=True)
    assert "leads outside the release folder" in refusal(lambda: release_seeds(root))


def test_a_program_file_linked_from_outside_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "mine.py").write_text("class Q1:\n    pass\n")
    (tmp_path / "theirs.py").write_text("class Q2:\n    pass\n")
    (folder / "linked.py").symlink_to(tmp_path / "theirs.py")
    lines = describe_programs(folder)
    assert any(line.startswith("linked.py:") and "leads outside" in line for line in lines)
    assert lines[-1] == "1 seed classes in 1 of 2 files"


# ------------------------------------------------------------------------------------------ zips


def test_a_zip_bomb_is_refused_on_its_declared_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = mmmath_zip(tmp_path / "mm", {"1.png": bytes(25_000_000)}, ["1.png"])
    assert (root / "MM_Math.zip").stat().st_size < 100_000  # 25 MB in a small zip
    message = refusal(lambda: load_mmmath(root))
    assert "problem 1" in message and "'1.png' (as it declares) is 25,000,000 bytes" in message
    assert "ISODYN_MAX_IMAGE_MB" in message
    monkeypatch.setenv("ISODYN_MAX_IMAGE_MB", "30")  # raised: now read, and found to be no picture
    assert "image is not a readable picture" in refusal(lambda: load_mmmath(root))


def test_a_zip_member_lying_about_its_size_is_never_read_past_it(tmp_path: Path) -> None:
    root = mmmath_zip(tmp_path / "mm", {"1.png": bytes(3_000_000)}, ["1.png"])
    data = bytearray((root / "MM_Math.zip").read_bytes())
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, 22, 100)  # the local header's uncompressed size
    struct.pack_into("<I", data, central + 24, 100)  # and the central directory's
    (root / "MM_Math.zip").write_bytes(bytes(data))
    message = refusal(lambda: load_mmmath(root))  # at load: 100 bytes read, then the CRC fails
    assert "cannot read image MM_Math.zip:1.png (Bad CRC-32" in message


@pytest.mark.parametrize(
    ("member", "file_name", "said"),
    [
        ("..\\..\\evil.png", "evil.png", "climbs out with '..'"),  # backslashes read as separators
        ("C:/evil.png", "C:/evil.png", "is absolute"),  # a drive letter
        ("/abs/evil.png", "/abs/evil.png", "is absolute"),
        ("images/ok.png", "../../etc/ok.png", "climbs out with '..'"),  # the name the row gives
    ],
)
def test_zip_members_and_names_that_leave_the_release_are_refused(
    tmp_path: Path, member: str, file_name: str, said: str
) -> None:
    root = mmmath_zip(tmp_path / "mm", {member: png()}, [file_name])
    message = refusal(lambda: load_mmmath(root))
    assert "problem 1" in message and said in message


def test_a_zip_of_thousands_of_tiny_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    members = {f"noise/{n}.txt": b"x" for n in range(3000)} | {"MM_Math/1.png": png()}
    root = mmmath_zip(tmp_path / "mm", members, ["1.png"])
    started = time.perf_counter()
    assert list(load_mmmath(root)) == ["1"]  # under the bound: read, and quickly
    assert time.perf_counter() - started < 5
    monkeypatch.setenv("ISODYN_MAX_ZIP_MEMBERS", "1000")
    message = refusal(lambda: load_mmmath(root))
    assert "member count is 3,001, over the bound of 1,000" in message and "ISODYN_MAX_ZIP_MEMBERS" in message


# ---------------------------------------------------------------------------------- size bounds


def test_a_huge_latex_string_in_a_parquet_is_refused(tmp_path: Path) -> None:
    root = isobench_parquet(tmp_path / "iso", [parity_row(latex="$$" + "x+" * 1_000_000 + "$$")])
    assert sum(f.stat().st_size for f in root.rglob("*.parquet")) < 100_000
    message = refusal(lambda: load_isobench(root))
    assert "item 0 (id p-1) field 'latex'" in message and "ISODYN_MAX_TEXT_MB" in message


def test_a_parquet_whose_columns_decompress_past_the_file_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ISODYN_MAX_FILE_MB", "1")
    rows = [parity_row(id=f"p-{n}", code=f"{n}" + "y" * 200_000) for n in range(20)]  # 4 MB of text
    root = isobench_parquet(tmp_path / "iso", rows)
    assert sum(f.stat().st_size for f in root.rglob("*.parquet")) < 100_000
    message = refusal(lambda: load_isobench(root))
    assert "its uncompressed data is 4,0" in message and "ISODYN_MAX_FILE_MB" in message
    # one string repeated is stored once (a dictionary) and declared small: stopped while decoding
    repeated = [parity_row(id=f"p-{n}", code="y" * 200_000) for n in range(20)]
    same = isobench_parquet(tmp_path / "same", repeated)
    assert "its decoded data is over the bound of 1,000,000 bytes" in refusal(lambda: load_isobench(same))


def test_an_image_over_the_bound_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = dynamath(tmp_path / "rel")
    (root / "trial1" / "image" / "1.png").write_bytes(png() + bytes(1_500_000))
    monkeypatch.setenv("ISODYN_MAX_IMAGE_MB", "1")
    message = refusal(lambda: release_seeds(root))
    assert "item 1" in message and "is 1,500,0" in message and "ISODYN_MAX_IMAGE_MB" in message


def test_a_base64_image_over_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = isobench_jsonl(tmp_path / "iso", base64.b64encode(png() + bytes(5000)).decode())
    monkeypatch.setenv("ISODYN_MAX_IMAGE_MB", "0.002")
    assert "its image (base64)" in refusal(lambda: load_isobench(root))


def test_a_picture_declaring_billions_of_pixels_is_refused(tmp_path: Path) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    root = mmmath(tmp_path / "mm", ["1.png"], {"1.png": bomb})
    assert "more pixels than" in refusal(lambda: load_mmmath(root))


def test_too_many_items_stop_at_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = mmmath(tmp_path / "mm", ["1.png"] * 1500, {"1.png": png()})
    monkeypatch.setenv("ISODYN_MAX_ITEMS", "1000")
    message = refusal(lambda: load_mmmath(root))
    assert "the number of items is 1,500, over the bound of 1,000" in message
    iso = tmp_path / "iso"
    iso.mkdir()
    line = json.dumps({"id": "c", "question": "q?", "choices": "['a', 'b']", "label": 0, "image": "x"})
    (iso / "chemistry.jsonl").write_text((line + "\n") * 1500)
    assert "over the bound of 1,000" in refusal(lambda: load_isobench(iso))


def test_one_picture_named_by_many_rows_cannot_fill_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "iso"
    root.mkdir()
    noise = Image.frombytes("RGB", (100, 100), os.urandom(30_000))
    buffer = io.BytesIO()
    noise.save(buffer, format="png")
    (root / "pic.png").write_bytes(buffer.getvalue())  # about 30 KB
    line = json.dumps({"question": "q?", "choices": "['a', 'b']", "label": 0, "image": "pic.png"})
    (root / "chemistry.jsonl").write_text((line + "\n") * 20)  # 20 rows, one file: 600 KB held
    assert len(load_isobench(root)) == 20
    monkeypatch.setenv("ISODYN_MAX_FILE_MB", "0.05")  # held pictures: 4 x 50 KB
    message = refusal(lambda: load_isobench(root))
    assert "the pictures its items hold is" in message and "over the bound of 200,000 bytes" in message


def test_a_bound_that_is_not_a_number_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISODYN_MAX_IMAGE_MB", "lots")
    message = refusal(lambda: release_seeds(dynamath(tmp_path / "rel")))
    assert "ISODYN_MAX_IMAGE_MB='lots': must be a number above zero" in message


# ------------------------------------------------------------------------------- odd contents


@pytest.mark.parametrize("importer", ["dynamath", "isobench", "mmmath"])
def test_a_web_page_renamed_png_is_refused_at_load(tmp_path: Path, importer: str) -> None:
    page = b"<!DOCTYPE html><html><body>Not found</body></html>"
    if importer == "dynamath":
        root = dynamath(tmp_path / "rel")
        (root / "trial1" / "image" / "1.png").write_bytes(page)
        load: Callable[[], Any] = lambda: release_seeds(root)  # noqa: E731
    elif importer == "isobench":
        root = isobench_jsonl(tmp_path / "iso", "pic.png")
        (root / "pic.png").write_bytes(page)
        load = lambda: load_isobench(root)  # noqa: E731
    else:
        root = mmmath(tmp_path / "mm", ["1.png"], {"1.png": page})
        load = lambda: load_mmmath(root)  # noqa: E731
    assert "image is not a readable picture (it starts b'<!DOCTYPE ht')" in refusal(load)


def test_a_parquet_image_column_of_the_wrong_type(tmp_path: Path) -> None:
    root = tmp_path / "hub"
    root.mkdir()
    row = {"id": 1, "question": "What is x?", "ground_truth": "3", "answer_type": "float",
           "subject": "algebra", "knowledge_level": "high school", "decoded_image": "not bytes"}  # fmt: skip
    pd.DataFrame([row]).to_parquet(root / "sample_variant1.parquet")
    message = refusal(lambda: release_seeds(root))
    assert "sample_variant1.parquet item 1: its image is a str, not bytes" in message


def test_json_nested_past_the_interpreter_is_one_line(tmp_path: Path) -> None:
    root = dynamath(tmp_path / "rel")
    deep = "[" * 100_000 + "]" * 100_000
    (root / "trial1" / "dataset.json").write_text('{"1": {"question": ' + deep + "}}")
    assert "cannot read it as JSON (nested too deep)" in refusal(lambda: release_seeds(root))


def test_a_field_nested_deeper_than_any_release_is_refused(tmp_path: Path) -> None:
    root = mmmath(tmp_path / "mm", ["1.png"], {"1.png": png()})
    row = json.loads((root / "MM_Math.jsonl").read_text())
    row["knowledge"] = json.loads("[" * 200 + "]" * 200)
    (root / "MM_Math.jsonl").write_text(json.dumps(row) + "\n")
    assert "line 1 field 'knowledge' is nested more than 64 levels" in refusal(lambda: load_mmmath(root))


# ---------------------------------------------------------------------------------- study files


def test_a_study_file_that_never_ends_is_refused(tmp_path: Path) -> None:
    message = refusal(lambda: study_words(Path("/dev/zero")), ConfigError)
    assert "/dev/zero is not a regular file" in message
    code, err = exp("run", "config=/dev/zero", f"out={tmp_path / 'runs'}")
    assert code == 2 and "not a regular file" in err and err.count("\n") == 1


def test_a_fifo_study_file_is_refused_without_waiting(tmp_path: Path, alarm: None) -> None:
    fifo = tmp_path / "study.toml"
    os.mkfifo(fifo)
    assert "is not a regular file" in refusal(lambda: study_words(fifo), ConfigError)


def test_a_study_file_over_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    study = tmp_path / "study.toml"
    study.write_text('variants = 2\n# padding\n' + "#" * 1_100_000 + "\n")
    message = refusal(lambda: study_words(study), ConfigError)
    assert "is 1,100,0" in message and "ISODYN_MAX_STUDY_MB" in message
    monkeypatch.setenv("ISODYN_MAX_STUDY_MB", "2")
    assert study_words(study) == ["variants=2"]


def test_a_study_file_nested_too_deep(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text("seeds = " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert "nested too deep" in refusal(lambda: study_words(study), ConfigError)


# ------------------------------------------------------------------------------------- generate


def test_generate_refuses_a_huge_n_before_any_work(tmp_path: Path) -> None:
    started = time.perf_counter()
    code, err = exp("generate", "task=parity", "n=100000000", f"out={tmp_path / 'data'}")
    assert code == 2 and err.count("\n") == 1
    assert "100,000,000 items, more than 100,000" in err and "ISODYN_MAX_ITEMS" in err
    assert time.perf_counter() - started < 10 and not (tmp_path / "data").exists()


def test_generate_refuses_a_process_per_worker_beyond_the_bound(tmp_path: Path) -> None:
    code, err = exp("generate", "task=parity", "n=1", "workers=100000", f"out={tmp_path / 'data'}")
    assert code == 2 and "must be a whole number from 1 to 256" in err
