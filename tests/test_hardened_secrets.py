"""Credential formats are found, placeholders are not, and redaction never leaks a secret."""

from __future__ import annotations

import re._parser as re_parser  # type: ignore[import-not-found]  # no stubs: CPython internals

import pytest

from soulscan.hardened.secrets import (
    _ASSIGNED,
    SECRET_FORMATS,
    SHORTEST_REDACTED,
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
