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

How the fields map to isodyn's topic, level and answer type is in `mmmath_fields`.

Errors are `ReleaseError`s of one line naming the file and the line or problem: a missing image or zip
member, an empty or truncated JSON line, a row that is not an object or lacks `question`,
`solution` or `file_name`, a duplicate id. A problem whose solution has no usable `\boxed{}` (none,
empty, never closed) is not an error: it is skipped with its reason, listed by `mmmath_skipped(path)`
and `describe_mmmath(path)`.
"""

from __future__ import annotations

import contextlib
import math
import zipfile
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from isodyn.core import AnswerType, Level, Topic, Variant
from isodyn.datasets.contained import (
    ReleaseError,
    check_fields,
    contained,
    limits,
    member_problem,
    read_member,
)
from isodyn.datasets.kinds import DATASETS, DatasetKind
from isodyn.datasets.mmmath_fields import (
    answer_kind,
    difficulty_of,
    final_box,
    level_of,
    parse_options,
    topic_of,
)
from isodyn.datasets.reader import checked_image, find_image, read_image, read_records, zip_index
from isodyn.datasets.release_item import Record, ReleasedSeed, check_truth, image_digest

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


@lru_cache(maxsize=16)
def _parse(path: Path, mtime_ns: int, size: int) -> Parsed:
    """Parsed once per version of the file (a run asks for each problem many times). Ids default to
    line numbers, so a blank line between problems is refused rather than skipped."""
    problems: dict[str, Problem] = {}
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}
    rows = read_records(path, blank_lines=False)
    text_limit = limits().text_chars
    for located in rows:
        default_key, where, row = located.key, located.where, located.value
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
        candidates = ((folder, shown) for folder in self.image_folders for shown in (str(named), named.name))
        in_folder = find_image(self.home, candidates, where)  # as named, then by its base name
        if in_folder is not None:
            return ImageRef(_relative(in_folder.named, base), in_folder.path, None, where)
        for archive in self.image_zips:
            members = zip_index(archive)
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
                data = read_image(ref.path, where, f"its image {ref.label}")
            elif archive is not None:
                data = read_member(archive, ref.member, bound, where)
            else:
                with zipfile.ZipFile(ref.path) as opened:
                    data = read_member(opened, ref.member, bound, where)
        except (OSError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            raise ReleaseError(f"{ref.path}: cannot read image {ref.label} ({exc})") from exc
        return checked_image(data, where)


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


class MMMathProblem(ReleasedSeed):
    """One MM-MATH problem: one variant (index 0), shown as its figure."""

    def __init__(self, release: MMMathRelease, key: str) -> None:
        problem = self._problem(release, key)
        facts = facts_of(problem)
        check_truth(facts.answer_type, facts.answer, release.where(problem))
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

    def record(self, index: int, base_seed: int = 0) -> Record:
        if index != 0:
            raise ReleaseError(
                f"{self.release.data_file}: problem {self.seed_id} has 1 variant (index 0); "
                f"there is no variant {index}"
            )
        problem = self._problem(self.release, self.seed_id)
        facts = facts_of(problem)
        row = problem.row
        image = self.release.image(problem)
        return Record(
            id=self.seed_id,
            index=0,
            topic=facts.topic,  # as the file says now (the seed's own attributes: when it was loaded)
            level=facts.level,
            answer_type=facts.answer_type,
            question=row["question"].strip(),
            answer=facts.answer,
            image_sha256=image_digest(self.release.image_bytes(image)),
            choices=facts.choices,
            solution=row["solution"],
            source={"image": row["file_name"], "image_source": image.label},
            details={
                "where": problem.where,
                "year": _plain(row.get("year")),
                "grade": facts.grade,
                "difficult": _plain(row.get("difficult")),
                "difficulty": difficulty_of(row.get("difficult")),
                "knowledge": _plain(row.get("knowledge")),
                "topic_label": facts.topic_label,
                "boxes": problem.boxes,
            },
        )

    def picture(self, variant: Variant) -> bytes:
        return self.release.image_bytes(self.release.image(self._problem(self.release, self.seed_id)))


def load_mmmath(path: Path, keys: tuple[str, ...] = ()) -> dict[str, MMMathProblem]:
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
    seeds: dict[str, MMMathProblem] = {}
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


DATASETS.add(
    "mmmath",
    DatasetKind(
        name="mmmath",
        what="MM-MATH's problems (JSON lines and images)",
        variants=1,
        load=load_mmmath,
        describe=describe_mmmath,
    ),
    order=30,
)
