"""DynaMath's own seed programs as seeds: fresh variants of its 501 seed questions, drawn by running them.

The interface, as published with DynaMath (arXiv 2411.00836; github.com/DynaMath/DynaMath, folder
`dataset_generator/`, files `function_plot1-20.py` .. `function_plot474-501.py` and `generate_json.py`):

- each file defines classes `Q01` .. `Q09`, `Q10` .. `Q501` (`generate_json.py` builds the name as
  `f"Q0{i}"` below 10, else `f"Q{i}"`); the seed id here is the number without padding ("1", "169"),
  the key of the release's `dataset.json`;
- `__init__` draws its parameters from the global `random` (imported `as rd`) and `numpy.random`,
  and sets `query`, `answer`, `answer_type` (`multiple choice`, `float`, `free form`; a few say
  `text`), `subject` and `level`;
- `draw(num)` saves `image{num}.png` into `os.path.join(os.path.dirname(os.getcwd()), "dataset")`
  + `image/`, i.e. `../dataset/image/` from the working directory, which `generate_json.py` expects to
  be `dataset_generator/`: some programs copy a fixed picture from `temp_image/` there;
- `generate_json.py` seeds `random.seed(rdseed)` and `np.random.seed(npseed)`, calls the class and
  `draw(i)`, and stores `str(round(answer, 4))` for `float` answers, `str(answer)` otherwise.
  Its README runs it under `xvfb-run` (some programs need a display: pyglet, turtle).

How they run here. `load_programs` finds the classes by parsing the files with `ast`; nothing of the
user's is imported into this process, so a broken file costs only its own classes. Each variant is
one run of its class in a fresh Python subprocess, killed after `TIMEOUT_SECONDS`, its picture
checked (`dynamath_runs` says how). Results (JSON and PNG) are kept on disk, keyed by (sha256 of the
program file, class name, index, base_seed), under `$ISODYN_CACHE_DIR/programs` (default
`~/.cache/isodyn/programs`): a rerun does not run the program again, and an edited program file
draws anew. Failures are not kept.

A seed's topic, level and answer type are read from its `__init__` when it assigns them string
literals (DynaMath's programs do); otherwise they are taken from variant 0, run on first use of one of
them. Each variant carries the values its own run reported.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from isodyn.core import AnswerType, Level, Topic, Variant
from isodyn.datasets.contained import ReleaseError, check_value, contained, limits, read_text
from isodyn.datasets.dynamath import ANSWER_TYPES, LEVELS, TOPICS, parse_choices
from isodyn.datasets.dynamath_runs import (
    MAX_REASON,
    META,
    TIMEOUT_SECONDS,
    ProgramError,
    Run,
    default_cache_dir,
    file_sha256,
    read_cached,
    read_program,
    run_program,
    write_atomic,
)
from isodyn.datasets.kinds import DATASETS, DatasetKind
from isodyn.datasets.reader import lookup, one_line
from isodyn.datasets.release_item import Record, ReleasedSeed, image_digest

VARIANT_SPACE = 1_000_000  # variants are indexed 0 .. VARIANT_SPACE - 1
CHECK_WORKERS = 2  # programs run at once by `check_environment`
_CLASS_NAME = re.compile(r"Q(\d+)")
_meta_lock = threading.Lock()


# ---------------------------------------------------------------- discovery (no import of the files)


@dataclass(frozen=True)
class ProgramClass:
    """A `Q<number>` class found in a program file, and what its `__init__` says literally."""

    file: Path
    class_name: str
    seed_id: str
    line: int
    literal_meta: tuple[tuple[str, str], ...]  # (attribute, value) of subject/level/answer_type


@dataclass(frozen=True)
class _Scan:
    files: tuple[Path, ...]
    classes: tuple[ProgramClass, ...]
    problems: tuple[tuple[Path, str], ...]  # files that cannot be read or parsed


def _literal_meta(node: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    """subject/level/answer_type assigned in `__init__` as one string literal each (else absent)."""
    init = next(
        (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"),
        None,
    )
    if init is None:
        return ()
    seen: dict[str, set[str | None]] = {}
    for sub in ast.walk(init):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(sub, ast.Assign):
            targets, value = sub.targets, sub.value
        elif isinstance(sub, ast.AnnAssign | ast.AugAssign):
            targets, value = [sub.target], sub.value
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and target.attr in META
            ):
                literal = (
                    value.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str)
                    and not isinstance(sub, ast.AugAssign)
                    else None
                )  # fmt: skip
                seen.setdefault(target.attr, set()).add(literal)
    found: list[tuple[str, str]] = []
    for name, values in sorted(seen.items()):
        only = next(iter(values)) if len(values) == 1 else None
        if only is not None:
            found.append((name, only))
    return tuple(found)


def _program_files(path: Path) -> tuple[Path, ...]:
    if not path.exists():
        raise ReleaseError(f"program path {path} does not exist")
    if path.is_file():
        if path.suffix != ".py":
            raise ReleaseError(f"{path} is not a .py file of seed programs")
        return (path,)
    return tuple(sorted(p for p in path.glob("*.py") if p.is_file() and not p.name.startswith(".")))


def _scan(path: Path) -> _Scan:
    files = _program_files(path)
    classes: list[ProgramClass] = []
    problems: list[tuple[Path, str]] = []
    for file in files:
        try:
            if path.is_dir():  # a program linked from outside the folder is not read
                contained(path, file, str(path))
            stat = file.stat()
            found = _scan_file(file.resolve(), stat.st_mtime_ns, stat.st_size)
        except ReleaseError as exc:
            problems.append((file, one_line(str(exc), MAX_REASON)))
            continue
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError) as exc:
            where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
            problems.append((file, one_line(f"{type(exc).__name__}: {exc}{where}", MAX_REASON)))
            continue
        classes.extend(found)
    return _Scan(files, tuple(classes), tuple(problems))


@lru_cache(maxsize=256)
def _scan_file(file: Path, mtime_ns: int, size: int) -> tuple[ProgramClass, ...]:
    """The file's top-level `Q<number>` classes (parsed once per version of the file)."""
    tree = ast.parse(read_program(file), filename=str(file))
    by_name: dict[str, ProgramClass] = {}  # a class defined twice: the later one, as Python does
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and (match := _CLASS_NAME.fullmatch(node.name)):
            by_name[node.name] = ProgramClass(
                file, node.name, str(int(match.group(1))), node.lineno, _literal_meta(node)
            )
    return tuple(by_name.values())


def _number_key(seed_id: str) -> tuple[int, str]:
    return (int(seed_id), seed_id) if seed_id.isdigit() else (sys.maxsize, seed_id)


def _normalize_key(key: str) -> str:
    text = str(key).strip()
    digits = text[1:] if text[:1] in ("Q", "q") else text
    if not digits.isdigit():
        raise ReleaseError(f"seed key {key!r} is not a DynaMath question number (e.g. 169 or Q169)")
    return str(int(digits))


def load_programs(
    path: Path | str,
    keys: tuple[str, ...] = (),
    cache_dir: Path | str | None = None,
    timeout: float | None = None,
) -> dict[str, ProgramSeed]:
    """The seed programs in `path` (a folder of .py files, or one file) as seeds keyed by question
    number, in number order: all of them, or those in `keys` ("169" or "Q169"). Files are parsed,
    never imported; files that cannot be parsed are skipped (see `describe_programs`)."""
    path = Path(path)
    scan = _scan(path)
    by_id: dict[str, list[ProgramClass]] = {}
    for found in scan.classes:
        by_id.setdefault(found.seed_id, []).append(found)
    if not by_id:
        broken = f"; {len(scan.problems)} file(s) cannot be parsed" if scan.problems else ""
        raise ReleaseError(f"{path}: no Q<number> classes in {len(scan.files)} .py file(s){broken}")
    chosen = tuple(dict.fromkeys(_normalize_key(k) for k in keys)) or tuple(sorted(by_id, key=_number_key))
    for key in chosen:
        if key not in by_id:
            broken = f"; cannot parse {', '.join(p.name for p, _ in scan.problems)}" if scan.problems else ""
            raise ReleaseError(f"no class Q{key} in {path} ({len(by_id)} seed classes found{broken})")
        if len(by_id[key]) > 1:
            places = " and ".join(f"{c.file.name}:{c.line} ({c.class_name})" for c in by_id[key])
            raise ReleaseError(f"seed {key} is defined twice: {places}")
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return {key: ProgramSeed(by_id[key][0], cache, timeout) for key in chosen}


def describe_programs(path: Path | str) -> list[str]:
    """One line per file with the classes found in it, files that cannot be parsed, and a total."""
    path = Path(path)
    scan = _scan(path)
    problems = dict(scan.problems)
    lines: list[str] = []
    ids: dict[str, int] = {}
    for file in scan.files:
        if file in problems:
            lines.append(f"{file.name}: cannot be parsed: {problems[file]}")
            continue
        found = [c for c in scan.classes if c.file == file.resolve()]
        for c in found:
            ids[c.seed_id] = ids.get(c.seed_id, 0) + 1
        names = ", ".join(c.class_name for c in sorted(found, key=lambda c: _number_key(c.seed_id)))
        lines.append(f"{file.name}: {len(found)} classes{': ' + names if names else ''}")
    twice = sorted((k for k, n in ids.items() if n > 1), key=_number_key)
    if twice:
        lines.append(f"defined in more than one file: {', '.join('Q' + k for k in twice)}")
    lines.append(f"{len(ids)} seed classes in {len(scan.files) - len(problems)} of {len(scan.files)} files")
    return lines


# ---------------------------------------------------------------------------------------- seeds


class ProgramSeed(ReleasedSeed):
    """One DynaMath seed program (a `Q<number>` class); its variants are fresh runs of it."""

    memoizable = False  # its own disk cache keeps the runs, keyed by the program file's content

    def __init__(self, program: ProgramClass, cache_dir: Path, timeout: float | None = None) -> None:
        self.program = program
        self.seed_id = program.seed_id
        self.cache_dir = cache_dir
        self.timeout = timeout
        self.variant_space = VARIANT_SPACE
        literal = dict(program.literal_meta)
        self._meta: tuple[Topic, Level, AnswerType] | None = None
        if all(name in literal for name in META):
            self._meta = self._mapped(literal["subject"], literal["level"], literal["answer_type"],
                                      f"{program.file.name} {program.class_name}")  # fmt: skip

    @property
    def where(self) -> str:
        return f"{self.program.file.name} {self.program.class_name}"

    # topic, level and answer type: literal in the program, else from variant 0 on first use
    def _known_meta(self) -> tuple[Topic, Level, AnswerType]:
        with _meta_lock:
            meta = self._meta
        if meta is None:
            first = self.variant(0, 0)
            meta = (first.topic, first.level, first.answer_type)
            with _meta_lock:
                self._meta = meta
        return meta

    def _set_meta(
        self, topic: Topic | None = None, level: Level | None = None, answer_type: AnswerType | None = None
    ) -> None:
        known_topic, known_level, known_type = self._known_meta()
        self._meta = (topic or known_topic, level or known_level, answer_type or known_type)

    @property
    def topic(self) -> Topic:
        return self._known_meta()[0]

    @topic.setter
    def topic(self, value: Topic) -> None:
        self._set_meta(topic=value)

    @property
    def level(self) -> Level:
        return self._known_meta()[1]

    @level.setter
    def level(self, value: Level) -> None:
        self._set_meta(level=value)

    @property
    def answer_type(self) -> AnswerType:
        return self._known_meta()[2]

    @answer_type.setter
    def answer_type(self, value: AnswerType) -> None:
        self._set_meta(answer_type=value)

    @staticmethod
    def _mapped(subject: Any, level: Any, answer_type: Any, where: str) -> tuple[Topic, Level, AnswerType]:
        return (
            lookup(TOPICS, subject, "subject", where),
            lookup(LEVELS, level, "level", where),
            lookup(ANSWER_TYPES, answer_type, "answer type", where),
        )

    def record(self, index: int, base_seed: int = 0) -> Record:
        if not 0 <= index < self.variant_space:
            raise ReleaseError(f"{self.where}: there is no variant {index} (0 .. {self.variant_space - 1})")
        run = self._draw(index, base_seed)
        topic, level, answer_type = self._mapped(
            run.subject, run.level, run.answer_type, f"{self.where} variant {index}"
        )
        question = run.query.strip()
        return Record(
            id=self.seed_id,
            index=index,
            topic=topic,
            level=level,
            answer_type=answer_type,
            question=question,
            answer=run.answer.strip(),
            image_sha256=run.image_sha256,
            choices=parse_choices(question) if answer_type is AnswerType.MULTIPLE_CHOICE else (),
            source={"image": run.image},
        )

    def picture(self, variant: Variant) -> bytes:
        image = self.cache_dir / variant.params["image"]
        data = image.read_bytes() if image.is_file() else b""
        if image_digest(data) != variant.params["image_sha256"]:
            # the cached picture went away (or was damaged): draw the variant again
            run = self._draw(variant.index, variant.base_seed, refresh=True)
            if run.image_sha256 != variant.params["image_sha256"]:
                raise ReleaseError(
                    f"{self.where} variant {variant.index}: a new run drew another image than the "
                    "variant's (the program changed or is not deterministic)"
                )
            data = (self.cache_dir / run.image).read_bytes()
        return data

    # --------------------------------------------------------------------------- runs and cache

    def _draw(self, index: int, base_seed: int, refresh: bool = False) -> Run:
        source = self.program.file
        digest = file_sha256(source)
        folder = self.cache_dir / digest / self.program.class_name
        record_path = folder / f"{index}_{base_seed}.json"
        image_rel = f"{digest}/{self.program.class_name}/{index}_{base_seed}.png"
        if not refresh and (cached := read_cached(record_path, self.cache_dir / image_rel)) is not None:
            return cached
        timeout = TIMEOUT_SECONDS if self.timeout is None else self.timeout
        report, png = run_program(source, self.program.class_name, self.seed_id, index, base_seed, timeout)
        for name in ("query", "answer", *META):  # a program's text goes into prompts: bounded too
            check_value(str(report[name]), limits().text_chars, f"{self.where} variant {index} {name}")
        image_sha = image_digest(png)
        run = Run(
            query=str(report["query"]),
            answer=str(report["answer"]),
            answer_type=str(report["answer_type"]),
            subject=str(report["subject"]),
            level=str(report["level"]),
            image=image_rel,
            image_sha256=image_sha,
        )
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.cache_dir / image_rel, png)  # the picture first: the record marks it complete
        record = {**run.__dict__, "class": self.program.class_name, "index": index, "base_seed": base_seed}
        write_atomic(record_path, json.dumps(record, indent=1).encode())
        return run


# ----------------------------------------------------------------------------- environment check

_LATEX = re.compile(r"latex|dvipng|dvips|usetex|kpsewhich|\.tex\b", re.IGNORECASE)
_DISPLAY = re.compile(
    r"display|TclError|NoSuchDisplay|cannot connect to X|xvfb|\bxlib\b|\bGLU?\b|OpenGL",
    re.IGNORECASE,
)


# e.g. matplotlib 3.11 removed boxplot's `labels=` (DynaMath's Q437-Q463 boxplots pass it)
_OLDER_API = re.compile(r"got an unexpected keyword argument")
# IPython's latex_to_png returns None where dvipng is missing; the program fails further on, on None.
_NONE_FROM_LATEX = re.compile(r"TypeError: .*(NoneType|bytes-like)")
_CALLS_DVIPNG = re.compile(r"latex_to_png|dvipng")


def needs(error: ProgramError, source: str = "") -> str:
    """What a failing program seems to need: `module NAME`, `a display`, `LaTeX`, or `more time`;
    "" when the failure says nothing of the kind. `source` is the program's text (it may render
    LaTeX through a tool this machine lacks, failing far from the call)."""
    if error.timed_out:
        return "more time (or a display)"
    if error.missing_module:
        return f"module {error.missing_module}"
    if _LATEX.search(error.reason):
        return "LaTeX"
    if _DISPLAY.search(error.reason):
        return "a display"
    if _LATEX.search(error.detail) or (
        _NONE_FROM_LATEX.search(error.reason) and _CALLS_DVIPNG.search(source) and not shutil.which("dvipng")
    ):
        return "LaTeX (dvipng)"
    if _OLDER_API.search(error.reason):
        return "an older version of a library (an argument it no longer takes)"
    return ""


@lru_cache(maxsize=64)
def _program_text(file: Path) -> str:
    try:
        return read_text(file, str(file))
    except (ReleaseError, OSError):
        return ""  # unreadable: only the failure's own words say what it needs


def check_environment(
    path: Path | str,
    keys: tuple[str, ...] = (),
    cache_dir: Path | str | None = None,
    timeout: float | None = None,
) -> list[str]:
    """Run each program's variant 0 afresh (at most CHECK_WORKERS at a time): "N of M seeds run here",
    then one line per failing seed, "Q123: needs <module x / a display / LaTeX>: <reason>", and one
    per file that cannot be parsed."""
    seeds = load_programs(path, keys, cache_dir, timeout)

    def attempt(seed: ProgramSeed) -> ReleaseError | None:
        try:
            run = seed._draw(0, 0, refresh=True)
            seed._mapped(run.subject, run.level, run.answer_type, f"{seed.where} variant 0")
        except ReleaseError as exc:
            return exc
        return None

    with ThreadPoolExecutor(max_workers=CHECK_WORKERS) as pool:
        outcomes = list(pool.map(attempt, seeds.values()))
    lines = [f"{outcomes.count(None)} of {len(seeds)} seeds run here"]
    for seed, error in zip(seeds.values(), outcomes, strict=True):
        if error is None:
            continue
        source = _program_text(seed.program.file)
        need = needs(error, source) if isinstance(error, ProgramError) else ""
        lines.append(
            f"Q{seed.seed_id}: {'needs ' + need if need else 'fails'}: {one_line(str(error), MAX_REASON)}"
        )
    lines.extend(f"{file.name}: cannot be parsed: {reason}" for file, reason in _scan(Path(path)).problems)
    return lines


DATASETS.add(
    "dynamath-programs",
    DatasetKind(
        name="dynamath-programs",
        what="DynaMath's seed programs (fresh variants)",
        variants=3,
        load=load_programs,
        describe=describe_programs,
    ),
    order=40,
)
