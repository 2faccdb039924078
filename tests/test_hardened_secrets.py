"""Credential formats are found, placeholders are not, and redaction never leaks a secret."""

from __future__ import annotations

import re._parser as re_parser  # type: ignore[import-not-found]  # no stubs: CPython internals

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from soulscan.hardened.secrets import (
    _ANY_FORMAT,
    _ASSIGNED,
    _PLACEHOLDER,
    SECRET_FORMATS,
    SHORTEST_REDACTED,
    SecretHit,
    _mask,
    _may_assign,
    find_secrets,
    redact,
)

AWS = "AKIAQYLPMN5HFIQR7XYA"
GITHUB = "ghp_R2d8Kq0wZ5yLm3Np7Tv1Xc9Bf4Hj6Gs2Ae0D"
SLACK = "xoxb-2817364590-7261839405-Hq3vNz8RkW1pLm6Tj0Yc"
OPENROUTER = "sk-or-v1-" + "3f9a1c0d7e2b4a6f" * 4
KEY_BLOCK = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("secret", "name"),
    [
        pytest.param(AWS, "aws-access-key-id", id="aws"),
        pytest.param(GITHUB, "github-token", id="github"),
        pytest.param(SLACK, "slack-token", id="slack"),
        pytest.param(OPENROUTER, "openrouter-key", id="openrouter"),
        pytest.param(KEY_BLOCK, "private-key", id="private-key"),
    ],
)
def test_found_and_redacted(secret: str, name: str) -> None:
    text = f"config:\n  value: {secret}\n"
    assert [h.name for h in find_secrets(text)] == [name]
    redacted = redact(text)
    assert "[REDACTED]" in redacted
    assert secret not in redacted
    body = secret.splitlines()[1] if "\n" in secret else secret[-12:]
    assert body not in redacted


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("AKIAXXXXXXXXXXXXXXXX", id="aws-placeholder"),
        pytest.param("ghp_your_token_here", id="github-placeholder"),
        pytest.param("sk-...", id="ellipsis"),
    ],
)
def test_placeholders_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


def test_redact_masks_assigned_values() -> None:
    assert redact('password = "q8Zr2Lk5Tw7Yp1Vb3Nm6"') == 'password = "[REDACTED]"'


@pytest.mark.parametrize(
    "pattern",
    [pytest.param(fmt.pattern.pattern, id=fmt.name) for fmt in SECRET_FORMATS]
    + [pytest.param(_ASSIGNED.pattern, id="assignment")],
)
def test_no_pattern_matches_text_shorter_than_the_redaction_shortcut(pattern: str) -> None:
    # The patterns are plain ``re`` syntax: its parser gives the shortest match width.
    shortest, _ = re_parser.parse(pattern).getwidth()
    assert shortest >= SHORTEST_REDACTED


def test_shortest_secret_is_redacted() -> None:
    shortest = "xoxb-1-abcdef"
    assert len(shortest) == SHORTEST_REDACTED
    assert redact(shortest) == "xoxb-[REDACTED]"


@pytest.mark.parametrize("fmt", [pytest.param(fmt, id=fmt.name) for fmt in SECRET_FORMATS])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_match_holds_a_piece_of_the_quick_check(fmt: object, data: st.DataObject) -> None:
    """`_ANY_FORMAT` rules a text out only when no format can match in it."""
    from soulscan.hardened.secrets import SecretFormat

    assert isinstance(fmt, SecretFormat)
    match = data.draw(st.from_regex(fmt.pattern.pattern, fullmatch=True))
    if fmt.pattern.search(match):
        assert _ANY_FORMAT.search(match)


def _plain_find_secrets(text: str) -> list[SecretHit]:
    hits: list[SecretHit] = []
    for fmt in SECRET_FORMATS:
        for match in fmt.pattern.finditer(text):
            if fmt.name != "private-key" and _PLACEHOLDER.search(match.group()):
                continue
            if any(h.start < match.end() and match.start() < h.end for h in hits):
                continue
            hits.append(SecretHit(fmt.name, match.start(), match.end()))
    return sorted(hits, key=lambda hit: hit.start)


def _plain_redact(text: str) -> str:
    if len(text) < SHORTEST_REDACTED:
        return text
    for fmt in SECRET_FORMATS:
        text = fmt.pattern.sub(lambda m, f=fmt: _mask(f, m.group()), text)  # type: ignore[misc]
    return _ASSIGNED.sub(lambda m: m.group(1) + "[REDACTED]", text)


_NEAR_MISSES = [
    "AKIA", "ASIA", "sk-", "sk-ant-", "risk-based", "ghp_", "xoxb-", "-----BEGIN ", ":AA",
    "https://hooks.slack.com/", "/api/webhooks/", "_live_", "hf_", "npm_", "T3BlbkFJ",
    " ", "\n", "token = ", "example", "0123456789",
]  # fmt: skip
_SECRETS = [AWS, GITHUB, SLACK, OPENROUTER, KEY_BLOCK, "sk_live_" + "a1B2c3D4" * 4]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NEAR_MISSES + _SECRETS), max_size=12))
def test_quick_check_changes_no_result(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert find_secrets(text) == _plain_find_secrets(text)
    assert redact(text) == _plain_redact(text)


_ASSIGNMENTS = st.tuples(
    st.sampled_from(
        ["api_key", "API-KEY", "access\u212aey", "secret", "\u017fECRET", "Token"]
        + ["passwd", "PassWord", "pwd", "auth", "AUTH", "key"]
    ),
    st.text(alphabet="a_-1\u00e9", max_size=24),  # the rest of the name
    st.text(alphabet=" \t", max_size=4),
    st.sampled_from(["=", ":"]),
    st.text(alphabet=" \t", max_size=4),
    st.sampled_from(["", '"', "'"]),
    st.sampled_from(["abcdefghijkl", "A1b2C3d4E5f6G7", "short"]),
).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(_ASSIGNMENTS, st.sampled_from([" ", "\n", "x", "=", ":", "\u00e9"]))))
def test_assignment_pre_check_never_skips_an_assignment(pieces: list[str]) -> None:
    text = "".join(pieces)
    if _ASSIGNED.search(text):
        assert _may_assign(text)


@pytest.mark.parametrize("word", ["password", "PASSWD", "api_key", "access-key", "secret", "auth"])
def test_assignment_pre_check_passes_the_longest_shape(word: str) -> None:
    text = word + "1" * 24 + " \t  " + "=" + "  \t " + '"' + "a" * 12
    assert _ASSIGNED.search(text)
    assert _may_assign(text)
