"""Pre-checks answered by one RE2 pass over a text's bytes, once RE2 passes pay.

A pre-check (a "may this text hold X?" asked of every text before a costlier search) that
is a regular pattern without lookaround can be one pattern of an RE2 set: the set reads the
text once for all its patterns, ~1.5 ns a byte. Sets are used while the hardened literal
sets are due (`soulscan.engine.re2_literals`), built at the first such use, so that a
one-file run never imports RE2 for them; until then, and wherever RE2 cannot answer, the
caller's own pre-checks answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from soulscan.engine import re2_literals
from soulscan.engine.re2_literals import ScreenSet


class ScreenSetWhenDue:
    """A screen set, used while the literal sets are due."""

    def __init__(self, sources: Sequence[str]) -> None:
        self._sources = tuple(sources)
        self._set: ScreenSet | None = None
        self._refused = False

    def __call__(self, data: bytes) -> list[int] | None:
        """`ScreenSet.found`, or None when no set answers."""
        built = self.built()
        return None if built is None else built.found(data)

    def built(self) -> ScreenSet | None:
        """The set while the literal sets are due (`re2_literals.literal_sets_due`), built
        at the first such call; None otherwise, and for good when it cannot be built."""
        if self._refused or not re2_literals.literal_sets_due():
            return None
        if self._set is None:
            from soulscan.engine.re2_gate import SetUnavailable

            try:
                self._set = ScreenSet(self._sources)
            except SetUnavailable:
                self._refused = True
        return self._set
