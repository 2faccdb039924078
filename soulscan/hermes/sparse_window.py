"""A scan window read through its non-ASCII characters alone.

Most windows that are not ASCII hold a handful of non-ASCII characters (quotes, dashes,
an emoji) among thousands of ASCII ones, yet each question the scanner asks of them (which
invisible characters are there, does NFKC change anything, does a character fold to an
ASCII letter) would read every character of a two- or four-byte string. All three are
answered by the non-ASCII characters alone, which two C passes pick out: the window's UTF-8
form with every ASCII byte deleted (a multi-byte sequence holds no byte below 0x80), decoded
back.

NFKC leaves the window as it is when every one of those characters has combining class 0
and no decomposition mapping, and they are NFKC-normal as one string. Then NFKC changes a
window only by composing two neighbours (nothing reorders; the only characters that still
decompose, Hangul syllables, do so by rule into jamo that compose back and with no ASCII
character); two ASCII characters never compose, an ASCII character composes with no
following starter and follows no character as its second part (``tests/test_sparse_window.py``
checks both facts on the Unicode tables), and two non-ASCII neighbours of the window are
neighbours in that string too, where they do not compose.
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

from soulscan.engine.anchors import FOLDS_TO_ASCII

_ASCII_BYTES = bytes(range(128))
_FOLDING = frozenset(FOLDS_TO_ASCII)
# character -> neither a combining mark nor decomposable (bounded: a crafted file may hold
# every code point)
_PLAIN: dict[str, bool] = {}
_MOST_REMEMBERED = 4096


class WindowFacts(NamedTuple):
    """What the scanner needs of a non-ASCII window."""

    invisible: frozenset[str]  # the runtime's invisible characters the window holds
    normal: bool  # NFKC provably leaves the window as it is (False: not proven)
    # when normal and no character folds to an ASCII one: the window folded for ASCII
    # anchors (``PreparedText``)
    folded: str | None


def non_ascii_characters(window: str) -> str:
    """Every non-ASCII character of ``window``, in order (lone surrogates too)."""
    utf8 = window.encode("utf-8", "surrogatepass")
    return utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")


def _plain(ch: str) -> bool:
    known = _PLAIN.get(ch)
    if known is None:
        known = unicodedata.combining(ch) == 0 and not unicodedata.decomposition(ch)
        if len(_PLAIN) < _MOST_REMEMBERED:
            _PLAIN[ch] = known
    return known


def window_facts(window: str, invisible_chars: frozenset[str]) -> WindowFacts:
    """The facts of a non-ASCII ``window``."""
    others = non_ascii_characters(window)
    distinct = set(others)
    invisible = frozenset(distinct & invisible_chars)
    if not all(map(_plain, distinct)) or not unicodedata.is_normalized("NFKC", others):
        return WindowFacts(invisible, False, None)
    folded = (None if not _FOLDING.isdisjoint(distinct)
              else window.encode("ascii", "replace").decode("ascii").lower())
    return WindowFacts(invisible, True, folded)
