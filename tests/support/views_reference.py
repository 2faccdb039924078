"""A straightforward per-character model of the hardened views, the oracle of their offset maps.

Every view character carries its original (start, end) in two plain lists, and every pass
rebuilds them character by character: slow, and obviously right. It takes the patterns and
the per-match replacements from `soulscan.hardened.views` and `.words_view` and repeats its sequence of passes
(each one as written before the views kept their maps as segments: fillers dropped by a
pattern, no pass skipped unless it cannot apply), so that the tests compare two ways of
building the same view.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import regex

from soulscan.hardened import views as v
from soulscan.hardened import words_view as w


@dataclass(frozen=True)
class CharView:
    text: str
    starts: list[int]
    ends: list[int]

    def span(self, start: int, end: int) -> tuple[int, int]:
        if not self.text:
            return (0, 0)
        start = min(max(start, 0), len(self.text) - 1)
        last = min(max(end - 1, start), len(self.text) - 1)
        return (self.starts[start], self.ends[last])


Pattern = regex.Pattern[str] | re.Pattern[str]


def rewrite(view: CharView, pattern: Pattern, replace: Callable[[v.Match], str] | str) -> CharView:
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for match in pattern.finditer(view.text):
        a, b = match.span()
        for i in range(position, a):
            pieces.append(view.text[i])
            starts.append(view.starts[i])
            ends.append(view.ends[i])
        new = replace if isinstance(replace, str) else replace(match)
        pieces.append(new)
        if len(new) == b - a:
            starts += view.starts[a:b]
            ends += view.ends[a:b]
        else:
            source = (
                (view.starts[a], view.ends[b - 1]) if b > a else (view.starts[a], view.starts[a])
            )
            starts += [source[0]] * len(new)
            ends += [source[1]] * len(new)
        position = b
    for i in range(position, len(view.text)):
        pieces.append(view.text[i])
        starts.append(view.starts[i])
        ends.append(view.ends[i])
    return CharView("".join(pieces), starts, ends)


def raw(text: str) -> CharView:
    return CharView(text, list(range(len(text))), list(range(1, len(text) + 1)))


def _nfkc_char(match: v.Match) -> str:
    return unicodedata.normalize("NFKC", match.group())


def nfkc(text: str) -> CharView:
    return rewrite(raw(text), v._NFKC_MAY_CHANGE, _nfkc_char)


def skeleton(text: str) -> CharView:
    view = rewrite(raw(text), v._ENTITY, v._decode_entity)
    view = rewrite(view, regex.compile(v.INVISIBLE_SOURCE), "")
    view = rewrite(view, v._NFKC_MAY_CHANGE, _nfkc_char)
    view = rewrite(view, v._COMBINING_AFTER_NFKC, "")
    lowered = view.text.lower()
    if len(lowered) == len(view.text):
        view = CharView(lowered, view.starts, view.ends)
    else:  # `İ` lowers to two characters: it alone first, then the whole text (final sigma too)
        view = rewrite(view, regex.compile("\u0130"), lambda m: "i\u0307")
        view = CharView(view.text.lower(), view.starts, view.ends)
    if regex.search(r"[^\x00-\x7f]", view.text):
        view = rewrite(view, v._NON_ASCII_WORD, v._fold_word)
    return view


_FILLERS = re.compile(r"(?<= )(?:(?:" + "|".join(sorted(w.FILLER_WORDS)) + r") )+")


def _markup(view: CharView) -> CharView:
    view = rewrite(view, w._INLINE_TAG, "")
    return rewrite(view, w._EMPTY_COMMENT, "")


def words(text: str) -> CharView:
    view = skeleton(text)
    view = rewrite(view, w._BLOCK_TAG, " ")
    view = _markup(rewrite(view, w._INLINE_TAG, ""))
    view = rewrite(view, w._LINE_BREAK_HYPHEN, "")
    view = rewrite(view, w._JOINERS, "")
    view = _markup(rewrite(view, w._LINE_BREAK_HYPHEN, ""))
    view = rewrite(view, w._SEPARATORS, " ")
    view = rewrite(view, w._LEET_WORD, w._unleet)
    if not view.text:
        return CharView(" ", [0], [0])
    if not view.text.startswith(" "):
        view = CharView(" " + view.text, view.starts[:1] + view.starts, view.starts[:1] + view.ends)
    if not view.text.endswith(" "):
        view = CharView(view.text + " ", view.starts + view.ends[-1:], view.ends + view.ends[-1:])
    view = rewrite(view, _FILLERS, "")
    return rewrite(view, w._FILLER_NOW, "")


REFERENCE_VIEWS: dict[str, Callable[[str], CharView]] = {
    "raw": raw,
    "nfkc": nfkc,
    "skeleton": skeleton,
    "words": words,
}
