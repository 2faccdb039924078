"""The runtime-profile findings of one hidden character's places along one long line,
built from their pieces in one turn each (``findings._one_line_findings``: a file of
emoji sequences lists a thousand joiners), are those the general path builds: every field,
every excerpt, in the same order, the omitted occurrences counted on the last."""

from __future__ import annotations

import random
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan import findings
from soulscan.bench import scan_bytes_as
from soulscan.hardened.secrets import redact
from soulscan.hermes.sources import decode_runtime_text
from soulscan.models import Location
from soulscan.report import excerpt as excerpt_module
from tests.test_file_excerpts import whole_line_excerpt

JOINER = "\u200d"
# Emoji sequences (joined, flags, keycaps, tag sequences, skin tones), other hidden
# characters, what escapes are made of without their backslash, a secret, and what turns
# the path away (backslash, tab, carriage return, newline, a second hidden character the
# runtime blocks for).
UNITS = [
    "\U0001f468\u200d\U0001f469\u200d\U0001f467", "1\ufe0f\u20e3", "\U0001f1e9\U0001f1ea",
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "\U0001f44d\U0001f3fd", "\U0001f9d1\u200d\U0001f4bb", "\u2764\ufe0f", " ", "a", "}", "u{200D}",
    "\u3000", "\U0010fffd", "\x7f", "x" * 45, JOINER * 3,
]
RARE = ["\\", "\t", "\r\n", "\n", "\u200b", "AKIAIOSFODNN7EXAMPLE ", "ghp_" + "a1B2" * 9 + " "]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def files_of_joiners(draw: st.DrawFn) -> tuple[bytes, str]:
    """A file whose runtime verdict is a joiner alone, most often on one line after a few
    others, at times with something that turns the fast path away."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    units = UNITS + RARE if draw(st.booleans()) else UNITS
    line = "".join(rng.choices(units, k=draw(st.integers(30, 400))))
    lead = draw(st.sampled_from(["", "# notes\n", "x" * 70 + "\n\n", "  \n"]))
    tail = draw(st.sampled_from(["", "tail " * 12, "tail " * 12 + "\nnext line\n"]))
    kind = draw(st.sampled_from(["agents", "agents", "soul", "memory"]))
    return (lead + line + tail).encode("utf-8"), kind


def _scanned(data: bytes, kind: str, fast: bool) -> list[tuple[list[str], dict[str, object]]]:
    # (few places and short lines count as many and long: small examples take the paths)
    with mock.patch.object(findings, "_MANY_OBJECTS", 8), \
            mock.patch.object(findings, "MAX_OCCURRENCES", 40), \
            mock.patch.object(excerpt_module, "LONG_LINE", 64):
        if fast:
            result = scan_bytes_as(data, "runtime", kind)
        else:
            with mock.patch.object(findings, "_one_line_findings", return_value=None):
                result = scan_bytes_as(data, "runtime", kind)
    return [(list(vars(finding)), vars(finding)) for finding in result.findings]  # type: ignore[attr-defined]


def _assert_fast_is_general_and_shows_lines(data: bytes, kind: str) -> None:
    """The fast path's findings are the general path's, and each excerpt is what its line
    shows (a line that holds no secret)."""
    fast = _scanned(data, kind, fast=True)
    assert fast == _scanned(data, kind, fast=False)
    text = decode_runtime_text(data)
    for _, fields in fast:
        location, extra = fields["location"], fields["extra"]
        assert isinstance(location, Location) and isinstance(extra, dict)
        line = text.split("\n")[location.line - 1]
        if redact(line) == line:
            assert whole_line_excerpt(text, location) == (
                extra["excerpt_before"], extra["excerpt_match"], extra["excerpt_after"])


@SETTINGS
@given(case=files_of_joiners())
def test_one_line_findings_are_those_of_the_general_path(case: tuple[bytes, str]) -> None:
    _assert_fast_is_general_and_shows_lines(*case)


@st.composite
def files_of_repeating_joiners(draw: st.DrawFn) -> tuple[bytes, str]:
    """A line repeating a unit of emoji sequences with joiners, after a lead at times, so
    its places and excerpts repeat from some period on."""
    unit = "".join(draw(st.lists(st.sampled_from(UNITS[:8] + [JOINER, "a"]), min_size=1, max_size=6)))
    if JOINER not in unit:
        unit += JOINER
    lead = draw(st.sampled_from(["", "# notes\n", "ab", "x" * 50]))
    return (lead + unit * draw(st.integers(20, 120)) + "tail " * 12).encode("utf-8"), "agents"


@SETTINGS
@given(case=files_of_repeating_joiners())
def test_repeating_one_line_findings_are_those_of_the_general_path(case: tuple[bytes, str]) -> None:
    _assert_fast_is_general_and_shows_lines(*case)


def test_a_thousand_joiners_among_shuffled_emoji_take_the_path() -> None:
    """A megabyte-like line of shuffled emoji sequences: its thousand joiners are built by
    the one-line path, as the general path builds them, the rest counted on the last."""
    text = "".join(random.Random(11).choices(UNITS[:8], k=12_000))
    data = text.encode("utf-8")
    real = findings._one_line_findings
    taken: list[int] = []

    def counted(*args: object) -> object:
        built = real(*args)  # type: ignore[arg-type]
        taken.append(0 if built is None else len(built))
        return built

    with mock.patch.object(findings, "_one_line_findings", counted):
        fast = scan_bytes_as(data, "runtime").findings  # type: ignore[attr-defined]
    assert taken == [findings.MAX_OCCURRENCES]
    with mock.patch.object(findings, "_one_line_findings", return_value=None):
        general = scan_bytes_as(data, "runtime").findings  # type: ignore[attr-defined]
    assert [vars(finding) for finding in fast] == [vars(finding) for finding in general]
    assert [list(vars(finding)) for finding in fast] == [list(vars(finding)) for finding in general]
    assert int(fast[-1].extra["omitted_occurrences"]) == text.count(JOINER, 0, 65_536) - 1000
