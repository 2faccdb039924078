"""``soulscan explain RULE``: a rule's documentation, in the order a reader needs it.

What it does · Why it matters · Example (what matches, what does not) · How to fix ·
Which runtime versions behave so · References. Examples may hold invisible or bidi
characters (that is what some rules are about), so they are shown escaped.
"""

from __future__ import annotations

import difflib
import unicodedata
from pathlib import Path

import click

from soulscan.engine.rulepack import Rule, builtin_packs, load_pack, runtime_pack
from soulscan.errors import SoulscanError
from soulscan.models import Confidence, Severity
from soulscan.report.escape import escape_text
from soulscan.report.rules_index import RUNTIME_REFERENCE, RuleInfo, info_of

INVISIBLE_PREFIX = "invisible_unicode_U+"


def known_rules(extra_packs: tuple[Path, ...] = ()) -> dict[str, Rule]:
    """id → rule: the runtime pack first, then the other built-in packs, then extra packs."""
    runtime = runtime_pack()
    packs = [
        runtime,
        *(p for p in builtin_packs() if p.id != runtime.id),
        *(load_pack(path) for path in extra_packs),
    ]
    rules: dict[str, Rule] = {}
    for pack in packs:
        for rule in pack.rules:
            rules.setdefault(rule.id, rule)
    return rules


def find_rule(
    rule_id: str, extra_packs: tuple[Path, ...] = ()
) -> tuple[RuleInfo, tuple[str, ...], tuple[str, ...]]:
    """The rule's info and its match / no-match examples; a clear error if unknown."""
    rules = known_rules(extra_packs)
    rule = rules.get(rule_id)
    if rule is not None:
        return info_of(rule), rule.examples.match, rule.examples.no_match
    if rule_id.startswith(INVISIBLE_PREFIX):
        return _invisible_info(rule_id), (), ()
    close = difflib.get_close_matches(rule_id, list(rules), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; list them with `soulscan rules`"
    raise SoulscanError(f"unknown rule {escape_text(rule_id)!r}{hint}")


def _invisible_info(rule_id: str) -> RuleInfo:
    code = rule_id.removeprefix(INVISIBLE_PREFIX)
    try:
        char = chr(int(code, 16))
    except ValueError:
        raise SoulscanError(f"unknown rule {escape_text(rule_id)!r}") from None
    if char not in runtime_pack().invisible_chars:
        raise SoulscanError(
            f"Hermes 0.19.0 does not report U+{code}: it is not in the runtime's invisible set"
        )
    name = unicodedata.name(char, "unnamed")
    return RuleInfo(
        id=rule_id,
        name="invisible-unicode",
        pack=runtime_pack().id,
        severity=Severity.HIGH,
        confidence=Confidence.HIGH,
        message=f"The file contains U+{code} ({name}), an invisible character.",
        docs={
            "what": f"Reports every U+{code} ({name}) in the part of the file Hermes scans.",
            "why": "Invisible and bidi characters make a reviewer read something other than "
            "what the model reads: hidden words, reordered text, split keywords.",
            "fix": "Run `soulscan fix` to remove them (emoji sequences are kept).",
            "runtime": f"hermes-agent 0.19.0 reports `{rule_id}` and blocks the whole context "
            "file (or memory entry) when this character is in its scan window.",
            "references": RUNTIME_REFERENCE,
        },
        tags=("unicode",),
        origin="runtime",
    )


SECTIONS = (
    ("what", "What it does"),
    ("why", "Why it matters"),
    ("example", "Example"),
    ("fix", "How to fix"),
    ("runtime", "Runtime behaviour"),
    ("references", "References"),
)


def render_explanation(
    info: RuleInfo, matches: tuple[str, ...], no_matches: tuple[str, ...]
) -> str:
    lines = [
        f"{info.id} ({info.name})",
        f"pack {info.pack or '-'} · {info.origin} · severity {info.severity} · "
        f"confidence {info.confidence}" + (f" · tags {', '.join(info.tags)}" if info.tags else ""),
        "",
    ]
    for key, title in SECTIONS:
        body = _section(key, info, matches, no_matches)
        if body:
            lines += [title, *(f"  {line}" for line in body), ""]
    return "\n".join(lines)


def _section(
    key: str, info: RuleInfo, matches: tuple[str, ...], no_matches: tuple[str, ...]
) -> list[str]:
    if key == "what":
        return [info.docs.get("what") or info.message]
    if key == "example":
        body = [info.docs["example"]] if "example" in info.docs else []
        body += [f"matches:   {escape_text(text)}" for text in matches[:3]]
        body += [f"no match:  {escape_text(text)}" for text in no_matches[:3]]
        return body
    return [info.docs[key]] if key in info.docs else []


@click.command(name="explain")
@click.argument("rule_id", metavar="RULE")
@click.option(
    "--rule-pack",
    "rule_packs",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also look in this rule pack (repeatable).",
)
def command(rule_id: str, rule_packs: tuple[Path, ...]) -> int:
    """Explain RULE: what it finds, why it matters, an example, the fix, the runtime."""
    info, matches, no_matches = find_rule(rule_id, rule_packs)
    click.echo(render_explanation(info, matches, no_matches))
    return 0
