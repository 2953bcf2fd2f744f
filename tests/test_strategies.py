"""What each strategy sends, how strategies compose, and the controls around them."""

import json
import os
from pathlib import Path

import pytest

from isodyn.core import DEMO_INDEX_START, AnswerType, Modality
from isodyn.generators import all_seeds
from isodyn.generators.base import format_choices
from isodyn.strategies import ModelFacts, StrategyError, parse_strategy
from isodyn.strategies.modifiers import majority, rotate_choices, vote_key
from strategy_harness import image_count, run_strategy, text_of

SNAPSHOTS = Path(__file__).parent / "snapshots" / "strategy_messages.json"
IMAGE, LATEX = Modality.IMAGE, Modality.LATEX

# (label, spec, seed, variant index, modality, repeat)
CASES = [
    ("zeroshot-image", "zeroshot", "isobench_parity", 0, IMAGE, 0),
    ("zeroshot-latex", "zeroshot", "isobench_parity", 0, LATEX, 0),
    ("cot3-image", "cot3", "isobench_connectivity", 1, IMAGE, 0),
    ("antimem+cot3-image", "antimem+cot3", "isobench_connectivity", 1, IMAGE, 0),
    ("antimem-latex", "antimem", "dynamath_shifted_abs", 2, LATEX, 0),
    ("isosp-image", "isosp", "isobench_connectivity", 1, IMAGE, 0),
    ("isocb-image", "isocb", "isobench_parity", 3, IMAGE, 0),
    ("variantdemo-latex", "variantdemo", "isobench_parity", 3, LATEX, 0),
    ("selfdemo-latex", "selfdemo", "isobench_parity", 3, LATEX, 0),
    ("permute-latex-r1", "permute", "isobench_parity", 3, LATEX, 1),
    ("sc@3-latex", "sc@3", "dynamath_shifted_abs", 0, LATEX, 0),
]


def produced() -> dict:
    return {
        label: run_strategy(spec, seed, index, modality, repeat).calls
        for label, spec, seed, index, modality, repeat in CASES
    }


def test_messages_match_snapshots() -> None:
    """Messages for fixed variants, images as hashes. Regenerate with UPDATE_SNAPSHOTS=1 and review."""
    current = produced()
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.write_text(json.dumps(current, indent=1, ensure_ascii=False) + "\n")
    assert current == json.loads(SNAPSHOTS.read_text())


def test_zeroshot_carries_dynamath_wording_and_image_first() -> None:
    (call,) = run_strategy("zeroshot", "isobench_parity", 0, IMAGE).calls
    (message,) = call["messages"]
    assert message["content"][0]["type"] == "image_url"
    assert message["content"][0]["image_url"]["url"].startswith("sha256:")
    text = text_of(message)
    assert "just provide the corresponding choice option, such as 'A', 'B', 'C', or 'D'." in text
    assert "which includes two keys: 'solution' and 'short answer'" in text


def test_cot3_layout_demo_images_first_question_image_last() -> None:
    captured = run_strategy("cot3", "isobench_connectivity", 1, IMAGE)
    (call,) = captured.calls
    (message,) = call["messages"]
    demos = captured.ctx.notes["demos"]
    assert len(demos) == 3 and len(set(demos)) == 3
    assert image_count(message) == 4
    question_png = all_seeds()["isobench_connectivity"].representation(
        all_seeds()["isobench_connectivity"].variant(1), IMAGE
    )
    import hashlib

    last = message["content"][3]["image_url"]["url"]
    assert last == "sha256:" + hashlib.sha256(question_png.image_png).hexdigest()
    text = text_of(message)
    assert text.startswith("Please answer the question based on the last image.")
    assert text.count("Let's think this step by step:") == 3
    assert "Now please answer the following question based on the last image:" in text


def test_demonstrations_never_evaluation_variants_and_draw_is_seeded() -> None:
    seen = set()
    for seed_id, seed in all_seeds().items():
        modality = next(m for m in seed.modalities if m is not IMAGE) if len(seed.modalities) > 1 else IMAGE
        for index in range(12):
            demos = run_strategy("cot3", seed_id, index, modality).ctx.notes["demos"]
            again = run_strategy("cot3", seed_id, index, modality).ctx.notes["demos"]
            assert demos == again
            assert all(int(d.rsplit("/", 1)[1]) >= DEMO_INDEX_START for d in demos)
            seen.add(tuple(demos))
    assert len(seen) > 3  # the seeded draw does vary between questions
    from isodyn.errors import ConfigError
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    with pytest.raises(ConfigError, match="variants must be at most"):
        plan_experiment(parse_overrides([f"variants={DEMO_INDEX_START + 1}"]))


def test_variantdemo_uses_same_seed_and_selfdemo_the_question_itself() -> None:
    vd = run_strategy("variantdemo", "isobench_parity", 3, LATEX)
    assert all(d.startswith("isobench_parity/") for d in vd.ctx.notes["demos"])
    sd = run_strategy("selfdemo", "isobench_parity", 3, LATEX)
    assert sd.ctx.notes["demos"] == ["isobench_parity/3"]
    text = text_of(sd.calls[0]["messages"][0])
    question = all_seeds()["isobench_parity"].representation(all_seeds()["isobench_parity"].variant(3), LATEX)
    assert text.count(question.text) == 2  # once as the solved demonstration, once as the question


def test_antimem_system_text_and_task_line() -> None:
    (call,) = run_strategy("antimem+cot3", "isobench_connectivity", 1, IMAGE).calls
    system, user = call["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("You are solving advanced visual math problems")
    assert "Avoid relying on memorized answers, patterns, or shortcuts." in system["content"]
    assert "Focus on reasoning rather than recalling." in text_of(user)
    plain = run_strategy("cot3", "isobench_connectivity", 1, IMAGE).calls[0]["messages"]
    assert len(plain) == 1 and plain[0]["role"] == "user"


def test_isosp_two_steps_second_has_description_and_no_image() -> None:
    captured = run_strategy("isosp", "isobench_connectivity", 1, IMAGE)
    describe, answer = captured.calls
    assert (describe["step"], answer["step"]) == ("describe", "answer")
    assert image_count(describe["messages"][0]) == 1
    assert image_count(answer["messages"][0]) == 0
    assert "DESCRIPTION OF THE IMAGE" in text_of(answer["messages"][0])


def test_isosp_describer_model_and_text_only_solver() -> None:
    describer = ModelFacts("openai/describer", vision=True)
    captured = run_strategy("isosp", "isobench_parity", 0, IMAGE, vision=False, describer=describer)
    assert [c["model"] for c in captured.calls] == ["openai/describer", None]  # None: the cell's model


def test_isocb_carries_image_and_every_text_representation() -> None:
    captured = run_strategy("isocb", "isobench_parity", 3, IMAGE)
    (message,) = captured.calls[0]["messages"]
    assert image_count(message) == 1
    text = text_of(message)
    assert "Representation 2 (LaTeX)" in text and "Representation 3 (code)" in text
    assert "sympy.Symbol" in text and "\\frac" in text
    assert captured.ctx.notes["combined"] == ["latex", "code"]


def test_composition_rules() -> None:
    assert parse_strategy("cot3+antimem").name == "antimem+cot3"
    assert parse_strategy("antimem").name == "antimem+zeroshot"
    assert parse_strategy("sc@5+permute+cot3").name == "permute+sc@5+cot3"
    with pytest.raises(StrategyError, match="combines two base strategies"):
        parse_strategy("cot3+isosp")
    with pytest.raises(StrategyError, match="k >= 2"):
        parse_strategy("sc@1")
    with pytest.raises(StrategyError, match="names permute twice"):
        parse_strategy("permute+permute")
    with pytest.raises(StrategyError, match="unknown strategy 'cott'"):
        parse_strategy("cott")  # `cot` itself names cot3 now (issue 17): a misspelling is still refused
    assert parse_strategy("cot").name == parse_strategy("cot3").name == "cot3"


def test_incompatible_cells_are_skipped_with_reason() -> None:
    from strategy_harness import cell_context

    seeds = all_seeds()
    ctx = cell_context("isobench_parity", 0, LATEX, vision=True)
    variant = seeds["isobench_parity"].variant(0)
    assert parse_strategy("isosp").skip_reason(variant, LATEX, ctx) == "isosp runs only on image cells"
    blind = cell_context("isobench_parity", 0, IMAGE, vision=False)
    assert parse_strategy("cot3").skip_reason(variant, IMAGE, blind) == "model has no vision"
    assert parse_strategy("isosp").skip_reason(variant, IMAGE, blind) == "model has no vision"


def test_majority_vote() -> None:
    assert majority(["A", "B", "B"]) == 1
    assert majority([None, "C", "A", "A", "C"]) == 1  # tie: the first sample with a top answer
    assert majority([None, None]) == 0
    parity = all_seeds()["isobench_parity"].variant(0)
    assert vote_key("(b)", parity) == vote_key("odd", parity) == "B"


def test_self_consistency_samples_and_votes() -> None:
    answers = {0: "A", 1: "B", 2: "B"}
    captured = run_strategy(
        "sc@3",
        "dynamath_shifted_abs",
        0,
        LATEX,
        answer=lambda messages, step, sample: json.dumps({"short answer": answers[sample]}),
    )
    assert sorted(c["sample"] for c in captured.calls) == [0, 1, 2]
    assert captured.ctx.notes["votes"] == ["A", "B", "B"]
    assert json.loads(captured.reply.text)["short answer"] == "B"


def test_option_rotation_remaps_the_answer() -> None:
    for seed in all_seeds().values():
        if seed.answer_type is not AnswerType.MULTIPLE_CHOICE:
            continue
        for index in range(10):
            variant = seed.variant(index)
            right_text = variant.choices["ABCDEFGHIJ".index(variant.answer)]
            for shift in range(len(variant.choices)):
                rotated, order = rotate_choices(variant, shift)
                assert sorted(order) == list(range(len(variant.choices)))
                assert rotated.choices[order.index(variant.choices.index(right_text))] == right_text
                assert rotated.choices["ABCDEFGHIJ".index(rotated.answer)] == right_text
                assert rotated.question.endswith(format_choices(rotated.choices))
                for modality in seed.modalities:
                    if modality is not IMAGE:  # every text rendering shows the new order
                        assert format_choices(rotated.choices) in seed.representation(rotated, modality).text


def test_permute_scores_against_the_rotated_truth() -> None:
    captured = run_strategy("permute", "isobench_parity", 3, LATEX, repeat=1)
    original = all_seeds()["isobench_parity"].variant(3)
    assert captured.ctx.notes["choice_order"] == [1, 2, 0]
    rotated = captured.ctx.scored_variant
    assert rotated.choices == (original.choices[1], original.choices[2], original.choices[0])
    assert format_choices(rotated.choices) in text_of(captured.calls[0]["messages"][0])


def test_each_strategy_declares_the_services_it_reads() -> None:
    from isodyn.strategies import Service

    m, d, p, g = Service.MATERIALS, Service.DESCRIBER, Service.PREPARATION, Service.GRADING
    assert parse_strategy("zeroshot").needs == parse_strategy("antimem").needs == frozenset()
    assert parse_strategy("cot3").needs == parse_strategy("isocb").needs == {m}
    assert parse_strategy("isosp").needs == {d}
    assert parse_strategy("dspy").needs == {m, p}
    # a chain needs what each of its parts needs
    assert parse_strategy("permute+sc@3+antimem+isosp").needs == {m, d, g}


def test_reading_an_undeclared_service_is_a_clear_error() -> None:
    import asyncio

    from isodyn.models.requests import Reply
    from isodyn.strategies import Service, UndeclaredService
    from strategy_harness import cell_context

    cot3 = parse_strategy("cot3")
    variant = all_seeds()["isobench_parity"].variant(0)
    bare = cell_context("isobench_parity", 0, LATEX, needs=frozenset())  # as if cot3 declared nothing
    said = r"no materials service: add Service\.MATERIALS to the `needs`"
    with pytest.raises(UndeclaredService, match=said):
        cot3.skip_reason(variant, LATEX, bare)

    async def ask(messages: list, step: str, *, model: str | None = None, sample: int = 0) -> Reply:
        return Reply(text='{"short answer": "A"}')

    representation = all_seeds()["isobench_parity"].representation(variant, LATEX)
    with pytest.raises(UndeclaredService, match="no grading service"):
        asyncio.run(parse_strategy("sc@3").run(variant, representation, ask, bare))
    # the services declared are there, the others are not
    granted = cell_context("isobench_parity", 0, LATEX, needs=frozenset({Service.DESCRIBER}))
    assert granted.describer.model is None  # no describer= model: the solver describes
    with pytest.raises(UndeclaredService, match="no preparation service"):
        _ = granted.preparation


def test_the_runner_grants_only_the_declared_services(tmp_path: Path) -> None:
    from isodyn.cache import ResponseCache
    from isodyn.cache.renders import RenderCache
    from isodyn.experiments.cells import RunMaterials, cell_context
    from isodyn.experiments.llm import CachedClient, Limits
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides

    plan = plan_experiment(parse_overrides([
        f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "variants=1", "seeds=isobench_parity",
        "modalities=image,latex", "strategies=zeroshot,isosp,permute+sc@3+antimem+cot3,dspy",
    ]))  # fmt: skip
    materials = RunMaterials(plan.seeds, plan.config.base_seed, RenderCache(tmp_path / "renders"))
    client = CachedClient(ResponseCache(tmp_path / "responses"), Limits())
    granted = {}
    for cell in plan.grid.cells:
        services = cell_context(plan, cell, materials, client, tmp_path).services
        granted[cell.strategy] = {name for name, value in vars(services).items() if value is not None}
    assert granted == {
        "zeroshot": set(),
        "isosp": {"describer"},
        "permute+sc@3+antimem+cot3": {"materials", "grading"},
        "dspy": {"materials", "preparation"},
    }
