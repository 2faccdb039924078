"""Normalised views of a text that undo obfuscation while remembering where each character came from.

Every view character carries the original code-point span it was derived from, so a rule match
on a view becomes a span on the real characters. Each stage is one regex pass that rewrites
matches and copies everything else, which keeps building a view linear in the input size.

View names (the `view` key of a hardened rule):
  raw       the text as given
  nfkc      NFKC per character (full-width, mathematical and ligature forms folded)
  skeleton  HTML entities decoded, invisible/format characters and stacked combining marks
            removed, NFKC, lower-cased, and words written entirely in look-alike letters of
            another script folded to ASCII (UTS #39 confusables); punctuation kept
  words     the skeleton with Markdown/HTML markup and empty comments removed, words broken
            across lines by a hyphen joined, every run of punctuation, whitespace and line
            breaks collapsed to a single space, leetspeak digits in letter words read as
            letters (`1gn0r3`) and filler adverbs (`really`, `kindly`) dropped; starts and
            ends with a space
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import regex

from soulscan.hardened.confusables_data import TO_ASCII
from soulscan.hardened.view_offsets import (
    ConstantMap,
    EditedMap,
    Edits,
    IdentityMap,
    OffsetMap,
    PaddedMap,
)

VIEW_NAMES = ("raw", "nfkc", "skeleton", "words")


@dataclass(frozen=True)
class View:
    name: str
    text: str
    offsets: OffsetMap  # view character -> original code points

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a [start, end) span of this view to original code-point offsets."""
        if not self.text:
            return (0, 0)
        start = min(max(start, 0), len(self.text) - 1)
        last = min(max(end - 1, start), len(self.text) - 1)
        return (self.offsets.start(start), self.offsets.end(last))


def identity_view(text: str) -> View:
    return View("raw", text, IdentityMap())


Match = regex.Match[str] | re.Match[str]
Replacement = Callable[[Match], str]
Pattern = regex.Pattern[str] | re.Pattern[str]
_SPAN = operator.methodcaller("span")
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


def rewrite(view: View, name: str, pattern: Pattern, replace: Replacement | str) -> View:
    """Replace every match of `pattern` (by `replace(match)`, or by `replace` itself).

    A same-length replacement keeps the per-character mapping; otherwise every replacement
    character maps to the whole matched span. The text is built by one `sub` pass.
    """
    if isinstance(replace, str):
        # `sub` copies a fixed replacement in C (a template: escape `\`); where the length
        # changed is only looked up when a span of the view is mapped.
        text = pattern.sub(replace.replace("\\", "\\\\"), view.text)
        if text is view.text or (not replace and len(text) == len(view.text)):
            return View(name, text, view.offsets)  # nothing replaced, or only empty matches
        return View(
            name, text, EditedMap(view.offsets, _fixed_edits(pattern, view.text, len(replace)))
        )
    resized: list[tuple[int, int, int]] = []  # (start, end, new length) of length changes

    def record(match: Match) -> str:
        new = replace(match)
        a, b = match.span()
        if len(new) != b - a:
            resized.append((a, b, len(new)))
        return new

    text = pattern.sub(record, view.text)
    if not resized:
        return View(name, text, view.offsets)
    return View(name, text, EditedMap(view.offsets, [Edits.of(resized)]))


def _fixed_edits(pattern: Pattern, text: str, size: int) -> Iterator[Edits]:
    """The replacements of the matches of `pattern` in `text` by `size` characters, listed in
    chunks of growing length as a span mapping needs them."""
    matches = pattern.finditer(text)
    shift, chunk = 0, 64
    while spans := list(map(_SPAN, itertools.islice(matches, chunk))):
        if size > 1:  # a same-length match keeps its characters' own spans
            spans = [(a, b) for a, b in spans if b - a != size]
        # (listing one of 0 or 1 characters as replaced maps it no differently)
        edits = Edits.uniform(list(map(_FIRST, spans)), list(map(_SECOND, spans)), size, shift)
        if spans:
            shift = edits.new_starts[-1] + size - edits.old_ends[-1]
        yield edits
        chunk *= 2


_ENTITY = regex.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
# Default-ignorable and format characters, controls other than tab/newline/CR, and the blank
# look-alikes (Hangul fillers, braille blank) that render as nothing.
_INVISIBLE = regex.compile(
    r"[\p{Default_Ignorable_Code_Point}\p{Cf}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2800]+"
)
# The ASCII members of `_INVISIBLE` (no Default_Ignorable or Cf character is ASCII), for `re`:
# an ASCII text is scanned several times faster without the Unicode property tables.
_ASCII_INVISIBLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")
_NON_ASCII = regex.compile(r"[^\x00-\x7f]")
# The characters NFKC may change when normalised alone: every other one (ASCII, or NFKC
# quick check Yes) is its own NFKC form (tests/test_hardened_views.py checks every code point),
# so an emoji or CJK text needs no call per character.
_NFKC_MAY_CHANGE = regex.compile(r"[^\x00-\x7f\p{NFKC_Quick_Check=Yes}]")
# From one of those to the end of its run of non-ASCII characters (any other one stays as it
# is when normalised alone), so that runs of mixed combining marks are one call.
_NFKC_MAY_CHANGE_RUN = regex.compile(_NFKC_MAY_CHANGE.pattern + r"[^\x00-\x7f]*")
_COMBINING_AFTER_NFKC = regex.compile(r"[\p{Mn}\p{Me}]+")
_NON_ASCII_WORD = regex.compile(r"[\p{L}\p{N}]*[^\x00-\x7f][\p{L}\p{N}]*")
# A word is only folded when a look-alike of an ASCII letter is in it. On `re`: its table of
# a large set of characters is looked up ~30x faster than `regex`'s.
_CONFUSABLE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(TO_ASCII)) + "]")
_BLOCK_TAG = regex.compile(
    r"</?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|hr|section|article|blockquote|pre|details|summary|dt|dd|dl|"
    r"caption|header|footer|nav|aside|main|figure|figcaption|label|option|img)\b[^<>\n]{0,256}>",
    regex.IGNORECASE,
)
_INLINE_TAG = regex.compile(r"</?[a-z][a-z0-9-]{0,20}\b[^<>\n]{0,256}>", regex.IGNORECASE)
_JOINER_CHARS = "*`~'\u2019\u02bc"
_JOINERS = regex.compile(f"[{_JOINER_CHARS}]+")
# Every run of separators becomes one space; a run that already is one space is skipped, so
# ordinary prose costs no replacement per word.
_SEPARATORS = regex.compile(r"[^\p{L}\p{N} ][^\p{L}\p{N}]*| [^\p{L}\p{N}]+")
# The same two passes for an ASCII text, on `re` (letters and digits of ASCII are [A-Za-z0-9]).
_ASCII_JOINERS = re.compile(f"[{_JOINER_CHARS[:4]}]+")
_ASCII_SEPARATORS = re.compile(r"[^A-Za-z0-9 ][^A-Za-z0-9]*| [^A-Za-z0-9]+")
# The non-ASCII characters on which the two forms differ: a text without any (emoji, dashes
# and curly double quotes in English prose) takes the ASCII form too.
_UNICODE_WORD_OR_JOINER = regex.compile(r"[\p{L}\p{N}\u2019\u02bc]")
_ASCII_BYTES = bytes(range(128))
_ALL_BUT_ASCII_INVISIBLE = bytes(b for b in range(256) if not _ASCII_INVISIBLE.match(chr(b)))


def non_ascii_chars(text: str) -> str:
    """The non-ASCII characters of `text` (UTF-8 writes each one in bytes >= 0x80 alone): a
    pass whose pattern matches none of them is skipped, or run in its ASCII form."""
    if text.isascii():
        return ""
    utf8 = text.encode("utf-8", "surrogatepass")
    return utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")


def _has_ascii_invisible(text: str) -> bool:
    # deleting bytes is several times faster than `re` scanning for the few left
    return bool(text.encode("utf-8", "surrogatepass").translate(None, _ALL_BUT_ASCII_INVISIBLE))


def _decode_entity(match: Match) -> str:
    import html  # only for a text with an entity: importing it costs every start-up

    return html.unescape(match.group())


# NFKC of one character alone; a text repeats the few it holds.
_nfkc_alone = functools.lru_cache(maxsize=4096)(functools.partial(unicodedata.normalize, "NFKC"))


def _nfkc_each(view: View, name: str) -> View:
    """Every character NFKC-normalised alone, a run at a time: the view
    `rewrite(view, name, _NFKC_MAY_CHANGE, <NFKC of the match>)` makes with a call a
    character. Only a character that becomes several (never none) changes the offsets."""
    resized: list[tuple[int, int, int]] = []

    def normalise(run: Match) -> str:
        chars = run.group()
        normal = "".join(map(_nfkc_alone, chars))
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
    letters = [ch for ch in around if ch.isalpha()]
    return len(letters) >= 6 and sum(ch.isascii() for ch in letters) >= 0.8 * len(letters)


def _fold_word(match: Match) -> str:
    """Fold a word to ASCII when every letter has an ASCII look-alike and it is a spoof.

    A spoof is a word that already mixes in ASCII letters, or that stands in English text;
    genuine Cyrillic or Greek words in their own text (`с`, `ее`) are left alone.
    """
    word = match.group()
    if word.isascii() or not (any(ch.isascii() for ch in word) or _in_ascii_context(match)):
        return word
    folded = []
    for char in word:
        if char.isascii():
            folded.append(char)
        elif ord(char) in TO_ASCII:
            folded.append(TO_ASCII[ord(char)])
        else:
            return word
    return "".join(folded)


def _lower(view: View, name: str) -> View:
    lowered = view.text.lower()
    if len(lowered) == len(view.text):
        return View(name, lowered, view.offsets)
    return rewrite(view, name, _NON_ASCII, lambda m: m.group().lower())


def nfkc_view(raw: View) -> View:
    if not _NFKC_MAY_CHANGE.search(non_ascii_chars(raw.text)):
        return View("nfkc", raw.text, raw.offsets)
    return _nfkc_each(raw, "nfkc")


def skeleton_view(raw: View) -> View:
    # Passes that only touch `&`, non-ASCII or look-alike characters are skipped on texts
    # without any: most prose is ASCII.
    view = raw
    if "&" in view.text:
        view = rewrite(view, "skeleton", _ENTITY, _decode_entity)
    rare = non_ascii_chars(view.text)  # what a later pass finds is among these, or ASCII
    if _INVISIBLE.search(rare):
        view = rewrite(view, "skeleton", _INVISIBLE, "")
    elif _has_ascii_invisible(view.text):
        view = rewrite(view, "skeleton", _ASCII_INVISIBLE, "")
    if _NFKC_MAY_CHANGE.search(rare):
        view = _nfkc_each(view, "skeleton")
        rare = non_ascii_chars(view.text)
    if _COMBINING_AFTER_NFKC.search(rare):
        view = rewrite(view, "skeleton", _COMBINING_AFTER_NFKC, "")
    view = _lower(view, "skeleton")
    if not view.text.isascii() and _CONFUSABLE.search(view.text):
        view = rewrite(view, "skeleton", _NON_ASCII_WORD, _fold_word)
    return view


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


def _unleet(match: Match) -> str:
    """`1gn0r3` -> `ignore`: a leet digit before a letter; not base64, rot13, v2 or x86 (digits last)."""
    word = match.group()
    digits = sum(ch.isdigit() for ch in word)
    return word.translate(_LEET) if digits * 2 <= len(word) else word


def _read_leetspeak(view: View) -> View:
    """`_LEET_WORD` words read by `_unleet`, as `rewrite` would, without running the pattern
    over the whole text: a leet word is a whole run of [a-z0-9] (its look-behind and
    look-ahead) holding a hint, so it is matched only from the start of a hint's run."""
    text = view.text
    pieces: list[str] = []
    position = 0
    for hint in _LEET_HINT.finditer(text):
        if hint.start() < position:
            continue  # in the word just read
        # the run's start, if it is no longer than a leet word (else the match fails anyway)
        window = max(0, hint.start() - _LEET_WORD_LENGTH)
        start = window + len(text[window : hint.start()].rstrip(_LETTERS_AND_DIGITS))
        word = _LEET_WORD.match(text, start)
        if word is not None:
            pieces += (text[position:start], _unleet(word))
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


def _markup(view: View) -> View:
    """Tags and empty comments removed; only a text with a `<` can hold any."""
    if "<" not in view.text:
        return view
    view = rewrite(view, "words", _INLINE_TAG, "")
    return rewrite(view, "words", _EMPTY_COMMENT, "")


# What every broken word holds, on `re`, which finds the `-` of a text with no break quickly.
_LINE_BREAK_HINT = re.compile(r"-[ \t]{0,4}\r?\n")


def _line_break_hyphens(view: View) -> View:
    if "-" not in view.text or not _LINE_BREAK_HINT.search(view.text):
        return view
    return rewrite(view, "words", _LINE_BREAK_HYPHEN, "")


def _without_joiners(view: View) -> View:
    """Joiners deleted by one `str.replace` each the text holds (several times faster than
    `sub`); the runs of them are the replacements a span mapping lists."""
    present = [joiner for joiner in _JOINER_CHARS if joiner in view.text]
    if not present:
        return view
    text = view.text
    for joiner in present:
        text = text.replace(joiner, "")
    runs = _JOINERS if not "".join(present).isascii() else _ASCII_JOINERS
    return View("words", text, EditedMap(view.offsets, _fixed_edits(runs, view.text, 0)))


def _drop_fillers(view: View) -> View:
    """Every filler word dropped with the space after it. The text is single-spaced words
    between spaces by now, so one split finds them (no pattern runs over the text)."""
    tokens = view.text.split(" ")
    fillers = FILLER_WORDS.intersection(tokens)
    if not fillers:
        return view

    def dropped() -> Iterator[Edits]:
        spaced = [len(token) + 1 for token in tokens]  # each token with the space after it
        dropped = list(map(FILLER_WORDS.__contains__, tokens))
        starts = list(itertools.compress(itertools.accumulate(spaced, initial=0), dropped))
        ends = list(map(operator.add, starts, itertools.compress(spaced, dropped)))
        yield Edits.uniform(starts, ends, 0)

    # One `replace` a filler found (a C scan) instead of a join of every token; a repeated
    # filler (`really really`) shares its spaces, so each replace drops every other one.
    kept = view.text
    for filler in fillers:
        spaced = f" {filler} "
        while spaced in kept:
            kept = kept.replace(spaced, " ")
    return View("words", kept, EditedMap(view.offsets, dropped()))


def words_view(skeleton: View) -> View:
    # Each pass runs only when the text holds what it removes: most prose needs only
    # the separator pass.
    view = skeleton
    if "<" in view.text:
        view = rewrite(view, "words", _BLOCK_TAG, " ")
        view = rewrite(view, "words", _INLINE_TAG, "")
        # A second pass: removing `<b></b>` from `<<b></b>/b>` leaves a tag behind.
        view = _markup(view)
    view = _line_break_hyphens(view)
    # no pass below adds a non-ASCII character
    plain = not _UNICODE_WORD_OR_JOINER.search(non_ascii_chars(view.text))
    view = _without_joiners(view)
    # Emphasis marks around a break, inside a tag or comment (`ig-**\nnore`, `<**/b>`,
    # `<!-**--->`) hide it until they are gone.
    view = _markup(_line_break_hyphens(view))
    view = rewrite(view, "words", _ASCII_SEPARATORS if plain else _SEPARATORS, " ")
    view = _read_leetspeak(view)
    if not view.text:
        return View("words", " ", ConstantMap(0, 0))
    lead, trail = not view.text.startswith(" "), not view.text.endswith(" ")
    if lead or trail:
        text = " " * lead + view.text + " " * trail
        view = View("words", text, PaddedMap(view.offsets, len(view.text), int(lead), trail))
    view = _drop_fillers(view)
    if " now " in view.text:
        view = rewrite(view, "words", _FILLER_NOW, "")
    return view


class Views:
    """Lazily built views of one text; each is computed at most once."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def raw(self) -> View:
        return identity_view(self.text)

    @cached_property
    def nfkc(self) -> View:
        return nfkc_view(self.raw)

    @cached_property
    def skeleton(self) -> View:
        return skeleton_view(self.raw)

    @cached_property
    def words(self) -> View:
        return words_view(self.skeleton)

    def get(self, name: str) -> View:
        if name not in VIEW_NAMES:
            raise ValueError(f"unknown view {name!r}")
        view: View = getattr(self, name)
        return view


def apply_view(name: str, text: str) -> str:
    """The text of view `name` (including the analysis views), as rule examples are matched."""
    from soulscan.hardened.analysis_views import ANALYSIS_VIEWS

    if name in ANALYSIS_VIEWS:
        return ANALYSIS_VIEWS[name](text)
    return Views(text).get(name).text
