"""Which multiple-choice option a piece of free text commits to, read by meaning (pure functions).

A reply names an option by its letter (`(B)`, `option B`), by its text (`odd`), by a paraphrase a
grader accepts (`the same concentration` for `equal`, `concave down` for `concave`, `White delivers
checkmate` for `White wins`) or, for a yes/no question, by a statement about the question's subject
(`The two graphs are not isomorphic.` answers "Are the two graphs isomorphic?" with No).

Three rules keep words from being read as choices when they are not:
- negation: an option after `not`, `no`, `never`, `neither ... nor`, `does not`, ... in the same
  clause is ruled out, not chosen ("Black does not win");
- incidental use: a clause that describes, compares or supposes ("unlike an odd function", "a
  concave function, in contrast, would", "if it were even") chooses nothing, and an option word
  used as a modifier of a thing ("the black king", "an even number of vertices") is not a choice;
- roles: chess outcomes are read with their subject ("White is checkmated" is a win for Black,
  "stalemated" a draw).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from isodyn.scoring.text import clauses

LETTERS = "ABCDEFGHIJ"


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# ---- words ------------------------------------------------------------------------------------

# Phrases first (longest wins), then single words; each maps to a canonical token a grader accepts
# as the same choice. Kept small and general: words that name the same relation or property.
_PHRASES: tuple[tuple[str, str], ...] = (
    (r"concave\s+down(?:ward)?", "concave"),
    (r"concave\s+up(?:ward)?", "convex"),
    (r"curves?\s+(?:downward|down)", "concave"),
    (r"curves?\s+(?:upward|up)", "convex"),
    (r"the\s+same(?:\s+as)?", "equal"),
    (r"equal\s+to", "equal"),
    (r"(?:as|just\s+as)\s+(?:high|large|big|strong|much|bright)\s+as", "equal"),
    (r"no\s+different", "equal"),
    (r"more\s+(?:concentrated|dense|massive)", "higher"),
    (r"less\s+(?:concentrated|dense|massive)", "lower"),
    (r"(?:neither|not)\s+odd\s+nor\s+even|(?:neither|not)\s+even\s+nor\s+odd", "neither"),
    (r"no\s+symmetry", "neither"),
    (r"has\s+no\s+solution", "no solution"),
    (r"acyclic|(?:has|contains)\s+no\s+cycles?", "no cycle"),
    # trends and change
    (
        r"(?:goes|going|go|gets|getting|moves?|moving)\s+(?:up|higher|upward)|uphill|rises|rising|grows|growing"
        r"|gets?\s+(?:larger|bigger)",
        "increase",
    ),
    (
        r"(?:goes|going|go|gets|getting|moves?|moving)\s+(?:down|lower|downward)|downhill|drops|dropping|declines"
        r"|gets?\s+smaller",
        "decrease",
    ),
    (
        r"(?:does\s+not|doesn't|do\s+not|don't|never)\s+change|unchanged|no\s+change|(?:stays|remains|stay|remain)"
        r"\s+(?:the\s+same|constant|unchanged)|(?:is\s+)?flat|horizontal\s+segment",
        "constant",
    ),
    # forces and fields
    (
        r"pull(?:s|ed|ing)?\s+(?:each\s+other\s+)?(?:toward|towards|together|closer)|drawn\s+(?:together|toward)"
        r"|stick\s+together|come\s+together",
        "attract",
    ),
    (
        r"push(?:es|ed|ing)?\s+(?:each\s+other\s+)?(?:apart|away)|pushed\s+apart|move\s+apart|fly\s+apart",
        "repel",
    ),
    (r"right\s*wards?|to\s+the\s+right|toward\s+the\s+right|points\s+right", "right"),
    (r"left\s*wards?|to\s+the\s+left|toward\s+the\s+left|points\s+left", "left"),
    (
        r"(?:forces\s+)?(?:are\s+)?balanced|cancel(?:s|led)?\s+(?:each\s+other\s+)?(?:out)?|net\s+force\s+is\s+zero"
        r"|zero\s+net\s+force|no\s+net\s+force",
        "no-net-force",
    ),
    # shape
    (r"bends?\s+(?:upward|up)|opens?\s+(?:upward|up)|holds?\s+water|u-shaped", "convex"),
    (r"bends?\s+(?:downward|down)|opens?\s+(?:downward|down)|∩-shaped|arch-shaped", "concave"),
    (
        r"(?:mirror(?:\s+image)?|reflect(?:ion|ed)?|symmetric)\s+(?:of\s+itself\s+)?(?:across|about|over|in)\s+"
        r"the\s+y-axis",
        "even symmetric y-axis",
    ),
    (
        r"(?:rotat\w*\s+(?:the\s+graph\s+)?(?:by\s+)?180|point\s+symmetry|symmetric\s+(?:about|with\s+respect\s+to)"
        r"\s+the\s+origin)",
        "odd symmetric origin",
    ),
    # relations
    (r"(?:at\s+the\s+same\s+time|simultaneously|at\s+once)", "same-time"),
    (r"(?:shine|glow)s?\s+(?:identically|equally)|equally\s+bright|same\s+brightness", "equal"),
    (r"(?:rise|go\s+up|increase)\s+together|move\s+together", "positive"),
    (
        r"no\s+(?:visible\s+|clear\s+|apparent\s+)?(?:trend|relationship|pattern)|randomly\s+scattered",
        "no correlation",
    ),
    (
        r"slopes?\s+downward|downward\s+trend|as\s+\w+(?:\s+\w+)?\s+(?:goes\s+up|increases)[^.]*?(?:goes\s+down|decreases)",
        "negative",
    ),
    (r"(?:no|not\s+a)\s+limit|limit\s+(?:does\s+not|doesn't)\s+exist", "does-not-exist"),
    (r"does\s+not\s+exist|doesn't\s+exist|undefined", "does-not-exist"),
    (r"stale\s*mate[ds]?", "draw"),
    (r"insufficient\s+material|dead\s+position|threefold\s+repetition", "draw"),
)
# Definitions a grader accepts: they name a property, so yes/no statements are read with them too.
_DEFINITIONS: tuple[tuple[str, str], ...] = (
    (r"(?:two|2)[- ]colou?r(?:ed|able|ing)", "bipartite"),
    (
        r"\bk_?\{?\d+\}?(?![\w.])|every\s+pair\s+of\s+vertices\s+is\s+(?:joined|connected|adjacent)",
        "complete",
    ),
    (
        r"(?:all|every|each)\s+(?:three\s+)?angles?\s+(?:\w+\s+){0,2}(?:smaller|less|lower)\s+than\s+90",
        "acute",
    ),
    (r"(?:one|an)\s+angle\s+(?:\w+\s+){0,2}(?:greater|larger|more|bigger|higher)\s+than\s+90", "obtuse"),
    (r"(?:glows?|shines?)\s+(?:more\s+)?(?:strongly|brightly)|(?:glows?|shines?)\s+brighter", "brighter"),
    (r"connected\s+and\s+(?:is\s+)?(?:acyclic|has\s+no\s+cycles?)|acyclic\s+and\s+connected", "tree"),
    (r"(?:a\s+single|only\s+one|exactly\s+one|one)\s+(?:loop|cycle)", "exactly one cycle"),
    # an angle of 90°, not one "smaller than 90°"
    (
        r"(?<!than )(?<!lower )(?<!higher )(?<!under )(?<!over )(?<!below )(?<!above )(?:exactly\s+)?90\s*"
        r"(?:°|degrees|\^\{?\\circ\}?)|right[- ]angled?",
        "right",
    ),
)
_PHRASES = _PHRASES + _DEFINITIONS


def _pattern(phrases: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    # one word boundary before the alternation: where none stands, it fails once, not once a phrase
    alternatives = "|".join(f"(?P<p{i}>{p}\\b)" for i, (p, _) in enumerate(phrases))
    return re.compile(f"\\b(?:{alternatives})", re.I)


_PHRASE_PATTERN = _pattern(_PHRASES)
_DEFINITION_PATTERN = _pattern(_DEFINITIONS)

_WORDS = {
    "same": "equal", "identical": "equal", "equivalent": "equal", "equally": "equal", "equals": "equal",
    "greater": "higher", "larger": "higher", "bigger": "higher", "more": "higher", "stronger": "higher",
    "high": "higher", "highest": "higher", "largest": "higher", "greatest": "higher", "exceeds": "higher",
    "above": "higher", "below": "lower", "under": "lower",
    "smaller": "lower", "less": "lower", "fewer": "lower", "weaker": "lower", "low": "lower",
    "lowest": "lower", "smallest": "lower", "least": "lower",
    "attracts": "attract", "attraction": "attract", "attracted": "attract", "attracting": "attract",
    "repels": "repel", "repulsion": "repel", "repelled": "repel", "repelling": "repel", "repulsive": "repel",
    "wins": "win", "won": "win", "winning": "win", "winner": "win", "victory": "win", "victorious": "win",
    "drawn": "draw", "tie": "draw", "tied": "draw", "draws": "draw",
    "increases": "increase", "increasing": "increase", "increased": "increase", "rises": "increase",
    "decreases": "decrease", "decreasing": "decrease", "decreased": "decrease", "falls": "decrease",
    "true": "yes", "false": "no",
    "convexity": "convex", "concavity": "concave",
    "odd-function": "odd", "even-function": "even",
    "isomorphism": "isomorphic", "connectivity": "connected",
    "reach": "path", "reaches": "path", "reached": "path", "reachable": "path",
}  # fmt: skip

# Words that carry no choice: articles, copulas, pronouns, prepositions.
_STOP = word_set(
    "a an the is are was were be been being it its this that these those of to in on at for by with "
    "as and or than then there here which who what answer option choice final correct correctly one "
    "function graph figure image shown given we our you your has have had do does did will would can "
    "could should must may might very much also just only"
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


def stem(word: str) -> str:
    word = _WORDS.get(word, word)
    for suffix in ("'s",):
        if word.endswith(suffix):
            word = word[: -len(suffix)]
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "ous", "is")):
        word = word[:-1]
    return _WORDS.get(word, word)


_RELATIONS = (("≥", " higher equal "), ("≤", " lower equal "), (">=", " higher equal "),
              ("<=", " lower equal "), (">", " higher "), ("<", " lower "))  # fmt: skip


def _plain(text: str) -> str:
    """Lower-case prose without LaTeX wrappers: `$\\text{even}$` -> `even`; `f(2) > g(2)` says higher."""
    text = re.sub(r"\\(?:text|textbf|mathrm|mathbf|operatorname|emph)\s*\{([^{}]*)\}", r"\1", text)
    for symbol, word in _RELATIONS:
        text = text.replace(symbol, word)
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\\boxed\s*\{([^{}]*)\}", r"\1", text)
    return text.replace("$", " ").replace("\\", " ").casefold()


def _rewrite(
    text: str, pattern: re.Pattern[str] = _PHRASE_PATTERN, phrases: tuple[tuple[str, str], ...] = _PHRASES
) -> str:
    def one(match: re.Match[str]) -> str:
        return f" {phrases[int(match.lastgroup[1:])][1]} "  # type: ignore[index]

    return pattern.sub(one, text)


# Chess outcomes with their subject: who delivers mate wins; who is mated, loses or resigns loses.
_WINS = re.compile(
    r"\b(white|black)\s+(?:(?:delivers|gives|has|achieves|forces|wins\s+(?:by|with))\s+(?:a\s+)?(?:forced\s+)?"
    r"(?:check)?mate|(?:check)?mates\b|is\s+(?:the\s+)?(?:winner|winning|victorious)|(?:has\s+)?won\b"
    r"|comes\s+out\s+on\s+top)",
    re.I,
)
_WINS_FOR = re.compile(
    r"\b(?:wins?|winning|victory|decisive|win)\s+(?:is\s+)?(?:for|to)\s+(?:the\s+)?(white|black)(?:\s+side)?\b"
    r"|\bwinner\s*(?:is\s*|:\s*)(?:the\s+)?(white|black)\b",  # a closing label: "Winner: Black"
    re.I,
)
_PIECE_COLOUR = re.compile(r"\b(?:the\s+)?(?:player|side)\s+with\s+the\s+(dark|light)\s+pieces\b", re.I)
_LOSES = re.compile(
    r"\b(white|black)\s+(?:is|gets|has\s+been|was|will\s+be|has|would\s+be)\s+(?:(?:check)?mated|lost|losing)"
    r"|\b(white|black)\s+(?:loses|lost|resigns|resigned)\b",
    re.I,
)
_MATE_BY = re.compile(r"\b(?:check)?mate\s+(?:by|for)\s+(white|black)\b", re.I)
_OTHER = {"white": "black", "black": "white"}


def _chess_roles(text: str) -> str:
    if "white" not in text and "black" not in text and "pieces" not in text:
        return text  # every pattern below names a colour or the pieces (text is casefolded)
    text = _PIECE_COLOUR.sub(lambda m: "black" if m.group(1).lower() == "dark" else "white", text)
    text = _WINS_FOR.sub(lambda m: f"{m.group(1) or m.group(2)} wins", text)
    text = _MATE_BY.sub(lambda m: f"{m.group(1)} wins", text)
    text = _WINS.sub(lambda m: f"{m.group(1)} wins", text)
    return _LOSES.sub(lambda m: f"{_OTHER[(m.group(1) or m.group(2)).lower()]} wins", text)


@lru_cache(maxsize=16384)
def plain_tokens(text: str) -> tuple[str, ...]:
    """Word tokens with synonyms and definitions folded but no paraphrase of an option rewritten: what a
    yes/no statement literally says ("the forces cancel" stays words; "two-colourable" is bipartite)."""
    return tuple(stem(w) for w in _TOKEN.findall(_rewrite(_plain(text), _DEFINITION_PATTERN, _DEFINITIONS)))


@lru_cache(maxsize=16384)
def tokens(text: str) -> tuple[str, ...]:
    """Canonical word tokens of a piece of prose (synonyms and chess roles resolved)."""
    return tuple(stem(w) for w in _TOKEN.findall(_rewrite(_chess_roles(_plain(text)))))


@lru_cache(maxsize=4096)
def option_signature(option: str) -> tuple[str, ...]:
    """The content tokens of an option (what a reply must say to name it); a label letter stays
    (`Solution A`, `Beaker B`: without it the two would read alike)."""
    label = re.search(r"\b([A-Z])\s*$", option)
    found = tuple(t for t in tokens(option) if t not in _STOP or (label and t == label.group(1).lower()))
    return found or tokens(option)


# ---- clauses ----------------------------------------------------------------------------------

NEGATORS = word_set(
    "does-not-exist not no never neither nor cannot cant without none isnt arent doesnt dont didnt "
    "wont wasnt "
    "werent hasnt havent couldnt wouldnt shouldnt nothing nowhere fails lacks"
)
# A clause that describes, supposes or contrasts chooses nothing.
INCIDENTAL = re.compile(
    # a definition: "an odd function passes through the origin"
    r"^\W*(?:an?|any|every)\s+(?:\w+\s+)?(?:function|graph|shape|curve|number|triangle|polygon)s?\b"
    r"|\b(?:unlike|in\s+contrast|by\s+contrast|contrary|as\s+opposed|rather\s+than|instead\s+of|whereas"
    r"|if|suppose|assuming|for\s+example|e\.g|such\s+as|recall|definition|defined|means\s+that"
    r"|is\s+called|are\s+called|whether|either\s+\w+\s+or|otherwise|compared\s+(?:to|with)|check\s+if"
    r"|to\s+determine|to\s+decide|we\s+need|let's|let\s+us|could\s+be|might\s+be|may\s+be)\b",
    re.I,
)
# An option word followed by one of these is a modifier of a thing, not a claim ("the black king").
_THINGS = word_set(
    "king queen rook bishop knight pawn piece square squares side move moves player pieces number "
    "numbers node nodes vertex vertices edge edges degree degrees power powers term terms part parts "
    "coefficient coefficients exponent exponents integer integers digit digits function functions "
    "shape shapes curve curves"
)


def _modifier(words: tuple[str, ...], at: int, end: int) -> bool:
    """The option word modifies a thing that follows it, and is not said of the subject: "the black
    king" and "convex functions have ..." are modifiers; "f is an even function" and "the property of
    an odd function" say what the thing is."""
    if end >= len(words) or words[end] not in _THINGS:
        return False
    before = words[max(0, at - 2) : at]
    predicate = bool(before) and (before[-1] in {"is", "s", "be"} or (
        before[-1] in {"a", "an"} and len(before) == 2 and before[0] in {"is", "s", "be", "of"}))  # fmt: skip
    return not predicate


@dataclass(frozen=True)
class OptionReading:
    """What a text says about the options: letters it commits to and letters it rules out."""

    chosen: frozenset[str] = frozenset()
    ruled_out: frozenset[str] = frozenset()

    @property
    def letter(self) -> str | None:
        return next(iter(self.chosen)) if len(self.chosen) == 1 else None

    @property
    def said_anything(self) -> bool:
        return bool(self.chosen or self.ruled_out)


def _find(signature: tuple[str, ...], words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the option's signature occurs in the clause, every word in order within a short window:
    (index of its first word, index after its last) of the tightest occurrence, or None."""
    if not signature:
        return None
    first = signature[0]
    best: tuple[int, int] | None = None
    for start, word in enumerate(words):
        if word != first:
            continue
        position, ok = start, True
        for needed in signature[1:]:
            # subject and verb a few words apart; a label letter right after its word ("Solution A",
            # never "solution with a higher ...")
            label = len(needed) == 1 and needed.isalpha()
            window = words[position + 1 : position + (2 if label else 9)]
            if needed not in window:
                ok = False
                break
            position = position + 1 + window.index(needed)
        if ok and (best is None or position + 1 - start < best[1] - best[0]):
            best = (start, position + 1)
    return best


def _is_negator(word: str) -> bool:
    return word.replace("'", "") in NEGATORS or word.endswith("n't")


def _negated(words: tuple[str, ...], at: int, end: int | None = None, own: tuple[str, ...] = ()) -> bool:
    """A negator before the option in the clause, or between its words ("Black does not win") that is
    not one of its own ("there is no net force"): the clause is its scope, `n't` included."""
    inside = [w for w in words[at : end or at] if w not in own]
    return any(_is_negator(w) for w in words[:at]) or any(_is_negator(w) for w in inside)


PARENTHETICAL = re.compile(r"\([^()]*\)")


def _one_letter(option: str) -> bool:
    """A one-letter option (`A`, `(b)`, a face `R`): in prose a letter is as often an article or a
    name, so such an option is named by letters or by its exact text, never by a word of a clause."""
    return re.fullmatch(r"\s*\(?[A-Za-z]\)?\s*", option) is not None


def _numeric(option: str) -> bool:
    return re.fullmatch(r"\s*[-+−]?\d+(?:[.,/]\d+)?\s*%?\s*", option) is not None


def read_clause(clause: str, choices: tuple[str, ...], distinctive: bool = True) -> OptionReading:
    """The options one clause chooses and rules out, by their text or a paraphrase; a number in
    prose is not an option's name (`x = 1` does not choose option "1")."""
    if INCIDENTAL.search(clause):
        return OptionReading()
    words = tokens(clause)
    # a numeric option is no name in prose; an option listed as its own letter (the options are in a
    # picture) is named only by that letter, never by the article "a"
    signatures = [
        () if _numeric(option) or _one_letter(option) else option_signature(option) for option in choices
    ]
    chosen: set[str] = set()
    ruled_out: set[str] = set()
    found: dict[str, tuple[int, int]] = {}
    for letter, signature in zip(LETTERS, signatures, strict=False):
        span = _find(signature, words)
        if span is None:
            continue
        at, end = span
        if len(signature) == 1 and _modifier(words, at, end):
            continue  # "the black king", "an even number of nodes", "convex functions have ..."
        found[letter] = (at, end)
    if not found and distinctive:
        found = _distinctive(words, signatures)
    for letter, (at, end) in found.items():
        # An option inside a longer option that is also named ("win" inside "white win") is that one.
        if any(o != letter and a <= at and end <= e and (e - a) > (end - at) for o, (a, e) in found.items()):
            continue
        own = signatures[LETTERS.index(letter)]
        (ruled_out if _negated(words, at, end, own) else chosen).add(letter)
    return OptionReading(frozenset(chosen), frozenset(ruled_out))


REASON = re.compile(r"^\s*(?:since|because|as|given|due\s+to)\b", re.I)


# A side or a label alone names no outcome: "White to move" does not choose "White wins".
_SIDES = word_set("white black first second top bottom")


def _distinctive(words: tuple[str, ...], signatures: list[tuple[str, ...]]) -> dict[str, tuple[int, int]]:
    """Options named by a word only they contain (`negative` for "negative correlation" among
    positive / negative / no correlation), when the clause names exactly one option that way."""
    found = {}
    for letter, signature in zip(LETTERS, signatures, strict=False):
        others = {w for i, other in enumerate(signatures) if LETTERS[i] != letter for w in other}
        own = [w for w in signature if w not in others and w not in _STOP and w not in _SIDES and len(w) > 2]
        if len(signature) > 3 and own:  # a long option: its leading word ("Neither; ...") or most of its own
            present = [w for w in own if w in words]
            own = own if 2 * len(present) >= len(own) else [w for w in own if w == signature[0]]
        # a word used as a modifier of a thing ("convex functions have ...") names no option
        positions = [i for i, w in enumerate(words) if w in own and not _modifier(words, i, i + 1)]
        if positions:
            found[letter] = (positions[0], positions[0] + 1)
    return found if len(found) == 1 else {}


_LEADING_CONDITION = re.compile(
    r"^\W*(?:if|when|once|assuming|given\s+that)\b[^,;:.]{3,120},\s*(?:then\s+)?(?!(?:and|or)\b)(?=[A-Za-z])",
    re.I,
)


def read_statement(sentence: str, choices: tuple[str, ...], distinctive: bool = True) -> OptionReading:
    """The options a sentence commits to: its last clause that chooses one ("convex on the left and
    concave on the right, so overall neither"); clauses giving a reason ("since ...") choose nothing,
    and options ruled out anywhere in the sentence stay ruled out unless chosen later."""
    chosen: frozenset[str] = frozenset()
    ruled_out: set[str] = set()
    # "If caterpillars decrease, plants will increase.": the condition chooses nothing, its consequence may
    sentence = _LEADING_CONDITION.sub("", sentence)
    for clause in clauses(PARENTHETICAL.sub(" ", sentence)):
        if REASON.match(clause):
            continue
        reading = read_clause(clause, choices, distinctive)
        ruled_out = (ruled_out - reading.chosen) | reading.ruled_out
        if len(chosen) == 1 and len(reading.chosen) > 1 and chosen <= reading.chosen:
            continue  # "Graph 1 has more edges: I count 9 in Graph 1 and 8 in Graph 2" is evidence
        if reading.chosen:
            chosen = reading.chosen
    chosen = frozenset(chosen - (ruled_out - chosen))
    if not chosen and len(ruled_out) >= 2:
        neither = [L for L, o in zip(LETTERS, choices, strict=False) if o.casefold().strip() == "neither"]
        if neither:  # "it is neither even nor odd" rules out two options and so names the third
            chosen = frozenset(neither)
    return OptionReading(chosen, frozenset(ruled_out))
