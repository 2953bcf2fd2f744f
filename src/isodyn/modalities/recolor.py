"""The colour-blind-safe palette: each named chart colour swapped for its Okabe-Ito namesake.

A question may name a colour ("the red bar"), so a colour is only ever replaced by the colour of the
same name in the Okabe-Ito palette (red by vermillion, green by bluish green, ...); colours without
a namesake (brown, gray, black, a seed's own shades) are kept.
"""

from __future__ import annotations

from functools import cache

from matplotlib.colors import CSS4_COLORS, TABLEAU_COLORS, to_hex

from isodyn.modalities import geometry, palette

# Okabe & Ito (2008), "Color Universal Design": the colour each everyday name maps to.
OKABE_ITO: dict[str, str] = {
    "red": "#d55e00",  # vermillion
    "blue": "#0072b2",
    "green": "#009e73",  # bluish green
    "orange": "#e69f00",
    "purple": "#cc79a7",  # reddish purple
    "yellow": "#f0e442",
}


@cache
def colorblind_map() -> dict[str, str]:
    """'#rrggbb' -> '#rrggbb': every shade isodyn draws under one of `OKABE_ITO`'s names (its
    palettes, matplotlib's named and tableau colours) to that name's Okabe-Ito colour."""
    mapping: dict[str, str] = {}
    for name, target in OKABE_ITO.items():
        shades = [
            table[key]
            for table, key in (
                (palette.CHART_COLORS, name),
                (palette.PALETTE, name),
                (geometry.COLORS, name),
                (CSS4_COLORS, name),
                (TABLEAU_COLORS, f"tab:{name}"),
            )
            if key in table
        ]
        for shade in shades:
            mapping[to_hex(shade)] = target
    return mapping
