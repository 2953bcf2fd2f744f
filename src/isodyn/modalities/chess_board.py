"""Helpers for chess problems: one position shown as a board picture, FEN, PGN and an ASCII board (ANL).

IsoBench (Appendix A.3) shows each chess position in four isomorphic forms: a graphical board, the
Algebraic Notation Layout (ANL, the board written out rank by rank), Portable Game Notation (PGN, the
moves from the initial position) and Forsyth-Edwards Notation (FEN). All of them are computed here
from the same `python-chess` board, so they carry the same position.

The FEN also carries the side to move, the castling rights and the en passant square, which a bare
board picture cannot show; `position_facts` writes these three out in words, and the picture, the ANL
text and the other texts all state them.

The picture is drawn with matplotlib only (no pyplot). Pieces are DejaVu Sans chess glyphs turned into
vector paths, so the PNG bytes depend only on the position: White pieces are white shapes with a black
outline, Black pieces are solid black shapes, on light and dark brown squares.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache, lru_cache

import chess
import chess.pgn
import matplotlib
import numpy as np
import numpy.typing as npt
from matplotlib.font_manager import FontProperties
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D

from isodyn.modalities.images import blank_axes, figure_of, figure_png

LIGHT_SQUARE = "#f0d9b5"
DARK_SQUARE = "#b58863"
WHITE_FILL = "#ffffff"
BLACK_FILL = "#111111"
OUTLINE = "#000000"

PIECE_NAMES = {
    chess.KING: "king",
    chess.QUEEN: "queen",
    chess.ROOK: "rook",
    chess.BISHOP: "bishop",
    chess.KNIGHT: "knight",
    chess.PAWN: "pawn",
}
# The outlined ("white") glyphs U+2654..U+2659 and the solid ("black") glyphs U+265A..U+265F.
_OUTLINE_GLYPH = {
    chess.KING: "\u2654",
    chess.QUEEN: "\u2655",
    chess.ROOK: "\u2656",
    chess.BISHOP: "\u2657",
    chess.KNIGHT: "\u2658",
    chess.PAWN: "\u2659",
}
_SOLID_GLYPH = {pt: chr(ord(g) + 6) for pt, g in _OUTLINE_GLYPH.items()}

ANL_LEGEND = (
    "Uppercase letters are White pieces and lowercase letters are Black pieces "
    "(K/k king, Q/q queen, R/r rook, B/b bishop, N/n knight, P/p pawn); a dot is an empty square."
)
BOARD_PICTURE_LEGEND = (
    "White pieces are drawn as white shapes with a black outline, Black pieces as solid black shapes; "
    "files a to h run from left to right and ranks 1 to 8 from bottom to top (White's side is at the "
    "bottom)."
)


# ---------------------------------------------------------------------------------------------- words


def color_name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def piece_phrase(board: chess.Board, square: chess.Square) -> str:
    """'the White queen on h7'."""
    piece = board.piece_at(square)
    if piece is None:
        raise ValueError(f"no piece on {chess.square_name(square)}")
    return f"the {color_name(piece.color)} {PIECE_NAMES[piece.piece_type]} on {chess.square_name(square)}"


def castling_text(board: chess.Board) -> str:
    """'White may castle kingside and queenside; Black may not castle.' (rights, as in the FEN)."""
    parts = []
    for color in (chess.WHITE, chess.BLACK):
        sides = []
        if board.has_kingside_castling_rights(color):
            sides.append("kingside")
        if board.has_queenside_castling_rights(color):
            sides.append("queenside")
        name = color_name(color)
        parts.append(f"{name} may castle {' and '.join(sides)}" if sides else f"{name} may not castle")
    return "Castling rights: " + "; ".join(parts) + "."


def en_passant_text(board: chess.Board) -> str:
    square = board.ep_square if board.has_legal_en_passant() else None
    if square is None:
        return "No en passant capture is possible."
    return f"An en passant capture onto {chess.square_name(square)} is possible."


def position_facts(board: chess.Board) -> str:
    """Side to move, castling rights and en passant: what FEN says besides the piece placement."""
    return f"{color_name(board.turn)} to move. {castling_text(board)} {en_passant_text(board)}"


# ---------------------------------------------------------------------------------------------- texts


def anl_board(board: chess.Board) -> str:
    """The Algebraic Notation Layout: rank 8 on top, files a to h left to right, coordinates on the edges."""
    lines = ["  +-----------------+"]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece else ".")
        lines.append(f"{rank + 1} | {' '.join(cells)} |")
    lines.append("  +-----------------+")
    lines.append("    a b c d e f g h")
    return "\n".join(lines)


def board_from_moves(moves_uci: Sequence[str]) -> chess.Board:
    board = chess.Board()
    for uci in moves_uci:
        board.push_uci(uci)
    return board


def pgn_text(moves_uci: Sequence[str], event: str) -> str:
    """A PGN game (seven-tag roster, result withheld as `*`) with the moves in standard algebraic
    notation, without check and mate marks: a `#` on the last move would name the winner (and only a
    decisive game has one) without any chess, so the text states moves and nothing they lead to."""
    game = chess.pgn.Game()
    game.headers["Event"] = event
    game.headers["Site"] = "?"
    game.headers["Date"] = "????.??.??"
    game.headers["Round"] = "?"
    game.headers["White"] = "White"
    game.headers["Black"] = "Black"
    game.headers["Result"] = "*"
    node: chess.pgn.GameNode = game
    for uci in moves_uci:
        node = node.add_variation(chess.Move.from_uci(uci))
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False, columns=80)
    headers, _, movetext = game.accept(exporter).strip().partition("\n\n")
    return f"{headers}\n\n{_CHECK_MARKS.sub('', movetext)}"


_CHECK_MARKS = re.compile(r"(?<=[a-h1-8QRBNO])[+#]")  # `Qxf7#`, `Re1+`, `O-O+`: the mark only


# ---------------------------------------------------------------------------------------------- picture


@lru_cache(maxsize=1)
def _font() -> FontProperties:
    # The DejaVu Sans shipped inside matplotlib, so the glyph outlines do not depend on system fonts.
    return FontProperties(fname=os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans.ttf"))


@cache
def _glyph_path(char: str) -> Path:
    """The glyph as a vector path centred on (0, 0), every glyph at one scale (a king is 0.84 tall)."""
    king = TextPath((0, 0), _SOLID_GLYPH[chess.KING], size=1, prop=_font()).get_extents()
    scale = 0.84 / king.height
    raw = TextPath((0, 0), char, size=1, prop=_font())
    ext = raw.get_extents()
    cx, cy = (ext.x0 + ext.x1) / 2, (ext.y0 + ext.y1) / 2
    return Affine2D().translate(-cx, -cy).scale(scale).transform_path(raw)


@cache
def _silhouette(piece_type: chess.PieceType) -> Path:
    """The solid glyph without its holes: every contour wound like the outer one, filled as one shape."""
    polygons = _glyph_path(_SOLID_GLYPH[piece_type]).to_polygons(closed_only=True)

    def signed_area(poly: npt.ArrayLike) -> float:  # each polygon is an (n, 2) array
        xy = np.asarray(poly)
        x, y = xy[:, 0], xy[:, 1]
        return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) / 2)

    areas = [signed_area(poly) for poly in polygons]
    outer_sign = np.sign(max(areas, key=abs))
    return Path.make_compound_path(
        *(
            Path(poly, closed=True)
            for poly, a in zip(polygons, areas, strict=True)
            if np.sign(a) == outer_sign
        )
    )


def _piece_patches(piece: chess.Piece, file: int, rank: int) -> list[PathPatch]:
    """Patches for one piece centred on square (file, rank); the board's square i spans [i, i + 1]."""
    move = Affine2D().translate(file + 0.5, rank + 0.5)
    solid = move.transform_path(_glyph_path(_SOLID_GLYPH[piece.piece_type]))
    if piece.color == chess.BLACK:
        return [PathPatch(solid, facecolor=BLACK_FILL, edgecolor=OUTLINE, linewidth=0.8, zorder=3)]
    # White: a white silhouette under the outlined glyph, so the piece is white on any square.
    silhouette = move.transform_path(_silhouette(piece.piece_type))
    outline = move.transform_path(_glyph_path(_OUTLINE_GLYPH[piece.piece_type]))
    return [
        PathPatch(silhouette, facecolor=WHITE_FILL, edgecolor=WHITE_FILL, linewidth=0.5, zorder=3),
        PathPatch(outline, facecolor=OUTLINE, edgecolor=OUTLINE, linewidth=0.3, zorder=4),
    ]


def caption_lines(board: chess.Board) -> list[str]:
    """The facts a board picture cannot show, in short lines for under the board."""
    rights = []
    for color in (chess.WHITE, chess.BLACK):
        sides = [
            side
            for side, has in (
                ("O-O", board.has_kingside_castling_rights(color)),
                ("O-O-O", board.has_queenside_castling_rights(color)),
            )
            if has
        ]
        rights.append(f"{color_name(color)} {', '.join(sides) if sides else 'none'}")
    ep = chess.square_name(board.ep_square) if board.has_legal_en_passant() and board.ep_square else None
    return [
        f"{color_name(board.turn)} to move",
        "Castling rights: " + "; ".join(rights),
        f"En passant: possible onto {ep}" if ep else "En passant: not possible",
    ]


def board_png(board: chess.Board, caption: Sequence[str], dpi: int = 100) -> bytes:
    """The position as a PNG: an 8x8 board with coordinates, and the `caption` lines below it."""
    ax = blank_axes((5.0, 6.0), dpi, (0.08, 0.22, 0.84, 0.7))
    fig = figure_of(ax)
    ax.set_xlim(-0.1, 8.1)
    ax.set_ylim(-0.1, 8.1)
    ax.set_aspect("equal")
    ax.axis("off")
    for file in range(8):
        for rank in range(8):
            color = DARK_SQUARE if (file + rank) % 2 == 0 else LIGHT_SQUARE  # a1 is dark
            ax.add_patch(Rectangle((file, rank), 1, 1, facecolor=color, edgecolor="none", zorder=1))
            piece = board.piece_at(chess.square(file, rank))
            if piece is not None:
                for patch in _piece_patches(piece, file, rank):
                    ax.add_patch(patch)
    ax.add_patch(Rectangle((0, 0), 8, 8, facecolor="none", edgecolor="#333333", linewidth=1.5, zorder=5))
    for i in range(8):
        letter = "abcdefgh"[i]
        ax.text(i + 0.5, -0.3, letter, ha="center", va="center", fontsize=12, clip_on=False)
        ax.text(i + 0.5, 8.3, letter, ha="center", va="center", fontsize=12, clip_on=False)
        ax.text(-0.3, i + 0.5, str(i + 1), ha="center", va="center", fontsize=12, clip_on=False)
        ax.text(8.3, i + 0.5, str(i + 1), ha="center", va="center", fontsize=12, clip_on=False)
    for i, line in enumerate(caption):
        weight = "bold" if i == 0 else "normal"
        fig.text(0.5, 0.15 - 0.05 * i, line, ha="center", va="center", fontsize=11, fontweight=weight)
    return figure_png(fig, tight=False)


# How the FEN forms explain the notation (shared by the chess seeds).
FEN_LEGEND = (
    "The FEN lists the ranks from 8 down to 1 (files a to h within a rank; uppercase letters "
    "are White pieces, lowercase letters Black pieces, digits count empty squares), then the "
    "side to move (w or b), castling rights, en passant square, halfmove clock and move number."
)
