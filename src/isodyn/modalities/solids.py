"""Drawing helpers for the solid-geometry seeds: an orthographic view (`View`), convex polyhedra with
hidden edges dashed, and the circles of cylinders and cones seen at an angle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes

from isodyn.modalities.geometry import Point, Points


@dataclass(frozen=True)
class View:
    """An orthographic view from azimuth `azim` and elevation `elev` (degrees); z points up."""

    azim: float = -60.0
    elev: float = 22.0

    @property
    def toward_viewer(self) -> np.ndarray:
        a, e = math.radians(self.azim), math.radians(self.elev)
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])

    def project(self, points: Points) -> np.ndarray:
        """Screen coordinates (n, 2) of 3D points (n, 3)."""
        a, e = math.radians(self.azim), math.radians(self.elev)
        right = np.array([-math.sin(a), math.cos(a), 0.0])
        up = np.array([-math.sin(e) * math.cos(a), -math.sin(e) * math.sin(a), math.cos(e)])
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        return np.stack([pts @ right, pts @ up], axis=1)


def draw_convex_polyhedron(
    ax: Axes,
    view: View,
    vertices: Points,
    faces: Sequence[Sequence[int]],
    *,
    face_color: str = "#cfe2f3",
    face_alpha: float = 0.55,
    lw: float = 1.8,
) -> np.ndarray:
    """Draw a convex polyhedron: faces towards the viewer filled, their edges solid, the others dashed.

    Returns the projected vertices (n, 2).
    """
    verts = np.asarray(vertices, dtype=float)
    centre = verts.mean(axis=0)
    w = view.toward_viewer
    proj = view.project(verts)
    visible_faces = []
    for face in faces:
        pts = verts[list(face)]
        normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        if np.dot(normal, pts.mean(axis=0) - centre) < 0:
            normal = -normal
        visible_faces.append(float(np.dot(normal, w)) > 1e-9)
    edges: dict[tuple[int, int], bool] = {}
    for face, vis in zip(faces, visible_faces, strict=True):
        for i in range(len(face)):
            a, b = face[i], face[(i + 1) % len(face)]
            key = (min(a, b), max(a, b))
            edges[key] = edges.get(key, False) or vis
        if vis:
            poly = proj[list(face)]
            ax.fill(poly[:, 0], poly[:, 1], color=face_color, alpha=face_alpha, lw=0, zorder=1)
    for (a, b), vis in sorted(edges.items()):
        xs, ys = proj[[a, b], 0], proj[[a, b], 1]
        if vis:
            ax.plot(xs, ys, color="black", lw=lw, zorder=3, solid_capstyle="round")
        else:
            ax.plot(xs, ys, color="0.35", lw=lw * 0.7, ls=(0, (4, 3)), zorder=2)
    return proj


def horizontal_circle(view: View, centre: Point, radius: float, n: int = 240) -> np.ndarray:
    """Projected points (n, 2) of the horizontal circle with this centre, from angle 0 to 2*pi."""
    t = np.linspace(0, 2 * math.pi, n)
    cx, cy, cz = (float(c) for c in centre)
    pts = np.stack([cx + radius * np.cos(t), cy + radius * np.sin(t), np.full_like(t, cz)], axis=1)
    return view.project(pts)


def ellipse_halves(
    view: View, centre: Point, radius: float, split_height: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """A horizontal circle split into its part below and above the screen height `split_height`
    (relative to the projected centre): (front, back) when seen from above."""
    pts = horizontal_circle(view, centre, radius, 721)
    c = view.project([centre])[0]
    rel = pts[:, 1] - c[1]
    front = pts.copy()
    back = pts.copy()
    front[rel > split_height + 1e-12] = np.nan
    back[rel < split_height - 1e-12] = np.nan
    # Roll so that each half is one contiguous run (no line across the gap).
    return _contiguous(front), _contiguous(back)


def _contiguous(pts: np.ndarray) -> np.ndarray:
    mask = np.isnan(pts[:, 0])
    if not mask.any():
        return pts
    first_gap = int(np.argmax(mask))
    rolled = np.roll(pts[:-1], -first_gap, axis=0)  # the last point repeats the first
    keep = ~np.isnan(rolled[:, 0])
    return rolled[keep]
