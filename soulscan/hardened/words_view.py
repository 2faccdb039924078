"""The words view: the skeleton with markup removed and every run of separators one space.

Markdown/HTML markup and empty comments removed, words broken across lines by a hyphen joined,
every run of punctuation, whitespace and line breaks collapsed to a single space, leetspeak
digits in letter words read as letters (`1gn0r3`) and filler adverbs (`really`, `kindly`)
dropped; starts and ends with a space. Each pass runs only when the text holds what it
removes, on `re` unless the text holds a non-ASCII letter, digit or apostrophe.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator

import regex

from soulscan.hardened.run_edits import ASCII_JOINERS, joiner_run_edits
from soulscan.hardened.view_offsets import ConstantMap, EditedMap, Edits, PaddedMap
from soulscan.hardened.view_rewrite import Match, View, fixed_edits, non_ascii_chars, rewrite

_BLOCK_TAG = regex.compile(
    r"</?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|hr|section|article|blockquote|pre|details|summary|dt|dd|dl|"
    r"caption|header|footer|nav|aside|main|figure|figcaption|label|option|img)\b[^<>\n]{0,256}>",
    regex.IGNORECASE,
)
_INLINE_TAG = regex.compile(r"</?[a-z][a-z0-9-]{0,20}\b[^<>\n]{0,256}>", regex.IGNORECASE)
# (those `joiner_run_edits` lists the runs of, and the two curly apostrophes)
_JOINER_CHARS = ASCII_JOINERS + "\u2019\u02bc"
_JOINERS = regex.compile(f"[{_JOINER_CHARS}]+")
# Every run of separators becomes one space; a run that already is one space is skipped, so
# ordinary prose costs no replacement per word.
_SEPARATORS = regex.compile(r"[^\p{L}\p{N} ][^\p{L}\p{N}]*| [^\p{L}\p{N}]+")
# Its matches that a span mapping lists: each match is a whole run of separators (but a
# lone space), and one of a single character maps as it did.
_SEPARATOR_RUNS = regex.compile(r"[^\p{L}\p{N}]{2,}")
# The separator pass for an ASCII text (letters and digits of ASCII are [A-Za-z0-9]).
_ASCII_SEPARATORS = re.compile(r"[^A-Za-z0-9 ][^A-Za-z0-9]*| [^A-Za-z0-9]+")
# The non-ASCII characters on which the two forms differ: a text without any (emoji, dashes
# and curly double quotes in English prose) takes the ASCII form too.
_UNICODE_WORD_OR_JOINER = regex.compile(r"[\p{L}\p{N}\u2019\u02bc]")
_SPACES = re.compile("  +")

# ASCII-only patterns use `re`, which runs them about twice as fast as `regex`.
_LEET_WORD = re.compile(
    r"(?<![a-z0-9])(?=[a-z0-9]*[a-z][a-z0-9]*[a-z])(?=[a-z0-9]*[013457][a-z0-9]*[a-z])[a-z0-9]{3,24}(?![a-z0-9])"
)
_LEET = str.maketrans("013457", "oieast")
# What every leet word holds (after its leet digit, the next letter follows a digit): the
# word pattern is only tried on the run of letters and digits around each of these.
_LEET_HINT = re.compile(r"[0-9][a-z]")
_LETTERS_AND_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"
_LEET_WORD_LENGTH = 24
# A text one byte a character (each non-ASCII one "?"): "0" for an ASCII digit, "a" for an ASCII
# lower-case letter, " " for the rest; a `_LEET_HINT` is a "0a" there, which `find` finds
# several times faster than `re` scans for it.
_LEET_CLASSES = bytes(
    ord("0") if chr(code).isdigit() else ord("a") if chr(code).islower() else 32
    for code in range(128)
) + b" " * 128


def _leet_hints(text: str) -> Iterator[int]:
    """The starts of `_LEET_HINT`'s matches in `text`, in order (two never overlap)."""
    find = text.encode("ascii", "replace").translate(_LEET_CLASSES).find
    hint = find(b"0a")
    while hint >= 0:
        yield hint
        hint = find(b"0a", hint + 2)


def _unleet(match: Match) -> str:
    """`1gn0r3` -> `ignore`: a leet digit before a letter; not base64, rot13, v2 or x86 (digits last)."""
    word = match.group()
    digits = sum(ch.isdigit() for ch in word)
    return word.translate(_LEET) if digits * 2 <= len(word) else word


def _read_leetspeak(view: View, read: dict[str, str] | None = None) -> View:
    """`_LEET_WORD` words read by `_unleet`, as `rewrite` would, without running the pattern
    over the whole text: a leet word is a whole run of [a-z0-9] (its look-behind and
    look-ahead) holding a hint, so it is matched only from the start of a hint's run.
    `read`, when given, gets each word read otherwise, as it is read: in a text of runs of
    [a-z0-9] between spaces, the same run is read alike wherever it stands."""
    text = view.text
    pieces: list[str] = []
    position = 0
    for hint in _leet_hints(text):
        if hint < position:
            continue  # in the word just read
        # the run's start, if it is no longer than a leet word (else the match fails anyway)
        window = max(0, hint - _LEET_WORD_LENGTH)
        start = window + len(text[window:hint].rstrip(_LETTERS_AND_DIGITS))
        word = _LEET_WORD.match(text, start)
        if word is not None:
            letters = _unleet(word)
            if read is not None and letters != word.group():
                read[word.group()] = letters
            pieces += (text[position:start], letters)
            position = word.end()
    if not pieces:
        return view
    pieces.append(text[position:])
    return View("words", "".join(pieces), view.offsets)  # a word is read letter for letter


# An empty HTML comment renders as nothing, so it can split a word (`ig<!---->nore`).
_EMPTY_COMMENT = regex.compile(r"<!--[\s-]{0,16}-->")
# A hyphen at a line end between letters is a word broken across lines (`instru-\nctions`).
_LINE_BREAK_HYPHEN = regex.compile(r"(?<=[^\s-])-[ \t]{0,4}\r?\n[ \t]{0,4}(?=[^\s-])")
# Intensifiers, hedges and politeness words that change no instruction's meaning; an attacker
# pads key phrases with them to stretch past bounded gaps (`ignore really truly all ...`).
FILLER_WORDS = frozenset({
    "really", "very", "just", "please", "pls", "kindly", "truly", "basically", "honestly",
    "simply", "quickly", "totally", "absolutely", "actually", "literally", "seriously",
    "definitely", "certainly", "surely", "completely", "entirely", "fully", "utterly",
    "extremely", "highly", "genuinely", "frankly", "obviously", "clearly", "essentially",
    "practically", "virtually", "merely", "perhaps", "maybe", "kinda", "sorta", "um", "uh",
    "umm", "anyway", "anyways",
})  # fmt: skip
# `now` is filler too (`do now not tell`), except where it carries the meaning: a change of
# state or time (`you are now`, `from now on`, `until now`, `do anything now`).
_FILLER_NOW = regex.compile(
    r"(?<= )(?<! (?:are|re|youre|is|was|were|be|from|right|until|till|anything|for|by)"
    r"(?: [a-z]{1,12})? )now (?!on )"
)


# Where a tag of `_BLOCK_TAG` or `_INLINE_TAG` can start: `<`, maybe `/`, and a letter read
# case-insensitively (`regex` also takes U+0130, U+017F and the Kelvin sign for one). On `re`,
# which skips from one `<` to the next: a text of `<!--` holds no tag, and a `regex` sub of
# each tag pattern tries it at every `<`.
_TAG_START = re.compile("</?[A-Za-z\u0130\u017f\u212a]")
# What every `_EMPTY_COMMENT` holds (`[\s-]` takes no `>` and no word character of `re`),
# found from one `<!--` to the next.
_EMPTY_COMMENT_HINT = re.compile(r"<!--[^\w>]{0,16}-->")


Hint = Callable[[str], object]  # true where a pass may change the text


class _Unchanged:
    """The text each hint last found nothing in. A pass that changes nothing hands the next
    one the very same text (the same object), which a hint that found nothing in it before
    need not read again (a page of `<!--` is read once for tags, not four times)."""

    def __init__(self) -> None:
        self._read: dict[Hint, str] = {}

    def may_change(self, hint: Hint, text: str) -> bool:
        if self._read.get(hint) is text:
            return False
        if hint(text):
            return True
        self._read[hint] = text
        return False


def _removed(
    view: View, pattern: regex.Pattern[str], hint: Hint, by: str, unchanged: _Unchanged
) -> View:
    """`rewrite(view, "words", pattern, by)`, skipped when `hint` finds nothing (it finds
    something wherever `pattern` matches)."""
    if not unchanged.may_change(hint, view.text):
        return view
    return rewrite(view, "words", pattern, by)


def _markup(view: View, unchanged: _Unchanged) -> View:
    """Tags and empty comments removed; only a text with a `<` can hold any."""
    if "<" not in view.text:
        return view
    view = _removed(view, _INLINE_TAG, _TAG_STARTS, "", unchanged)
    return _removed(view, _EMPTY_COMMENT, _EMPTY_COMMENTS, "", unchanged)


# A hyphen at a line break with a character other than white space or `-` before it and
# after it (`regex`'s `\s` holds each of these), on `re`, which jumps from one `-` to the
# next and reads the character before only there; the pattern matches only where this does.
_NOT_BEFORE_A_BREAK = " \t\n\r-"
_LINE_BREAK_HINT = re.compile(
    r"-(?<=[^ \t\n\r-]-)[ \t]{0,4}\r?\n[ \t]{0,4}[^ \t\n\r-]"
)


def _may_break_words(text: str) -> bool:
    """False only when `_LINE_BREAK_HYPHEN` matches nowhere in `text` (one `re` search, no
    step a hyphen: a page of tables and rules holds thousands)."""
    return "-" in text and _LINE_BREAK_HINT.search(text) is not None


def _line_break_hyphens(view: View, unchanged: _Unchanged) -> View:
    if "-" not in view.text or not unchanged.may_change(_may_break_words, view.text):
        return view
    return rewrite(view, "words", _LINE_BREAK_HYPHEN, "")


_TAG_STARTS: Hint = _TAG_START.search
_EMPTY_COMMENTS: Hint = _EMPTY_COMMENT_HINT.search


def _without_joiners(view: View) -> View:
    """Joiners deleted by one `str.replace` each the text holds (several times faster than
    `sub`); the runs of them are the replacements a span mapping lists (of ASCII joiners
    alone, by C passes: `joiner_run_edits`)."""
    present = [joiner for joiner in _JOINER_CHARS if joiner in view.text]
    if not present:
        return view
    text = view.text
    for joiner in present:
        text = text.replace(joiner, "")
    if "".join(present).isascii():
        runs = joiner_run_edits(view.text)
    else:
        runs = fixed_edits(_JOINERS, view.text, 0)
    return View("words", text, EditedMap(view.offsets, runs))


def _single_spaced(view: View, plain: bool, rare: int) -> tuple[View, list[str] | None]:
    """Every run of separators one space (`_SEPARATORS`, or `_ASCII_SEPARATORS` when the text
    is `plain`), and its words where C passes spaced it (each non-ASCII letter or digit
    `_STAND_IN` there). `rare`: at least as many as the text's non-ASCII characters.

    A plain text is spaced by C passes instead of a `sub`: its non-ASCII characters are all
    separators, as is the `?` an ASCII encoding writes for each; every other separator is made
    a space, and the words between the spaces are joined by one. A text with few non-ASCII
    characters is spaced alike, each of its non-ASCII letters and digits kept in its place
    by a stand-in (`_spaced_keeping`) and put back once the words are joined. The view maps as
    the one `rewrite` makes."""
    text = view.text
    kept: list[str] = []
    if plain:
        spaced = text.encode("ascii", "replace").translate(_SEPARATOR_BYTES).decode("ascii")
    elif rare * _SPARSE_NON_ASCII <= len(text):
        spaced, kept = _spaced_keeping(text)
    else:
        return rewrite(view, "words", _SEPARATORS, " ", _SEPARATOR_RUNS), None
    words = spaced.split()
    if not words:
        single = " " if text else ""
    else:
        single = " ".join(words)
        if spaced[0] == " " or spaced[-1] == " ":
            single = " " * (spaced[0] == " ") + single + " " * (spaced[-1] == " ")
    if kept:
        pieces = single.split(_STAND_IN)
        single = "".join(itertools.chain.from_iterable(zip(pieces, kept))) + pieces[-1]
    if single == text:  # no run to replace: `sub` returns the text itself
        return view, words
    # (a run of two separators or more is a run of spaces there, as in a plain text)
    edits = fixed_edits(_SPACES, spaced, 1)
    return View("words", single, EditedMap(view.offsets, edits)), words


# A text with fewer non-ASCII characters than one in this many is spaced by C passes, its
# non-ASCII characters looked at one by one.
_SPARSE_NON_ASCII = 16
# What stands for a non-ASCII letter or digit in the spaced text: a control character, which
# `_SEPARATOR_BYTES` makes a space wherever the text holds one.
_STAND_IN = "\x01"
# The ASCII form by C passes, one byte a character (`encode` writes "?" for a non-ASCII
# one): every character but [A-Za-z0-9] made a space. A run of separators of one character
# is replaced by one space, which maps it no differently: only the longer ones, runs of
# spaces there, are listed when a span is mapped.
_SEPARATOR_BYTES = bytes(code if chr(code).isascii() and chr(code).isalnum() else 32 for code in range(256))
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LETTER_OR_DIGIT = regex.compile(r"[\p{L}\p{N}]")


@functools.lru_cache(maxsize=4096)
def _letter_or_digit(char: str) -> bool:
    return _LETTER_OR_DIGIT.match(char) is not None


def _spaced_keeping(text: str) -> tuple[str, list[str]]:
    """`text` with every separator a space, character for character, each non-ASCII letter
    or digit `_STAND_IN`; and those letters and digits, in order."""
    spaced = bytearray(text.encode("ascii", "replace").translate(_SEPARATOR_BYTES))
    kept = []
    stand_in = ord(_STAND_IN)
    for found in _NON_ASCII.finditer(text):
        char = found.group()
        if _letter_or_digit(char):
            spaced[found.start()] = stand_in
            kept.append(char)
    return spaced.decode("ascii"), kept


def _drop_fillers(view: View, fillers: frozenset[str] | None = None) -> View:
    """Every filler word dropped with the space after it. The text is single-spaced words
    between spaces by now, so one split finds them (no pattern runs over the text);
    `fillers`: the fillers among its tokens, when those are known."""
    if fillers is None:
        fillers = FILLER_WORDS.intersection(view.text.split(" "))
    if not fillers:
        return view

    def filler_edits() -> Iterator[Edits]:
        # Each filler token with the space after it: a token of the padded text is a string
        # between two spaces, so a filler's are the places of ` filler ` (one `find` each;
        # the space after one may be the space before the next).
        dropped: list[tuple[int, int]] = []
        find = view.text.find
        for filler in fillers:
            at = find(f" {filler} ")
            while at >= 0:
                dropped.append((at + 1, at + len(filler) + 2))
                at = find(f" {filler} ", at + len(filler) + 1)
        dropped.sort()
        yield Edits.uniform([start for start, _ in dropped], [end for _, end in dropped], 0)

    # Each filler token with the space before it in place of the one after: the same text,
    # as the text is tokens between single spaces. One `sub` for all the fillers found (of
    # one filler, `re` finds its literal as `find` does) instead of a join of every token.
    kept = _filler_tokens(frozenset(fillers)).sub("", view.text)
    return View("words", kept, EditedMap(view.offsets, filler_edits()))


@functools.lru_cache(maxsize=1024)
def _filler_tokens(fillers: frozenset[str]) -> re.Pattern[str]:
    """Each of `fillers` as a token of a padded words view, with the space before it."""
    return re.compile(" (?:" + "|".join(sorted(fillers)) + ")(?= )")


def words_view(skeleton: View) -> View:
    # Each pass runs only when the text holds what it removes: most prose needs only
    # the separator pass.
    view = skeleton
    unchanged = _Unchanged()
    if "<" in view.text:
        view = _removed(view, _BLOCK_TAG, _TAG_STARTS, " ", unchanged)
        view = _removed(view, _INLINE_TAG, _TAG_STARTS, "", unchanged)
        # A second pass: removing `<b></b>` from `<<b></b>/b>` leaves a tag behind.
        view = _markup(view, unchanged)
    view = _line_break_hyphens(view, unchanged)
    # no pass below adds a non-ASCII character
    rare = non_ascii_chars(view.text)
    plain = not rare or not _UNICODE_WORD_OR_JOINER.search(rare)
    view = _without_joiners(view)
    # Emphasis marks around a break, inside a tag or comment (`ig-**\nnore`, `<**/b>`,
    # `<!-**--->`) hide it until they are gone.
    view = _markup(_line_break_hyphens(view, unchanged), unchanged)
    spaced, words = _single_spaced(view, plain, len(rare))
    read: dict[str, str] = {}  # what the leet pass read, where the words are known
    view = _read_leetspeak(spaced, None if words is None else read)
    if not view.text:
        return View("words", " ", ConstantMap(0, 0), {""})
    lead, trail = not view.text.startswith(" "), not view.text.endswith(" ")
    if lead or trail:
        text = " " * lead + view.text + " " * trail
        view = View("words", text, PaddedMap(view.offsets, len(view.text), int(lead), trail))
    fillers = None if words is None else _fillers_in(words, read, view.text)
    view = _drop_fillers(view, fillers)
    if " now " in view.text:
        view = rewrite(view, "words", _FILLER_NOW, "")
    if words is None or not plain:
        return View("words", view.text, view.offsets)
    text, dropped = view.text, fillers or frozenset()
    return View("words", text, view.offsets, lambda: _tokens(words, read, spaced.text, dropped, text))


def _fillers_in(words: list[str], read: dict[str, str], padded: str) -> frozenset[str]:
    """The fillers among the tokens of `padded`, the words view before its fillers are
    dropped, from its `words` before the leet pass `read` some (a non-ASCII letter or
    digit of them `_STAND_IN`) instead of a split of the whole text. A filler token is one of
    those words (no filler holds a digit, which each word the pass reads holds) or one the
    pass read as a whole; a part of a word read is never one (the rest of its word is a
    character other than [a-z0-9], which no filler holds): a reading is a filler token
    where ` reading ` is in the text."""
    fillers = FILLER_WORDS.intersection(words)
    if read:
        read_fillers = FILLER_WORDS.intersection(read.values())
        fillers |= {filler for filler in read_fillers if f" {filler} " in padded}
    return fillers


def _tokens(
    words: list[str], read: dict[str, str], spaced: str, dropped: frozenset[str], text: str
) -> set[str] | None:
    """The distinct tokens of `text`, the words view of a plain text (`""` for the spaces
    it starts and ends with): its `words` before the leet pass, each as the pass `read` it,
    but the fillers `dropped` and a `now` no longer between spaces (a token of the padded
    text is a string between spaces). A word is read alike wherever it stands only where
    every word is a run of [a-z0-9] (no capital, which a skeleton never holds: otherwise
    unknown). Worked out when the view's anchor lookup first asks for them (most never do:
    `View.tokens`)."""
    if read and not spaced.islower():
        return None
    tokens = set(words)
    if read:
        tokens.difference_update(read)
        tokens.update(read.values())
    tokens.add("")
    tokens.difference_update(dropped)
    if " now " not in text:
        tokens.discard("now")
    return tokens
