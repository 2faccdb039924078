"""Adversarial inputs for the benchmark and the time-bound property tests.

Each builder returns ``size`` characters aimed at one slow path: regex backtracking on
near-misses, bounded repeats restarted at every position, per-line work, NFKC on long
runs of combining marks, grapheme walks over emoji. ``prose`` is the baseline they are
compared with. Most repeat a few pieces in one order; ``shuffled_emoji`` draws the same emoji
sequences in a seeded random order, so that no step can lean on a short repeat.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable

from soulscan.fuzz import benign, vocabulary


def _fill(pieces: Iterable[str], size: int) -> str:
    return _taken(itertools.cycle(pieces), size)


def _taken(pieces: Iterable[str], size: int) -> str:
    """The first ``size`` characters of the pieces joined (at least one piece is taken)."""
    out: list[str] = []
    length = 0
    for piece in pieces:
        out.append(piece)
        length += len(piece)
        if length >= size:
            break
    return "".join(out)[:size]


def rule_near_misses() -> list[str]:
    """Every ``no-match`` example of every built-in rule, plus near-misses that make the
    runtime's ``(?:\\w+\\s+){0,8}`` filler run to its bound without completing."""
    from soulscan.engine.rulepack import builtin_packs

    pieces = [example for pack in builtin_packs() for rule in pack.rules
              for example in rule.examples.no_match]
    filler = " ".join(vocabulary.FILLER_WORDS[:8])
    starts = ("ignore", "disregard", "you are", "pretend", "output", "do not", "never",
              "act as if", "curl", "cat", "translate", "send", "update", "<!--", "<div style='")
    pieces.extend(f"{start} {filler} {filler} nothing" for start in starts)
    return [piece + "\n" for piece in pieces if piece]


def near_misses(size: int) -> str:
    return _fill(rule_near_misses(), size)


def nested_html_comments(size: int) -> str:
    """Comment openers nested deep with trigger words and no closing ``-->`` until the end."""
    body = _fill(("<!-- ignore ", "<!-- system ", "<!-- hidden "), size - 4)
    return body + " -->"


def many_newlines(size: int, lines: int = 100_000) -> str:
    """``lines`` short lines (near-miss words on each) making up ``size`` characters; fewer
    lines when ``size`` is too small to give each line ten characters."""
    lines = min(lines, max(size // 10, 1))
    width = max(size // lines, 1)
    line = _fill(("ignore ", "previous "), max(width - 1, 0)) + "\n"
    return _fill((line,), size)


def filler_line(size: int) -> str:
    """One line of filler words after trigger words, never completing a pattern."""
    return _fill(("ignore ", *(w + " " for w in vocabulary.FILLER_WORDS)), size)


# ZWJ families, skin tones, keycaps, regional-indicator and tag-sequence flags, VS16.
EMOJI: tuple[str, ...] = (
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f44d\U0001f3fd",
    "1\ufe0f\u20e3",
    "\U0001f1e9\U0001f1ea",
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "\u2764\ufe0f",
    "\U0001f9d1\u200d\U0001f4bb",
    " ",
)


def emoji(size: int) -> str:
    return _fill(EMOJI, size)


def shuffled_emoji(size: int) -> str:
    """``emoji``'s sequences in a random order (seeded: the same text every run, each
    ``size`` a prefix of a longer one): a file of hidden characters that does not repeat
    with a short period, unlike ``emoji``, whose cycle of eight pieces lets the paths for
    repeating texts show a thousand findings by working out a few."""
    choose = random.Random(20261201).choice
    return _taken(map(choose, itertools.repeat(EMOJI)), size)


def combining_marks(size: int) -> str:
    """One base letter then combining marks of mixed classes (230, 220, 1), so canonical
    reordering has real work to do on a single very long run."""
    return "a" + _fill(("\u0301", "\u0316", "\u0334", "\u0308", "\u0323"), size - 1)


def prose(size: int) -> str:
    return benign.prose(size)


def of_bytes(build: Callable[[int], str], size: int) -> str:
    """The longest of ``build``'s inputs that is at most ``size`` bytes in UTF-8, as a file on
    disk is measured: a megabyte of emoji is ~250,000 characters, one of prose 1,000,000.

    The UTF-8 length of every builder's output grows with the characters asked for (each
    extends a shorter one), so a bisection finds the longest that fits.
    """
    def fits(chars: int) -> bool:
        return len(build(chars).encode("utf-8", "surrogatepass")) <= size

    if fits(size):
        return build(size)  # one byte a character: nothing to shorten
    shortest, longest = 1, size  # fits / does not fit
    while longest - shortest > 1:
        middle = (shortest + longest) // 2
        shortest, longest = (middle, longest) if fits(middle) else (shortest, middle)
    return build(shortest)


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "near-misses": near_misses,
    "nested-html-comments": nested_html_comments,
    "100k-newlines": many_newlines,
    "filler-line": filler_line,
    "emoji": emoji,
    "shuffled-emoji": shuffled_emoji,
    "combining-marks": combining_marks,
}
