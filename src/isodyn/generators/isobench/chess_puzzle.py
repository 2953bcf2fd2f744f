"""IsoBench "Chess Puzzles" task (Section 3.4, Appendix A.3): find the first move of a forced checkmate.

IsoBench takes Lichess puzzles; here every puzzle comes from a generated game. A game is played from
the initial position by the scripted policies of `chess_winner` (one side greedy and always taking a mate
in one, the other side almost random) until it ends in checkmate; the positions shortly before the mate
with the winning side to move are then searched:

- mate in 1: the position one ply before the mate, kept if exactly one legal move gives checkmate;
- mate in 2: a position three or five plies before the mate, kept if there is no mate in one and
  exactly one first move forces mate in two (every reply allows a mating second move).

The search is exhaustive within those depths (python-chess generates the moves), so the answer, the
unique first move in coordinate notation (UCI, e.g. `e2e4`, `e7e8q` for a promotion, `e1g1` for
castling), is exact. The variant shows the puzzle position (image, FEN, ANL) or the game that led to it
(PGN); the side to move, castling rights and en passant square are stated in every form.
"""

from __future__ import annotations

import chess
import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.generators.isobench.chess_winner import (
    king_squares_text,
    play_game,
    strong_policy,
    weak_policy,
)
from isodyn.modalities.chess_board import (
    ANL_LEGEND,
    BOARD_PICTURE_LEGEND,
    FEN_LEGEND,
    anl_board,
    board_png,
    caption_lines,
    color_name,
    pgn_text,
    piece_phrase,
    position_facts,
)

ANSWER_FORMAT = "the move in coordinate notation, e.g. e2e4 (a promotion adds the piece letter, e.g. e7e8q)"
MIN_PLIES = 10  # moves played before the puzzle position
MAX_HALFMOVE_CLOCK = 80  # keeps the 50- and 75-move rules far away from the mating line
_MAX_GAMES = 500

INTRO = (
    "You are given a chess puzzle: a position in which the side to move can force checkmate, and the "
    "first move of the forced mate is unique."
)


def question_text(side: str, mate_in: int) -> str:
    if mate_in == 1:
        return f"{side} to move can give checkmate in one move. Which move gives checkmate?"
    other = "Black" if side == "White" else "White"
    return (
        f"{side} to move can force checkmate in two moves: whatever {other} replies, {side}'s second move "
        f"gives checkmate. What is {side}'s first move?"
    )


# ---------------------------------------------------------------------------------------------- search


def mating_moves(board: chess.Board) -> list[chess.Move]:
    """Every legal move that checkmates at once (only checking moves can)."""
    found = []
    for move in board.legal_moves:
        if board.gives_check(move):
            board.push(move)
            if board.is_checkmate():
                found.append(move)
            board.pop()
    return found


def _has_mate_in_one(board: chess.Board) -> bool:
    for move in board.legal_moves:
        if board.gives_check(move):
            board.push(move)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return True
    return False


def forces_mate_in_two(board: chess.Board, move: chess.Move) -> bool:
    """After `move`, does every reply allow a mate in one? (A mate at once also counts.)"""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        replies = list(board.legal_moves)
        if not replies:
            return False  # stalemate
        for reply in replies:
            board.push(reply)
            ok = _has_mate_in_one(board)
            board.pop()
            if not ok:
                return False
        return True
    finally:
        board.pop()


def unique_first_move(board: chess.Board, mate_in: int) -> chess.Move | None:
    """The only first move of a mate in `mate_in` (1 or 2) if there is exactly one, and no faster mate."""
    mates = mating_moves(board)
    if mate_in == 1:
        return mates[0] if len(mates) == 1 else None
    if mates:
        return None
    winners: list[chess.Move] = []
    for move in board.legal_moves:
        if forces_mate_in_two(board, move):
            winners.append(move)
            if len(winners) > 1:
                return None
    return winners[0] if winners else None


def _acceptable(board: chess.Board) -> bool:
    return (
        board.ply() >= MIN_PLIES
        and board.halfmove_clock <= MAX_HALFMOVE_CLOCK
        and not board.can_claim_threefold_repetition()
    )


def generate_puzzle(
    rng: np.random.Generator, mate_in: int, attacker: chess.Color
) -> tuple[chess.Board, chess.Move, int]:
    """(puzzle position with its move stack, the unique first move, games played to find it)."""
    backs = (1,) if mate_in == 1 else (3, 5, 7)
    for attempt in range(1, _MAX_GAMES + 1):
        strong, weak = strong_policy(rng), weak_policy(rng)
        white, black = (strong, weak) if attacker == chess.WHITE else (weak, strong)
        final = play_game(rng, white, black)
        if not final.is_checkmate() or final.turn == attacker:
            continue
        for back in backs:
            if back > len(final.move_stack) - MIN_PLIES:
                break
            board = final.copy()
            for _ in range(back):
                board.pop()
            if not _acceptable(board):
                continue
            move = unique_first_move(board, mate_in)
            if move is not None:
                return board, move, attempt
    raise RuntimeError(f"no mate-in-{mate_in} puzzle after {_MAX_GAMES} games")  # pragma: no cover


# ---------------------------------------------------------------------------------------------- solution


def _mate_explanation(board: chess.Board) -> str:
    """Why the side to move in `board` (already mated) is checkmated."""
    side = color_name(board.turn)
    king = board.king(board.turn)
    assert king is not None
    checkers = sorted(board.checkers())
    checks = " and ".join(piece_phrase(board, s) for s in checkers)
    text = f"{side}'s king on {chess.square_name(king)} is in check from {checks}"
    return f"{text}; it has no flight square ({king_squares_text(board)}), and the check cannot be parried."


def solution_text(board: chess.Board, first: chess.Move, mate_in: int) -> tuple[str, list[str]]:
    """The worked solution and one mating line (UCI moves) starting with `first`."""
    side, other = color_name(board.turn), color_name(not board.turn)
    san = board.san(first)
    steps = [f"It is {side} to move."]
    if mate_in == 1:
        after = board.copy(stack=False)
        after.push(first)
        steps.append(f"{side} plays {san} ({first.uci()}).")
        steps.append(f"After it, {_mate_explanation(after)}")
        steps.append(f"So {san} is checkmate; no other {side} move mates at once.")
        steps.append(f"Answer: {first.uci()}.")
        return "\n".join(steps), [first.uci()]
    steps.append(f"No {side} move gives checkmate at once, so look for a mate in two.")
    steps.append(f"{side} plays {san} ({first.uci()}). {other}'s replies and {side}'s mate after each:")
    after = board.copy(stack=False)
    after.push(first)
    line: list[str] = []
    replies = sorted(after.legal_moves, key=lambda m: after.san(m))
    for reply in replies:
        reply_san = after.san(reply)
        after.push(reply)
        mate = mating_moves(after)[0]
        mate_san = after.san(mate)
        after.pop()
        steps.append(f"- {reply_san} ({reply.uci()}): {mate_san} ({mate.uci()}).")
        if not line:
            line = [first.uci(), reply.uci(), mate.uci()]
    if not replies:  # pragma: no cover - the first move never mates here (no mate in one exists)
        raise AssertionError("a mate-in-two first move without replies")
    steps.append(
        f"Every {other} reply allows checkmate on the next move, so {san} forces mate in two; "
        f"no other first move does."
    )
    steps.append(f"Answer: {first.uci()}.")
    return "\n".join(steps), line


# ---------------------------------------------------------------------------------------------- seed


class ChessPuzzle(SeedProgram):
    seed_id = "isobench_chess_puzzle"
    topic = Topic.ISO_GAMES
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.GEOMETRIC_TRANSFORMATION,)
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE, Modality.STORY)
    variant_space = 10**9  # positions reached by random games: effectively unbounded

    def sample(self, rng: np.random.Generator) -> Draw:
        mate_in = 1 if rng.random() < 0.5 else 2
        attacker = chess.WHITE if rng.random() < 0.5 else chess.BLACK
        board, first, _ = generate_puzzle(rng, mate_in, attacker)
        solution, line = solution_text(board, first, mate_in)
        params = {
            "moves": [m.uci() for m in board.move_stack],
            "fen": board.fen(),
            "turn": color_name(board.turn).lower(),
            "mate_in": mate_in,
            "line": line,
            "answer_format": ANSWER_FORMAT,
        }
        return Draw(
            params=params,
            question=question_text(color_name(board.turn), mate_in),
            answer=first.uci(),
            solution=solution,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        prm = variant.params
        board = chess.Board(prm["fen"])
        side = color_name(board.turn)
        question = variant.question
        if modality is Modality.IMAGE:
            caption = caption_lines(board)
            png = board_png(board, caption)
            text = (
                f"{INTRO}\n\nThe image shows the puzzle position on a chessboard. {BOARD_PICTURE_LEGEND} "
                "The lines under the board give the side to move, the castling rights and whether an en "
                f"passant capture is possible: {position_facts(board)}\n\n{question}"
            )
            return Representation(modality, text, image_png=png, extra={"caption": caption})
        if modality is Modality.LATEX:
            fen = prm["fen"]
            text = (
                f"{INTRO}\n\nThe puzzle position in Forsyth-Edwards Notation (FEN):\n\nFEN: {fen}\n\n"
                f"{FEN_LEGEND} In this position it is {side} to move.\n\n{question}"
            )
            return Representation(modality, text, extra={"fen": fen})
        if modality is Modality.CODE:
            pgn = pgn_text(prm["moves"], "Generated puzzle")
            text = (
                f"{INTRO}\n\nThe game up to the puzzle position in Portable Game Notation (PGN), from the "
                "standard starting position, with the moves in standard algebraic notation (the game is "
                f"unfinished, so the result is *):\n\n{pgn}\n\nThe puzzle position is the position after "
                f"the last move shown; {side} is to move.\n\n{question}"
            )
            return Representation(modality, text, extra={"pgn": pgn})
        if modality is Modality.STORY:
            anl = anl_board(board)
            text = (
                f"{INTRO}\n\nThe puzzle position in Algebraic Notation Layout (ANL), an ASCII board with "
                f"rank 8 at the top and rank 1 at the bottom, files a to h from left to right. {ANL_LEGEND}"
                f"\n\n{anl}\n\n{position_facts(board)}\n\n{question}"
            )
            return Representation(modality, text, extra={"anl": anl})
        raise AssertionError(f"unhandled modality {modality}")
