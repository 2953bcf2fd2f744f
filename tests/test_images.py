"""The shared PNG renderer: drawn once, cropped to the ink, never cut off, deterministic."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Circle
from PIL import Image

from isodyn.core import Modality
from isodyn.generators import all_seeds
from isodyn.modalities.images import PAD_PX, add_axes, blank_axes, content_box, new_figure, render_png
from isodyn.testing.stock_drawing import stock_matplotlib


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_content_box_finds_the_ink() -> None:
    rgba = np.full((40, 50, 4), 255, dtype=np.uint8)
    assert content_box(rgba) is None
    rgba[7:12, 20:31, 0] = 0
    assert content_box(rgba) == (7, 12, 20, 31)


def test_render_png_crops_to_the_drawing_with_a_white_border() -> None:
    def draw(ax):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_axis_off()
        ax.add_patch(Circle((0.5, 0.5), 0.25, color="black"))

    png = render_png(draw, size=(4, 4), dpi=50, min_px=(0, 0))
    img = pixels(png)
    ink = (img != 255).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    assert rows[0] == PAD_PX and cols[0] == PAD_PX
    assert img.shape[0] - 1 - rows[-1] == PAD_PX and img.shape[1] - 1 - cols[-1] == PAD_PX
    assert abs(img.shape[0] - (100 + 2 * PAD_PX)) <= 2  # the circle is 2 in = 100 px across
    assert png == render_png(draw, size=(4, 4), dpi=50, min_px=(0, 0))


def test_render_png_keeps_text_far_outside_the_axes() -> None:
    """Ink beyond the spare room falls back to tight_layout, which pulls it into the picture."""

    def draw(ax):
        ax.plot([0, 1], [0, 1], color="black")
        ax.text(0.0, 0.5, "FAR LEFT LABEL", transform=ax.transAxes, ha="right", fontsize=20, color="red")

    img = pixels(render_png(draw, size=(4, 3), dpi=50, min_px=(0, 0)))
    assert img.shape[:2] == (150, 200)  # the fallback: the whole figure at its own size, uncropped
    red = (img[:, :, 0] > 200) & (img[:, :, 1] < 80) & (img[:, :, 2] < 80)
    cols = np.flatnonzero(red.any(axis=0))
    assert cols.size and cols[0] > 0  # the label's first letter is inside the picture


def test_drawing_axes_still_autoscale_while_limits_are_free() -> None:
    fig = new_figure((3, 3), 50)
    ax = add_axes(fig, (0.1, 0.1, 0.8, 0.8))
    ax.add_patch(Circle((10, 20), 1))
    ax.autoscale_view()
    assert ax.get_xlim()[0] <= 9 and ax.get_xlim()[1] >= 11
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.add_patch(Circle((50, 50), 1))
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)


# ------------------------------------------------------------------ one reused tick, shared renderer


def stock_and_ours(render: Callable[[], bytes]) -> tuple[bytes, bytes]:
    ours = render()
    with stock_matplotlib():
        stock = render()
    return stock, ours


def tick_heavy_drawings() -> dict[str, Callable[[Axes], None]]:
    """Axis features the one-tick axis must reproduce: minor ticks, tick_params, offsets, log scale,
    labels on top and right, inverted and shared-looking axes, fixed labels with styles."""

    def minor_and_params(ax: Axes) -> None:
        ax.plot([0, 10], [0, 3])
        ax.minorticks_on()
        ax.tick_params(which="major", direction="in", length=7, labelsize=13, colors="tab:red")
        ax.tick_params(which="minor", direction="inout", length=4, color="tab:blue")
        ax.grid(True, which="both", lw=0.4)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("height (m)")

    def offset_and_log(ax: Axes) -> None:
        ax.plot([1e6, 1e6 + 5], [1, 1000])
        ax.set_yscale("log")
        ax.set_title("offset text and a log scale")

    def top_right_inverted(ax: Axes) -> None:
        ax.plot([-3, 4], [2, -8])
        ax.xaxis.tick_top()
        ax.yaxis.tick_right()
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("x on top")
        ax.invert_yaxis()
        ax.tick_params(labelbottom=True, labelleft=True, bottom=True, left=True)

    def fixed_labels(ax: Axes) -> None:
        ax.bar(range(4), [3, 1, 4, 1])
        ax.set_xticks(range(4), ["north", "east", "south", "west"], rotation=30, fontsize=9, color="0.3")
        ax.set_yticks([0, 2, 4], ["none", "two", "four"], fontweight="bold")
        for label in ax.get_yticklabels():
            label.set_bbox({"facecolor": "yellow", "edgecolor": "none"})

    return {f.__name__: f for f in (minor_and_params, offset_and_log, top_right_inverted, fixed_labels)}


@pytest.mark.parametrize("name", sorted(tick_heavy_drawings()))
def test_one_tick_axis_draws_what_matplotlib_draws(name: str) -> None:
    draw = tick_heavy_drawings()[name]
    stock, ours = stock_and_ours(lambda: render_png(draw, size=(4, 3), dpi=60))
    assert np.array_equal(pixels(stock), pixels(ours))


def test_every_seed_draws_what_stock_matplotlib_draws() -> None:
    seeds = all_seeds()
    variants = {seed_id: seed.variant(1, 0) for seed_id, seed in seeds.items()}

    def render_all() -> bytes:
        return b"".join(
            hashlib.sha256(seeds[s].render(v, Modality.IMAGE).image_png or b"").digest()
            for s, v in variants.items()
        )

    stock, ours = stock_and_ours(render_all)
    digest = len(hashlib.sha256().digest())
    differ = [
        s
        for k, s in enumerate(variants)
        if stock[k * digest : (k + 1) * digest] != ours[k * digest : (k + 1) * digest]
    ]
    assert differ == []


def test_a_shared_renderer_starts_every_figure_blank() -> None:
    def dot(x: float) -> Callable[[Axes], None]:
        def draw(ax: Axes) -> None:
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1)
            ax.set_axis_off()
            ax.add_patch(Circle((x, 0.5), 0.05, color="black"))

        return draw

    first, second = (
        pixels(render_png(dot(0.2), size=(4, 2), dpi=50, min_px=(0, 0))),
        pixels(render_png(dot(0.8), size=(4, 2), dpi=50, min_px=(0, 0))),
    )
    assert first.shape == second.shape  # each cropped to its own single dot
    assert np.array_equal(first, second)  # and nothing of the first figure in the second


def test_blank_axes_are_independent() -> None:
    first = blank_axes((3, 3), 40, (0.1, 0.1, 0.8, 0.8))
    first.plot([0, 1], [0, 1])
    first.set_title("used")
    second = blank_axes((3, 3), 40, (0.1, 0.1, 0.8, 0.8))
    assert second is not first and second.figure is not first.figure
    assert not second.lines and second.get_title() == ""


def test_function_plot_labels_sit_above_the_curves_and_the_grid_below() -> None:
    """Axes through the origin put tick labels inside the plot: a curve must pass under them, the grid
    under the curve, and only one 0 may name the origin (issue 18)."""
    from isodyn.modalities.functions import style_function_axes

    ax = blank_axes((5, 4), 100, (0.1, 0.1, 0.8, 0.8))
    style_function_axes(ax, (-5.0, 5.0), (-4.0, 4.0))
    (curve,) = ax.plot([-5, 5], [-0.3, -0.3], linewidth=2, zorder=3)  # as high as a seed draws a curve
    (dot,) = ax.plot([0], [-1], "o", zorder=4)  # an endpoint whose open or filled dot must show
    grid = [line for line in ax.get_lines() if line not in (curve, dot)]
    assert grid and max(line.get_zorder() for line in grid) < curve.get_zorder()
    for axis in (ax.xaxis, ax.yaxis):
        assert curve.get_zorder() < axis.get_zorder() < dot.get_zorder()
    assert all(label.get_path_effects() for label in ax.get_xticklabels() + ax.get_yticklabels())
    y_formatter = ax.yaxis.get_major_formatter()
    y_formatter.set_locs(list(ax.get_yticks()))
    assert y_formatter(0.0) == "" and y_formatter(2.0) == "2"
