"""The words view's deleted runs of joiners, listed by C passes (for a span mapping).

A rewrite with a fixed replacement lists its matches only when a span of its view is mapped
(`view_rewrite.fixed_edits`: a `finditer`, a match object and a span a match). The words
view deletes every run of joiners (`*`, backtick, `~`, `'`), which most texts hold few of:
`re` tries its character class at every character (~7 ns each). Here the runs of a text
whose joiners are all ASCII are found on its class map by `split` at each joiner (`find`'s
speed), their places by `accumulate` over the pieces' lengths and `compress`: no Python
step a run. (The runs of two spaces or more the separator pass lists gained nothing so:
most texts hold a space every few characters, which `split` steps through as `re` does.)

Listed in windows of the text of growing length, each cut past the run it would cut through,
so that a span mapped near the start lists little more than what lies before it.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from itertools import accumulate, compress, repeat

from soulscan.hardened.view_offsets import Edits

FIRST_WINDOW = 8192
# The words view's ASCII joiners (``words_view._JOINER_CHARS`` starts with them).
ASCII_JOINERS = "*`~'"
# Joiners as "*", every other character " ", one byte a character (`encode` writes "?" for
# a non-ASCII one): every joiner of a text whose joiners are all ASCII is a "*" there.
_JOINER = ord("*")
_JOINER_CLASSES = bytes(_JOINER if chr(code) in ASCII_JOINERS else ord(" ") for code in range(256))


def joiner_run_edits(text: str, first: int = FIRST_WINDOW) -> Iterator[Edits]:
    """`fixed_edits(re.compile("[*`~']+"), text, 0)`: each run of ASCII joiners deleted,
    in windows of `first` characters and then twice as many each."""
    classes = text.encode("ascii", "replace").translate(_JOINER_CLASSES)
    length = len(classes)
    shift, start, size = 0, 0, first
    while start < length:
        window_start, start = start, _past_run(classes, min(length, start + size))
        size *= 2
        # A space each side, so that the first and the last piece are never empty: split at
        # each joiner, a run of n joiners is n - 1 empty pieces between two others.
        pieces = (b" " + classes[window_start:start] + b" ").split(b"*")
        if len(pieces) == 1:
            continue
        # where joiner i is: after the pieces before it and i joiners (less the space added)
        places = accumulate(map(operator.add, map(len, pieces[:-1]), repeat(1)), initial=window_start - 2)
        joiners = list(places)[1:]
        starts = list(compress(joiners, pieces[:-1]))  # a joiner after a piece starts a run
        ends = list(map(operator.add, compress(joiners, pieces[1:]), repeat(1)))  # and before one ends one
        edits = Edits.uniform(starts, ends, 0, shift)
        shift = edits.new_starts[-1] - edits.old_ends[-1]
        yield edits


def _past_run(classes: bytes, end: int) -> int:
    """`end`, or past the run of joiners it would cut through."""
    if end == len(classes) or classes[end] != _JOINER:
        return end
    found = classes.find(b" ", end)
    return len(classes) if found < 0 else found
