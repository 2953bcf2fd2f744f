"""What an extraction found and how sure it is: the ambiguity kinds and the `Extraction` record."""

from __future__ import annotations

from dataclasses import dataclass

CLEAR = "clear"
SEVERAL_OPTIONS = "ambiguous: several options"
SEVERAL_VALUES = "ambiguous: several values"
NONE_FOUND = "none found"
UNREADABLE = "unreadable"  # an answer was marked but cannot be read as the answer type, or declines
# a multiple-choice reply committed to an answer that is none of the options ("(E) 90°" with four
# options; "AC is 14 cm. The correct option is not provided."): an answer, and a wrong one
NOT_AN_OPTION = "not an option"
# the reply was cut off at the token limit (finish reason `length`): not read, never graded as complete
TRUNCATED = "truncated"
AMBIGUITIES = (CLEAR, SEVERAL_OPTIONS, SEVERAL_VALUES, NONE_FOUND, UNREADABLE, NOT_AN_OPTION, TRUNCATED)


@dataclass(frozen=True)
class Extraction:
    answer: str | None  # for multiple choice, the option's letter
    method: str  # json, json_lenient, json_key_regex, boxed, answer_line, leading, statement, ...
    ambiguity: str = CLEAR  # one of AMBIGUITIES

    @classmethod
    def nothing(cls, ambiguity: str = NONE_FOUND, method: str = "none") -> Extraction:
        return cls(None, method, ambiguity)
