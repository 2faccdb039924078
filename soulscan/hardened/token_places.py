"""Where strings of words occur in a long text, found through its tokens.

A text split on spaces is a list of tokens; a string that begins with a space is a space
followed by pieces between spaces (``' do not follow '``: ``do``, ``not``, ``follow``, and
an empty last piece). It occurs right before the token numbered j exactly when the tokens
from j on are its pieces, the last one only beginning with its last piece (and existing:
the space before it is in the text). Each distinct token is written as one character of a
code text, a character a token: the tokens of a string are then one search of that text,
a fraction of the words view's length, instead of a search of the view itself.

The code text is built once a text has been asked for this many strings: a few strings
cost less to search for directly. ``tests/test_hardened_token_places.py`` compares this
with a search of the whole text.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Iterable

from soulscan.engine.text_memos import text_memo
from soulscan.hardened.branch_search import found_each, places_string_by_string

# Strings of words asked for before the code text is built: building it costs about as
# much as this many searches of the text.
BUILD_AFTER = 24
# A string of one piece is found by a search of the code text for each token beginning
# with it, up to this many (a search of the text itself costs about as much as six).
MOST_LAST_CODES = 6
# The code text writes a token as one character: past this many distinct tokens, none.
MOST_TOKENS = 0xD800


class TokenPlaces:
    """A long text, searched for strings through its tokens once asked for enough."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._asked = 0
        self._built = False
        self._tokens: dict[str, str] = {}  # token -> its code
        self._codes = ""  # the code of each token of the text, in order
        # the characters of the tokens before each token (token j starts at this plus j,
        # the spaces before it: one accumulation in C, where adding the spaces is another)
        self._before: list[int] = []
        self._ordered: list[str] | None = None  # the distinct tokens, sorted (at first need)

    def places(
        self, strings: Iterable[str], limit: int, most: int, begin: int = 0
    ) -> list[int] | None:
        """``branch_search.start_places``: every offset from `begin` where one of `strings`
        occurs whole below `limit` (string by string, each in increasing order); None past
        `most`."""
        return places_string_by_string(strings, limit, most, begin, self._places_of)

    def _places_of(self, string: str, begin: int, limit: int, most: int) -> list[int] | None:
        if string.startswith(" ") and self._indexed():
            return self._found(string, begin, limit, most)
        return found_each(self.text, (string,), limit, most, begin)

    def _indexed(self) -> bool:
        """Is the code text built (now, if this string makes enough)?"""
        if not self._built:
            self._asked += 1
            if self._asked < BUILD_AFTER:
                return False
            self._build()
        return bool(self._codes)

    def _build(self) -> None:
        self._built = True
        tokens = self.text.split(" ")
        distinct = dict.fromkeys(tokens)
        if len(distinct) > MOST_TOKENS:
            return
        self._tokens = dict(zip(distinct, map(chr, range(len(distinct))), strict=True))
        self._codes = "".join(map(self._tokens.__getitem__, tokens))
        self._before = list(itertools.accumulate(map(len, tokens), initial=0))

    def _beginning_with(self, piece: str, most: int | None) -> set[str] | None:
        if self._ordered is None:
            self._ordered = sorted(self._tokens)
        return _codes_beginning_with(self._tokens, self._ordered, piece, most)

    def _found(self, string: str, begin: int, limit: int, most: int) -> list[int] | None:
        """The places of a string that begins with a space; None past `most`."""
        *whole, last = string[1:].split(" ")
        codes = self._codes
        needle = ""
        for piece in whole:
            code = self._tokens.get(piece)
            if code is None:
                return []
            needle += code
        if not needle and not last:
            return found_each(self.text, (string,), limit, most, begin)  # a lone space
        # the token after the whole ones: any (the string ends with a space) or those
        # beginning with the last piece; a string of that piece alone is found by a search
        # of the code text for each, or past MOST_LAST_CODES of them by one of the text
        lasts = None
        if last:
            lasts = self._beginning_with(last, None if needle else MOST_LAST_CODES)
            if lasts is None:
                return found_each(self.text, (string,), limit, most, begin)
            if not lasts:
                return []
        # the whole pieces' codes, or each code of a last piece alone, where it starts a
        # token (past the first) whose place is in range: counted as found, up to `most`
        before, width, find, after = self._before, len(string), codes.find, len(needle)
        found: list[int] = []
        for sought in [needle] if needle else sorted(lasts or ()):
            at = find(sought, 1)
            while at >= 0:
                if not needle or at + after < len(codes) and (lasts is None or codes[at + after] in lasts):
                    place = before[at] + at - 1  # (the space before token `at`)
                    if begin <= place and place + width <= limit:
                        found.append(place)
                        if len(found) > most:
                            return None
                at = find(sought, at + 1)
        if not needle:
            found.sort()
        return found


def _codes_beginning_with(
    tokens: dict[str, str], ordered: list[str], piece: str, most: int | None
) -> set[str] | None:
    """The codes of the tokens that begin with `piece` (`ordered`: the tokens, sorted);
    None past `most` of them."""
    found = set()
    for index in range(bisect_left(ordered, piece), len(ordered)):
        if not ordered[index].startswith(piece):
            break
        found.add(tokens[ordered[index]])
        if most is not None and len(found) > most:
            return None
    return found


@text_memo(maxsize=8)
def token_places(text: str) -> TokenPlaces:
    """The one ``TokenPlaces`` of a text (the strings it has been asked for counted)."""
    return TokenPlaces(text)
