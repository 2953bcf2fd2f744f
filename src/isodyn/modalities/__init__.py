"""Renderers: pure functions that show the same variant as an image, LaTeX, code or a story.

Each seed program implements its own `render` from the shared helpers here, because what the
object *is* (a function, a graph, a board) is the seed's knowledge; these modules hold the
drawing and formatting code that several seeds share.
"""

from isodyn.core import Modality, Representation
from isodyn.modalities.images import render_png

__all__ = ["Modality", "Representation", "render_png"]
