"""Render profiles: named sets of drawing choices under which every seed's picture can be drawn.

A profile changes how a picture looks (resolution, font, line width, palette, JPEG and blur), never
what it shows: the same labels, values and named colours are drawn under every profile. Drawing-time
choices are applied by one style layer (`style`) that every seed's figure passes through in
`images`, so no seed carries profile code; pixel choices are pure functions on PNG bytes (`pixels`).

Built-ins are registered in `RENDERS` (`exp list renders`); a user adds one in isodyn.toml:

    [renders.tiny]
    downscale = 0.4
    palette = "gray"

or a third-party package registers a `RenderProfile` in the `isodyn.renders` entry-point group.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from isodyn.core import Representation
from isodyn.errors import ConfigError
from isodyn.modalities import pixels, style
from isodyn.modalities.recolor import colorblind_map
from isodyn.registry import Entry, Registry

PALETTES = ("default", "gray", "lowcontrast", "colorblind")
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True)
class RenderProfile:
    """How a picture is drawn: resolution, font, lines, palette and post-processing."""

    name: str
    dpi_scale: float = 1.0  # drawing resolution (text and lines stay the same size in inches)
    downscale: float = 1.0  # pixel size: the drawn picture resized by this factor per side
    max_px: int | None = None  # pixel size: the longer side at most this (as a model API resizes)
    font_family: str | None = None  # None: matplotlib's default (DejaVu Sans)
    font_scale: float = 1.0
    line_scale: float = 1.0
    palette: str = "default"  # one of PALETTES
    jpeg_quality: int | None = None  # a JPEG round trip at this quality (stored as PNG again)
    blur: float = 0.0  # Gaussian blur radius in pixels

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise ValueError(f"render profile {self.name!r}: {problem}")

    def choices(self) -> dict[str, Any]:
        """Every drawing choice (not the name), normalised so equal choices compare equal."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name != "name":
                value = getattr(self, f.name)
                out[f.name] = float(value) if isinstance(value, int | float) and f.type == "float" else value
        return out

    @property
    def digest(self) -> str:
        """12 hex digits of the choices only: equal choices under two names share pictures and keys."""
        text = json.dumps(self.choices(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def is_default(self) -> bool:
        return self.choices() == DEFAULT_CHOICES

    @property
    def removes_color(self) -> bool:
        """A picture under it shows no hue (gray): a question that names a colour cannot be answered
        from it, so such a cell is skipped (`names_a_color`), never graded."""
        return self.palette == "gray"

    @property
    def needs_redraw(self) -> bool:
        """Whether a choice acts while drawing (the style layer); False: the picture is derived from
        the default one's pixels (`derive`), far cheaper than drawing it again."""
        return (
            self.dpi_scale != 1
            or self.font_family is not None
            or self.font_scale != 1
            or self.line_scale != 1
            or self.palette == "colorblind"
        )

    def drawing_style(self) -> style.Style:
        """The drawing-time choices, as the style layer applies them."""
        return style.Style(
            dpi_scale=self.dpi_scale,
            font_family=self.font_family,
            font_scale=self.font_scale,
            line_scale=self.line_scale,
            recolor=colorblind_map() if self.palette == "colorblind" else {},
        )

    def describe(self) -> str:
        """The choices that differ from the default, as one line."""
        said = []
        if self.dpi_scale != 1:
            said.append(f"drawn at {self.dpi_scale:g}x the resolution")
        if self.font_family is not None:
            said.append(f"font {self.font_family}")
        if self.font_scale != 1:
            said.append(f"text x{self.font_scale:g}")
        if self.line_scale != 1:
            said.append(f"lines x{self.line_scale:g}")
        if self.palette != "default":
            said.append(f"palette {self.palette}")
        if self.downscale != 1:
            said.append(f"resized x{self.downscale:g} per side")
        if self.max_px is not None:
            said.append(f"at most {self.max_px} px a side")
        if self.blur:
            said.append(f"blur {self.blur:g} px")
        if self.jpeg_quality is not None:
            said.append(f"JPEG quality {self.jpeg_quality}")
        return "; ".join(said) or "the picture as every seed draws it"


def _problem(p: RenderProfile) -> str | None:
    """What is wrong with a profile's choices, or None."""
    for name in ("dpi_scale", "font_scale", "line_scale"):
        value = getattr(p, name)
        if not _number(value) or not 0.1 <= value <= 8:
            return f"{name} must be a number from 0.1 to 8"
    if not _number(p.downscale) or not 0.05 <= p.downscale <= 1:
        return "downscale must be a number from 0.05 to 1"
    if not _number(p.blur) or not 0 <= p.blur <= 10:
        return "blur must be a number from 0 to 10"
    if p.max_px is not None and (not _integer(p.max_px) or p.max_px < 32):
        return "max_px must be a whole number of at least 32"
    if p.jpeg_quality is not None and (not _integer(p.jpeg_quality) or not 1 <= p.jpeg_quality <= 95):
        return "jpeg_quality must be a whole number from 1 to 95"
    if p.palette not in PALETTES:
        return f"palette must be one of {', '.join(PALETTES)}"
    if p.font_family is not None and not (
        isinstance(p.font_family, str) and style.font_exists(p.font_family)
    ):
        return f"font_family {p.font_family!r} is no font matplotlib finds"
    return None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


DEFAULT_PROFILE = RenderProfile("default")
DEFAULT_CHOICES = DEFAULT_PROFILE.choices()


def _profile_summary(profile: RenderProfile) -> str:
    return profile.describe()


RENDERS: Registry[RenderProfile] = Registry(
    "render profile", group="isodyn.renders", summary=_profile_summary
)

# The built-ins, in the order `exp list renders` shows them.
BUILT_IN = (
    DEFAULT_PROFILE,
    RenderProfile("lowres", downscale=0.5),
    RenderProfile("gray", palette="gray"),
    RenderProfile("lowcontrast", palette="lowcontrast"),
    RenderProfile("colorblind", palette="colorblind"),
    RenderProfile("serif", font_family="DejaVu Serif"),
    RenderProfile("bigfont", font_scale=1.3),
    RenderProfile("thinlines", line_scale=0.5),
    RenderProfile("hires", dpi_scale=1.5),
    RenderProfile("jpeg", jpeg_quality=30),
    RenderProfile("blur", blur=1.2),
)
BUILT_IN_NAMES = frozenset(p.name for p in BUILT_IN)
for _order, _profile in enumerate(BUILT_IN):
    RENDERS.add(_profile.name, _profile, order=_order)


# --- isodyn.toml ----------------------------------------------------------------------------------


def profiles_from_settings(document: Mapping[str, Any]) -> dict[str, RenderProfile]:
    """The profiles of a parsed isodyn.toml's `[renders.NAME]` tables (keys: `RenderProfile`'s
    fields but `name`), or a ConfigError naming the key at fault. Pure: no file is read."""
    table = document.get("renders", {})
    if not isinstance(table, Mapping):
        raise ConfigError("[renders] must hold one table per profile: [renders.NAME]")
    keys = [f.name for f in fields(RenderProfile) if f.name != "name"]
    found: dict[str, RenderProfile] = {}
    for name, choices in table.items():
        where = f"renders.{name}"
        if not (isinstance(name, str) and name and set(name) <= NAME_CHARS):
            raise ConfigError(f"{where}: a profile's name is lowercase letters, digits, - and _")
        if name in BUILT_IN_NAMES:
            raise ConfigError(f"{where}: {name!r} is a built-in profile; give yours another name")
        if not isinstance(choices, Mapping):
            raise ConfigError(f"{where} must be a table of choices: {', '.join(keys)}")
        unknown = sorted(set(choices) - set(keys))
        if unknown:
            raise ConfigError(f"{where}.{unknown[0]} is not a render choice; valid: {', '.join(keys)}")
        try:
            found[name] = RenderProfile(name, **choices)
        except ValueError as exc:  # the message names the choice: "... blur must be ..."
            problem = str(exc).split(": ", 1)[-1]
            raise ConfigError(f"{where}.{problem}") from None
    return found


def config_files() -> list[Path]:
    """The isodyn.toml files read, later ones overriding earlier ones: the same two that model
    aliases read (`models.aliases.config_files`, a floor above this one, so not imported)."""
    home = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "isodyn" / "isodyn.toml"
    return [home, Path.cwd() / "isodyn.toml"]


def user_render_entries(files: Sequence[Path] | None = None) -> list[Entry[RenderProfile]]:
    """The profiles of the isodyn.toml files, each with the file that defined it (a later file's
    profile replaces an earlier one's of the same name)."""
    found: dict[str, Entry[RenderProfile]] = {}
    for path in config_files() if files is None else files:
        if not path.is_file():
            continue
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read it ({exc})") from None
        try:
            profiles = profiles_from_settings(document)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        for name, profile in profiles.items():
            found[name] = Entry(name, profile, profile.describe(), str(path))
    return list(found.values())


def user_render_profiles(files: Sequence[Path] | None = None) -> dict[str, RenderProfile]:
    """The profiles defined in the isodyn.toml files, by name."""
    return {entry.name: entry.value for entry in user_render_entries(files)}


def resolve_profiles(names: Sequence[str], files: Sequence[Path] | None = None) -> tuple[RenderProfile, ...]:
    """The profiles called `names` (registered ones, then isodyn.toml's), in the order given; an
    unknown name is a ConfigError listing the valid ones."""
    known: dict[str, RenderProfile] = {**RENDERS, **user_render_profiles(files)}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(f"unknown render profile {unknown[0]!r}; valid: {', '.join(known)}")
    return tuple(known[name] for name in names)


# --- drawing under a profile ----------------------------------------------------------------------


def represent_under(profile: RenderProfile, make: Callable[[], Representation]) -> Representation:
    """`make()` (a seed's `representation(...)`) drawn under `profile`: its figure restyled while
    drawn, then its PNG post-processed; the text is untouched. The default profile is `make()`."""
    if profile.is_default:
        return make()
    if profile.needs_redraw:
        with style.drawing_under(profile.drawing_style()):
            drawn = make()
    else:
        drawn = make()
    return _post_processed(profile, drawn)


def derive(profile: RenderProfile, default: Representation) -> Representation:
    """The picture of a pixel-only profile (`needs_redraw` False) from the default profile's."""
    if profile.needs_redraw:
        raise ValueError(f"render profile {profile.name!r} changes the drawing: draw it (represent_under)")
    return default if profile.is_default else _post_processed(profile, default)


def _post_processed(profile: RenderProfile, drawn: Representation) -> Representation:
    if drawn.image_png is None:
        return drawn
    return replace(drawn, image_png=pixels.post_process(profile, drawn.image_png))
