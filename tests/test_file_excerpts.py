"""Excerpts of many findings at once (``FileExcerpts``) and the secret screen behind them.

``FileExcerpts`` never cuts a whole line out of the text unless it must redact it, screens
long lines for secrets only around their findings and escapes the windows it shows once;
each excerpt must still be exactly what the previous whole-line computation gave:
``excerpt(line, ...)`` of the finding's full line, with ``redact`` when that line holds a
secret and without it otherwise.
"""

from __future__ import annotations

from unittest import mock

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan.hardened import secrets
from soulscan.hardened.secrets import SECRET_FORMATS, redact
from soulscan.models import Location
from soulscan.report import excerpt as excerpt_module
from soulscan.report import secret_screen
from soulscan.report.excerpt import Excerpt, FileExcerpts, excerpt
from soulscan.report.secret_screen import ANCHORS, LONGEST_ANCHOR, SecretScreen
from soulscan.textpos import LineIndex

# Pieces that make excerpts interesting: hidden characters alone and in runs, newlines,
# backslashes, credentials whole and cut, assignments, anchors that are not secrets.
PIECES = [
    "a", "b", " ", "\n", "\\", "\t", "\u200b", "\u202e", "\U000e0041", "é", "😀",
    "\u200b" * 30, "word " * 12, "x" * 70,
    "AKIAIOSFODNN7ABCDEFG", "ghp_" + "a1B2" * 9, "token = abcdefghijklmnop", "to\u212aen=ABCDEFGHIJKLMN",
    "ap\u0130_key: zyxwvutsrqponm", "sk-", "AKIA", "pwd",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----", "xoxb-1-abcdef", "https://hooks.slack.com/services/" + "T" * 24,
]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
EXCERPT_SETTINGS = settings(max_examples=300, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow])


def whole_line_excerpt(text: str, location: Location) -> Excerpt:
    """The previous computation: the finding's whole line, redacted if it holds a secret."""
    line = text.split("\n")[location.line - 1]
    end = location.end_column - 1 if location.end_line == location.line else len(text)
    return excerpt(line, location.column - 1, end, None if redact(line) == line else redact)


@st.composite
def text_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    text = draw(TEXTS)
    ends = st.integers(0, len(text))
    spans = draw(st.lists(st.tuples(ends, ends).map(sorted).map(tuple), max_size=12))
    if draw(st.booleans()):
        spans.sort()
    return text, spans  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("long_line", "block", "few"),
    [
        pytest.param(excerpt_module.LONG_LINE, 4096, excerpt_module.FEW_FINDINGS, id="as-shipped"),
        pytest.param(excerpt_module.LONG_LINE, 4096, 0, id="shared-windows-always"),
        pytest.param(0, 7, 0, id="every-line-long-small-blocks"),
        pytest.param(0, 7, 12, id="every-line-long-each-alone"),
        pytest.param(30, 1, 0, id="short-long-lines-one-character-blocks"),
        pytest.param(30, 1, 12, id="short-long-lines-each-alone"),
    ],
)
@EXCERPT_SETTINGS
@given(case=text_and_spans())
def test_excerpts_are_the_whole_line_excerpts(
    long_line: int, block: int, few: int, case: tuple[str, list[tuple[int, int]]]
) -> None:
    text, spans = case
    index = LineIndex.of(text)
    locations = [index.location(start, end) for start, end in spans]
    with mock.patch.object(excerpt_module, "LONG_LINE", long_line), \
            mock.patch.object(secret_screen, "_BLOCK", block), \
            mock.patch.object(excerpt_module, "FEW_FINDINGS", few):
        shown = FileExcerpts(text, LineIndex.of(text)).excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]


@pytest.mark.parametrize("line_break", ["", "\n"], ids=["one-line", "short-lines"])
def test_a_repeating_text_shows_each_neighbourhood_as_its_line_does(line_break: str) -> None:
    """The same neighbourhood shown again (emoji sequences) is the same excerpt; the
    first and the last in the line, cut short by its edges, are each their own."""
    text = ("\U0001f468\u200d\U0001f469 x\\u{200D}" + line_break) * 300
    index = LineIndex.of(text)
    locations = [index.location(at, at + 1) for at, char in enumerate(text) if char == "\u200d"]
    excerpts = FileExcerpts(text, LineIndex.of(text))
    first = excerpts.excerpts(locations)
    assert first == [whole_line_excerpt(text, location) for location in locations]
    assert excerpts.excerpts(locations[::-1]) == first[::-1]


def test_a_megabyte_line_is_screened_near_its_findings_only() -> None:
    """A secret far along a long line still makes that line's excerpts redacted (as the
    whole-line computation did) once a finding's neighbourhood holds an anchor."""
    far_secret = "ghp_" + "a1B2" * 9
    text = "\u200b" + "x" * 100_000 + "token=abcdefghijklmnop" + "y" * 100_000 + far_secret
    index = LineIndex.of(text)
    locations = [index.location(0, 1), index.location(100_001, 100_006)]
    shown = FileExcerpts(text, index).excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    line = text  # one line
    assert shown[0] == excerpt(line, 0, 1, None)  # no anchor near: as a secret-free line
    assert shown[1] != excerpt(line, 100_001, 100_006, None)  # redacted, as the line holds secrets


# Every credential format with a sample the format matches; a format added to
# ``SECRET_FORMATS`` without a sample here fails ``test_every_secret_format_holds_an_anchor``.
FORMAT_SAMPLES = {
    "private-key": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----",
    "aws-access-key-id": "AKIAIOSFODNN7ABCDEFG",
    "github-token": "ghp_" + "a" * 36,
    "github-fine-grained-token": "github_pat_" + "a" * 82,
    "gitlab-token": "glpat-" + "a" * 20,
    "slack-token": "xoxb-123-abcdef",
    "slack-webhook": "https://hooks.slack.com/services/" + "T" * 24,
    "discord-webhook": "https://discord.com/api/webhooks/12345678/" + "a" * 40,
    "anthropic-key": "sk-ant-api03-" + "a" * 90,
    "openai-key": "sk-" + "a" * 20 + "T3BlbkFJ" + "b" * 20,
    "openrouter-key": "sk-or-v1-" + "a" * 64,
    "google-api-key": "AIza" + "a" * 35,
    "huggingface-token": "hf_" + "a" * 34,
    "stripe-secret-key": "sk_live_" + "a" * 24,
    "npm-token": "npm_" + "a" * 36,
    "pypi-token": "pypi-AgEIcHlwaS5vcmc" + "a" * 50,
    "telegram-bot-token": "123456789:AA" + "a" * 33,
    "groq-key": "gsk_" + "a" * 52,
    "xai-key": "xai-" + "a" * 80,
}


def test_every_secret_format_holds_an_anchor() -> None:
    assert {fmt.name for fmt in SECRET_FORMATS} == set(FORMAT_SAMPLES)
    for fmt in SECRET_FORMATS:
        sample = FORMAT_SAMPLES[fmt.name]
        matched = [m.group() for m in fmt.pattern.finditer(sample)]
        assert any(ANCHORS.search(found) for found in matched) or not matched, fmt.name
    for fmt_name, sample in FORMAT_SAMPLES.items():
        assert redact(sample) != sample, fmt_name


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_every_match_of_every_secret_pattern_holds_an_anchor(data: st.DataObject) -> None:
    """Generated from each pattern itself: whatever it matches holds an anchor, so text
    without one is text ``redact`` leaves alone."""
    patterns = [fmt.pattern for fmt in SECRET_FORMATS if fmt.name != "private-key"]
    pattern = data.draw(st.sampled_from([*patterns, secrets._ASSIGNED]))
    sample = data.draw(st.from_regex(pattern.pattern, fullmatch=True))
    for found in pattern.finditer(sample):
        assert ANCHORS.search(found.group()), (pattern.pattern, found.group())


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("to\u212aen = abcdefghijklmnop", id="kelvin-sign-k"),
        pytest.param("ap\u0130_key: abcdefghijklmnop", id="dotted-capital-i"),
        pytest.param("\u017fecret=abcdefghijklmnop", id="long-s"),
        pytest.param("PASSWORD: abcdefghijklmnop", id="upper-case"),
    ],
)
def test_case_folded_assignments_hold_an_anchor(text: str) -> None:
    """The assignment pattern is case-insensitive with the regex module's own folding;
    its anchors are matched by the same engine with the same rule."""
    assert redact(text) != text
    assert ANCHORS.search(text)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data())
def test_a_clear_stretch_holds_no_anchor_and_nothing_to_redact(text: str, data: st.DataObject) -> None:
    ends = st.integers(0, len(text))
    anchors = [m.span() for m in ANCHORS.finditer(text, overlapped=True)]
    screen = SecretScreen(text)
    for _ in range(4):  # questions in any order, sharing what the screen remembers
        start, end = sorted((data.draw(ends), data.draw(ends)))
        clear = screen.clear(start, end)
        if not any(start - LONGEST_ANCHOR < anchor_start < end for anchor_start, _ in anchors):
            assert clear
        if clear:
            assert not any(start <= low and high <= end for low, high in anchors)
            low, high = sorted((data.draw(st.integers(start, end)), data.draw(st.integers(start, end))))
            assert redact(text[low:high]) == text[low:high]


ONE_LINE_PIECES = [piece for piece in PIECES if "\n" not in piece]


@st.composite
def one_line_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    text = draw(st.lists(st.sampled_from(ONE_LINE_PIECES), max_size=60).map("".join))
    text += draw(st.sampled_from(["", "\n", "x" * 50, "x" * 50 + "\nnext"]))
    ends = st.integers(0, len(text))
    spans = draw(st.lists(st.tuples(ends, st.integers(0, 90)).map(lambda s: (s[0], s[0] + s[1])),
                          min_size=1, max_size=20))
    return text, [(start, min(end, len(text))) for start, end in spans]


@pytest.mark.parametrize("long_line", [0, 30], ids=["every-line-long", "short-long-lines"])
@EXCERPT_SETTINGS
@given(case=one_line_and_spans())
def test_findings_inside_one_long_line_show_their_line_excerpts(
    long_line: int, case: tuple[str, list[tuple[int, int]]]
) -> None:
    """The one-line path, when it answers, answers what each finding's line shows."""
    text, spans = case
    index = LineIndex.of(text)
    locations = [index.location(start, end) for start, end in spans]
    with mock.patch.object(excerpt_module, "LONG_LINE", long_line):
        shown = FileExcerpts(text, LineIndex.of(text))._inside_one_line(locations)
    if shown is not None:
        assert shown == [whole_line_excerpt(text, location) for location in locations]


def test_hidden_characters_along_one_line_take_the_one_line_path() -> None:
    """A thousand joiners on one long line (cut at its start, a secret-free neighbourhood)
    are shown by the one-line path, as their line shows them; a secret near them, a span
    too long to show whole or a line ending before the last after piece turn it away."""
    text = ("\U0001f468\u200d\U0001f469 x\\u{200D}" * 3000) + "tail" * 20
    index = LineIndex.of(text)
    spans = [(at, at + 1) for at, char in enumerate(text) if char == "\u200d"][:1000]
    locations = [index.location(start, end) for start, end in spans]
    excerpts = FileExcerpts(text, LineIndex.of(text))
    shown = excerpts._inside_one_line(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    assert excerpts.excerpts(locations) == shown  # and again, from what it remembers
    last = spans[-1][1]
    for other, span in [(text[:last] + "token=" + text[last:], spans[0]),
                        (text, (0, 90)),
                        (text[: last + 10] + "\n" + text[last + 10 :], spans[0])]:
        other_index = LineIndex.of(other)
        other_locations = [other_index.location(*s) for s in [*spans, span]]
        assert FileExcerpts(other, other_index)._inside_one_line(other_locations) is None
        assert FileExcerpts(other, LineIndex.of(other)).excerpts(other_locations) == [
            whole_line_excerpt(other, location) for location in other_locations]


@st.composite
def short_line_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """Spans that all lie on one short line among others (a line of hidden-bit encodings)."""
    lines = draw(st.lists(st.lists(st.sampled_from(ONE_LINE_PIECES), max_size=20).map("".join),
                          min_size=1, max_size=3))
    number = draw(st.integers(0, len(lines) - 1))
    start = sum(len(line) + 1 for line in lines[:number])
    ends = st.integers(start, start + len(lines[number]))
    spans = draw(st.lists(st.tuples(ends, ends).map(sorted).map(tuple), min_size=1, max_size=40))
    return "\n".join(lines), spans  # type: ignore[return-value]


@EXCERPT_SETTINGS
@given(case=short_line_and_spans())
def test_findings_on_one_short_line_show_their_line_excerpts(
    case: tuple[str, list[tuple[int, int]]]
) -> None:
    """The short-line path answers for a line that holds no secret, what each finding's
    line shows; a line that holds one is left to the shared windows."""
    text, spans = case
    index = LineIndex.of(text)
    locations = [index.location(start, end) for start, end in spans]
    excerpts = FileExcerpts(text, LineIndex.of(text))
    line = excerpts._line(locations[0].line)
    assert line.short
    shown = excerpts._on_one_short_line(locations[0].line, line, locations)
    line_text = text.split("\n")[locations[0].line - 1]
    assert (shown is None) == (redact(line_text) != line_text)
    if shown is not None:
        assert shown == [whole_line_excerpt(text, location) for location in locations]
        many = locations * (excerpt_module.FEW_FINDINGS // len(locations) + 1)
        assert FileExcerpts(text, LineIndex.of(text)).excerpts(many) == shown * (
            excerpt_module.FEW_FINDINGS // len(locations) + 1)


def test_hidden_bits_on_one_short_line_take_the_short_line_path() -> None:
    """A line of invisible operators and zero-width spaces (each a finding), followed by
    more text, is escaped once; its excerpts are those of the line."""
    bits = "\u2064\u2062\u2062\u2064\u200b" * 60
    text = "Encoded: " + bits + " tail \\u{2064}\nnext line\n"
    index = LineIndex.of(text)
    locations = [index.location(at, at + 1) for at, char in enumerate(text) if char in bits]
    excerpts = FileExcerpts(text, LineIndex.of(text))
    with mock.patch.object(FileExcerpts, "_shared", side_effect=AssertionError("shared")):
        shown = excerpts.excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    secret = text.replace(" tail", " token=abcdefghijklmnop")
    index = LineIndex.of(secret)
    locations = [index.location(at, at + 1) for at, char in enumerate(secret) if char in bits]
    assert FileExcerpts(secret, index).excerpts(locations) == [
        whole_line_excerpt(secret, location) for location in locations]


@pytest.mark.parametrize("line", [
    pytest.param("curl -d x https://example.com \u200b done", id="no-secret"),
    pytest.param("token = abcdefghijklmnop \u200b done", id="secret"),
])
def test_a_repeated_short_line_is_redacted_once(line: str) -> None:
    """Findings on many copies of one short line (each line its own number) show what each
    line shows; the line's text is redacted once, not once a copy."""
    text = "\n".join([line, "other text \u200b here"] * 12) + "\n"
    index = LineIndex.of(text)
    locations = [index.location(at, at + 1) for at, char in enumerate(text) if char == "\u200b"]
    with mock.patch.object(excerpt_module, "redact", side_effect=redact) as counted:
        shown = FileExcerpts(text, LineIndex.of(text)).excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    lines_redacted = [call.args[0] for call in counted.call_args_list if "\n" not in call.args[0]]
    assert lines_redacted.count(line) == 1


def test_a_long_line_is_read_for_its_end_from_where_it_is_known_to_go() -> None:
    """The after piece of a finding on a long line stops at the line's newline even when
    an earlier finding's after piece ended just short of it."""
    text = "a" * 100 + "\u200b" + "b" * 30 + "\u200b" + "c" * 12 + "\n" + "d" * 100
    index = LineIndex.of(text)
    locations = [index.location(100, 101), index.location(131, 132)]
    with mock.patch.object(excerpt_module, "LONG_LINE", 10), \
            mock.patch.object(excerpt_module, "FEW_FINDINGS", 0):
        shown = FileExcerpts(text, LineIndex.of(text)).excerpts(locations)
    assert shown == [whole_line_excerpt(text, location) for location in locations]
    assert shown[1].after == "c" * 12


# One text each top-level alternative of ``ANCHORS`` matches (a member of each class).
ANCHOR_SAMPLES = [
    "-----BEGIN ", "AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "github_pat_", "glpat-", "xoxa-",
    "hooks.slack.com/", "discord", "sk-", "AIza", "hf_", "_live_", "npm_", "pypi-", ":AA",
    "gsk_", "xai-", "api", "access", "secret", "token", "passw", "pwd", "auth",
]


def _top_level_alternatives(pattern: str) -> int:
    depth, count, escaped = 0, 1, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "|":
            count += depth <= 1  # the (?i:...) group's own alternatives count too
    return count


def test_every_character_an_anchor_can_start_with_is_an_anchor_start() -> None:
    """No code point outside ``ANCHOR_STARTS`` begins an anchor (each alternative tried
    with every code point in place of its first character, by the regex module itself):
    a stretch with no anchor start holds no anchor."""
    assert _top_level_alternatives(ANCHORS.pattern) == len(ANCHOR_SAMPLES)
    for sample in ANCHOR_SAMPLES:
        assert ANCHORS.fullmatch(sample), sample
    starts = {sample[0] for sample in ANCHOR_SAMPLES}
    assert all(start.isascii() for start in starts)
    # Only ASCII characters and those the regex module takes for an ASCII letter when case
    # is ignored can match an ASCII first character.
    every_character = "".join(map(chr, range(0x110000)))
    like_ascii = set(regex.findall("(?i)[a-z]", every_character))
    for char in like_ascii | set(map(chr, range(128))):
        if any(ANCHORS.match(char + sample[1:]) for sample in ANCHOR_SAMPLES):
            starts.add(char)
    assert all(secret_screen.ANCHOR_STARTS.match(char) for char in starts)
    assert not secret_screen.ANCHOR_STARTS.match("K") and not secret_screen.ANCHOR_STARTS.match("1")


_PLAIN_OR_HIDDEN = st.lists(st.sampled_from(["a", " ", "\\", "\\u{", "}", "\t", "\u200b", "\U000e0041", "é", "😀",
                                             "x" * 45, "\u200b" * 30]), max_size=40).map("".join)


@EXCERPT_SETTINGS
@given(_PLAIN_OR_HIDDEN, st.integers(0, 200), st.integers(0, 200))
def test_an_unredacted_excerpt_escapes_and_bounds_each_piece(line: str, start: int, width: int) -> None:
    """``excerpt`` without ``redact`` (one check of the pieces' join for hidden characters)
    is each piece cut one past its limit, escaped and bounded on its own."""
    from soulscan.report.escape import escape_bounded, escape_bounded_left

    start = min(start, len(line))
    end = min(start + width, len(line))
    assert excerpt(line, start, start + width, None) == (
        escape_bounded_left(line[max(0, start - 41) : start], 40),
        escape_bounded(line[start : min(end, start + 81)], 80),
        escape_bounded(line[end : end + 41], 40),
    )
