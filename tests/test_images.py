"""The shared PNG renderer: drawn once, cropped to the ink, never cut off, deterministic."""

from __future__ import annotations

import io

import numpy as np
from matplotlib.patches import Circle
from PIL import Image

from isodyn.modalities.images import PAD_PX, add_axes, content_box, new_figure, render_png


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

    png = render_png(draw, size=(4, 4), dpi=50)
    img = pixels(png)
    ink = (img != 255).any(axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    assert rows[0] == PAD_PX and cols[0] == PAD_PX
    assert img.shape[0] - 1 - rows[-1] == PAD_PX and img.shape[1] - 1 - cols[-1] == PAD_PX
    assert abs(img.shape[0] - (100 + 2 * PAD_PX)) <= 2  # the circle is 2 in = 100 px across
    assert png == render_png(draw, size=(4, 4), dpi=50)


def test_render_png_keeps_text_far_outside_the_axes() -> None:
    """Ink beyond the spare room falls back to tight_layout, which pulls it into the picture."""

    def draw(ax):
        ax.plot([0, 1], [0, 1], color="black")
        ax.text(0.0, 0.5, "FAR LEFT LABEL", transform=ax.transAxes, ha="right", fontsize=20, color="red")

    img = pixels(render_png(draw, size=(4, 3), dpi=50))
    assert img.shape[:2] == (150, 200)  # the fallback: the whole figure at its own size, uncropped
    red = (img[:, :, 0] > 200) & (img[:, :, 1] < 80) & (img[:, :, 2] < 80)
    cols = np.flatnonzero(red.any(axis=0))
    assert cols.size and cols[0] > 0  # the label's first letter is inside the picture


def test_fixed_limits_axes_still_autoscale_while_limits_are_free() -> None:
    fig = new_figure((3, 3), 50)
    ax = add_axes(fig, (0.1, 0.1, 0.8, 0.8))
    ax.add_patch(Circle((10, 20), 1))
    ax.autoscale_view()
    assert ax.get_xlim()[0] <= 9 and ax.get_xlim()[1] >= 11
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.add_patch(Circle((50, 50), 1))
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)
