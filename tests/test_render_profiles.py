"""Render profiles (issue 41): every seed draws under every built-in profile, the picture changes
and is not blank, and what it shows (every label and value drawn) stays the same; the default
profile is today's picture byte for byte; profiles come from isodyn.toml too; the render cache
keeps a profile's picture and derives a pixel-only one without drawing again."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from isodyn.cache.renders import RenderCache
from isodyn.core import Modality, Representation, Variant
from isodyn.errors import ConfigError
from isodyn.generators import all_seeds
from isodyn.generators.base import SeedProgram
from isodyn.modalities import pixels
from isodyn.modalities.images import content_box
from isodyn.modalities.profiles import (
    DEFAULT_PROFILE,
    RENDERS,
    RenderProfile,
    config_files,
    derive,
    profiles_from_settings,
    represent_under,
    resolve_profiles,
    user_render_profiles,
)
from isodyn.modalities.recolor import colorblind_map
from isodyn.modalities.style import recording_texts

VARIANTS = (0, 1)  # a couple of variants per seed keeps the whole matrix near a minute per core
PROFILES = [name for name in RENDERS if name != "default"]


def rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def ink_fraction(image: np.ndarray) -> float:
    """The share of pixels clearly darker than white (a blank or washed-out picture has ~none)."""
    return float((image.min(axis=2) < 235).mean())


@dataclass(frozen=True)
class Drawn:
    png: bytes
    texts: tuple[str, ...]  # every string the final drawing put on the canvas, sorted


def draw(seed: SeedProgram, variant: Variant, profile: RenderProfile | None) -> Drawn:
    """The seed's picture (under `profile`, or plainly with None) and the strings it drew; a glyph
    missing from a profile's font (a box instead of the letter) fails the test."""

    def make() -> Representation:
        return seed.representation(variant, Modality.IMAGE)

    with warnings.catch_warnings(record=True) as caught, recording_texts() as drawings:
        warnings.simplefilter("always")
        rep = make() if profile is None else represent_under(profile, make)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert not missing, (seed.seed_id, missing)
    assert rep.image_png is not None
    return Drawn(rep.image_png, tuple(sorted(drawings[-1])) if drawings else ())


@cache
def image_seeds() -> dict[str, SeedProgram]:
    return {sid: seed for sid, seed in all_seeds().items() if Modality.IMAGE in seed.modalities}


@cache
def plain_pictures() -> dict[tuple[str, int], Drawn]:
    """Every image seed's variants drawn with no profile at all, as every run drew them before."""
    return {
        (sid, index): draw(seed, seed.variant(index), None)
        for sid, seed in image_seeds().items()
        for index in VARIANTS
    }


def test_every_built_in_profile_is_registered_and_there_are_at_least_six() -> None:
    assert len(PROFILES) >= 6
    assert next(iter(RENDERS)) == "default" and RENDERS["default"] is DEFAULT_PROFILE
    assert all(RENDERS[name].name == name for name in RENDERS)
    assert sum(not RENDERS[name].needs_redraw for name in PROFILES) >= 3  # cheap ones exist


def test_the_default_profile_draws_every_seed_byte_for_byte_as_before() -> None:
    assert len(image_seeds()) >= 50
    for (sid, index), plain in plain_pictures().items():
        seed = image_seeds()[sid]
        under_default = draw(seed, seed.variant(index), DEFAULT_PROFILE)
        assert under_default == plain, sid
    # the same choices under another name are the default too
    for (sid, index), plain in list(plain_pictures().items())[:6]:
        seed = image_seeds()[sid]
        assert draw(seed, seed.variant(index), replace(DEFAULT_PROFILE, name="plain")).png == plain.png


def _unchanged_is_allowed(profile: RenderProfile, plain: Drawn) -> bool:
    """A profile may leave a picture as it was only when it has nothing in it to act on."""
    image = rgb(plain.png)
    if profile.font_family is not None or profile.font_scale != 1:
        return not plain.texts  # no text to restyle
    if profile.palette == "gray":
        return bool((image.min(axis=2) == image.max(axis=2)).all())  # already gray
    if profile.palette == "colorblind":
        shades = [tuple(int(h[i : i + 2], 16) for i in (1, 3, 5)) for h in colorblind_map()]
        packed = image.astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.uint32)
        wanted = np.array([(r << 16) | (g << 8) | b for r, g, b in shades], dtype=np.uint32)
        return not np.isin(packed, wanted).any()  # none of the named colours it remaps
    return False


@pytest.mark.parametrize("name", PROFILES)
def test_every_seed_draws_under_the_profile_changed_not_blank_and_showing_the_same(name: str) -> None:
    profile = RENDERS[name]
    unchanged = []
    for (sid, index), plain in plain_pictures().items():
        seed = image_seeds()[sid]
        if profile.needs_redraw:
            drawn = draw(seed, seed.variant(index), profile)
        else:  # pixels only: the default drawing's strings (derive equals drawing: tested below)
            default = Representation(Modality.IMAGE, "", plain.png)
            drawn = Drawn(derive(profile, default).image_png or b"", plain.texts)
        image = rgb(drawn.png)
        opaque = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
        assert content_box(np.ascontiguousarray(opaque)) is not None, sid
        assert ink_fraction(image) > 0.002, (sid, ink_fraction(image))
        # fidelity: the labels and values drawn are the default drawing's, every one of them
        assert drawn.texts == plain.texts, (sid, set(drawn.texts) ^ set(plain.texts))
        if drawn.png == plain.png:
            assert _unchanged_is_allowed(profile, plain), (sid, index)
            unchanged.append(sid)
        if profile.font_family is None and profile.font_scale == 1:  # (text moves the crop)
            # the resolution choices: the picture's width follows them (within the crop's border
            # of fixed pixels and `render_png`'s rounding of a small picture's resolution)
            plain_w = rgb(plain.png).shape[1]
            expected = plain_w * profile.downscale * profile.dpi_scale
            assert abs(image.shape[1] - expected) <= 2 + 0.06 * expected, (sid, image.shape, plain_w)
    assert len(unchanged) < len(plain_pictures()) / 2, unchanged  # the profile does act, mostly


@pytest.mark.parametrize("sid", ["dynamath_bar_extreme", "dynamath_reflect_point", "isobench_chess_winner"])
def test_a_pixel_only_profile_derived_from_the_default_picture_equals_drawing_it(sid: str) -> None:
    index, plain = 1, plain_pictures()[(sid, 1)]
    default = Representation(Modality.IMAGE, "question", plain.png)
    seed = image_seeds()[sid]
    for name in PROFILES:
        profile = RENDERS[name]
        if profile.needs_redraw:
            with pytest.raises(ValueError, match="changes the drawing"):
                derive(profile, default)
            continue
        derived = derive(profile, default)
        assert derived.text == "question" and derived.image_png != plain.png
        assert derived.image_png == draw(seed, seed.variant(index), profile).png


def test_a_restyled_figure_leaks_into_no_later_default_drawing() -> None:
    """The blank axes are unpickled from a cached template and renderers are shared: drawing under
    a profile first must leave the next default drawing exactly as it was."""
    for sid in list(image_seeds())[:8]:
        seed, plain = image_seeds()[sid], plain_pictures()[(sid, 0)]
        for name in ("bigfont", "serif", "thinlines", "colorblind", "hires"):
            draw(seed, seed.variant(0), RENDERS[name])
            assert draw(seed, seed.variant(0), None) == plain, (sid, name)


def test_text_is_untouched_by_every_profile() -> None:
    seed = next(iter(image_seeds().values()))
    variant = seed.variant(0)
    text = seed.representation(variant, Modality.IMAGE).text
    for name in PROFILES:
        drawn = represent_under(RENDERS[name], lambda: seed.representation(variant, Modality.IMAGE))
        assert drawn.text == text


# --- pixel choices --------------------------------------------------------------------------------


def test_pixel_choices_keep_white_white_and_are_deterministic() -> None:
    png = plain_pictures()[next(iter(plain_pictures()))].png
    for name in ("lowcontrast", "gray", "blur", "lowres"):
        out = pixels.post_process(RENDERS[name], png)
        assert out == pixels.post_process(RENDERS[name], png)
        assert rgb(out)[0, 0].tolist() == [255, 255, 255], name  # the white border stays white
    assert pixels.post_process(RENDERS["jpeg"], png) == pixels.post_process(RENDERS["jpeg"], png)
    faded = rgb(pixels.post_process(RENDERS["lowcontrast"], png))
    assert 255 - round(255 * pixels.LOW_CONTRAST) - 1 <= faded.min() < 200
    capped = rgb(pixels.post_process(RenderProfile("cap", max_px=100), png))
    assert max(capped.shape[:2]) == 100


# --- the digest -----------------------------------------------------------------------------------


def test_the_digest_covers_every_choice_and_not_the_name() -> None:
    digests = {RENDERS[name].digest for name in RENDERS}
    assert len(digests) == len(RENDERS)  # every built-in draws differently
    assert RenderProfile("x", blur=1.2).digest == RENDERS["blur"].digest  # choices, not the name
    assert RenderProfile("x", font_scale=1).digest == DEFAULT_PROFILE.digest  # 1 and 1.0: one choice
    changed: dict[str, Any] = {
        "dpi_scale": 2.0,
        "downscale": 0.5,
        "max_px": 300,
        "font_family": "DejaVu Serif",
        "font_scale": 1.1,
        "line_scale": 2.0,
        "palette": "gray",
        "jpeg_quality": 50,
        "blur": 0.5,
    }
    assert set(changed) == {f.name for f in fields(RenderProfile)} - {"name"}
    one_each = {RenderProfile("x", **{key: value}).digest for key, value in changed.items()}
    assert len(one_each) == len(changed) and DEFAULT_PROFILE.digest not in one_each
    assert all(len(d) == 12 and int(d, 16) >= 0 for d in digests)


def test_the_digest_is_the_same_in_another_process() -> None:
    script = "from isodyn.modalities.profiles import RENDERS; print(*(p.digest for p in RENDERS.values()))"
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert other.stdout.split() == [p.digest for p in RENDERS.values()]
    assert DEFAULT_PROFILE.digest == "c9a3927d8702"  # a change here re-keys every cached profile picture


def test_bad_choices_are_refused() -> None:
    bad: list[dict[str, Any]] = [
        {"palette": "sepia"},
        {"blur": -1},
        {"jpeg_quality": 0},
        {"font_scale": "big"},
        {"max_px": 2.5},
    ]
    for choice in bad:
        with pytest.raises(ValueError, match="render profile 'x'"):
            RenderProfile("x", **choice)
    with pytest.raises(ValueError, match="font_family"):
        RenderProfile("x", font_family="No Such Font 9000")


# --- isodyn.toml ----------------------------------------------------------------------------------

USER_TOML = """
[models]
mine = "openai/mine"

[renders.tiny]
downscale = 0.4
palette = "gray"

[renders.mono]
font_family = "DejaVu Sans Mono"
line_scale = 2
"""


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project: str, user: str = "") -> Path:
    home = tmp_path / "xdg"
    (home / "isodyn").mkdir(parents=True)
    (home / "isodyn" / "isodyn.toml").write_text(user)
    project_dir = tmp_path / "project"
    project_dir.mkdir()
    (project_dir / "isodyn.toml").write_text(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.chdir(project_dir)
    return project_dir / "isodyn.toml"


def test_the_same_files_as_model_aliases_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from isodyn.models.aliases import config_files as alias_files

    _config(tmp_path, monkeypatch, "")
    assert config_files() == alias_files()


def test_a_profile_from_isodyn_toml_is_resolved_and_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    user = "[renders.tiny]\nblur = 3\n[renders.soft]\nblur = 2\n"
    _config(tmp_path, monkeypatch, USER_TOML, user=user)
    found = user_render_profiles()
    assert set(found) == {"tiny", "mono", "soft"}
    assert found["tiny"] == RenderProfile("tiny", downscale=0.4, palette="gray")  # the project's wins
    tiny, gray = resolve_profiles(["tiny", "gray"])
    assert tiny.downscale == 0.4 and gray is RENDERS["gray"]
    with pytest.raises(ConfigError, match=r"unknown render profile 'nope'; valid: default, .*tiny"):
        resolve_profiles(["default", "nope"])

    done = run_cli("list", "renders")
    assert done.code == 0, done.err
    rows = {line.split("│")[1].strip(): line for line in done.out.splitlines() if line.count("│") > 2}
    assert {"default", "serif", "tiny", "mono", "soft"} <= set(rows)
    assert tiny.digest in rows["tiny"] and "built-in" in rows["serif"] and "built-in" not in rows["tiny"]
    assert "isodyn.toml" in done.out  # each user profile's row names the file that defined it

    seed = next(iter(image_seeds().values()))
    drawn = represent_under(tiny, lambda: seed.representation(seed.variant(0), Modality.IMAGE))
    image = rgb(drawn.image_png or b"")
    assert (image.min(axis=2) == image.max(axis=2)).all()  # gray, as the file says


def test_a_bad_key_in_isodyn_toml_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    _config(tmp_path, monkeypatch, "[renders.mine]\nfont_size = 2\n")
    done = run_cli("list", "renders")
    assert done.code == 2
    assert len(done.lines) == 1, done.err
    assert "renders.mine.font_size is not a render choice" in done.err and "font_scale" in done.err
    with pytest.raises(ConfigError, match=r"isodyn\.toml: renders\.mine\.font_size"):
        resolve_profiles(["default"])


def test_settings_are_parsed_without_reading_a_file() -> None:
    parsed = profiles_from_settings({"renders": {"big": {"font_scale": 1.5, "jpeg_quality": 40}}})
    assert parsed == {"big": RenderProfile("big", font_scale=1.5, jpeg_quality=40)}
    assert profiles_from_settings({"models": {}}) == {}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"renders": {"gray": {"blur": 1}}}, "renders.gray: 'gray' is a built-in profile"),
        ({"renders": {"x": {"blur": "lots"}}}, "renders.x.blur must be a number"),
        ({"renders": {"x": {"palette": "sepia"}}}, "renders.x.palette must be one of default, gray"),
        ({"renders": {"x": 3}}, "renders.x must be a table"),
        ({"renders": {"Bad Name": {}}}, "renders.Bad Name: a profile's name"),
        ({"renders": 3}, r"\[renders\] must hold one table per profile"),
    ]
    for document, said in cases:
        with pytest.raises(ConfigError, match=said):
            profiles_from_settings(document)


# --- the render cache -----------------------------------------------------------------------------


def _counting(seed: SeedProgram, monkeypatch: pytest.MonkeyPatch) -> list[Modality]:
    calls: list[Modality] = []
    render = seed.render

    def counted(variant: Variant, modality: Modality) -> Representation:
        calls.append(modality)
        return render(variant, modality)

    monkeypatch.setattr(seed, "render", counted)
    return calls


def test_the_render_cache_keeps_each_profile_and_derives_pixel_only_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = next(s for s in image_seeds().values() if s.memoizable)
    variant = seed.variant(0)
    calls = _counting(seed, monkeypatch)
    cache = RenderCache(tmp_path / "renders")
    default = cache.representation(seed, variant, Modality.IMAGE)
    assert len(calls) == 1 and default.image_png == plain_pictures()[(seed.seed_id, 0)].png

    gray = cache.representation(seed, variant, Modality.IMAGE, RENDERS["gray"])
    jpeg = cache.representation(seed, variant, Modality.IMAGE, RENDERS["jpeg"])
    assert len(calls) == 1  # derived from the kept default picture, not drawn again
    assert gray.image_png == derive(RENDERS["gray"], default).image_png != default.image_png
    serif = cache.representation(seed, variant, Modality.IMAGE, RENDERS["serif"])
    assert len(calls) == 2 and serif.image_png not in (default.image_png, gray.image_png)
    text_modality = next(m for m in seed.modalities if m is not Modality.IMAGE)
    written = cache.representation(seed, variant, text_modality, RENDERS["serif"])
    assert written == cache.representation(seed, variant, text_modality)  # text ignores profiles
    assert len(calls) == 3
    cache.close()

    again = RenderCache(tmp_path / "renders")  # another process: everything replays, nothing drawn
    for profile, before in ((RENDERS["serif"], serif), (RENDERS["gray"], gray), (RENDERS["jpeg"], jpeg)):
        assert again.representation(seed, variant, Modality.IMAGE, profile) == before
    renamed = replace(RENDERS["serif"], name="s2")  # the same choices: the same picture, kept once
    assert again.representation(seed, variant, Modality.IMAGE, renamed) == serif
    assert len(calls) == 3
    again.close()


def test_a_default_picture_keeps_its_key_from_before_profiles(tmp_path: Path) -> None:
    import diskcache

    seed = next(s for s in image_seeds().values() if s.memoizable)
    cache = RenderCache(tmp_path / "renders")
    cache.representation(seed, seed.variant(0), Modality.IMAGE)
    cache.representation(seed, seed.variant(0), Modality.IMAGE, RENDERS["blur"])
    cache.close()
    with diskcache.Cache(str(tmp_path / "renders")) as store:
        keys = [str(k) for k in store.iterkeys() if str(k).startswith(seed.seed_id)]
    assert len(keys) == 2
    assert sum(k.endswith(f"|render:{RENDERS['blur'].digest}") for k in keys) == 1
    plain = [k for k in keys if "render:" not in k]
    assert len(plain) == 1 and plain[0].split("|")[2] == "image" and len(plain[0].split("|")) == 4
