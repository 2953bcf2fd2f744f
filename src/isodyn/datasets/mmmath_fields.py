r"""MM-MATH's fields in isodyn's terms: the truth, the answer type, the topic, the level.

The release's labels (`year`, `difficult`, `knowledge`; see `mmmath`) are read in every form seen:
a string, a list or a dict of labels, English or Chinese. Truth: the content of the *last*
`\boxed{}` of the solution, braces balanced; the answer type is FLOAT for a plain number,
MULTIPLE_CHOICE for a letter whose options are listed in the question, else TEXT.

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
"""

from __future__ import annotations

import re
from typing import Any

from isodyn.core import AnswerType, Level, Topic
from isodyn.datasets.dynamath import parse_choices

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
