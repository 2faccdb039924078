"""Can a pattern match anywhere in a long words view? Every requirement of every branch, told
by the view's distinct tokens.

The gate (``soulscan.hardened.gate``) tests each branch by one selective group of anchors,
the same for every text, because most texts are short and each group costs a lookup. A
long words view whose live rules' start strings occur too often to try each place (a page
of ``<!-- ignore <!-- system``, thousands of ``ignore`` lines) is searched whole, at about
half a microsecond a place; telling first whether every group of some branch can occur
costs a few microseconds. A group can occur only when one of its anchors can: each piece of
an anchor between its spaces lies inside one token of the view (a single-spaced text whose
tokens are the strings between its spaces), so it occurs in the view's distinct tokens
joined by spaces, which is short. A branch none of whose anchors' pieces occur there
matches nowhere.
"""

from __future__ import annotations

import functools

from soulscan.engine.anchors import NON_ASCII, extract_regex_anchors
from soulscan.hardened.anchor_finder import WordsIndex
from soulscan.hardened.gate import split_alternatives

# A branch's requirement: every group needs one of its anchors, each anchor read as the
# pieces between its spaces.
Requirement = tuple[tuple[tuple[str, ...], ...], ...]


@functools.lru_cache(maxsize=1024)
def branch_requirements(source: str, flags: int) -> tuple[Requirement, ...] | None:
    """Each top-level branch's requirement (``()`` for a branch without one); None when the
    pattern is not read (verbose, V1, a back-reference: ``gate.split_alternatives``)."""
    branches = split_alternatives(source, flags)
    if branches is None:
        return None
    requirements = []
    for branch in branches:
        groups = extract_regex_anchors(branch) or ()
        requirements.append(tuple(
            tuple(tuple(piece for piece in anchor.split(" ") if piece) for anchor in group)
            for group in groups
        ))
    return tuple(requirements)


def may_match(source: str, flags: int, words: WordsIndex) -> bool:
    """False only when no branch of the pattern can match in the folded words view that
    `words` indexes."""
    requirements = branch_requirements(source, flags)
    if requirements is None:
        return True
    distinct = words.distinct
    # the marker of a non-ASCII text, which PreparedText appends to its folded form
    non_ascii = not distinct.isascii()
    return any(
        all(
            any(all(piece in distinct for piece in anchor) or non_ascii and anchor == _NON_ASCII
                for anchor in group)
            for group in branch
        )
        for branch in requirements
    )


_NON_ASCII = (NON_ASCII,)
