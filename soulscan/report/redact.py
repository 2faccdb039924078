"""Redact secrets in snippets before they are shown or stored in a report.

A finding's snippet is the matched text, and the runtime's own patterns (``exfil_curl``,
``hardcoded_secret``) match lines that carry live credentials: printing them again into
CI logs or a SARIF upload would leak them a second time. Each known key format keeps a
short, non-secret prefix so the reader can tell what kind of secret it was.

NOTE: ``soulscan.hardened.secrets.redact`` is the richer, gitleaks-style implementation;
the pipeline uses it when that package is installed and falls back to this one.
"""

from __future__ import annotations

import regex

REDACTED = "[REDACTED]"

# (pattern, group holding the secret value); the text before that group is kept.
_KEY_FORMATS: tuple[tuple[regex.Pattern[str], int], ...] = tuple(
    (regex.compile(pattern), group)
    for pattern, group in (
        (r"-----BEGIN [A-Z ]*PRIVATE KEY-----(.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", 1),
        (r"\b(?:AKIA|ASIA)([0-9A-Z]{16})\b", 1),
        (r"\bgh[pousr]_([A-Za-z0-9]{30,})", 1),
        (r"\bgithub_pat_([A-Za-z0-9_]{40,})", 1),
        (r"\bsk-(?:ant-|proj-)?([A-Za-z0-9_\-]{20,})", 1),
        (r"\bxox[abposr]-([A-Za-z0-9\-]{10,})", 1),
        (r"\bAIza([0-9A-Za-z_\-]{35})", 1),
        (r"\beyJ[A-Za-z0-9_\-]{10,}\.(eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})", 1),
        (r"(?i)\bBearer\s+([A-Za-z0-9._~+/=\-]{16,})", 1),
        (
            r"(?i)(?:api[_-]?key|token|secret|password|passwd|credential)\w*[\"']?\s*[=:]\s*"
            r"[\"']?(?![^\s\"'$]*\[REDACTED\])([^\s\"'$]{8,})",
            1,
        ),
    )
)


def redact(text: str) -> str:
    """``text`` with the value of every recognised secret replaced by ``[REDACTED]``."""
    for pattern, group in _KEY_FORMATS:
        text = pattern.sub(lambda match: _redact_group(match, group), text)
    return text


def _redact_group(match: regex.Match[str], group: int) -> str:
    whole_start = match.start()
    secret_start, secret_end = match.span(group)
    return match.string[whole_start:secret_start] + REDACTED + match.string[secret_end : match.end()]
