"""DynaMath-style seed programs (classes Q<number> with query/answer/draw) run as seeds, each variant in
a subprocess of its own. The programs are small ones written here, never DynaMath's."""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path

import pytest
from PIL import Image

from isodyn.core import AnswerType, Level, Modality, Topic, Variant
from isodyn.datasets import ReleaseError
from isodyn.datasets.dynamath_programs import (
    ProgramError,
    check_environment,
    describe_programs,
    load_programs,
)
from isodyn.datasets.dynamath_runs import variant_seed
from isodyn.scoring import score_reply

HEADER = """\
import os
import random
import sys

import numpy as np
from PIL import Image

RUNS = r"@RUNS@"


def image_path(num):
    return os.path.join(os.path.dirname(os.getcwd()), "dataset", f"image/image{num}.png")


def log(name, num):
    with open(RUNS, "a") as out:
        out.write(f"{name} {num}\\n")


def save(num, color, name):
    log(name, num)
    Image.new("RGB", (24, 16), color).save(image_path(num))
"""

ARITH = """
class Q01:
    def __init__(self):
        self.a = random.randint(1, 10**6)
        self.b = int(np.random.randint(1, 10**6))
        self.query = f"What is a + b? Here a = {self.a} and b = {self.b}."
        self.answer = self.a + self.b
        self.answer_type = "float"
        self.subject = "arithmetic"
        self.level = "elementary school"

    def draw(self, num):
        save(num, (self.a % 256, self.b % 256, 9), "Q01")


class Q2:
    def __init__(self):
        self.n = random.randint(0, 10**4)
        self.query = f"Is {self.n} even or odd? Choices: (A) even (B) odd (C) neither"
        self.answer = "A" if self.n % 2 == 0 else "B"
        self.answer_type = "multiple choice"
        self.subject = "algebra"
        self.level = "high school"

    def draw(self, num):
        save(num, (self.n % 256, 0, 0), "Q2")


class Q3:
    def __init__(self):
        word = random.choice(["apple", "river", "stone", "cloud", "maple", "tiger"])
        self.query = f"Write the word {word} backwards."
        self.answer = word[::-1]
        self.answer_type = "free form"
        self.subject = "puzzle " + "test"  # not a literal: the seed reads it from variant 0
        self.level = "undergraduate"

    def draw(self, num):
        save(num, (0, len(self.answer), 0), "Q3")
"""

PLOT = """
import matplotlib
import matplotlib.pyplot as plt


class Q5:
    def __init__(self):
        self.rise = random.randint(1, 9)
        self.run = int(np.random.randint(1, 10))
        self.query = f"The line rises {self.rise} over a run of {self.run}. What is its slope?"
        self.answer = self.rise / self.run
        self.answer_type = "float"
        self.subject = "analytic geometry"
        self.level = "high school"

    def draw(self, num):
        if matplotlib.get_backend().lower() != "agg":
            raise RuntimeError(f"backend {matplotlib.get_backend()}")
        with open("temp_image/label.txt") as f:  # beside the program, as DynaMath's temp_image/
            label = f.read()
        log("Q5", num)
        plt.plot([0, self.run], [0, self.rise])
        plt.title(label)
        plt.savefig(image_path(num), dpi=20)  # the figure stays open: the process is thrown away
"""

TRAP = """
open(r"@MARKER@", "w").write("imported")
raise SystemExit("this file must never be imported by the loader")


class Q9:
    def __init__(self):
        self.query = "never"
"""

BROKEN = """
class Q7:
    def __init__(self)
        self.query = "a syntax error"
"""

MISSING = """
import isodyn_missing_module_xyz


class Q11:
    def __init__(self):
        self.query = "never drawn"
"""

BAD = """
import subprocess
import time


class Base:
    query = "What is 1 + 1?"
    answer = 2
    answer_type = "float"
    subject = "arithmetic"
    level = "elementary school"


class Q10(Base):
    def draw(self, num):
        save(num, (1, 2, 3), "Q10")


class Q12(Base):
    def draw(self, num):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(r"@PIDS@", "a") as out:
            out.write(f"{child.pid}\\n")
        while True:
            time.sleep(0.05)


class Q13(Base):
    def draw(self, num):
        log("Q13", num)


class Q14(Base):
    def __init__(self):
        raise ValueError(f"bad parameter {6 * 7}")


class Q15(Base):
    def draw(self, num):
        open(image_path(num), "wb").close()


class Q16(Base):
    def draw(self, num):
        with open(image_path(num), "w") as out:
            out.write("not a png")


class TclError(Exception):
    pass


class Q17(Base):
    def draw(self, num):
        raise TclError("no display name and no $DISPLAY environment variable")


class Q18(Base):
    def draw(self, num):
        raise RuntimeError("Failed to process string with tex because latex could not be found")


class Q19(Base):
    def draw(self, num):
        sys.exit(3)


class Q20(Base):
    def draw(self, num):
        sys.stderr.write("fatal: crashed hard\\n")
        sys.stderr.flush()
        os._exit(7)
"""


def write(path: Path, text: str, **values: Path) -> None:
    for name, value in values.items():
        text = text.replace(f"@{name.upper()}@", str(value))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def programs(tmp_path: Path) -> Path:
    folder = tmp_path / "programs"
    runs = tmp_path / "runs.log"
    write(folder / "arith.py", HEADER + ARITH, runs=runs)
    write(folder / "plot.py", HEADER + PLOT, runs=runs)
    write(folder / "trap.py", TRAP, marker=tmp_path / "imported.txt")
    write(folder / "broken.py", BROKEN)
    write(folder / "temp_image" / "label.txt", "a line")
    return folder


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    write(folder / "bad.py", HEADER + BAD, runs=tmp_path / "runs.log", pids=tmp_path / "pids.txt")
    write(folder / "missing.py", MISSING)
    write(folder / "broken2.py", BROKEN.replace("Q7", "Q21"))
    return folder


def runs(tmp_path: Path, name: str) -> list[str]:
    log = tmp_path / "runs.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if line.split()[0] == name]


def terms(question: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"\b([ab]) = (\d+)", question)}


def test_classes_are_found_by_parsing_never_importing(programs: Path, tmp_path: Path) -> None:
    seeds = load_programs(programs, cache_dir=tmp_path / "cache")
    assert list(seeds) == ["1", "2", "3", "5", "9"]  # Q01 is seed 1; broken.py is skipped
    assert not (tmp_path / "imported.txt").exists()
    assert not (tmp_path / "runs.log").exists()
    assert seeds["1"].program.class_name == "Q01"
    assert list(load_programs(programs / "arith.py", cache_dir=tmp_path / "c")) == ["1", "2", "3"]
    assert list(load_programs(programs, ("Q5", "01"), cache_dir=tmp_path / "c")) == ["5", "1"]
    lines = describe_programs(programs)
    assert "arith.py: 3 classes: Q01, Q2, Q3" in lines
    assert any(line.startswith("broken.py: cannot be parsed: SyntaxError") for line in lines)
    assert lines[-1] == "5 seed classes in 3 of 4 files"
    assert not (tmp_path / "imported.txt").exists()


@pytest.mark.parametrize(
    ("keys", "message"),
    [(("404",), "no class Q404"), (("7",), "cannot parse broken.py"), (("x1",), "not a DynaMath question")],
)
def test_unknown_keys_are_one_line_errors(programs: Path, keys: tuple[str, ...], message: str) -> None:
    with pytest.raises(ReleaseError, match=message) as caught:
        load_programs(programs, keys)
    assert "\n" not in str(caught.value)


def test_folder_problems_are_one_line_errors(tmp_path: Path, programs: Path) -> None:
    write(tmp_path / "twice" / "one.py", "class Q1:\n    pass\n")
    write(tmp_path / "twice" / "two.py", "class Q001:\n    pass\n")
    write(tmp_path / "empty" / "none.py", "x = 1\n")
    for path, message in [
        (tmp_path / "twice", r"seed 1 is defined twice: one.py:1 \(Q1\) and two.py:1 \(Q001\)"),
        (tmp_path / "empty", "no Q<number> classes in 1 .py file"),
        (tmp_path / "nowhere", "does not exist"),
        (programs / "temp_image" / "label.txt", "is not a .py file"),
    ]:
        with pytest.raises(ReleaseError, match=message) as caught:
            load_programs(path)
        assert "\n" not in str(caught.value)


def test_variants_are_deterministic_differ_by_index_and_are_right(programs: Path, tmp_path: Path) -> None:
    seed = load_programs(programs, ("1",), cache_dir=tmp_path / "one")["1"]
    drawn = [seed.variant(k) for k in range(3)]
    assert len({v.question for v in drawn}) == 3
    assert len({v.params["image_sha256"] for v in drawn}) == 3
    for v in drawn:
        found = terms(v.question)
        assert v.answer == str(found["a"] + found["b"])  # recomputed from the drawn parameters
        assert (v.topic, v.level, v.answer_type) == (Topic.ARITHMETIC, Level.ELEMENTARY, AnswerType.FLOAT)
        assert Variant.from_json(json.loads(json.dumps(v.to_json()))) == v
    # another cache, another loader: the same variants, picture included
    fresh = load_programs(programs, ("Q01",), cache_dir=tmp_path / "two")["1"]
    assert fresh.variant(1) == drawn[1]
    other = seed.variant(1, base_seed=7)
    assert other.question != drawn[1].question and other.base_seed == 7
    assert variant_seed("1", 1, 0) != variant_seed("1", 1, 7)
    assert len(runs(tmp_path, "Q01")) == 5


def test_runs_are_memoized_on_disk(programs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    seed = load_programs(programs, ("1",), cache_dir=cache)["1"]
    first = seed.variant(4)
    assert seed.variant(4) == first
    again = load_programs(programs, ("1",), cache_dir=cache)["1"]
    assert again.variant(4) == first
    assert runs(tmp_path, "Q01") == ["Q01 4"]  # ran once
    shown = again.render(first, Modality.IMAGE)
    assert shown.text == first.question and shown.image_png is not None
    assert Image.open(io.BytesIO(shown.image_png)).size == (24, 16)
    # the picture is gone: rendering draws the variant again, identically
    (cache / first.params["image"]).unlink()
    assert again.render(first, Modality.IMAGE).image_png == shown.image_png
    assert runs(tmp_path, "Q01") == ["Q01 4", "Q01 4"]
    # an edited program file is a new key: it runs again
    arith = programs / "arith.py"
    arith.write_text(arith.read_text() + "\n# edited\n")
    assert again.variant(4).question == first.question
    assert len(runs(tmp_path, "Q01")) == 3


def test_metadata_literal_or_from_variant_zero(programs: Path, tmp_path: Path) -> None:
    seeds = load_programs(programs, ("1", "2", "3"), cache_dir=tmp_path / "cache")
    assert (seeds["1"].topic, seeds["2"].answer_type) == (Topic.ARITHMETIC, AnswerType.MULTIPLE_CHOICE)
    assert not (tmp_path / "runs.log").exists()  # literal in the program: nothing ran
    puzzle = seeds["3"]
    assert (puzzle.topic, puzzle.level, puzzle.answer_type) == (
        Topic.PUZZLE_TEST,
        Level.UNDERGRADUATE,
        AnswerType.TEXT,
    )
    assert runs(tmp_path, "Q3") == ["Q3 0"]
    puzzle.variant(0)
    assert runs(tmp_path, "Q3") == ["Q3 0"]  # variant 0 was kept


def test_truth_scores_every_variant(programs: Path, tmp_path: Path) -> None:
    seeds = load_programs(programs, ("1", "2", "3", "5"), cache_dir=tmp_path / "cache")
    drawn = [seeds[key].variant(k) for key in ("1", "2") for k in range(2)]
    drawn += [seeds["3"].variant(1), seeds["5"].variant(0)]
    for v in drawn:
        reply = json.dumps({"solution": "s", "short answer": v.answer})
        assert score_reply(reply, v).correct, v
    for v in drawn[2:4]:
        assert v.choices == ("even", "odd", "neither")
        n = int(re.search(r"Is (\d+)", v.question).group(1))  # type: ignore[union-attr]
        assert v.answer == ("A" if n % 2 == 0 else "B")
    word = re.search(r"word (\w+) backwards", drawn[4].question).group(1)  # type: ignore[union-attr]
    assert drawn[4].answer == word[::-1]
    plot = drawn[5]
    rise, run = map(int, re.findall(r"\d+", plot.question))
    assert plot.answer == str(round(rise / run, 4))  # DynaMath keeps float answers to 4 places
    assert plot.topic is Topic.ANALYTIC_GEOMETRY
    png = seeds["5"].render(plot, Modality.IMAGE).image_png
    assert png is not None and Image.open(io.BytesIO(png)).format == "PNG"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


EXPECTED = {
    "11": ("missing.py", "ModuleNotFoundError: No module named 'isodyn_missing_module_xyz'"),
    "13": ("bad.py", "drew no image ../dataset/image/image2.png"),
    "14": ("bad.py", "ValueError: bad parameter 42"),
    "15": ("bad.py", "wrote an empty image image2.png"),
    "16": ("bad.py", "image2.png is not an image PIL can open"),
    "19": ("bad.py", "SystemExit: 3"),
    "20": ("bad.py", "fatal: crashed hard"),
}


def test_failures_are_one_line_errors_naming_class_and_variant(bad: Path, tmp_path: Path) -> None:
    seeds = load_programs(bad, tuple(EXPECTED), cache_dir=tmp_path / "cache")
    for key, (file, reason) in EXPECTED.items():
        with pytest.raises(ReleaseError) as caught:
            seeds[key].variant(2)
        message = str(caught.value)
        assert message.startswith(f"{file} Q{key} variant 2: "), message
        assert reason in message and "\n" not in message
    assert not list((tmp_path / "cache").rglob("*.json"))  # failures are not kept


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_a_hanging_program_is_killed_with_what_it_started(bad: Path, tmp_path: Path) -> None:
    seed = load_programs(bad, ("12",), cache_dir=tmp_path / "cache", timeout=1.5)["12"]
    started = time.monotonic()
    with pytest.raises(ProgramError, match=r"^bad.py Q12 variant 0: timed out after 1.5 s") as caught:
        seed.variant(0)
    assert time.monotonic() - started < 15
    assert caught.value.timed_out and "\n" not in str(caught.value)
    pids = [int(p) for p in (tmp_path / "pids.txt").read_text().split()]
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def test_check_environment_names_what_is_missing(bad: Path, tmp_path: Path) -> None:
    lines = check_environment(bad, cache_dir=tmp_path / "cache", timeout=4)
    assert lines[0] == "1 of 11 seeds run here"
    by_seed = {line.split(":")[0]: line for line in lines[1:]}
    assert set(by_seed) == {f"Q{n}" for n in range(11, 21)} | {"broken2.py"}
    assert by_seed["Q11"].startswith("Q11: needs module isodyn_missing_module_xyz: missing.py Q11 variant 0:")
    assert by_seed["Q12"].startswith("Q12: needs more time")
    assert by_seed["Q17"].startswith("Q17: needs a display: ")
    assert by_seed["Q18"].startswith("Q18: needs LaTeX: ")
    for key in ("13", "14", "15", "16", "19", "20"):
        assert by_seed[f"Q{key}"].startswith(f"Q{key}: fails: bad.py Q{key} variant 0: ")
    assert by_seed["broken2.py"].startswith("broken2.py: cannot be parsed: SyntaxError")
    assert all("\n" not in line for line in lines)
    assert runs(tmp_path, "Q10") == ["Q10 0"]


def test_the_check_names_latex_and_an_older_library_behind_a_plain_type_error() -> None:
    from isodyn.datasets.dynamath_programs import ProgramError, needs

    no_dvipng = ProgramError(
        "f.py Q474 variant 0: TypeError: a bytes-like object is required, not 'NoneType'",
        "Traceback ...\n    png_data = latex_to_png(equation, backend='dvipng', scale=2.0)\nTypeError: ...",
    )
    assert needs(no_dvipng) == "LaTeX (dvipng)"
    boxplot = ProgramError("Q440 variant 0: TypeError: boxplot() got an unexpected keyword argument 'labels'")
    assert needs(boxplot).startswith("an older version of a library")
    assert needs(ProgramError("f.py Q1 variant 0: ZeroDivisionError: division by zero", "x = 1 / 0")) == ""


def test_a_program_that_renders_latex_needs_dvipng_where_it_is_missing(monkeypatch) -> None:
    from isodyn.datasets import dynamath_programs
    from isodyn.datasets.dynamath_programs import ProgramError, needs

    failure = ProgramError("Q480 variant 0: TypeError: a bytes-like object is required", "f.write(x)")
    source = "from IPython.lib.latextools import latex_to_png\npng = latex_to_png(eq, backend='dvipng')"
    monkeypatch.setattr(dynamath_programs.shutil, "which", lambda name: None)
    assert needs(failure, source) == "LaTeX (dvipng)"
    assert needs(failure, "print(1)") == ""
    monkeypatch.setattr(dynamath_programs.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert needs(failure, source) == ""  # dvipng is there: the failure is the program's own
