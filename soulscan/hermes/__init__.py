"""A model of Hermes Agent 0.19.0: what it loads, scans, truncates and blocks.

Pure functions over explicit inputs; nothing here reads ``HERMES_HOME`` or the
process cwd behind the caller's back, and nothing writes into a home.
"""

from soulscan.hermes.scanner import (
    INVISIBLE_CHARS,
    MAX_SCAN_CHARS,
    RuntimeMatch,
    first_threat_message,
    runtime_matches,
    scan_context_content,
    scan_for_threats,
)

__all__ = [
    "INVISIBLE_CHARS",
    "MAX_SCAN_CHARS",
    "RuntimeMatch",
    "first_threat_message",
    "runtime_matches",
    "scan_context_content",
    "scan_for_threats",
]
