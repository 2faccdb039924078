"""A scan window read through its non-ASCII characters alone.

Most windows that are not ASCII hold a handful of non-ASCII characters (quotes, dashes,
an emoji) among thousands of ASCII ones, yet each question the scanner asks of them (which
invisible characters are there, does NFKC change anything, does a character fold to an
ASCII letter) would read every character of a two- or four-byte string. All three are
answered by the non-ASCII characters alone, which two C passes pick out: the window's UTF-8
form with every ASCII byte deleted (a multi-byte sequence holds no byte below 0x80), decoded
back.

NFKC leaves the window as it is when none of those characters is a combining mark and they
are NFKC-normal as one string. That string being normal, each of its characters is its own
NFKC, and so decomposes (if at all) into a starter and the marks it composes back with; a
window changes only where a character meets a neighbour it does not meet in that string:
an ASCII one, the first character of a run after one or the last before one. An ASCII
character composes with no following starter and is no character's second part, and every
decomposition that composes back starts with a starter (``tests/test_sparse_window.py``
checks these facts on the Unicode tables), so those neighbours never compose, and no mark
moves past a starter.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, NamedTuple

from soulscan.engine.anchors import FOLDS_TO_ASCII
from soulscan.engine.lowered import LETTER_STAND_IN, SYMBOL_STAND_IN
from soulscan.engine.text_memos import on_forget

_ASCII_BYTES = bytes(range(128))
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_FOLDING = frozenset(FOLDS_TO_ASCII)


class WindowFacts(NamedTuple):
    """What the scanner needs of a non-ASCII window."""

    invisible: frozenset[str]  # the runtime's invisible characters the window holds
    normal: bool  # NFKC provably leaves the window as it is (False: not proven)
    # when normal and no character folds to an ASCII one: the window folded for ASCII
    # anchors (``PreparedText``)
    folded: str | None
    # ``re`` reads no non-ASCII character as a word, space or digit character: each is a
    # symbol, which ``folded`` reads as ``?`` (``soulscan.engine.lowered.takes_symbols``)
    symbols_only: bool = False
    # ``folded`` reads each letter (a word character that is no digit) as ``Z`` and each
    # other non-ASCII character, all symbols, as ``?`` (``lowered.takes_letters``)
    letters: bool = False
    # when not proven normal: NFKC makes no ASCII character and no character that folds to
    # one, so every run of ASCII characters NFKC leaves is one the window holds (``ascii_kept``)
    ascii_kept: bool = False


def non_ascii_characters(utf8: bytes) -> str:
    """Every non-ASCII character of a window, in order (lone surrogates too), from its
    ``encode("utf-8", "surrogatepass")`` form."""
    return utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")


def distinct_characters(text: str, passes: int = 16, utf8: bytes | None = None) -> set[str]:
    """The characters of ``text``. ``set(text)`` makes an object per non-Latin-1 character;
    a sample of its start holds them all when the text repeats within it
    (``repeats_within``); else, when the sample holds few, counting each is a C pass that
    tells whether they are all (their counts add up to the length), or, for more than a
    few, one RE2 pass over ``utf8``, the text's ``encode("utf-8", "surrogatepass")`` form
    (``made_of``); else removing one character at a time is a few C-speed passes when
    there are few."""
    sample = set(text[:_SAMPLE])
    if len(text) <= _SAMPLE or repeats_within(text, _SAMPLE):
        return sample  # (the whole text, or a text each of whose characters is in it)
    if len(sample) <= 2 * passes:
        known = None
        if utf8 is not None and len(sample) * len(text) > _COUNTS_AN_RE2_BYTE * len(utf8):
            known = made_of(utf8, sample)
        if known is None:
            known = sum(map(text.count, sample)) == len(text)
        if known:
            return sample
    found: set[str] = set()
    rest = text
    for _ in range(passes):
        if not rest:
            return found
        found.add(rest[0])
        rest = rest.replace(rest[0], "")
    return found | set(rest)


# The characters of a text's first stretch this long are counted through the whole text.
_SAMPLE = 512
# An RE2 pass over a byte costs about this many ``str.count`` steps over a character.
_COUNTS_AN_RE2_BYTE = 2


def made_of(utf8: bytes, characters: set[str]) -> bool | None:
    """Whether the text whose ``encode("utf-8", "surrogatepass")`` form is ``utf8`` holds
    no character but ``characters``: the bytes are a run of the characters' encodings, a
    code in which no encoding starts another (one RE2 pass, Latin-1: byte by byte). None
    when RE2 cannot tell (google-re2 missing, or refusing the program)."""
    re2 = _re2()
    if re2 is None:
        return None
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    encodings = (char.encode("utf-8", "surrogatepass") for char in characters)
    pattern = b"(?:" + b"|".join(b"".join(map(b"\\x%02x".__mod__, code)) for code in encodings) + b")*\\z"
    try:
        # (``match`` to ``\\z``: RE2's fully anchored match takes half as long again)
        return re2.compile(pattern, options).match(utf8) is not None
    except re2.error:
        return None


@functools.cache
def _re2() -> Any:
    """The ``re2`` module, None without google-re2 (imported by the windows that ask)."""
    try:
        import re2  # type: ignore[import-untyped]
    except ImportError:
        return None
    return re2


def repeats_within(text: str, most: int) -> bool:
    """Whether ``text`` repeats itself at a distance of at most ``most`` characters
    (``text[d:] == text[:-d]``): then every character of it is one of its first ``d``. A
    distance is looked for where the text's first characters recur (a C search over the
    first ``most``), and a few are checked, each by one C comparison (a long run of emoji
    sequences or hidden characters repeats a unit of a few dozen characters)."""
    head = text[:_HEAD]
    reach = most + len(head)
    distance = text.find(head, 1, reach)
    for _ in range(_DISTANCES_TRIED):
        if distance == -1 or distance >= len(text):
            return False
        # (a short stretch compared first: a text that does not repeat is told so without
        # copying it twice)
        if text.startswith(text[distance : distance + _PROBE]) and text[distance:] == text[:-distance]:
            return True
        distance = text.find(head, distance + 1, reach)
    return False


# The first characters whose recurrence suggests a distance, how many distances are
# checked, and the stretch compared before the whole text.
_HEAD = 16
_DISTANCES_TRIED = 3
_PROBE = 1024
# Fewer non-ASCII characters than this are put in a set at once.
_MANY = 256


def window_facts(window: str, invisible_chars: frozenset[str]) -> WindowFacts:
    """The facts of a non-ASCII ``window``.

    The facts of the last window asked about are remembered: the runtime profile asks
    again about the window its scan has just read, to locate the verdict's spans (an equal
    text, sliced again: one comparison, not the passes over it)."""
    last = _last_asked[0]
    if last is not None and last[1] is invisible_chars and (last[0] is window or last[0] == window):
        return last[2]
    facts, characters = _facts_and_characters(window, invisible_chars)
    _last_asked[0] = (window, invisible_chars, facts, characters)
    return facts


# The last window ``window_facts`` was asked about, with its invisible set, its facts and
# its non-ASCII characters.
_last_asked: list[tuple[str, frozenset[str], WindowFacts, set[str]] | None] = [None]


def forget_last_window() -> None:
    """Forget the last window asked about: a new file is read. Its windows are looked at
    afresh even when an earlier file was the same (a file scanned again costs what its
    first scan did)."""
    _last_asked[0] = None


on_forget(forget_last_window)  # a benchmark's repeated runs look afresh (engine/text_memos)


def last_window() -> tuple[str, set[str]] | None:
    """The last window ``window_facts`` was asked about and its non-ASCII characters (None:
    none since a file was last read): the runtime profile shows excerpts of the window its
    scan has just read, which escape its hidden characters."""
    last = _last_asked[0]
    return None if last is None else (last[0], last[3])


def proven_normal(text: str) -> bool:
    """Whether ``text`` is the last window ``window_facts`` was asked about and its facts
    prove it NFKC-normal (False: not known)."""
    last = _last_asked[0]
    return last is not None and last[2].normal and (last[0] is text or last[0] == text)


def _facts_and_characters(window: str, invisible_chars: frozenset[str]) -> tuple[WindowFacts, set[str]]:
    """The facts of a non-ASCII window, and its non-ASCII characters."""
    utf8 = window.encode("utf-8", "surrogatepass")
    if 2 * (len(utf8) - len(window)) >= 3 * len(window):
        # Half the characters or more are non-ASCII (each adds at most three bytes): the
        # window is read whole rather than through a copy of nearly all of it. A window
        # that is its own NFKC is proven normal at once (even where its non-ASCII
        # characters as one string are not: jamo kept apart by an ASCII character).
        distinct = {char for char in distinct_characters(window, utf8=utf8) if not char.isascii()}
        read = window
    else:
        non_ascii = utf8.translate(None, _ASCII_BYTES)  # (``non_ascii_characters``)
        read = non_ascii.decode("utf-8", "surrogatepass")
        distinct = distinct_characters(read, utf8=non_ascii) if len(read) > _MANY else set(read)
    invisible = frozenset(distinct & invisible_chars)
    if any(map(unicodedata.combining, distinct)) or not unicodedata.is_normalized("NFKC", read):
        return WindowFacts(invisible, False, None, ascii_kept=ascii_kept(distinct)), distinct
    if not _FOLDING.isdisjoint(distinct):
        return WindowFacts(invisible, True, None), distinct
    joined = "".join(distinct)
    if _WORD_OR_SPACE.search(joined) is None:
        folded = window.encode("ascii", "replace").decode("ascii").lower()
        return WindowFacts(invisible, True, folded, symbols_only=True), distinct
    table = _letters_table(joined)
    if table is not None:
        folded = utf8.translate(table, _CONTINUATION_BYTES).decode("ascii")
        return WindowFacts(invisible, True, folded, letters=True), distinct
    folded = window.encode("ascii", "replace").decode("ascii").lower()
    return WindowFacts(invisible, True, folded), distinct


# ``re``'s own classes, as the runtime's patterns read them
_DIGIT_OR_SPACE = re.compile(r"[\d\s]")
_WORD = re.compile(r"\w")
_NOT_WORD = re.compile(r"\W")
# ASCII lower-cased, every other byte the symbol stand-in (``str.encode``'s replacement)
_FOLD_TABLE = bytes(byte + 32 if 0x41 <= byte <= 0x5A else byte if byte < 0x80
                    else ord(SYMBOL_STAND_IN) for byte in range(256))


def _letters_table(distinct: str) -> bytes | None:
    """A ``bytes.translate`` table that folds a window's UTF-8 form, its continuation bytes
    deleted (one byte a character), as ``PreparedText`` folds it, but with each letter read
    as ``LETTER_STAND_IN``: when the ``distinct`` non-ASCII characters are letters (``re``
    reads them as word characters and no digits) and symbols (none of word, space or digit
    character), and no UTF-8 leading byte starts both a letter and a symbol. None otherwise."""
    if _DIGIT_OR_SPACE.search(distinct) is not None:
        return None
    letter_leads = _leading_bytes(_NOT_WORD.sub("", distinct))
    if not letter_leads.isdisjoint(_leading_bytes(_WORD.sub("", distinct))):
        return None
    table = bytearray(_FOLD_TABLE)
    for lead in letter_leads:
        table[lead] = ord(LETTER_STAND_IN)
    return bytes(table)


def _leading_bytes(chars: str) -> set[int]:
    return set(chars.encode("utf-8", "surrogatepass").translate(None, _CONTINUATION_BYTES))


# (``\d`` is within ``\w``)
_WORD_OR_SPACE = re.compile(r"[\w\s]")


def ascii_kept(distinct: set[str]) -> bool:
    """Does NFKC of a window whose non-ASCII characters are ``distinct`` keep its ASCII
    characters apart as they are: no ASCII character made, none joined to another, none
    turned into one that folds to ASCII (``anchors.FOLDS_TO_ASCII``)?

    True when no character of ``distinct`` folds to ASCII and their full decompositions
    hold no ASCII character and no U+0307 (``I`` + U+0307 composes to ``İ``, which ``re``
    matches as ``i``). Then the ASCII characters of the NFKC are ASCII characters of the
    window, in order: decomposition keeps them (starters) and makes none; reordering moves
    marks only between starters; composition joins a starter with marks after it into a
    non-ASCII character, and a character between two ASCII ones never vanishes (a
    decomposition is never empty; what composes into the first makes it non-ASCII). So two
    ASCII characters next to each other in the NFKC were next to each other in the window,
    and an ASCII string found in the NFKC's folded form is found in the window's.
    """
    if not _FOLDING.isdisjoint(distinct):
        return False
    # each character decomposed on its own (a starter between them): reordering a long run
    # of marks is quadratic in CPython, and a crafted window may hold thousands of them
    decomposed = unicodedata.normalize("NFKD", _APART.join(distinct))
    return _ASCII_OR_DOT_ABOVE.search(decomposed) is None


_APART = "\uffff"  # a non-ASCII starter that decomposes to itself


_ASCII_OR_DOT_ABOVE = re.compile("[\x00-\x7f\u0307]")
