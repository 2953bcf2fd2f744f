"""Tests for the IsoBench chess seeds: winner identification and mate-in-one/two puzzles.

The truth is checked with python-chess and code written here, never with the seeds' own helpers: the
final position of every game is rebuilt from its FEN (checkmate and whose turn, stalemate, insufficient
material), the move list and the rendered PGN are replayed from the initial position, the ANL board is
parsed back square by square, and every puzzle is re-solved by a plain AND-OR search over all legal
moves (no move ordering, no check-only pruning) that confirms the answer forces mate in the stated
number of moves, that there is no faster mate, and that no other first move forces mate as fast. The
checks every seed shares (each modality renders, determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from functools import cache

import chess
import chess.pgn
import numpy as np
import pytest
from matplotlib.image import imread

from isodyn.core import AnswerType, Level, Modality, Topic, Variant
from isodyn.generators import get_seed as registry_seed
from isodyn.generators.base import SeedProgram, format_choices
from isodyn.generators.isobench.chess_puzzle import ChessPuzzle
from isodyn.generators.isobench.chess_winner import ChessWinner

WINNER, PUZZLE = "isobench_chess_winner", "isobench_chess_puzzle"
SEEDS = (WINNER, PUZZLE)
N = 60
CLASSES: dict[str, type[SeedProgram]] = {WINNER: ChessWinner, PUZZLE: ChessPuzzle}
UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
ALL_MODALITIES = (Modality.IMAGE, Modality.LATEX, Modality.CODE, Modality.STORY)


def get_seed(seed_id: str) -> SeedProgram:
    return CLASSES[seed_id]()


@cache
def variants(seed_id: str, count: int = N, base_seed: int = 0) -> tuple[Variant, ...]:
    seed = get_seed(seed_id)
    return tuple(seed.variant(i, base_seed) for i in range(count))


def side(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def replay(moves: list[str]) -> chess.Board:
    board = chess.Board()
    for uci in moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (uci, board.fen())
        board.push(move)
    return board


def pgn_block(text: str) -> str:
    """The PGN in a rendered text: from the first tag pair to the movetext's terminating `*`."""
    found = re.search(r'\[Event ".*?\n\n.*?\s\*(?=\n)', text, re.S)
    assert found is not None
    return found.group(0)


def anl_placement(text: str) -> str:
    """Parse the ANL board in a text back into FEN piece placement, independently of the renderer."""
    rows = re.findall(r"^([1-8]) \| ((?:[KQRBNPkqrbnp.] ){7}[KQRBNPkqrbnp.]) \|$", text, re.M)
    assert [int(r) for r, _ in rows] == list(range(8, 0, -1)), rows
    fen_rows = []
    for _, cells in rows:
        out, empty = "", 0
        for c in cells.split(" "):
            if c == ".":
                empty += 1
                continue
            out += (str(empty) if empty else "") + c
            empty = 0
        fen_rows.append(out + (str(empty) if empty else ""))
    assert "a b c d e f g h" in text
    return "/".join(fen_rows)


def facts_agree(text: str, board: chess.Board) -> None:
    """The castling rights and en passant words in `text` match the position."""
    for color in (chess.WHITE, chess.BLACK):
        k, q = board.has_kingside_castling_rights(color), board.has_queenside_castling_rights(color)
        if not (k or q):
            assert f"{side(color)} may not castle" in text
        else:
            expected = " and ".join(s for s, ok in (("kingside", k), ("queenside", q)) if ok)
            assert f"{side(color)} may castle {expected}" in text
    if board.has_legal_en_passant():
        assert f"en passant capture onto {chess.square_name(board.ep_square)}" in text
    else:
        assert "No en passant capture is possible." in text


# ----------------------------------------------------------------------------------------- independent search


def mates_within(board: chess.Board, move: chess.Move, n: int) -> bool:
    """After `move`, is the opponent mated now or can the mover force mate within n - 1 more moves?"""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        if n == 1 or board.is_stalemate():
            return False
        for reply in list(board.legal_moves):
            board.push(reply)
            ok = any(mates_within(board, m, n - 1) for m in list(board.legal_moves))
            board.pop()
            if not ok:
                return False
        return True
    finally:
        board.pop()


def forcing_first_moves(board: chess.Board, n: int) -> list[str]:
    return sorted(m.uci() for m in list(board.legal_moves) if mates_within(board, m, n))


# ---------------------------------------------------------------------------------------------- metadata


def test_seeds_are_registered_with_metadata() -> None:
    for seed_id, cls in CLASSES.items():
        seed = registry_seed(seed_id)
        assert isinstance(seed, cls)
        assert seed.topic is Topic.ISO_GAMES
        assert seed.level is Level.HIGH_SCHOOL
        assert seed.modalities == ALL_MODALITIES
    assert ChessWinner.answer_type is AnswerType.MULTIPLE_CHOICE
    assert ChessWinner.classes == ("A", "B", "C")
    assert ChessPuzzle.answer_type is AnswerType.TEXT
    assert ChessPuzzle.classes == ()


def test_winner_question_and_solution_shape() -> None:
    for v in variants(WINNER):
        assert v.choices == ("White", "Black", "Draw")
        assert v.question.endswith(format_choices(v.choices))
        chosen = v.choices["ABC".index(v.answer)]
        assert v.solution.rstrip().endswith(f"Answer: ({v.answer}) {chosen}.")


def test_puzzle_question_and_solution_shape() -> None:
    for v in variants(PUZZLE):
        assert UCI.match(v.answer), v.answer
        assert v.choices == ()
        assert v.params["answer_format"].startswith("the move in coordinate notation, e.g. e2e4")
        assert v.solution.rstrip().endswith(f"Answer: {v.answer}.")
        word = "one move" if v.params["mate_in"] == 1 else "two moves"
        assert word in v.question
        assert v.question.startswith(f"{v.params['turn'].capitalize()} to move")


# ---------------------------------------------------------------------------------------------- winner truth


def test_winner_truth_from_the_final_position() -> None:
    for v in variants(WINNER):
        p = v.params
        board = chess.Board(p["fen"])
        assert p["turn"] == side(board.turn).lower()
        if v.answer in "AB":
            assert board.is_checkmate(), p["fen"]
            loser = chess.BLACK if v.answer == "A" else chess.WHITE
            assert board.turn == loser
            assert p["ending"] == "checkmate"
        else:
            assert not board.is_checkmate()
            assert board.is_stalemate() or board.is_insufficient_material(), p["fen"]
            assert p["ending"] == ("stalemate" if board.is_stalemate() else "insufficient_material")
            if p["ending"] == "stalemate":
                assert not board.is_check() and not list(board.legal_moves)


def test_winner_moves_replay_to_the_final_position_and_the_game_ends_there() -> None:
    for v in variants(WINNER):
        moves = v.params["moves"]
        assert 20 <= len(moves) == v.params["plies"] <= 200
        board = chess.Board()
        for i, uci in enumerate(moves):
            # No earlier end: no mate, stalemate, dead position, fivefold repetition or 75-move rule.
            assert board.outcome() is None, (i, board.fen())
            board.push_uci(uci)
        assert board.fen() == v.params["fen"]
        outcome = board.outcome()
        assert outcome is not None
        assert outcome.termination in (
            chess.Termination.CHECKMATE,
            chess.Termination.STALEMATE,
            chess.Termination.INSUFFICIENT_MATERIAL,
        )
        assert outcome.result() == {"A": "1-0", "B": "0-1", "C": "1/2-1/2"}[v.answer]


def test_winner_classes_balanced_and_draws_of_both_visible_kinds() -> None:
    vs = variants(WINNER)
    assert Counter(v.answer for v in vs) == {"A": N // 3, "B": N // 3, "C": N // 3}
    draws = Counter(v.params["ending"] for v in vs if v.answer == "C")
    assert draws["stalemate"] >= 4 and draws["insufficient_material"] >= 4, draws
    # Draws by insufficient material are not all bare kings.
    dead = [chess.Board(v.params["fen"]) for v in vs if v.params["ending"] == "insufficient_material"]
    assert any(b.occupied & ~b.kings for b in dead)
    # In draws either side may be to move.
    assert {v.params["turn"] for v in vs if v.answer == "C"} == {"white", "black"}
    assert len({v.params["fen"] for v in vs}) == N


# ---------------------------------------------------------------------------------------------- puzzle truth


def test_puzzle_answer_is_the_unique_forced_mate() -> None:
    for v in variants(PUZZLE):
        p = v.params
        board = chess.Board(p["fen"])
        assert p["turn"] == side(board.turn).lower()
        n = p["mate_in"]
        assert n in (1, 2)
        assert chess.Move.from_uci(v.answer) in board.legal_moves
        if n == 2:
            assert forcing_first_moves(board, 1) == [], p["fen"]  # no faster mate
        assert forcing_first_moves(board, n) == [v.answer], p["fen"]


def test_puzzle_line_ends_in_mate_and_moves_replay() -> None:
    for v in variants(PUZZLE):
        p = v.params
        board = replay(p["moves"])
        assert board.fen() == p["fen"]
        assert board.outcome() is None
        assert len(p["line"]) == 2 * p["mate_in"] - 1
        assert p["line"][0] == v.answer
        for uci in p["line"]:
            assert chess.Move.from_uci(uci) in board.legal_moves
            board.push_uci(uci)
        assert board.is_checkmate()


def test_puzzle_answers_vary() -> None:
    vs = variants(PUZZLE)
    assert len({v.answer for v in vs}) >= N // 2
    assert Counter(v.params["mate_in"] for v in vs).keys() == {1, 2}
    assert min(Counter(v.params["mate_in"] for v in vs).values()) >= N // 5
    assert {v.params["turn"] for v in vs} == {"white", "black"}
    assert len({v.params["fen"] for v in vs}) == N


# ---------------------------------------------------------------------------------------------- renderings


@pytest.mark.parametrize("seed_id", SEEDS)
def test_text_renderings_carry_the_position(seed_id: str) -> None:
    seed = get_seed(seed_id)
    for v in variants(seed_id)[:30]:
        p = v.params
        board = chess.Board(p["fen"])
        mover = side(board.turn)

        fen_text = seed.representation(v, Modality.LATEX).text
        assert "Forsyth-Edwards Notation (FEN)" in fen_text
        assert f"FEN: {p['fen']}\n" in fen_text
        assert f"it is {mover} to move" in fen_text

        pgn_text = seed.representation(v, Modality.CODE).text
        assert "Portable Game Notation (PGN)" in pgn_text
        game = chess.pgn.read_game(io.StringIO(pgn_block(pgn_text)))
        assert game is not None and not game.errors
        assert game.headers["Result"] == "*"  # the result is never given away
        assert game.end().board().fen() == p["fen"]
        assert [m.uci() for m in game.mainline_moves()] == p["moves"]
        assert f"{mover} is to move" in pgn_text

        anl_text = seed.representation(v, Modality.STORY).text
        assert "Algebraic Notation Layout (ANL)" in anl_text
        assert anl_placement(anl_text) == board.board_fen()
        assert f"{mover} to move." in anl_text
        facts_agree(anl_text, board)

        for text in (fen_text, pgn_text, anl_text):
            assert text.rstrip().endswith(v.question)


@pytest.mark.parametrize("seed_id", SEEDS)
def test_every_modality_states_the_position_and_choices(seed_id: str) -> None:
    """(That every modality renders, and the same inputs give the same renderings: test_every_seed.py.)"""
    seed = get_seed(seed_id)
    for v in variants(seed_id)[:6]:
        board = chess.Board(v.params["fen"])
        for modality in seed.modalities:
            rep = seed.representation(v, modality)
            if seed_id == WINNER:
                assert "choices: (A) White, (B) Black, (C) Draw" in rep.text
            if modality is Modality.IMAGE:
                assert f"{side(board.turn)} to move." in rep.text
                facts_agree(rep.text, board)
                caption = rep.extra["caption"]
                assert caption[0] == f"{side(board.turn)} to move"


def test_board_picture_shows_white_and_black_pieces() -> None:
    """Rasterized boards: the pieces add pure white and near-black pixels, more with more pieces."""
    seed = get_seed(WINNER)
    by_pieces = []
    for v in variants(WINNER)[:6]:
        png = seed.representation(v, Modality.IMAGE).image_png
        assert png is not None
        img = imread(io.BytesIO(png))[..., :3]
        assert img.shape[:2] == (600, 500)
        white = int(np.all(img > 0.97, axis=-1).sum())
        black = int(np.all(img < 0.12, axis=-1).sum())
        board = chess.Board(v.params["fen"])
        assert white > 150 * chess.popcount(board.occupied_co[chess.WHITE])
        assert black > 150 * chess.popcount(board.occupied_co[chess.BLACK])
        by_pieces.append((chess.popcount(board.occupied), white + black))
    by_pieces.sort()
    assert by_pieces[0][1] < by_pieces[-1][1]


# -------------------------------------------------------------------------------------------- variation


@pytest.mark.parametrize("seed_id", SEEDS)
def test_other_base_seed_gives_other_positions(seed_id: str) -> None:
    other_base = variants(seed_id, 3, 1)
    assert all(
        x.params["fen"] != y.params["fen"] for x, y in zip(other_base, variants(seed_id), strict=False)
    )
