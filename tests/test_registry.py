"""The one way to plug things in (`isodyn.registry`): every registered entry of every kind is listed
by `exp list KIND`, and a third-party package adds entries through entry points alone."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from isodyn.core import Modality
from isodyn.registry import KINDS, LATE, Registry, registry_of
from isodyn.scoring import score
from isodyn.strategies import parse_strategy


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its parent package is absent
        return False


DATASETS_MODULE = KINDS["datasets"].split(":")[0]
NO_DATASETS = pytest.mark.skipif(
    not _has_module(DATASETS_MODULE),
    reason=f"{DATASETS_MODULE} does not exist yet (the dataset importers are moving there, issue 26 part 1)",
)


def _kind_params() -> list[Any]:
    return [pytest.param(kind, marks=NO_DATASETS) if kind == "datasets" else kind for kind in KINDS]


def first_cells(stdout: str) -> set[str]:
    """The first cell of every table row `exp list` printed (a dataset prefix without its colon)."""
    return {line.split("│")[1].strip().rstrip(":") for line in stdout.splitlines() if line.startswith("│")}


# ------------------------------------------------------------------------ every entry is listed


@pytest.mark.parametrize("kind", _kind_params())
def test_every_registered_entry_is_listed(kind: str, run_cli) -> None:
    names = list(registry_of(kind))
    assert names, f"nothing registered as {kind}"
    done = run_cli("list", kind)
    assert done.code == 0, done.err
    missing = set(names) - first_cells(done.out)
    assert not missing, f"exp list {kind} leaves out {sorted(missing)}"


WIDGETS: Registry[Any] = Registry("widget")
WIDGETS.add("sprocket", print, summary="a seventh kind, listed with no change to the command line")


def test_a_new_kind_lists_with_no_change_to_the_command(run_cli, monkeypatch) -> None:
    monkeypatch.setitem(KINDS, "widgets", f"{__name__}:WIDGETS")
    done = run_cli("list", "widgets")
    assert done.code == 0, done.err
    assert "sprocket" in first_cells(done.out) and "a seventh kind" in done.out
    bad = run_cli("list", "wombats")
    assert bad.code == 2 and len(bad.lines) == 1
    assert all(kind in bad.err for kind in KINDS), bad.err


def test_strategies_lists_bases_and_modifiers(run_cli) -> None:
    listed = first_cells(run_cli("list", "strategies").out)
    assert set(registry_of("strategies")) | set(registry_of("modifiers")) <= listed
    assert first_cells(run_cli("list", "generators").out) == first_cells(run_cli("list", "seeds").out)


# ------------------------------------------------------------------------ the registry itself


def test_order_summary_and_where_defined() -> None:
    things: Registry[Any] = Registry("thing")

    def late() -> None:
        """Added without an order.

        More text."""

    things.add("b-late", late)
    things.add("z-early", len, order=10, summary="explicit")
    things.add("a-late", repr, summary="")
    assert list(things) == ["z-early", "a-late", "b-late"]  # by order, then by name
    entry = things.entry("b-late")
    assert (entry.summary, entry.defined_in, entry.order) == ("Added without an order.", __name__, LATE)
    things.add("b-late", late)  # the same object again: nothing happens
    with pytest.raises(ValueError, match="registered twice"):
        things.add("b-late", len)
    with pytest.raises(KeyError, match="unknown thing 'nope'; valid: z-early, a-late, b-late"):
        things.get_named("nope")


def test_registry_of_names_the_valid_kinds() -> None:
    with pytest.raises(KeyError, match="valid: seeds, strategies, modifiers, graders, metrics, datasets"):
        registry_of("wombats")


# ------------------------------------------------------------------------ third-party entry points

PACKAGE = "isodyn_thirdparty_demo"

MODULES = {
    "seed.py": '''
        """A counting seed from another package: how many dots?"""
        from isodyn.core import AnswerType, Level, Modality, Representation, Topic, VariationType
        from isodyn.generators import Draw, SeedProgram


        class Dots(SeedProgram):
            seed_id = "thirdparty_dots"
            topic = Topic.ARITHMETIC
            level = Level.ELEMENTARY
            answer_type = AnswerType.INT
            variation_types = (VariationType.NUMERICAL_VALUE,)
            modalities = (Modality.LATEX,)
            variant_space = 9

            def sample(self, rng):
                n = int(rng.integers(1, 10))
                return Draw({"n": n}, "How many dots are there?", str(n), f"There are {n} dots.")

            def render(self, variant, modality):
                return Representation(modality, r"$\\cdot$ " * variant.params["n"] + variant.question)
    ''',
    "strategy.py": """
        from isodyn.strategies import Modifier, Strategy, register_base, register_modifier


        @register_base
        class Echo(Strategy):
            name = "echo"
            summary = "the question as the only message (a third-party strategy)"
            source = "a test"

            async def run(self, variant, representation, ask, ctx):
                return await ask([{"role": "user", "content": representation.text}], "answer")


        @register_modifier
        class Shout(Modifier):
            name = "shout"
            summary = "upper-cases the question (a third-party modifier)"
            source = "a test"
            nesting = 50

            async def run(self, variant, representation, ask, ctx, inner):
                return await inner(variant, representation, ask)
    """,
    "grading.py": '''
        from isodyn.scoring import Score
        from isodyn.scoring.graders import grader


        @grader("lenient")
        def lenient(reply, question):
            """Right whenever the truth occurs in the reply (a third-party grader)."""
            found = question.truth in str(reply)
            return Score(found, question.truth if found else None, "ok", "substring", grader="lenient")
    ''',
    "metric.py": '''
        from isodyn.analysis.sections import Section


        def reply_count(inputs):
            """How many replies the run holds (a third-party metric, named by its entry point)."""
            return Section()
    ''',
    "dataset.py": """
        from isodyn.datasets.kinds import DATASETS, DatasetKind


        def load(path, keys):
            return {}


        def describe(path):
            return []


        DOTS = DatasetKind("dots", "counting puzzles in a folder (third-party)", 2, load, describe)
        DATASETS.add("dots", DOTS)
    """,
}

ENTRY_POINTS = {
    "isodyn.seeds": f"dots = {PACKAGE}.seed",  # a module: its import registers the seed
    "isodyn.strategies": f"echo = {PACKAGE}.strategy",
    "isodyn.modifiers": f"shout = {PACKAGE}.strategy",
    "isodyn.graders": f"lenient = {PACKAGE}.grading",
    "isodyn.metrics": f"reply-count = {PACKAGE}.metric:reply_count",  # an object: registered as itself
    "isodyn.datasets": f"dots = {PACKAGE}.dataset",
}


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A throwaway installed distribution declaring an entry point of every group, found by
    importlib.metadata; every registry rediscovers within the test and forgets it afterwards."""
    site = tmp_path / "site"
    package = site / PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in MODULES.items():
        (package / name).write_text(textwrap.dedent(text))
    info = site / f"{PACKAGE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "".join(f"[{group}]\n{line}\n\n" for group, line in ENTRY_POINTS.items())
    )
    kinds = [kind for kind in KINDS if kind != "datasets" or _has_module(DATASETS_MODULE)]
    try:
        with ExitStack() as stack:
            for kind in kinds:  # entered before the distribution is on the path (see `rediscovered`)
                stack.enter_context(registry_of(kind).rediscovered())
            monkeypatch.syspath_prepend(str(site))
            yield
    finally:
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_a_third_party_package_adds_entries_through_entry_points(third_party, run_cli) -> None:
    from isodyn.generators import get_seed

    seed = get_seed("thirdparty_dots")
    variant = seed.variant(4)
    assert variant.question in seed.representation(variant, Modality.LATEX).text
    assert registry_of("seeds").entry("thirdparty_dots").summary == (
        "arithmetic: A counting seed from another package: how many dots?"
    )
    assert parse_strategy("shout+echo").name == "shout+echo"
    assert list(registry_of("graders"))[-1] == "lenient"  # no order given: after the built-in graders
    assert score("I count 7", "7", "int", grader="lenient").correct
    metric = registry_of("metrics").entry("reply-count")
    assert (metric.defined_in, metric.order) == (f"{PACKAGE}.metric", LATE)
    for kind, name in [
        ("seeds", "thirdparty_dots"),
        ("strategies", "echo"),
        ("modifiers", "shout"),
        ("graders", "lenient"),
        ("metrics", "reply-count"),
    ]:
        assert registry_of(kind).entry(name).defined_in.startswith(PACKAGE)
        assert name in first_cells(run_cli("list", kind).out), kind


@NO_DATASETS
def test_a_third_party_package_adds_a_dataset_kind(third_party, run_cli) -> None:
    entry = registry_of("datasets").entry("dots")
    assert (entry.summary, entry.defined_in) == (
        "counting puzzles in a folder (third-party)",
        f"{PACKAGE}.dataset",
    )
    listed = run_cli("list", "datasets").out
    assert "dots" in first_cells(listed)
    row = next(line for line in listed.splitlines() if line.startswith("│ dots: "))
    assert row.split("│")[3].strip() == "2"  # its default number of variants


def test_nothing_from_the_throwaway_package_outlives_its_test() -> None:
    # Runs after the tests above (file order): the registries hold only what they held before.
    from isodyn.generators import all_seeds

    assert "thirdparty_dots" not in all_seeds()
    assert "echo" not in registry_of("strategies") and "shout" not in registry_of("modifiers")
    assert "lenient" not in registry_of("graders") and "reply-count" not in registry_of("metrics")
    assert not any(name.startswith(PACKAGE) for name in sys.modules)
