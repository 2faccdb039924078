"""Views whose text is the result of an analysis rather than a rewrite of the input.

A rule on one of these views matches the analysis' labels, one per line: e.g. the `unicode`
view of a text with a smuggled tag run is `tag-smuggling`, so rule SS401's pattern is
`^tag-smuggling$`. The analyser in `soulscan.hardened.analyze` maps each labelled item back to
the original span; these functions only render the labels, for rule examples and for
`soulscan.engine.views.view_text`.
"""

from __future__ import annotations

from collections.abc import Callable

from soulscan.hardened.decode import decode_blobs
from soulscan.hardened.frontmatter_view import frontmatter_text
from soulscan.hardened.runtime_aware import beyond_hint_cut, beyond_scan_window
from soulscan.hardened.secrets import find_secrets
from soulscan.hardened.unicode import analyse_unicode


def unicode_labels(text: str) -> str:
    return "\n".join(issue.kind for issue in analyse_unicode(text))


def secret_labels(text: str) -> str:
    return "\n".join(hit.name for hit in find_secrets(text))


def encoded_labels(text: str) -> str:
    return "\n".join(blob.label for blob in decode_blobs(text))


def quoted_injection_labels(text: str) -> str:
    """`quoted` for each injection phrase that sits wholly inside code or a quotation."""
    from soulscan.hardened.analyze import QUOTED_RULE_ID, analyze

    return "\n".join("quoted" for m in analyze(text, kind="payload") if m.rule.id == QUOTED_RULE_ID)


ANALYSIS_VIEWS: dict[str, Callable[[str], str]] = {
    "quoted-injection": quoted_injection_labels,
    "unicode": unicode_labels,
    "secrets": secret_labels,
    "encoded": encoded_labels,
    "frontmatter": frontmatter_text,
    "beyond-scan-window": beyond_scan_window,
    "beyond-hint-cut": beyond_hint_cut,
}
