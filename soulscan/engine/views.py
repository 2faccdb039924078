"""Named views of a text that a rule can be matched against.

``raw`` is the text itself and ``nfkc`` is what the runtime matches (its NFKC form).
The hardened packs add views that undo obfuscation (``soulscan.hardened.views``
provides ``apply_view(name, text) -> str`` for any other name).
"""

from __future__ import annotations

import unicodedata

from soulscan.engine.matcher import rule_search
from soulscan.engine.rulepack import Rule

BUILTIN_VIEWS = ("raw", "nfkc")


def view_text(view: str, text: str) -> str:
    if view == "raw":
        return text
    if view == "nfkc":
        return unicodedata.normalize("NFKC", text)
    from soulscan.hardened import views as hardened_views

    return str(hardened_views.apply_view(view, text))


def example_matches(rule: Rule, text: str) -> bool:
    """Does ``rule`` fire on ``text``, as the rule's own examples are meant?"""
    return rule_search(rule, view_text(rule.view, text))
