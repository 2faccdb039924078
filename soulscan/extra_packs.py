"""Project rule packs named in the config (``rule-packs``), run beside the built-in ones.

A project pack uses the same YAML as ``rules/``. Its rules match one of the text views
(``raw``, ``nfkc``, ``skeleton``, ``words``), each mapped back to code-point offsets in
the original text, under the engine's time limit; views that need soulscan's own
analysers (``unicode``, ``secrets``, the runtime-aware ones) are for built-in packs only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from soulscan.errors import RulePackError

if TYPE_CHECKING:
    from soulscan.engine.rulepack import Rule


@functools.cache
def extra_rules(paths: tuple[str, ...]) -> tuple[Rule, ...]:
    """The rules of the given pack files, validated once per process."""
    if not paths:
        return ()
    # Imported here: most projects name no pack, and a runtime-profile scan needs no views.
    from soulscan.engine.rulepack import builtin_packs, load_pack
    from soulscan.hardened.views import VIEW_NAMES

    builtin_ids = {rule.id for pack in builtin_packs() for rule in pack.rules}
    rules: list[Rule] = []
    seen: set[str] = set()
    for path in paths:
        pack = load_pack(Path(path))
        for rule in pack.rules:
            if rule.view not in VIEW_NAMES:
                raise RulePackError(
                    f"{path}: rule {rule.id!r}: view {rule.view!r} is for built-in packs; "
                    f"a project pack can use {', '.join(VIEW_NAMES)}"
                )
            if rule.id in builtin_ids or rule.id in seen:
                raise RulePackError(f"{path}: rule {rule.id!r}: id already used by another pack")
            seen.add(rule.id)
            rules.append(rule)
    return tuple(rules)


def extra_matches(text: str, kind: str, paths: tuple[str, ...]) -> Iterator[tuple[Rule, int, int]]:
    """(rule, start, end) of every match, in code-point offsets of ``text``."""
    rules = [rule for rule in extra_rules(paths) if not rule.kinds or kind in rule.kinds]
    if not rules:
        return
    from soulscan.engine.matcher import rule_finditer
    from soulscan.hardened.views import Views

    views = Views(text)
    for rule in rules:
        view = views.get(rule.view)
        for start, end in rule_finditer(rule, view.text):
            mapped_start, mapped_end = view.span(start, end)
            yield rule, mapped_start, max(mapped_end, mapped_start)
