"""exp generate: a balanced dataset on disk, in the documented format, with a contact sheet."""

import json

from PIL import Image

from user_cli import exp


def test_generate_balanced_dataset_with_contact_sheet(tmp_path) -> None:
    out = tmp_path / "ds"
    done = exp("generate", "task=parity,connectivity", "n=6", f"out={out}", "contact_sheet=1",
               f"cache_dir={tmp_path / 'cache'}", "workers=2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == 12
    parity = [i for i in items if i["seed_id"] == "isobench_parity"]
    assert sorted(i["answer"] for i in parity) == ["A", "A", "B", "B", "C", "C"]  # 6 = 2 per class
    item = parity[0]
    assert set(item["representations"]) == {"image", "latex", "code"}
    image = out / item["representations"]["image"]["image"]
    assert image.read_bytes().startswith(b"\x89PNG")
    assert item["representations"]["latex"]["image"] is None
    assert (
        "\\frac" in item["representations"]["latex"]["text"]
        or "f(x)" in item["representations"]["latex"]["text"]
    )
    assert {
        "id",
        "seed_id",
        "index",
        "base_seed",
        "question",
        "choices",
        "answer",
        "params",
        "solution",
    } <= set(item)
    sheets = sorted(out.glob("contact_sheet-*.png"))
    assert [s.name for s in sheets] == ["contact_sheet-iso_algorithms.png", "contact_sheet-iso_math.png"]
    width, height = Image.open(sheets[0]).size
    assert width > 600 and height > 200


def test_generate_bad_input(tmp_path) -> None:
    bad = exp("generate", "task=nope", f"out={tmp_path}")
    assert bad.returncode == 2 and "unknown task 'nope'" in bad.stderr
    bad = exp("generate", "task=parity")
    assert bad.returncode == 2 and "out=DIR is required" in bad.stderr
    bad = exp("generate", "topic=cooking", f"out={tmp_path}")
    assert bad.returncode == 2 and "unknown topic 'cooking'" in bad.stderr


def test_serial_and_parallel_builds_write_the_same_items_and_leave_the_collector_as_found(tmp_path) -> None:
    import gc

    from isodyn.datasets.writer import DatasetRequest, build_dataset

    seeds = ("isobench_parity", "dynamath_box_iqr")
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        build_dataset(DatasetRequest(seeds, 3, 0, out, None, workers, contact_sheet=False))
        assert gc.get_threshold() == threshold  # the drawing threshold stays in the build
        # Nothing frozen or unfrozen here (frozen objects of earlier tests may be freed meanwhile).
        assert gc.get_freeze_count() <= frozen and (gc.get_freeze_count() > 0) == (frozen > 0)
        images = {p.name: p.read_bytes() for p in (out / "images").iterdir()}
        outputs[workers] = ((out / "items.jsonl").read_text(), images)
    assert len(outputs[1][1]) == 6
    assert outputs[1] == outputs[2]
