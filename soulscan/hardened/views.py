"""Normalised views of a text that undo obfuscation while remembering where each character came from.

Every view character maps back to the original code points it was derived from, so a rule
match on a view becomes a span on the real characters (`soulscan.hardened.view_offsets`: the
map is kept as segments, worked out only when a span is mapped). Each stage is one regex or
`str` pass over the whole text that rewrites matches and copies everything else, which keeps
building a view linear in the input size; a pass that cannot apply to the text is skipped.

View names (the `view` key of a hardened rule):
  raw       the text as given
  nfkc      NFKC per character (full-width, mathematical and ligature forms folded)
  skeleton  HTML entities decoded, invisible/format characters and stacked combining marks
            removed, NFKC, lower-cased, and words written entirely in look-alike letters of
            another script folded to ASCII (UTS #39 confusables); punctuation kept
  words     the skeleton as words between single spaces (`soulscan.hardened.words_view`)
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator

import regex

from soulscan.engine.matcher import PreparedText, folded_from_lower
from soulscan.hardened.confusables_data import TO_ASCII
from soulscan.hardened.text_characters import (
    ASCII_INVISIBLE,
    TextCharacters,
    ascii_invisible_count,
)
from soulscan.hardened.view_offsets import EditedMap, Edits
from soulscan.hardened.view_rewrite import (
    Match,
    Pattern,
    View,
    identity_view,
    non_ascii_chars,
    rewrite,
    rewrite_found,
)
from soulscan.hardened.words_view import words_view

VIEW_NAMES = ("raw", "nfkc", "skeleton", "words")
# The views whose text is lower-case: lowering it again changes nothing.
_LOWER_CASE_VIEWS = ("skeleton", "words")


_ENTITY = regex.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
# Default-ignorable and format characters, controls other than tab/newline/CR, and the blank
# look-alikes (Hangul fillers, braille blank) that render as nothing.
INVISIBLE_SOURCE = (
    r"[\p{Default_Ignorable_Code_Point}\p{Cf}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2800]+"
)
# Its code points (tests/test_hardened_views.py checks every one), for `re`: its sub runs
# ~1.6x as fast as `regex`'s on a text full of them (emoji ZWJ sequences, tag runs).
_INVISIBLE_RANGES = (
    (0x0, 0x8), (0xb, 0xc), (0xe, 0x1f), (0x7f, 0x9f), (0xad, 0xad), (0x34f, 0x34f),
    (0x600, 0x605), (0x61c, 0x61c), (0x6dd, 0x6dd), (0x70f, 0x70f), (0x890, 0x891),
    (0x8e2, 0x8e2), (0x115f, 0x1160), (0x17b4, 0x17b5), (0x180b, 0x180f), (0x200b, 0x200f),
    (0x202a, 0x202e), (0x2060, 0x206f), (0x2800, 0x2800), (0x3164, 0x3164), (0xfe00, 0xfe0f),
    (0xfeff, 0xfeff), (0xffa0, 0xffa0), (0xfff0, 0xfffb), (0x110bd, 0x110bd),
    (0x110cd, 0x110cd), (0x13430, 0x1343f), (0x1bca0, 0x1bca3), (0x1d173, 0x1d17a),
    (0xe0000, 0xe0fff),
)
_INVISIBLE_RUN = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in _INVISIBLE_RANGES) + "]+"
)
_DOTTED_CAPITAL_I = regex.compile("\u0130")
# The characters NFKC may change when normalised alone: every other one (ASCII, or NFKC
# quick check Yes) is its own NFKC form (tests/test_hardened_views.py checks every code point),
# so an emoji or CJK text needs no call per character.
_NFKC_MAY_CHANGE = regex.compile(r"[^\x00-\x7f\p{NFKC_Quick_Check=Yes}]")
# From one of those to the end of its run of non-ASCII characters (any other one stays as it
# is when normalised alone), so that runs of mixed combining marks are one call.
_NFKC_MAY_CHANGE_RUN = regex.compile(_NFKC_MAY_CHANGE.pattern + r"[^\x00-\x7f]*")
_COMBINING_AFTER_NFKC = regex.compile(r"[\p{Mn}\p{Me}]+")
_NON_ASCII_WORD = regex.compile(r"[\p{L}\p{N}]*[^\x00-\x7f][\p{L}\p{N}]*")
_NON_ASCII_CHAR = re.compile(r"[^\x00-\x7f]")
_LETTERS_BEFORE = regex.compile(r"[\p{L}\p{N}]*", regex.REVERSE)
# A text with fewer non-ASCII characters than one in this many has its `_NON_ASCII_WORD`
# matches found from each (`_non_ascii_words`), not by a search trying every character.
_SPARSE_NON_ASCII = 16
# A word is only folded when a look-alike of an ASCII letter is in it. On `re`: its table of
# a large set of characters is looked up ~30x faster than `regex`'s.
_CONFUSABLE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(TO_ASCII)) + "]")


def _decode_entity(match: Match) -> str:
    import html  # only for a text with an entity: importing it costs every start-up

    return html.unescape(match.group())


# NFKC of one character alone; a text repeats the few it holds.
_nfkc_alone = functools.lru_cache(maxsize=4096)(functools.partial(unicodedata.normalize, "NFKC"))


# A run at least this long is normalised by its distinct characters.
_LONG_RUN = 64


def _each_normalised(chars: str) -> str:
    """`"".join(map(_nfkc_alone, chars))`. A long run (a million stacked combining marks)
    holds few distinct characters: each is normalised once, and only those that change are
    replaced, by one `translate`; a run none of whose characters changes is itself."""
    if len(chars) < _LONG_RUN:
        return "".join(map(_nfkc_alone, chars))
    changing = {ord(char): normal for char in _distinct(chars) if (normal := _nfkc_alone(char)) != char}
    return chars.translate(changing) if changing else chars


def _distinct(chars: str) -> set[str]:
    """The distinct characters of a long run. A run of a few (stacked marks) gives them by
    taking each out of what is left, a C pass each, several times faster than a set of a
    million characters; once a pass takes out less than an eighth of what is left, the
    rest goes into a set (each pass before it took out an eighth: at most eight reads of
    the run in all)."""
    found = set()
    left = chars
    while left:
        char = left[0]
        found.add(char)
        shorter = left.replace(char, "")
        if (len(left) - len(shorter)) * 8 < len(left):
            return found.union(shorter)
        left = shorter
    return found


def _nfkc_each(view: View, name: str) -> View:
    """Every character NFKC-normalised alone, a run at a time: the view
    `rewrite(view, name, _NFKC_MAY_CHANGE, <NFKC of the match>)` makes with a call a
    character. Only a character that becomes several (never none) changes the offsets."""
    resized: list[tuple[int, int, int]] = []

    def normalise(run: Match) -> str:
        chars = run.group()
        normal = _each_normalised(chars)
        if len(normal) != len(chars):
            for index, char in enumerate(chars, run.start()):
                if len(_nfkc_alone(char)) != 1:
                    resized.append((index, index + 1, len(_nfkc_alone(char))))
        return normal

    text = _NFKC_MAY_CHANGE_RUN.sub(normalise, view.text)
    return View(
        name, text, EditedMap(view.offsets, [Edits.of(resized)]) if resized else view.offsets
    )


def _in_ascii_context(match: Match) -> bool:
    """Is the word surrounded mostly by ASCII letters (an English sentence)?"""
    around = (
        match.string[max(0, match.start() - 40) : match.start()]
        + match.string[match.end() : match.end() + 40]
    )
    letters = list(filter(str.isalpha, around))
    return len(letters) >= 6 and sum(map(str.isascii, letters)) >= 0.8 * len(letters)


def _fold_word(match: Match) -> str:
    """Fold a word to ASCII when every letter has an ASCII look-alike and it is a spoof.

    A spoof is a word that already mixes in ASCII letters, or that stands in English text;
    genuine Cyrillic or Greek words in their own text (`с`, `ее`) are left alone.
    """
    word = match.group()
    if word.isascii():
        return word
    # Whether every letter folds first: a word of another script holds a letter that does
    # not (`л`), which one `translate` tells, before its context is read.
    folded = word.translate(TO_ASCII)  # (every look-alike is one ASCII letter)
    if not folded.isascii():
        return word
    if not (any(ch.isascii() for ch in word) or _in_ascii_context(match)):
        return word
    return folded


def _lower(view: View, name: str, lowered: str | None = None) -> View:
    """`lowered`: the text's lower case, when it is known."""
    if lowered is None:
        lowered = view.text.lower()
    if len(lowered) == len(view.text):
        return View(name, lowered, view.offsets)
    # `İ` is the only character whose lower case is longer (i + U+0307): it alone goes by rewrite,
    # then everything else lowers one to one. (The whole text is lowered: lowering only the
    # non-ASCII characters would leave `İ IGNORE ALL PREVIOUS INSTRUCTIONS` unread by SS101.)
    view = rewrite(view, name, _DOTTED_CAPITAL_I, "i\u0307")
    return View(name, view.text.lower(), view.offsets)


def nfkc_view(raw: View, rare: str | None = None) -> View:
    """`rare`: the non-ASCII characters of the text, when they are known."""
    if not _NFKC_MAY_CHANGE.search(non_ascii_chars(raw.text) if rare is None else rare):
        return View("nfkc", raw.text, raw.offsets)
    return _nfkc_each(raw, "nfkc")


def skeleton_view(
    raw: View,
    characters: TextCharacters | None = None,
    nfkc: Callable[[], View] | None = None,
    lowered: Callable[[str], str] | None = None,
) -> View:
    """`characters`: those of the text, when they are known; `nfkc`: the nfkc view of the
    text, which the skeleton's own NFKC pass makes too when the passes before it changed
    nothing; `lowered`: lowers a text as `str.lower` (remembering it for the views' folds)."""
    # Passes that only touch `&`, non-ASCII or look-alike characters are skipped on texts
    # without any: most prose is ASCII.
    view = raw
    if "&" in view.text:
        view = rewrite(view, "skeleton", _ENTITY, _decode_entity)
    if characters is None or view.text is not raw.text:
        characters = TextCharacters(view.text)
    rare = characters.rare  # what a later pass finds is among these, or ASCII
    if _INVISIBLE_RUN.search(rare):
        # (the count reads the text: only where the non-ASCII characters are few)
        if _sparse(view.text, rare) and _sparse(view.text, rare, ascii_invisible_count(view.text)):
            view = _deleted_at(view, _INVISIBLE_RUN, _INVISIBLE_START)
        else:
            view = rewrite(view, "skeleton", _INVISIBLE_RUN, "")
    elif characters.ascii_invisible:
        view = rewrite(view, "skeleton", ASCII_INVISIBLE, "")
    if _NFKC_MAY_CHANGE.search(rare):
        if nfkc is not None and view.text is raw.text and view.offsets is raw.offsets:
            shared = nfkc()
            view = View("skeleton", shared.text, shared.offsets)
        else:
            view = _nfkc_each(view, "skeleton")
        rare = non_ascii_chars(view.text)
    if _COMBINING_AFTER_NFKC.search(rare):
        if _sparse(view.text, rare):
            view = _deleted_at(view, _COMBINING_AFTER_NFKC, _NON_ASCII_CHAR)
        else:
            view = rewrite(view, "skeleton", _COMBINING_AFTER_NFKC, "")
    view = _lower(view, "skeleton", lowered(view.text) if lowered else None)
    if _may_hold_confusable(rare) and _CONFUSABLE.search(view.text):
        view = _fold_spoofed_words(view)
    return view


# The one character whose lower case depends on what stands around it (final sigma: `σ` or
# `ς`); every other one lowers alike wherever it stands.
_CAPITAL_SIGMA = "\u03a3"


def _may_hold_confusable(rare: str) -> bool:
    """False only when the lowered text holds no `_CONFUSABLE` character, where `rare` holds
    at least the non-ASCII characters of the text before it was lowered: every confusable
    is non-ASCII, an ASCII character lowers to one, and any other to its own lower case,
    which the lowered `rare` holds too (but a capital sigma's). A search of these few
    characters in place of one of the whole text (~2.5 ns a character)."""
    return bool(rare) and (_CAPITAL_SIGMA in rare or _CONFUSABLE.search(rare.lower()) is not None)


def _sparse(text: str, rare: str, others: int = 0) -> bool:
    """Does `text` hold few non-ASCII characters (`rare`: at least those it holds) and
    `others` characters of another kind?"""
    return (len(rare) + others) * _SPARSE_NON_ASCII <= len(text)


# The characters an invisible run can start with: non-ASCII ones and ASCII invisibles.
_INVISIBLE_START = re.compile(r"[^\t\n\r\x20-\x7e]")


def _found_at(pattern: Pattern, text: str, starts: re.Pattern[str]) -> Iterator[Match]:
    """The matches of `pattern`, each of which starts with a character `starts` finds, as
    `finditer` finds them: tried at each such character from the last one's end (the first
    place it matches is the leftmost), not at every character."""
    position = 0
    while (char := starts.search(text, position)) is not None:
        match = pattern.match(text, char.start())
        if match is None or match.end() == char.start():  # (the patterns match no empty run)
            position = char.end()
            continue
        yield match
        position = match.end()


def _nothing(match: Match) -> str:
    return ""


def _deleted_at(view: View, pattern: Pattern, starts: re.Pattern[str]) -> View:
    """`rewrite(view, "skeleton", pattern, "")` for a pattern each of whose matches starts
    with a character `starts` finds, in a text that holds few."""
    return rewrite_found(view, "skeleton", _found_at(pattern, view.text, starts), _nothing)


def _non_ascii_words(text: str) -> Iterator[Match]:
    """The matches of `_NON_ASCII_WORD` in `text`, as `finditer` finds them. From where the
    last one ended, the next starts at the run of letters and digits just before the next
    non-ASCII character (from no earlier place: a character that is neither stands between),
    and is the pattern's match there."""
    position = 0
    while (char := _NON_ASCII_CHAR.search(text, position)) is not None:
        letters = _LETTERS_BEFORE.match(text, position, char.start())
        word = _NON_ASCII_WORD.match(text, char.start() if letters is None else letters.start())
        if word is None:  # never: the pattern matches at the non-ASCII character
            raise AssertionError("no word at a non-ASCII character")
        yield word
        position = word.end()


def _fold_spoofed_words(view: View) -> View:
    """`rewrite(view, "skeleton", _NON_ASCII_WORD, _fold_word)`: in a text of few non-ASCII
    characters, their words are found from each of them."""
    text = view.text
    if (len(text.encode("utf-8", "surrogatepass")) - len(text)) * _SPARSE_NON_ASCII > len(text):
        return rewrite(view, "skeleton", _NON_ASCII_WORD, _fold_word)
    return rewrite_found(view, "skeleton", _non_ascii_words(text), _fold_word)


class Views:
    """Lazily built views of one text; each is computed at most once.

    (A dict, not `cached_property`, whose first access takes a lock: a text's views are each
    built once, so that first access is every access but the cached ones of `ViewRules`.)"""

    def __init__(self, text: str) -> None:
        self.text = text
        self._built: dict[str, View] = {}
        self.characters = TextCharacters(text)
        self._lowered: list[tuple[str, str]] = []  # (a text, its lower case)
        # (a lower-cased text, whether the text folded is ASCII, its fold): the raw text (or
        # its NFKC view) and the skeleton that is its lower case share one fold
        self._folds: list[tuple[str, bool, str]] = []

    @property
    def rare(self) -> str:
        """The text's non-ASCII characters (`non_ascii_chars`), for every view's passes."""
        return self.characters.rare

    def lowered(self, text: str) -> str:
        """`text.lower()` of the text or of one of its views, each lowered once: the skeleton
        of most texts is the lower case of the text or of its NFKC view, and the folds of
        those are made of it."""
        for seen, lower in self._lowered:
            if seen is text:
                return lower
        lower = text.lower()
        self._lowered.append((text, lower))
        return lower

    def folded(self, name: str) -> str:
        """`PreparedText(<text of view name>).folded`, lowering no text twice: the skeleton
        and words views are lower-case, and the raw and NFKC views are folded from their
        `lowered` text unless it holds an `İ` (`folded_from_lower`)."""
        text = self.get(name).text
        if name in _LOWER_CASE_VIEWS:
            lowered = text
        elif len(lowered := self.lowered(text)) != len(text):
            return PreparedText(text).folded
        ascii = text.isascii()
        for seen, seen_ascii, fold in self._folds:
            if seen is lowered and seen_ascii == ascii:
                return fold
        fold = folded_from_lower(lowered, ascii)
        self._folds.append((lowered, ascii, fold))
        return fold

    @property
    def raw(self) -> View:
        return self.get("raw")

    @property
    def nfkc(self) -> View:
        return self.get("nfkc")

    @property
    def skeleton(self) -> View:
        return self.get("skeleton")

    @property
    def words(self) -> View:
        return self.get("words")

    def get(self, name: str) -> View:
        view = self._built.get(name)
        if view is None:
            if name not in _BUILDERS:
                raise ValueError(f"unknown view {name!r}")
            view = self._built[name] = _BUILDERS[name](self)
        return view


_BUILDERS: dict[str, Callable[[Views], View]] = {
    "raw": lambda views: identity_view(views.text),
    "nfkc": lambda views: nfkc_view(views.raw, views.rare),
    "skeleton": lambda views: skeleton_view(
        views.raw, views.characters, lambda: views.nfkc, views.lowered
    ),
    "words": lambda views: words_view(views.skeleton),
}


def apply_view(name: str, text: str) -> str:
    """The text of view `name` (including the analysis views), as rule examples are matched."""
    from soulscan.hardened.analysis_views import ANALYSIS_VIEWS

    if name in ANALYSIS_VIEWS:
        return ANALYSIS_VIEWS[name](text)
    return Views(text).get(name).text
