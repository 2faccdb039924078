"""The two verdicts a variant is judged by.

*Runtime*: would Hermes 0.19.0 block this file (context files: the context-scope scan of
the stripped text with the leading-BOM rule; memory files: any entry blocked at the strict
scope)? *Hardened*: does soulscan's default profile report it (every runtime finding is
kept, the hardened analysis adds to it)?
"""

from __future__ import annotations

from dataclasses import dataclass

MEMORY_KINDS = frozenset({"memory", "user"})


@dataclass(frozen=True)
class Verdict:
    runtime: bool
    hardened: bool


def runtime_catches(text: str, kind: str, filename: str) -> bool:
    from soulscan.hermes.scanner import scan_context_content, scan_for_threats

    if kind in MEMORY_KINDS:
        from soulscan.hermes.memory_format import parse_entries

        return any(scan_for_threats(entry, "strict") for entry in parse_entries(text))
    stripped = text.strip()
    if not stripped:
        return False
    return scan_context_content(stripped, filename) != stripped.removeprefix("\ufeff")


def hardened_catches(text: str, kind: str) -> bool:
    from soulscan.hardened.analyze import analyze

    return bool(analyze(text, kind=kind))


def judge(text: str, kind: str, filename: str) -> Verdict:
    runtime = runtime_catches(text, kind, filename)
    return Verdict(runtime=runtime, hardened=runtime or hardened_catches(text, kind))
