r"""MM-MATH's published release as seeds, one seed per problem (`dataset=mmmath:PATH`).

MM-MATH (Sun et al. 2024, arXiv 2404.05091; `/work/shared/seeds/004_*.txt`): 5,929 open-ended
problems from Chinese middle-school exams (grades 7-9), each with one figure and a worked solution
whose final answer stands in `\boxed{}`; outcome evaluation compares boxed answers, process
evaluation has a judge compare a model's solution with the reference solution step by step.

What the release looks like (found with the `search` tool; stored copies, undated):

- the dataset card (huggingface.co/datasets/THU-KEG/MM_Math) and the authors' repository
  (github.com/kge-sun/MM-Math, README "Data Format"): `MM_Math.jsonl`, one JSON object per line with
  `question`, `file_name` ("the names of the question images in the image folder"), `solution`
  (LaTeX), `year` (grade), `difficult` (difficulty) and `knowledge` (knowledge points), and the
  images as a zip (the card says `Image.zip`; the repository now holds `MM_Math/MM_Math.jsonl` and
  `MM_Math/MM_Math.zip`, the paths public loaders download; one of them finds zip members by base
  name, so a member may sit under a folder such as `MM_Math/`);
- the authors' `eval.py`: `difficult` is 容易 / 普通 / 困难 (easy / medium / hard), `year` is
  七年级上学期 .. 九年级下学期 (grade 7-9, first or second term), and `knowledge` is tested for
  "Functions", "Transformations of Shapes" and "Properties of Shapes"; a public importer reads
  `knowledge` as `{"level_1": ..., "level_2": ...}` and `year` as `seven` / `eight` / `nine`. All
  these forms are read here (a string, a list or a dict of labels, English or Chinese).
- The official script joins *every* box of a solution with commas; isodyn's truth is the content of
  the *last* `\boxed{}` (as the `mmmath` grader reads replies); `params["boxes"]` counts the boxes,
  so multi-part problems can be told apart. That grader reads nothing but boxes: a reply graded by it
  must box its answer (a JSON `short answer` alone is unread; the default grader reads both).

Layout read (`load_mmmath(path)`): `path` is the JSON-lines file itself (`.jsonl`, or `.json`
holding a JSON list, a dict keyed by id, or JSON lines) or a folder holding it (`MM_Math.jsonl`
preferred, else the only `*.jsonl` / `*.json`, also one level down in `MM_Math/`). Images are looked
up by `file_name` in `images/`, `image/`, `Image/`, `Images/` or `MM_Math/` beside the file, beside
the file itself, or in any `*.zip` there (exact member name, then a member ending in `/<file_name>`,
then the only member with that base name).

Each problem is a seed with exactly one variant (index 0), shown as the image only (the question is
its text). Its id is the row's `id` when present, else its line number (1-based). Truth: the last
`\boxed{}` of `solution`, braces balanced; the answer type is FLOAT for a plain number, MULTIPLE_CHOICE
for a letter whose options are listed in the question, else TEXT. The reference solution is kept in
`Variant.solution` (process evaluation compares with it).

Mapping decisions:

- topic from the knowledge labels, by keyword (English or Chinese), in this priority: analytic
  geometry by name (解析几何), solid geometry (立体几何, 视图, 展开图, cube, cylinder, views, ...),
  statistics (统计, 概率, probability, ...), algebra (函数, 方程, 不等式, 数与式, functions, equations,
  ...), analytic geometry by coordinates (坐标, coordinate), plane geometry (平面几何, 图形的性质,
  图形的变化, 三角形, 圆, Properties / Transformations of Shapes, triangle, circle, ...), arithmetic
  (有理数, 实数, ...). A problem whose labels match nothing (or has none) is ALGEBRA, and
  `params["topic_label"]` is None (the labels themselves are always in `params["knowledge"]`).
- level from the grade: isodyn's levels are DynaMath's (elementary school, high school,
  undergraduate), which have no middle school. Grades 7-9 (七/八/九年级, 初一-初三, 初中, seven..nine)
  are secondary-school content (ninth-grade geometry, functions, per the paper), like DynaMath's
  high-school items rather than its elementary ones (counting, clocks, shapes), so they map to
  HIGH_SCHOOL, as do grades 10-12 and an unknown or missing grade; grades 1-6 (小学, primary,
  elementary) map to ELEMENTARY, and university / undergraduate to UNDERGRADUATE. The raw `year`
  and the grade number (or None) stay in `params`.

Errors are `ReleaseError`s of one line naming the file and the line or problem: a missing image or zip
member, an empty or truncated JSON line, a row that is not an object or lacks `question`,
`solution` or `file_name`, a duplicate id. A problem whose solution has no usable `\boxed{}` (none,
empty, never closed) is not an error: it is skipped with its reason, listed by `mmmath_skipped(path)`
and `describe_mmmath(path)`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import zipfile
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant
from isodyn.generators.base import SeedProgram
from isodyn.generators.contained import (
    check_count,
    check_fields,
    check_image,
    check_members,
    contained,
    declared_members,
    limits,
    member_problem,
    read_bounded,
    read_member,
    read_text,
)
from isodyn.generators.release import ReleaseError, as_png, parse_choices

__all__ = [
    "MMMathProblem",
    "MMMathRelease",
    "Skipped",
    "answer_kind",
    "describe_mmmath",
    "final_box",
    "level_of",
    "load_mmmath",
    "mmmath_skipped",
    "open_mmmath",
    "parse_options",
    "topic_of",
]

PREFERRED_DATA_FILE = "mm_math.jsonl"  # compared case-insensitively
IMAGE_FOLDERS = ("images", "image", "Image", "Images", "MM_Math")
REQUIRED_COLUMNS = ("question", "solution", "file_name")


# ---- the final answer ---------------------------------------------------------------------------

_BOX = re.compile(r"\\boxed\s*\{")


def final_box(solution: str) -> tuple[str | None, int, str]:
    r"""(content of the last `\boxed{}`, number of boxes, why there is none): the box that closes last,
    braces balanced (`\{` and `\}` are literal braces, not grouping)."""
    closed: list[tuple[int, str]] = []  # (end, content)
    unclosed: list[int] = []
    for match in _BOX.finditer(solution):
        depth, i = 1, match.end()
        while i < len(solution) and depth:
            char = solution[i]
            if char == "\\":
                i += 2
                continue
            depth += (char == "{") - (char == "}")
            i += 1
        if depth:
            unclosed.append(match.start())
        else:
            closed.append((i, solution[match.end() : i - 1].strip()))
    if not solution.strip():
        return None, 0, "its solution is empty"
    last_end = max((end for end, _ in closed), default=-1)
    if any(start >= last_end for start in unclosed):
        start = max(unclosed)
        return None, len(closed), f"its last \\boxed{{ (character {start + 1}) is never closed (truncated?)"
    if not closed:
        return None, 0, "its solution has no \\boxed{} answer"
    content = next(text for end, text in closed if end == last_end)
    if not content:
        return None, len(closed), "its last \\boxed{} is empty"
    return content, len(closed), ""


# ---- options, answer type -----------------------------------------------------------------------

# `(A) x`, or `A. x` / `A．x` / `A、x` / `A: x` not preceded by a letter or digit (`AB.` is no option).
_OPTION = re.compile(r"\(([A-J])\)|(?<![A-Za-z0-9\\{])([A-J])\s*[.．、:：]")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)")
_LETTER = re.compile(r"\(?([A-J])\)?\.?")
_WRAPPER = re.compile(r"\\(?:text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}")


def parse_options(question: str) -> tuple[str, ...]:
    """The options a question lists, in order from A: `Choices: (A) x (B) y`, `(A) x (B) y`, or
    `A. x B. y` (also with `．`, `、`, `:`); () unless at least two run A, B, ... The last such run wins
    (options follow the question); the last option ends at its line's end."""
    listed = parse_choices(question)
    if listed:
        return listed
    markers = [(m.start(), m.end(), m.group(1) or m.group(2)) for m in _OPTION.finditer(question)]
    for first in range(len(markers) - 1, -1, -1):
        if markers[first][2] != "A":
            continue
        run = [markers[first]]
        for marker in markers[first + 1 :]:
            if marker[2] != chr(ord(run[-1][2]) + 1):
                break
            run.append(marker)
        if len(run) < 2:
            continue
        options = []
        for n, (_, end, _) in enumerate(run):
            stop = run[n + 1][0] if n + 1 < len(run) else len(question)
            text = question[end:stop]
            if n + 1 == len(run):
                text = text.split("\n", 1)[0]
            options.append(text.strip().rstrip(",;，；").strip())
        if all(options):
            return tuple(options)
    return ()


def answer_kind(truth: str, question: str) -> tuple[AnswerType, str, tuple[str, ...]]:
    """(answer type, truth as graded, options): FLOAT for a plain number, MULTIPLE_CHOICE for a letter
    naming one of the options listed in the question, else TEXT (the truth as boxed)."""
    bare = truth.strip().strip("$").strip()
    if _PLAIN_NUMBER.fullmatch(bare):
        return AnswerType.FLOAT, truth, ()
    letter = _LETTER.fullmatch(_WRAPPER.sub(r"\1", bare).strip())
    if letter:
        options = parse_options(question)
        index = ord(letter.group(1).upper()) - ord("A")
        if index < len(options):
            return AnswerType.MULTIPLE_CHOICE, letter.group(1).upper(), options
    return AnswerType.TEXT, truth, ()


# ---- topic ----------------------------------------------------------------------------------------

# In priority order: the first keyword found in any label decides. English keywords match at the
# start of a word (`statistic` finds "Statistics"), Chinese ones anywhere.
_TOPIC_KEYWORDS: tuple[tuple[Topic, tuple[str, ...]], ...] = (
    (Topic.ANALYTIC_GEOMETRY, ("解析几何", "analytic geometry", "coordinate geometry")),
    (Topic.SOLID_GEOMETRY, (
        "立体几何", "立体图形", "空间几何", "几何体", "视图", "投影", "展开图", "正方体", "长方体", "圆柱",
        "圆锥", "棱柱", "棱锥", "球", "solid", "three view", "view", "projection", "net of", "unfold",
        "cube", "cuboid", "cylinder", "cone", "prism", "pyramid", "sphere",
    )),
    (Topic.STATISTICS, (
        "统计", "概率", "数据分析", "频率", "statistic", "probabilit", "data analysis", "frequenc",
    )),
    (Topic.ALGEBRA, (
        "函数", "代数", "方程", "不等式", "数与式", "整式", "分式", "因式", "根式", "function", "algebra",
        "equation", "inequalit", "expression", "polynomial", "factori",
    )),
    (Topic.ANALYTIC_GEOMETRY, ("坐标", "coordinate")),
    (Topic.PLANE_GEOMETRY, (
        "平面几何", "图形的性质", "图形的变化", "图形", "三角形", "四边形", "多边形", "圆", "角",
        "相似", "全等", "勾股", "平行", "垂直", "对称", "旋转", "平移", "几何", "plane geometry",
        "shape", "triangle", "quadrilateral", "polygon", "circle", "angle", "similar", "congruen",
        "pythagor", "parallel", "perpendicular", "symmetr", "rotation", "translation", "reflection",
        "geometr",
    )),
    (Topic.ARITHMETIC, ("有理数", "实数", "数的运算", "arithmetic", "rational number", "real number")),
)  # fmt: skip


def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    return re.compile(re.escape(keyword) if not keyword.isascii() else r"\b" + re.escape(keyword), re.I)


_TOPIC_PATTERNS = tuple((topic, tuple(map(_keyword_pattern, words))) for topic, words in _TOPIC_KEYWORDS)


def knowledge_labels(knowledge: Any) -> list[str]:
    """Every label in a `knowledge` value: a string, a list, or a dict such as {level_1, level_2}."""
    if knowledge is None:
        return []
    if isinstance(knowledge, dict):
        return [label for value in knowledge.values() for label in knowledge_labels(value)]
    if isinstance(knowledge, list | tuple):
        return [label for value in knowledge for label in knowledge_labels(value)]
    text = re.sub(r"\s+", " ", str(knowledge)).strip()
    return [text] if text else []


def topic_of(knowledge: Any) -> tuple[Topic, str | None]:
    """(topic, the label that decided it); (ALGEBRA, None) when no label is known."""
    labels = knowledge_labels(knowledge)
    for topic, patterns in _TOPIC_PATTERNS:
        for pattern in patterns:
            for label in labels:
                if pattern.search(label):
                    return topic, label
    return Topic.ALGEBRA, None


# ---- level ----------------------------------------------------------------------------------------

_CN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_GRADES = {
    word: n
    for n, words in enumerate(
        ("one first", "two second", "three third", "four fourth", "five fifth", "six sixth",
         "seven seventh", "eight eighth", "nine ninth", "ten tenth", "eleven eleventh", "twelve twelfth"),
        start=1,
    )
    for word in words.split()
}  # fmt: skip
_EN_WORD = "|".join(sorted(_EN_GRADES, key=len, reverse=True))
_GRADE_PATTERNS = (
    re.compile(r"(十?[一二三四五六七八九]|十|\d{1,2})\s*年级"),
    re.compile(rf"\b(?:grade|year)\s*(\d{{1,2}}|{_EN_WORD})\b", re.I),
    re.compile(rf"\b(\d{{1,2}}|{_EN_WORD})(?:st|nd|rd|th)?[\s-]*grade\b", re.I),
    re.compile(rf"^\s*({_EN_WORD}|\d{{1,2}})\s*$", re.I),
)


def _number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.lower() in _EN_GRADES:
        return _EN_GRADES[text.lower()]
    return (10 if text.startswith("十") else 0) + _CN_DIGITS.get(text.lstrip("十"), 0)


def grade_of(year: Any) -> int | None:
    """The school grade (1-12) a `year` label names, or None."""
    text = "" if year is None else str(year)
    for pattern in _GRADE_PATTERNS:
        if match := pattern.search(text):
            grade = _number(match.group(1))
            return grade if 1 <= grade <= 12 else None
    if match := re.search(r"([初高])\s*([一二三])", text):  # 初一..初三 = 7-9, 高一..高三 = 10-12
        return (6 if match.group(1) == "初" else 9) + _CN_DIGITS[match.group(2)]
    return None


def level_of(year: Any) -> tuple[Level, int | None]:
    """(level, grade): grades 1-6 elementary, 7-12 high school (see the module notes); without a
    grade, words decide (小学 / primary / elementary, 大学 / university / undergraduate), else high school."""
    grade = grade_of(year)
    if grade is not None:
        return (Level.ELEMENTARY if grade <= 6 else Level.HIGH_SCHOOL), grade
    text = "" if year is None else str(year).lower()
    if re.search(r"小学|primary|elementary", text):
        return Level.ELEMENTARY, None
    if re.search(r"大学|本科|university|undergraduate|college", text):
        return Level.UNDERGRADUATE, None
    return Level.HIGH_SCHOOL, None


_DIFFICULTIES = {"容易": "easy", "简单": "easy", "普通": "medium", "中等": "medium", "一般": "medium",
                 "困难": "hard", "较难": "hard", "难": "hard"}  # fmt: skip


def difficulty_of(difficult: Any) -> str | None:
    """easy / medium / hard from MM-MATH's `difficult` (容易 / 普通 / 困难, or English), else None."""
    text = "" if difficult is None else str(difficult).strip().lower()
    if text in ("easy", "medium", "hard"):
        return text
    return _DIFFICULTIES.get(text)


# ---- the data file --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Skipped:
    key: str
    where: str  # "line 7" or "item 7"
    reason: str

    def __str__(self) -> str:
        return f"problem {self.key} ({self.where}): {self.reason}"


@dataclass(frozen=True)
class Problem:
    key: str
    where: str
    row: dict[str, Any]
    truth: str
    boxes: int


@dataclass(frozen=True)
class Parsed:
    problems: dict[str, Problem]  # in file order
    skipped: tuple[Skipped, ...]
    rows: int


def _rows(path: Path) -> list[tuple[str, str, Any]]:
    """(default id, where, value) per row: JSON lines, or for `.json` a list or a dict keyed by id."""
    text = read_text(path, str(path))
    most = limits().items
    if path.suffix.lower() == ".json":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None  # JSON lines under a .json name: read line by line below
        except RecursionError:
            raise ReleaseError(f"{path} is not valid JSON (nested too deep)") from None
        if isinstance(whole, list | dict):
            check_count(len(whole), str(path), most)
        if isinstance(whole, list):
            return [(str(n), f"item {n}", value) for n, value in enumerate(whole, start=1)]
        if isinstance(whole, dict) and "question" not in whole:
            return [(str(key), f"item {key}", value) for key, value in whole.items()]
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines: U+2028 is text
    while lines and not lines[-1].strip():
        lines.pop()  # a trailing newline (or several) is no row
    check_count(len(lines), str(path), most)
    rows = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            raise ReleaseError(f"{path} line {n} is empty (one problem per line; ids are line numbers)")
        try:
            value = json.loads(line)
        except RecursionError:
            raise ReleaseError(f"{path} line {n} is not valid JSON (nested too deep)") from None
        except json.JSONDecodeError as exc:
            truncated = exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated string")
            state = "truncated" if truncated else "not valid JSON"
            raise ReleaseError(f"{path} line {n} is {state} ({exc.msg}; column {exc.colno})") from exc
        rows.append((str(n), f"line {n}", value))
    return rows


@lru_cache(maxsize=16)
def _parse(path: Path, mtime_ns: int, size: int) -> Parsed:
    """Parsed once per version of the file (a run asks for each problem many times)."""
    problems: dict[str, Problem] = {}
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}
    rows = _rows(path)
    if not rows:
        raise ReleaseError(f"{path} is empty: no problems")
    text_limit = limits().text_chars
    for default_key, where, row in rows:
        if not isinstance(row, dict):
            raise ReleaseError(f"{path} {where} is a JSON {type(row).__name__}, not an object")
        check_fields(row, (), text_limit, f"{path} {where}")  # no field is a picture: all are text
        key = default_key
        if "id" in row:
            given = row["id"]
            if isinstance(given, bool) or not isinstance(given, str | int) or not str(given).strip():
                raise ReleaseError(f"{path} {where}: id {given!r} is not a non-empty string or integer")
            key = str(given).strip()
        if key in seen:
            raise ReleaseError(f"{path} {where}: problem id {key!r} is also on {seen[key]}")
        seen[key] = where
        for column in REQUIRED_COLUMNS:
            value = row.get(column)
            if not isinstance(value, str) or (column != "solution" and not value.strip()):
                state = "no" if value is None else "an empty" if value == "" else "a non-text"
                raise ReleaseError(f"{path} {where}: problem {key} has {state} {column!r} column")
        for column in ("year", "difficult"):
            if isinstance(row.get(column), dict | list):
                raise ReleaseError(f"{path} {where}: problem {key}'s {column!r} is not a single label")
        truth, boxes, reason = final_box(row["solution"])
        if truth is None:
            skipped.append(Skipped(key, where, reason))
            continue
        problems[key] = Problem(key, where, row, truth, boxes)
    return Parsed(problems, tuple(skipped), len(rows))


# ---- images ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageRef:
    label: str  # where it was found, relative to the data file's folder (`images/1.png`, `MM_Math.zip:1.png`)
    path: Path  # the file (resolved inside the release), or the zip
    member: str | None = None
    where: str = ""  # the problem, for messages


@dataclass(frozen=True)
class _Members:
    names: frozenset[str]
    by_base: dict[str, tuple[str, ...]]
    refused: dict[str, str]  # base name -> the first member refused for its name, and why
    count: int  # members (checked against the bound on every use: the bound may change, not the zip)


@lru_cache(maxsize=8)
def _zip_members(path: Path, mtime_ns: int, size: int) -> _Members:
    """The members of a zip by name and base name, read once per version of the file; members named
    absolute, with a drive or with `..` are never matched (they are kept only to say why)."""
    check_members(path, declared_members(path) or 0, limits().zip_members)  # before zipfile reads them all
    try:
        with zipfile.ZipFile(path) as archive:
            names = [name for name in archive.namelist() if not name.endswith("/")]
    except (OSError, zipfile.BadZipFile) as exc:
        raise ReleaseError(f"{path}: not a readable zip ({exc})") from exc
    by_base: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    for name in names:
        base = PurePosixPath(name.replace("\\", "/")).name
        if problem := member_problem(name):
            refused.setdefault(base, f"zip member {name!r} {problem}")
            continue
        by_base.setdefault(base, []).append(name)
    kept = frozenset(n for found in by_base.values() for n in found)
    by_name = {base: tuple(sorted(found)) for base, found in by_base.items()}
    return _Members(kept, by_name, refused, len(names))


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _places(release: MMMathRelease) -> str:
    """Where images are looked for, for messages: `images/, beside MM_Math.jsonl, MM_Math.zip`."""
    base = release.data_file.parent
    folders = [
        f"beside {release.data_file.name}" if f == base else _relative(f, base) + "/"
        for f in release.image_folders
    ]
    return ", ".join(folders + [_relative(z, base) for z in release.image_zips])


@dataclass(frozen=True)
class MMMathRelease:
    data_file: Path
    image_folders: tuple[Path, ...]  # searched in this order, then the zips
    image_zips: tuple[Path, ...]
    root: Path | None = None  # what every path must stay inside (default: the data file's folder)

    @property
    def home(self) -> Path:
        return self.root if self.root is not None else self.data_file.parent

    def parsed(self) -> Parsed:
        try:
            stat = self.data_file.stat()
        except OSError as exc:
            raise ReleaseError(f"{self.data_file}: cannot read it ({exc.strerror or exc})") from exc
        return _parse(self.data_file, stat.st_mtime_ns, stat.st_size)

    @property
    def skipped(self) -> tuple[Skipped, ...]:
        return self.parsed().skipped

    def find_image(self, file_name: str, where: str = "") -> ImageRef | None:
        """Where the image `file_name` is, or None; a name that is absolute, names a drive, climbs
        out with `..` or leads outside the release through a symlink is refused (ReleaseError)."""
        where = where or f"{self.data_file} image {file_name!r}"
        if problem := member_problem(file_name):
            raise ReleaseError(f"{where}: image path {file_name!r} {problem}; name it inside the release")
        named = PurePosixPath(file_name.replace("\\", "/"))
        base = self.data_file.parent
        for folder in self.image_folders:
            for shown in (str(named), named.name):
                candidate = contained(self.home, shown, where, base=folder)
                if candidate.is_file():
                    return ImageRef(_relative(folder / shown, base), candidate, None, where)
        for archive in self.image_zips:
            try:
                stat = archive.stat()
            except OSError as exc:
                raise ReleaseError(f"{archive}: cannot read it ({exc.strerror or exc})") from exc
            members = _zip_members(archive, stat.st_mtime_ns, stat.st_size)
            check_members(archive, members.count, limits().zip_members)
            wanted = str(named)
            found = (
                [wanted]
                if wanted in members.names
                else [n for n in members.by_base.get(named.name, ()) if n.endswith("/" + wanted)]
            )
            if not found:
                found = list(members.by_base.get(named.name, ()))
            if not found and named.name in members.refused:
                raise ReleaseError(f"{where}: {members.refused[named.name]} (in {archive.name}); not read")
            if len(found) > 1:
                raise ReleaseError(
                    f"{archive}: image {file_name!r} matches several members ({', '.join(found[:3])})"
                )
            if found:
                return ImageRef(f"{_relative(archive, base)}:{found[0]}", archive, found[0], where)
        return None

    def where(self, problem: Problem) -> str:
        return f"{self.data_file} {problem.where}: problem {problem.key}"

    def image(self, problem: Problem) -> ImageRef:
        found = self.find_image(problem.row["file_name"], self.where(problem))
        if found is None:
            raise ReleaseError(
                f"{self.data_file} {problem.where}: problem {problem.key}'s image "
                f"{problem.row['file_name']!r} is missing (looked in {_places(self)})"
            )
        return found

    def image_bytes(self, ref: ImageRef, archive: zipfile.ZipFile | None = None) -> bytes:
        """The image's bytes, within the image bound (a zip member's declared size is checked, and
        no more than the bound is read whatever it declares), checked to be a picture. `archive`:
        the zip already open (a caller reading many members)."""
        bound = limits().image_bytes
        where = ref.where or str(ref.path)
        try:
            if ref.member is None:
                data = read_bounded(ref.path, bound, where, "image_bytes", f"its image {ref.label}")
            elif archive is not None:
                data = read_member(archive, ref.member, bound, where)
            else:
                with zipfile.ZipFile(ref.path) as opened:
                    data = read_member(opened, ref.member, bound, where)
        except (OSError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            raise ReleaseError(f"{ref.path}: cannot read image {ref.label} ({exc})") from exc
        return check_image(data, bound, where)


def _data_file(root: Path) -> Path:
    if root.is_file():
        return root
    if not root.is_dir():
        raise ReleaseError(f"MM-MATH release {root} does not exist")
    for folder in (root, root / "MM_Math"):
        if not folder.is_dir():
            continue
        for suffix in (".jsonl", ".json"):
            found = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == suffix)
            preferred = [p for p in found if p.name.lower() == PREFERRED_DATA_FILE]
            if preferred or len(found) == 1:
                chosen = (preferred or found)[0]
                contained(root, chosen, str(root))  # a data file linked from outside: refused
                return chosen
            if found:
                names = ", ".join(p.name for p in found)
                raise ReleaseError(f"{folder}: several {suffix} files ({names}) and no MM_Math.jsonl")
    raise ReleaseError(f"{root}: no MM_Math.jsonl (MM-MATH's release: MM_Math.jsonl and its images)")


def open_mmmath(path: Path | str) -> MMMathRelease:
    """The release at `path` (a folder or the data file), its data file parsed (or an error)."""
    root = Path(path)
    data_file = _data_file(root)
    home = root if root.is_dir() else data_file.parent  # the release: what the user named
    bases = [data_file.parent] + ([root] if root.is_dir() and root != data_file.parent else [])
    folders: list[Path] = []
    zips: list[Path] = []
    for base in bases:
        folders += [base / name for name in IMAGE_FOLDERS if (base / name).is_dir()] + [base]
        zips += sorted(p for p in base.iterdir() if p.is_file() and p.suffix.lower() == ".zip")
    for place in (*folders, *zips):  # an image folder or zip linked from outside: refused
        contained(home, place, str(home))
    release = MMMathRelease(data_file, tuple(dict.fromkeys(folders)), tuple(dict.fromkeys(zips)), home)
    release.parsed()
    return release


# ---- seeds ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Facts:
    topic: Topic
    topic_label: str | None
    level: Level
    grade: int | None
    answer_type: AnswerType
    answer: str
    choices: tuple[str, ...]


def facts_of(problem: Problem) -> Facts:
    row = problem.row
    topic, label = topic_of(row.get("knowledge"))
    level, grade = level_of(row.get("year"))
    kind, answer, choices = answer_kind(problem.truth, row["question"])
    return Facts(topic, label, level, grade, kind, answer, choices)


def _plain(value: Any) -> Any:
    """A value read from JSON, safe for `Variant.params` (NaN and infinities, which Python's JSON
    reader accepts, become None)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class MMMathProblem(SeedProgram):
    """One MM-MATH problem: one variant (index 0), shown as its figure. Not in the seed registry."""

    modalities = (Modality.IMAGE,)
    variation_types = ()
    memoizable = False  # the files may change under the same id: always read them

    def __init__(self, release: MMMathRelease, key: str) -> None:
        problem = self._problem(release, key)
        facts = facts_of(problem)
        self.release = release
        self.seed_id = key
        self.topic = facts.topic
        self.level = facts.level
        self.answer_type = facts.answer_type
        self.variant_space = 1

    @staticmethod
    def _problem(release: MMMathRelease, key: str) -> Problem:
        parsed = release.parsed()
        problem = parsed.problems.get(key)
        if problem is not None:
            return problem
        for skip in parsed.skipped:
            if skip.key == key:
                raise ReleaseError(f"{release.data_file}: {skip} (skipped)")
        raise ReleaseError(f"{release.data_file}: no problem {key!r}")

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        if index != 0:
            raise ReleaseError(
                f"{self.release.data_file}: problem {self.seed_id} has 1 variant (index 0); "
                f"there is no variant {index}"
            )
        problem = self._problem(self.release, self.seed_id)
        facts = facts_of(problem)
        row = problem.row
        image = self.release.image(problem)
        return Variant(
            seed_id=self.seed_id,
            index=0,
            base_seed=base_seed,
            topic=facts.topic,  # as the file says now (the seed's own attributes: when it was loaded)
            level=facts.level,
            answer_type=facts.answer_type,
            question=row["question"].strip(),
            answer=facts.answer,
            params={
                "image": row["file_name"],
                "image_source": image.label,
                "image_sha256": hashlib.sha256(self.release.image_bytes(image)).hexdigest(),
                "where": problem.where,
                "year": _plain(row.get("year")),
                "grade": facts.grade,
                "difficult": _plain(row.get("difficult")),
                "difficulty": difficulty_of(row.get("difficult")),
                "knowledge": _plain(row.get("knowledge")),
                "topic_label": facts.topic_label,
                "boxes": problem.boxes,
            },
            choices=facts.choices,
            solution=row["solution"],
            variation_types=(),
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        image = self.release.image(self._problem(self.release, self.seed_id))
        return Representation(modality, variant.question, image_png=as_png(self.release.image_bytes(image)))


def load_mmmath(path: Path, keys: tuple[str, ...] = ()) -> dict[str, SeedProgram]:
    """The release's problems as seeds (all usable ones in file order, or those in `keys`), every
    chosen problem's image checked now, not halfway through a run. Skipped problems: `mmmath_skipped`."""
    release = open_mmmath(path)
    parsed = release.parsed()
    chosen = tuple(keys) or tuple(parsed.problems)
    if not chosen:
        reasons = "; ".join(str(s) for s in parsed.skipped[:3])
        raise ReleaseError(
            f"{release.data_file}: no usable problems ({len(parsed.skipped)} skipped: {reasons})"
        )
    seeds: dict[str, SeedProgram] = {}
    with contextlib.ExitStack() as stack:  # every image read and checked now, each zip opened once
        archives: dict[Path, zipfile.ZipFile] = {}
        for key in chosen:
            seed = MMMathProblem(release, str(key))
            ref = release.image(parsed.problems[seed.seed_id])
            if ref.member is not None and ref.path not in archives:
                try:
                    archives[ref.path] = stack.enter_context(zipfile.ZipFile(ref.path))
                except (OSError, zipfile.BadZipFile) as exc:
                    raise ReleaseError(f"{ref.path}: not a readable zip ({exc})") from exc
            release.image_bytes(ref, archives.get(ref.path))
            seeds[seed.seed_id] = seed
    return seeds


def mmmath_skipped(path: Path) -> list[Skipped]:
    """The problems `load_mmmath(path)` leaves out, each with its line and reason."""
    return list(open_mmmath(path).skipped)


def describe_mmmath(path: Path) -> list[str]:
    """A few lines on the release: problems, images found, what was skipped and why."""
    release = open_mmmath(path)
    parsed = release.parsed()
    facts = {key: facts_of(problem) for key, problem in parsed.problems.items()}
    missing = [
        p
        for p in parsed.problems.values()
        if release.find_image(p.row["file_name"], release.where(p)) is None
    ]

    def tally(values: list[str]) -> str:
        return ", ".join(f"{name} {count}" for name, count in Counter(values).most_common()) or "none"

    lines = [
        f"MM-MATH release {release.data_file}: {parsed.rows} rows, {len(parsed.problems)} problems, "
        f"{len(parsed.skipped)} skipped",
        f"images: {len(parsed.problems) - len(missing)} of {len(parsed.problems)} found "
        f"(looked in {_places(release)})",
        f"topics: {tally([f.topic.value for f in facts.values()])}",
        f"levels: {tally([f.level.value for f in facts.values()])}; "
        f"answer types: {tally([f.answer_type.value for f in facts.values()])}",
    ]
    unmapped = [key for key, f in facts.items() if f.topic_label is None]
    if unmapped:
        lines.append(f"no known knowledge label (taken as algebra): problems {', '.join(unmapped[:10])}")
    lines += [f"missing image: problem {p.key} ({p.where}): {p.row['file_name']!r}" for p in missing]
    lines += [f"skipped: {skip}" for skip in parsed.skipped]
    return lines
