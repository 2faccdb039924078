"""Hard-coded credential formats, and the redaction every reporter applies before printing.

The formats are the well-known vendor prefixes (as catalogued by gitleaks and detect-secrets):
each is distinctive enough that a match is a real key or a deliberate look-alike. Redaction
keeps the vendor prefix so a reader knows *what* leaked, and nothing of the secret itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from soulscan.engine.anchors import fold


@dataclass(frozen=True)
class SecretFormat:
    """A vendor's secret format, and how much of a match stays visible."""
    name: str
    pattern: regex.Pattern[str]
    keep: int  # characters of the match kept visible: the vendor prefix


def _fmt(name: str, pattern: str, keep: int) -> SecretFormat:
    return SecretFormat(name, regex.compile(pattern), keep)


SECRET_FORMATS: tuple[SecretFormat, ...] = (
    _fmt(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]{0,16384}?-----END (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----",
        11,
    ),
    _fmt("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b", 4),
    _fmt("github-token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", 4),
    _fmt("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{82}\b", 11),
    _fmt("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20}\b", 6),
    _fmt("slack-token", r"\bxox[abposr]-(?:[0-9A-Za-z]{1,40}-){1,4}[0-9A-Za-z]{6,64}\b", 5),
    _fmt(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_-]{20,120}",
        23,
    ),
    _fmt(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{8,20}/[A-Za-z0-9_-]{40,80}",
        33,
    ),
    _fmt("anthropic-key", r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,120}\b", 7),
    _fmt(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,74}T3BlbkFJ[A-Za-z0-9_-]{20,74}\b",
        3,
    ),
    _fmt("openai-key", r"\bsk-proj-[A-Za-z0-9_-]{80,200}\b", 8),
    _fmt("openrouter-key", r"\bsk-or-v1-[0-9a-f]{64}\b", 9),
    _fmt("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}\b", 4),
    _fmt("huggingface-token", r"\bhf_[A-Za-z]{34}\b", 3),
    _fmt("stripe-secret-key", r"\b(?:sk|rk)_live_[0-9A-Za-z]{24,99}\b", 8),
    _fmt("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", 4),
    _fmt("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", 5),
    _fmt("telegram-bot-token", r"\b[0-9]{8,10}:AA[0-9A-Za-z_-]{33}\b", 0),
    _fmt("groq-key", r"\bgsk_[A-Za-z0-9]{52}\b", 4),
    _fmt("xai-key", r"\bxai-[A-Za-z0-9]{80}\b", 4),
)

# Every match of a format above holds one of these pieces. Each is written from a rare
# character of it (a lookbehind checks what comes before; "A", "-", "k", "x" and "_" are the
# most common, each in under 1.2% of the corpora's characters), so `re` jumps from one such
# character to the next: one pass rules out every format on ordinary text
# (tests/test_hardened_secrets.py checks each format's generated matches).
_ANY_FORMAT = re.compile(
    "|".join(  # noqa: FLY002  (one piece a line, with the formats it stands for)
        (
            "G(?<=-----BEG)IN ",  # private-key
            "A(?:KIA|SIA|BIA|CCA|Iza|(?<=:A)A)",  # aws, google, telegram
            "J(?<=T3BlbkFJ)",  # openai
            # github, github fine-grained, huggingface, stripe, npm, groq
            "_(?:(?<=gh[pousr]_)|(?<=github_)pat_|(?<=hf_)|live_|(?<=npm_)|(?<=gsk_))",
            "-(?<=glpat-)",  # gitlab
            "x(?:ox[abposr]-|ai-)",  # slack, xai
            # slack and discord webhooks; anthropic, openai, openrouter (from the "k", not
            # the "-": a text of `--` or `<!--` stops at each, for one lookbehind less)
            r"k(?:(?<=hooks\.slack)\.com/|(?<=/api/webhook)s/|(?<=sk)-(?:ant|proj|or-v1)-)",
            "5(?<=pypi-AgEIcHlwaS5)vcmc",  # pypi
        )
    )
)  # fmt: skip


# Values that only look like keys: documentation placeholders.
_PLACEHOLDER = regex.compile(
    r"(?i)x{6,}|\.{3}|<[^>]{1,40}>|your[_-]?(?:api[_-]?)?key|example|placeholder|dummy|0{8,}|1234567890"
)


@dataclass(frozen=True)
class SecretHit:
    """A secret found in the text: its format and span."""
    name: str
    start: int
    end: int


def find_secrets(text: str) -> list[SecretHit]:
    """Every credential-shaped value in `text`, placeholders excluded, in text order."""
    hits: list[SecretHit] = []
    if not _ANY_FORMAT.search(text):
        return hits
    for fmt in SECRET_FORMATS:
        for match in fmt.pattern.finditer(text):
            if fmt.name != "private-key" and _PLACEHOLDER.search(match.group()):
                continue
            if any(h.start < match.end() and match.start() < h.end for h in hits):
                continue
            hits.append(SecretHit(fmt.name, match.start(), match.end()))
    return sorted(hits, key=lambda hit: hit.start)


def _mask(fmt: SecretFormat, value: str) -> str:
    if fmt.name == "private-key":
        return "-----BEGIN PRIVATE KEY----- [REDACTED]"
    return value[: fmt.keep] + "[REDACTED]"


_ASSIGNED = regex.compile(
    r"(?i)((?:api[_-]?key|access[_-]?key|secret|token|password|passwd|pwd|auth)[\w-]{0,24}\s{0,4}[=:]\s{0,4}[\"']?)"
    r"([A-Za-z0-9+/=_.-]{12,512})"
)


# Every `_ASSIGNED` match holds "=" or ":" and one of these, case-folded (`fold` turns every
# case variant `regex` matches of a letter into that letter: tests/test_hardened_quoted.py),
# and has this shape: the word, at most 31 characters (the "ord" of "password", 24 of the
# name, 4 of white space), = or :, at most 5 (white space and a quote), and 12 characters of
# the value.
_ASSIGNMENT_WORDS = ("key", "secret", "token", "passw", "pwd", "auth")
_ASSIGNMENT_SHAPE = re.compile(
    "(?:" + "|".join(_ASSIGNMENT_WORDS) + r")(?s:.){0,31}?[=:](?s:.){0,5}?[a-z0-9+/=_.-]{12}"
)


def _may_assign(text: str) -> bool:
    """False when `_ASSIGNED` provably finds nothing: a few `in` and, where they pass, a
    search on the folded text, instead of a case-insensitive search at every character."""
    if "=" not in text and ":" not in text:
        return False
    folded = fold(text)
    if not any(word in folded for word in _ASSIGNMENT_WORDS):
        return False
    return _ASSIGNMENT_SHAPE.search(folded) is not None


# No pattern above matches fewer characters (a Slack token, ``xoxb-1-abcdef``; the tests
# check every pattern's shortest match): shorter text, such as the one hidden character a
# finding often is, has nothing to redact.
SHORTEST_REDACTED = 13


def redact(text: str) -> str:
    """`text` with every known key format and every `secret = value` assignment masked."""
    if len(text) < SHORTEST_REDACTED:
        return text
    for fmt in SECRET_FORMATS if _ANY_FORMAT.search(text) else ():
        text = fmt.pattern.sub(lambda m, f=fmt: _mask(f, m.group()), text)  # type: ignore[misc]
    if not _may_assign(text):
        return text
    return _ASSIGNED.sub(lambda m: m.group(1) + "[REDACTED]", text)
