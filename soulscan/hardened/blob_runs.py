"""The base64, base32 and hex blobs of a text, found inside the runs of their characters.

A few C-level passes over a one-byte-per-character class map of the text find the runs that
may hold a blob; the blob patterns search only those, and the blobs of a short run are worked
out once for all its repeats.
"""

from __future__ import annotations

import functools
import re

from soulscan.hardened.decoded_text import Decoder, Kept
from soulscan.hardened.decoders import decode_base32, decode_base64, decode_hex

# ASCII-only patterns use `re`, which runs them several times faster than `regex`.
# A base64 blob is a whole run of `_RUN` characters; the lookaheads are exactly what
# `decode_base64` accepts before decoding: a digit, + or /; or both cases and a _, a - or 16
# characters (tests/test_decode_prefilters.py).
_BASE64 = re.compile(
    r"(?:(?=[A-Za-z_-]*+[0-9+/])"
    r"|(?=[A-Z0-9+/_-]*+[a-z])(?=[a-z0-9+/_-]*+[A-Z])(?:(?=[A-Za-z]*+[_-])|(?=[A-Za-z0-9+/_-]{16})))"
    r"[A-Za-z0-9+/_-]{8,65536}={0,2}(?![A-Za-z0-9+/=_-])"
)
_BASE32 = re.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{8,65536}={0,6}(?![A-Za-z0-9=])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){5,32768}(?![0-9A-Za-z])")
# Every base64, base32 and hex blob lies inside one maximal run of these characters, at
# least 8 long but not 8-15 letters alone (`decode_base64` and `decode_base32` reject those,
# and hex without a digit decodes to non-ASCII text too short to keep). The blob patterns
# search each such run alone: where a lookaround meets a run's edge, the text holds a
# character outside the set, which it rejects as it rejects the string's end.
_RUN = "A-Za-z0-9+/=_-"

# The runs are found on a class map of the text, one byte a character (`ascii_bytes`: every
# non-ASCII character is one "?", outside the set): "0" for a run character that is not a
# letter, "a" for a letter, " " for the rest. A run that may hold a blob holds a "0" and is
# at least 8 long, or holds 16 letters in a row: `re` jumps from one "0" to the next (the
# run through it at least 8 long: 7 ahead, or 1 behind and 6 ahead, ...) and `find` skips
# along for 16 letters, where a pattern tried at every word start reads all the text.
_RUN_CLASSES = bytes(
    (ord("a") if chr(code).isalpha() else ord("0")) if re.fullmatch(f"[{_RUN}]", chr(code)) else 32
    for code in range(256)
)


def _at_least_8_through(ahead: int = 7) -> bytes:
    """Right after a run character that has `8 - ahead` run characters up to and including
    it: `ahead` more, or one more behind (a lookbehind) and then one fewer ahead."""
    if ahead == 1:
        return rb"(?:[a0]|(?<=[a0]{8}))"
    known = 8 - ahead
    return rb"(?:[a0]{%d}|(?<=[a0]{%d})%s)" % (ahead, known + 1, _at_least_8_through(ahead - 1))


# From the first "0" of a long enough run to the run's end.
_NON_LETTER_IN_LONG_RUN = re.compile(rb"0" + _at_least_8_through() + rb"[a0]*")
_SIXTEEN_LETTERS = b"a" * 16
# The class map with every run character "a": a text without 8 of them in a row holds no
# candidate run. Worth two more passes only over a long text dense in "0"s (pages of `<!--`
# or `---`), where the search above stops at each of them.
_RUN_CHARACTERS_ALIKE = bytes.maketrans(b"0", b"a")
_EIGHT_RUN_CHARACTERS = b"a" * 8
_LONG_TEXT = 65_536
_DENSE_NON_LETTERS = 16  # at least one "0" in this many characters


def ascii_bytes(text: str) -> bytes:
    """`text` one byte a character: ASCII as it is, any other character "?"."""
    return text.encode("ascii", "replace")


BASE64_DECODER = Decoder("base64", decode_base64, 1)
BASE32_DECODER = Decoder("base32", decode_base32, 1)
HEX_DECODER = Decoder("hex", decode_hex, 1)


def blobs_in_runs(text: str, runs: list[tuple[int, int]]) -> list[Kept]:
    """The kept base64, base32 and hex decodings in the candidate `runs` of `text`, in
    order, offsets in the text. A run's blobs depend on the run alone (every blob pattern
    stops at its edges), so the short runs that recur (identifiers, dates, paths) are
    worked out once. One loop in which a short run costs a cache lookup and no other call
    (a text holds dozens of runs, most with no blob)."""
    found: list[Kept] = []
    cached = _cached_blobs_in_run
    for start, end in runs:
        run = text[start:end]
        blobs = cached(run) if end - start <= _CACHED_RUN_CHARS else _find_blobs_in_run(run)
        if blobs:
            found += [
                (decoder, start + a, start + b, decoded, readable)
                for decoder, a, b, decoded, readable in blobs
            ]
    return found


# What every base32 and every hex blob holds: one search, where most runs (dates, paths,
# identifiers) hold neither and would cost a `finditer` of each pattern.
_BASE32_OR_HEX = re.compile(r"[A-Z2-7]{8}|[0-9A-Fa-f]{10}")


def _find_blobs_in_run(run: str) -> tuple[Kept, ...]:
    found: list[Kept] = []
    if _BASE64.match(run) and (kept := BASE64_DECODER.kept(run)):
        found.append((BASE64_DECODER, 0, len(run), *kept))
    if not _BASE32_OR_HEX.search(run):
        return tuple(found)
    for decoder, pattern in ((BASE32_DECODER, _BASE32), (HEX_DECODER, _HEX)):
        for match in pattern.finditer(run):
            if kept := decoder.kept(match.group()):
                found.append((decoder, match.start(), match.end(), *kept))
    return tuple(found)


_CACHED_RUN_CHARS = 256
_cached_blobs_in_run = functools.lru_cache(maxsize=4096)(_find_blobs_in_run)


def candidate_runs(text: str, as_bytes: bytes | None = None) -> list[tuple[int, int]]:
    """The spans of the runs that may hold a base64, base32 or hex blob, in text order: the
    runs at least 8 long that hold a run character other than a letter, and the runs with 16
    letters in a row. `as_bytes` is `ascii_bytes(text)` when the caller has it already."""
    classes = (ascii_bytes(text) if as_bytes is None else as_bytes).translate(_RUN_CLASSES)
    if (
        len(classes) > _LONG_TEXT
        and classes.count(b"0") * _DENSE_NON_LETTERS > len(classes)
        and _EIGHT_RUN_CHARACTERS not in classes.translate(_RUN_CHARACTERS_ALIKE)
    ):
        return []
    rfind = classes.rfind
    runs = [
        (rfind(b" ", 0, hit.start()) + 1, hit.end())
        for hit in _NON_LETTER_IN_LONG_RUN.finditer(classes)
    ]
    letters = classes.find(_SIXTEEN_LETTERS)
    if letters < 0:
        return runs
    found, find = len(runs), classes.find
    while letters >= 0:
        end = find(b" ", letters)
        end = len(classes) if end < 0 else end
        start = rfind(b" ", 0, letters) + 1
        if find(b"0", start, end) < 0:  # (a run holding one is among those found above)
            runs.append((start, end))
        letters = find(_SIXTEEN_LETTERS, end)
    if len(runs) > found:
        runs.sort()  # two sorted lists, merged
    return runs
