"""The decoders' quick pre-checks only skip texts and runs that could never decode."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.anchors import fold
from soulscan.hardened import decode

# The base64 run pattern without the lookaheads that skip runs `_base64` always rejects.
_PLAIN_BASE64 = regex.compile(
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{8,65536}={0,2}(?![A-Za-z0-9+/=_-])"
)


def _accepted(pattern: regex.Pattern[str], text: str) -> list[tuple[tuple[int, int], str]]:
    found = []
    for match in pattern.finditer(text):
        decoded = decode._base64(match.group())
        if decoded is not None:
            found.append((match.span(), decoded))
    return found


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aZq09+/=_- \n.\u00e9", max_size=80))
def test_base64_lookaheads_keep_every_decodable_run(text: str) -> None:
    assert _accepted(decode._BASE64, text) == _accepted(_PLAIN_BASE64, text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=", id="base64"),
        pytest.param("SGVsbG8gd29ybGQgaGVsbG8gd29ybGQ", id="mixed-case-no-digit"),
        pytest.param("%69%67%6e%6f%72%65 previous", id="url"),
        pytest.param("\\x69\\x67\\x6e\\x6f\\x72\\x65", id="escapes"),
        pytest.param("ALFA bravo Charlie delta echo", id="nato"),
        pytest.param("alfa, bravo, \u212aILO, \u017fierra, echo", id="nato-kelvin-and-long-s"),
        pytest.param("\u2820\u2803\u2801\u2811 \u2801\u2803", id="braille"),
    ],
)
def test_pre_checks_pass_texts_with_blobs(text: str) -> None:
    for name, pattern, _, _ in decode._DECODERS:
        if pattern.search(text):
            assert decode._may_hold(name, text, fold(text)), name


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="%\\xu2aF0 .-,\u2820\u2801ALFAlfa\u212a\u017fkilo", max_size=60))
def test_pre_checks_never_skip_a_match(text: str) -> None:
    for name, pattern, _, _ in decode._DECODERS:
        if pattern.search(text):
            assert decode._may_hold(name, text, fold(text)), name
