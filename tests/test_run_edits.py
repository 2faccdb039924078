"""The words view's joiner runs listed by C passes (soulscan.hardened.run_edits) are the ones
`fixed_edits` lists from the runs' pattern, chunk boundaries aside."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from soulscan.hardened.run_edits import joiner_run_edits
from soulscan.hardened.view_offsets import Edits
from soulscan.hardened.view_rewrite import fixed_edits

_ASCII_JOINER_RUNS = re.compile(r"[*`~']+")


def _listed(chunks: Iterable[Edits]) -> tuple[list[int], ...]:
    old_starts, old_ends, new_starts, sizes = [], [], [], []
    for edits in chunks:
        old_starts += edits.old_starts
        old_ends += edits.old_ends
        new_starts += edits.new_starts
        sizes += edits.sizes
    return old_starts, old_ends, new_starts, sizes


# ASCII joiners, the two non-ASCII ones (left to `fixed_edits`: a "?" on the class map),
# letters, spaces, a lone surrogate (also a "?").
@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="*`~'ab \n\u00e9\u2019\u02bc\ud800", max_size=80), st.integers(1, 9))
@example("**a**", 1)  # a window ends inside a run: cut past it
@example("a*", 2)  # the text ends with a run
@example("*" * 20, 3)  # one run over several windows
@example("", 1)
def test_joiner_runs_are_the_pattern_matches(text: str, first: int) -> None:
    expected = _listed(fixed_edits(_ASCII_JOINER_RUNS, text, 0))
    assert _listed(joiner_run_edits(text, first)) == expected


def test_a_run_is_listed_in_the_window_it_starts_in() -> None:
    text = "a" * 6 + "***" + "b" * 20 + "`"
    first, *rest = joiner_run_edits(text, 8)
    assert (first.old_starts, first.old_ends, first.new_starts) == ([6], [9], [6])
    assert [(edits.old_starts, edits.new_starts) for edits in rest] == [([29], [26])]
