"""The cron prompt scanners of Hermes 0.19.0, exactly as `tools/cronjob_tools.py` runs them.

Facts (hermes-agent 0.19.0, `tools/cronjob_tools.py` and `cron/scheduler.py`):

* **Strict scan** (create/update time, and at run time when the prompt carries no
  skills and no injected data): first a GitHub-auth exemption is cut out of the
  prompt, then the 17 invisible characters of `tools/threat_patterns.py` block —
  except a U+200D whose nearest non-U+FE0F neighbours on both sides are emoji — then
  the strict set, then the exfiltration-command set. The first hit ends the scan.
* **Loose scan** (run time, when skills, script output or `context_from` data were
  assembled in): invisible characters are stripped (emoji joiners kept) instead of
  blocking, the exemption is cut out, and only the four injection directives apply.
  When the loose scan passes and data but no skills were injected, the raw user
  prompt is also given the strict scan.
* Matching is Python ``re`` with IGNORECASE over the whole text: no NFKC, no window.

The patterns live in the rule packs ``hermes-0.19-cron`` (strict),
``hermes-0.19-cron-exfil`` and ``hermes-0.19-cron-loose``, run by the shared engine.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from soulscan.engine.matcher import rule_search
from soulscan.engine.rulepack import Rule, builtin_packs

STRICT_PACK = "hermes-0.19-cron"
EXFIL_PACK = "hermes-0.19-cron-exfil"
LOOSE_PACK = "hermes-0.19-cron-loose"

INVISIBLE_CHARS = frozenset(
    "\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
ZWJ = "\u200d"
VARIATION_SELECTOR_16 = "\ufe0f"
# Code-point ranges the runtime counts as emoji when deciding whether a ZWJ is a joiner.
EMOJI_RANGES = (
    (0x1F000, 0x1FFFF),
    (0x2600, 0x27BF),
    (0x2300, 0x23FF),
    (0x1F1E6, 0x1F1FF),
    (0x20E3, 0x20E3),
)

_SECRET_VAR = r"\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)\w*\}?"
# NOTE: not a finding but an exemption, so it stays out of the rule packs. It is the
# runtime's own Python `re` pattern, run with Python `re`, so parity is by construction.
_GITHUB_AUTH_HEADER = re.compile(
    rf"curl\s+[^\n]*(?:-H|--header)\s+[\"']Authorization:\s*token\s+{_SECRET_VAR}[\"']"
    r"\s+[\"']?https://api\.github\.com(?:/|\b)",
    re.IGNORECASE,
)
_GITHUB_AUTH_REPLACEMENT = "curl https://api.github.com/user"

PATTERN_BLOCK_MESSAGE = (
    "Blocked: prompt matches threat pattern '{id}'. "
    "Cron prompts must not contain injection or exfiltration payloads."
)
INVISIBLE_BLOCK_MESSAGE = "Blocked: prompt contains invisible unicode {label} (possible injection)."
INVISIBLE_ID = "invisible_unicode"


@dataclass(frozen=True)
class CronVerdict:
    """One scan's outcome. ``message`` is the runtime's error text ('' when passed).

    When invisible characters block, the runtime names whichever of them its
    frozenset yields first — an order that depends on the string-hash seed — so
    ``message`` names the lowest code point and ``invisible`` lists every candidate.
    """

    pattern_id: str | None = None
    message: str = ""
    invisible: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        return self.pattern_id is not None


PASSED = CronVerdict()


@dataclass(frozen=True)
class CronRunResult:
    """What a run does: the prompt the agent would get, or the block that stops it."""

    prompt: str
    verdict: CronVerdict
    stripped: tuple[str, ...] = ()  # U+XXXX labels the loose scan removed
    scan: str = "strict"  # "strict" or "loose"


def codepoint_label(char: str) -> str:
    return f"U+{ord(char):04X}"


def _is_emoji(char: str) -> bool:
    cp = ord(char)
    return any(lo <= cp <= hi for lo, hi in EMOJI_RANGES)


def is_emoji_joiner(text: str, index: int) -> bool:
    """True when the ZWJ at ``text[index]`` sits between emoji (skipping U+FE0F)."""
    left = index - 1
    while left >= 0 and text[left] == VARIATION_SELECTOR_16:
        left -= 1
    right = index + 1
    while right < len(text) and text[right] == VARIATION_SELECTOR_16:
        right += 1
    return left >= 0 and right < len(text) and _is_emoji(text[left]) and _is_emoji(text[right])


def blocking_invisible_chars(text: str) -> tuple[str, ...]:
    """Invisible characters that block a strict scan, sorted by code point."""
    found = {
        char
        for index, char in enumerate(text)
        if char in INVISIBLE_CHARS and not (char == ZWJ and is_emoji_joiner(text, index))
    }
    return tuple(sorted(found))


def strip_invisible(text: str) -> tuple[str, tuple[str, ...]]:
    """The loose scan's sanitising step: drop invisible characters, keep emoji joiners."""
    kept: list[str] = []
    removed: set[str] = set()
    for index, char in enumerate(text):
        if char in INVISIBLE_CHARS and not (char == ZWJ and is_emoji_joiner(text, index)):
            removed.add(codepoint_label(char))
            continue
        kept.append(char)
    return "".join(kept), tuple(sorted(removed))


def strip_safe_constructs(text: str) -> str:
    """Cut out the one exempt GitHub `Authorization: token` curl (every copy of it)."""
    hit = _GITHUB_AUTH_HEADER.search(text)
    if hit is None:
        return text
    return text.replace(hit.group(0), _GITHUB_AUTH_REPLACEMENT)


@functools.cache
def pack_rules(pack_id: str) -> tuple[Rule, ...]:
    for pack in builtin_packs():
        if pack.id == pack_id:
            return tuple(pack.rules)
    raise LookupError(f"built-in rule pack {pack_id!r} is missing")


def _first_hit(text: str, pack_ids: tuple[str, ...]) -> CronVerdict:
    for pack_id in pack_ids:
        for rule in pack_rules(pack_id):
            if rule_search(rule, text):
                return CronVerdict(rule.id, PATTERN_BLOCK_MESSAGE.format(id=rule.id))
    return PASSED


def scan_cron_prompt(prompt: str) -> CronVerdict:
    """The strict scan a cron prompt gets at create/update time."""
    text = strip_safe_constructs(prompt)
    invisible = blocking_invisible_chars(text)
    if invisible:
        label = codepoint_label(invisible[0])
        return CronVerdict(INVISIBLE_ID, INVISIBLE_BLOCK_MESSAGE.format(label=label), invisible)
    return _first_hit(text, (STRICT_PACK, EXFIL_PACK))


def scan_cron_assembled(assembled: str) -> tuple[str, CronVerdict, tuple[str, ...]]:
    """The loose scan: (the cleaned prompt that would run, verdict, stripped labels)."""
    cleaned, removed = strip_invisible(assembled)
    return cleaned, _first_hit(strip_safe_constructs(cleaned), (LOOSE_PACK,)), removed


def scan_cron_run(
    assembled: str,
    *,
    has_skills: bool = False,
    has_injected_data: bool = False,
    user_prompt: str | None = None,
) -> CronRunResult:
    """The run-time decision for an assembled prompt, with the runtime's tier choice."""
    if not (has_skills or has_injected_data):
        return CronRunResult(assembled, scan_cron_prompt(assembled))
    cleaned, verdict, removed = scan_cron_assembled(assembled)
    if not verdict.blocked and not has_skills and user_prompt:
        verdict = scan_cron_prompt(user_prompt)
    return CronRunResult(cleaned, verdict, removed, scan="loose")
