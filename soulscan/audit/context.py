"""SOUL.md, the memories and the config.yaml settings that change how they load.

SOUL.md and MEMORY.md/USER.md are judged by the same pipeline as ``soulscan scan``
(``soulscan.pipeline.scan_target`` with the home's config), so their verdicts are the
proven ones. The config.yaml result states the settings that change loading —
``context_file_max_chars`` (``soulscan.hermes.truncation.context_file_max_chars``, as
0.19.0 ``agent/prompt_builder._truncate_content`` applies it) and the memory limits
(``soulscan.hermes.memory_files.configured_char_limits``, 0.19.0
``tools/memory_tool.MemoryStore``) — with SS703 (a cap so small the whole file loads)
and SS907 (a cap above the scan window) located on the line of the setting.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from soulscan.audit.homes import Home
from soulscan.audit.report import AuditItem, Facts, Hit
from soulscan.audit.source import SourceText
from soulscan.discovery import Target
from soulscan.engine.matcher import rule_finditer
from soulscan.engine.rulepack import Rule, builtin_packs
from soulscan.hermes.memory_files import configured_char_limits
from soulscan.hermes.scanner import MAX_SCAN_CHARS
from soulscan.hermes.soul import soul_md_would_be_seeded, soul_seed_warning
from soulscan.hermes.truncation import context_file_max_chars
from soulscan.models import ORIGIN_HARDENED, FileResult, RuntimeSummary, ScanError
from soulscan.pipeline import ScanOptions, scan_target

CAP_RULES = ("SS703", "SS907")
# agent/prompt_builder._truncate_content: a cap this small keeps no tail and loads it all.
TINY_CAP = 4
CONFIG_KIND = "config"


def context_results(home: Home, options: ScanOptions) -> Iterator[FileResult | ScanError]:
    """SOUL.md (or why the runtime would seed it) and both memory files."""
    scoped = ScanOptions(profile=options.profile, hermes_home=home.path,
                         context_length=options.context_length,
                         max_file_size=options.max_file_size)
    soul = home.path / "SOUL.md"
    seeded = soul_md_would_be_seeded(home.path)
    if seeded == "missing":
        detail = soul_seed_warning(home.path, seeded)
        yield FileResult(home.shown("SOUL.md"), "soul", RuntimeSummary("skip", detail=detail))
    else:
        yield scan_target(Target(soul, home.shown("SOUL.md"), "soul"), scoped)
    for name, kind in (("MEMORY.md", "memory"), ("USER.md", "user")):
        path = home.path / "memories" / name
        if path.exists() or path.is_symlink():
            yield scan_target(Target(path, home.shown(f"memories/{name}"), kind), scoped)


def _rule(rule_id: str) -> Rule:
    for pack in builtin_packs():
        for rule in pack.rules:
            if rule.id == rule_id:
                return rule
    raise LookupError(f"rule {rule_id} is missing from the built-in packs")


def config_item(home: Home, context_length: int | None) -> AuditItem | None:
    """The loading settings of config.yaml, with the cap findings on their lines."""
    if home.config_text is None:
        return None
    cap = context_file_max_chars(hermes_home=home.path, context_length=context_length)
    memory_limit, user_limit = configured_char_limits(home.path)
    configured = "context_file_max_chars" in home.config
    detail = (f"context files capped at {cap:,} characters "
              f"({'set here' if configured else 'default for the model window'}); "
              f"memory limits {memory_limit:,} (MEMORY.md) and {user_limit:,} (USER.md) characters")
    if not home.config:
        detail = "Hermes cannot use this file and runs on its defaults; " + detail
    text = home.config_text
    return AuditItem(
        path=home.config_display, kind=CONFIG_KIND, key="",
        source=SourceText(text, text, 0, len(text)),
        runtime=RuntimeSummary("load", (), len(text), len(text), detail=detail),
        analyze_kind=None, hits=_cap_hits(home), reaches_model=False,
    )


def _configured_cap(value: object) -> int | None:
    # As soulscan.hermes.truncation reads it (bool counts as int; inf and <= 0 are ignored).
    if isinstance(value, (int, float)) and value > 0 and not math.isinf(value):
        return int(value)
    return None


def _cap_hits(home: Home) -> tuple[Hit, ...]:
    """SS703/SS907 where their pattern finds the setting; by the value itself otherwise.

    The patterns read the plain YAML forms; a value written another way (``2e5``, a
    quoted or tagged number) is judged by the cap the runtime computes, located at the
    setting's value.
    """
    assert home.config_text is not None
    cap = _configured_cap(home.config.get("context_file_max_chars"))
    if cap is None:
        return ()
    wanted = "SS703" if cap <= TINY_CAP else "SS907" if cap > MAX_SCAN_CHARS else None
    hits = [Hit(Facts.of(rule), ORIGIN_HARDENED, start, end)
            for rule in map(_rule, CAP_RULES) if rule.id == wanted
            for start, end in rule_finditer(rule, home.config_text)]
    region = home.marks.region(("context_file_max_chars",))
    if wanted is not None and not hits and region is not None:
        hits.append(Hit(Facts.of(_rule(wanted)), ORIGIN_HARDENED, 0, 0, file_span=region))
    return tuple(hits)
