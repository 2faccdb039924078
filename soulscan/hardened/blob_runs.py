"""The base64, base32 and hex blobs of a text, found inside the runs of their characters.

One C-level pass finds the candidate runs; the blob patterns search only those, and the
blobs of a short run are worked out once for all its repeats.
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
# Every base64, base32 and hex blob lies inside one maximal run of these characters. One
# `re` pass finds the runs that may hold one (`re` jumps from one character outside the
# set to the next): at least 8 long but not 8-15 letters (`decode_base64` and
# `decode_base32` reject those, and hex without a digit decodes to non-ASCII text too short
# to keep), and either a base64 blob whole or holding 8 base32 or 10 hex characters in a
# row. The blob patterns then search each run alone: where a lookaround meets a run's edge,
# the text holds a character outside the set, which it rejects as it rejects the string's end.
_RUN = "A-Za-z0-9+/=_-"
_CANDIDATE_RUN = (
    rf"(?=[{_RUN}]{{8}})(?![A-Za-z]{{8,15}}(?![{_RUN}]))"
    rf"(?:(?={_BASE64.pattern})|(?=[{_RUN}]*?[A-Z2-7]{{8}})|(?=[{_RUN}]*?[0-9A-Fa-f]{{10}}))"
    rf"[{_RUN}]++"
)
_RUN_AT_START = re.compile(_CANDIDATE_RUN)
_RUN_AFTER_BOUNDARY = re.compile(rf"[^{_RUN}]({_CANDIDATE_RUN})")

BASE64_DECODER = Decoder("base64", decode_base64, 1)
BASE32_DECODER = Decoder("base32", decode_base32, 1)
HEX_DECODER = Decoder("hex", decode_hex, 1)


def blobs_in_run(run: str) -> tuple[Kept, ...]:
    """The kept base64, base32 and hex decodings in one candidate run, offsets in the run.

    A run's blobs depend on the run alone (every blob pattern stops at its edges), so
    the short runs that recur (identifiers, dates, paths) are worked out once."""
    if len(run) <= _CACHED_RUN_CHARS:
        return _cached_blobs_in_run(run)
    return _find_blobs_in_run(run)


def _find_blobs_in_run(run: str) -> tuple[Kept, ...]:
    found: list[Kept] = []
    if _BASE64.match(run) and (kept := BASE64_DECODER.kept(run)):
        found.append((BASE64_DECODER, 0, len(run), *kept))
    for decoder, pattern in ((BASE32_DECODER, _BASE32), (HEX_DECODER, _HEX)):
        for match in pattern.finditer(run):
            if kept := decoder.kept(match.group()):
                found.append((decoder, match.start(), match.end(), *kept))
    return tuple(found)


_CACHED_RUN_CHARS = 256
_cached_blobs_in_run = functools.lru_cache(maxsize=4096)(_find_blobs_in_run)


def candidate_runs(text: str) -> list[tuple[int, int]]:
    first = _RUN_AT_START.match(text)
    runs = [first.span()] if first else []
    runs.extend(match.span(1) for match in _RUN_AFTER_BOUNDARY.finditer(text))
    return runs
