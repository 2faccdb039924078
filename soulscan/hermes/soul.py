"""SOUL.md as Hermes 0.19.0 loads it, without ever writing into the home.

Facts (hermes-agent 0.19.0, `agent/prompt_builder.load_soul_md`,
`hermes_cli/config.ensure_hermes_home`, `hermes_cli/default_soul.py`): before
loading, the runtime creates the home skeleton and writes its built-in default
SOUL.md when the file does not exist, or overwrites it when its text (CRLF/CR
unified, leading BOMs dropped, stripped) equals one of two comment-only legacy
templates; then it loads that default text. SOUL.md gets strip → scan (BOM rule) →
truncation with label ``SOUL.md`` and the absolute file path in the marker; no
header, no frontmatter removal; empty or unreadable gives no SOUL section.

NOTE: soulscan never writes into a home and does not carry the runtime's default
persona prose. Where the runtime would seed the file, ``load_soul_md`` returns None
and a warning starting with ``SOUL_SEED_WARNING_PREFIX``; the text the runtime
would load is identified by ``DEFAULT_SOUL_SHA256`` (sha256 of its UTF-8 bytes,
513 characters) so a test can check it against a runtime result. The legacy
templates are likewise recognised by the sha256 of their normalised text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final, Literal

from soulscan.hermes.home import home_setup_fails
from soulscan.hermes.scanner import scan_context_content
from soulscan.hermes.sections import prepare_context_text
from soulscan.hermes.sources import READ_ERRORS, read_runtime_text
from soulscan.hermes.truncation import HomePath, truncate_content

SOUL_FILENAME: Final = "SOUL.md"
SOUL_LABEL: Final = "SOUL.md"

# sha256 of hermes_cli.default_soul.DEFAULT_SOUL_MD (hermes-agent 0.19.0).
DEFAULT_SOUL_SHA256: Final = "2765a846e1bb371d78d3b93b403dfb0f8d1ba1a9895edb5f608367abfe81194d"
DEFAULT_SOUL_LENGTH: Final = 513

# sha256 of the two normalised _LEGACY_TEMPLATE_SOULS of hermes-agent 0.19.0
# (with and without the "Examples:" block).
LEGACY_TEMPLATE_SHA256: Final = frozenset(
    {
        "82fa3438d86f8b95c6e96be89d853c8b561b3e6973ed61c90e70e0231dd24a7e",
        "6bc146a50e8fe3bd555e89a77e93af1f781cece8cf549f0d7a02ee2389811c72",
    }
)

SOUL_SEED_WARNING_PREFIX: Final = "soulscan: "

SeedReason = Literal["missing", "legacy-template"]


def _normalised_soul(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").strip()


def is_legacy_template_soul(text: str) -> bool:
    """True for a SOUL.md text the runtime treats as an untouched legacy template."""
    digest = hashlib.sha256(_normalised_soul(text).encode("utf-8", "surrogatepass")).hexdigest()
    return digest in LEGACY_TEMPLATE_SHA256


def soul_md_would_be_seeded(hermes_home: HomePath) -> SeedReason | None:
    """Why the runtime would write its default SOUL.md into this home, or None.

    ``"missing"``: no SOUL.md (a dangling link counts as missing);
    ``"legacy-template"``: SOUL.md holds a legacy comment-only template. A named
    profile home that does not exist is never created, and a home that cannot be
    a directory is not either; an unreadable SOUL.md is left alone.
    """
    if hermes_home is None:
        return None
    home = Path(hermes_home)
    if home_setup_fails(home):
        return None  # e.g. a deleted named profile is never resurrected
    soul_path = home / SOUL_FILENAME
    if not soul_path.exists():
        return "missing"  # (home_setup_fails has ruled out a link that cannot be written)
    try:
        existing = read_runtime_text(soul_path)
    except READ_ERRORS:
        return None
    return "legacy-template" if is_legacy_template_soul(existing) else None


def soul_seed_warning(hermes_home: HomePath, reason: SeedReason) -> str:
    what = "has no SOUL.md" if reason == "missing" else "has a legacy template SOUL.md"
    return (
        f"{SOUL_SEED_WARNING_PREFIX}{Path(str(hermes_home)) / SOUL_FILENAME}: the home {what}; "
        "Hermes 0.19.0 would write its built-in default SOUL.md there and load that "
        "default text, which soulscan does not reproduce"
    )


def load_soul_md(
    *, hermes_home: HomePath, context_length: object = None
) -> tuple[str | None, list[str]]:
    """The SOUL.md text Hermes 0.19.0 would load (None when none) and its warnings.

    Where the runtime would seed its default SOUL.md, this returns None and one
    warning starting with ``SOUL_SEED_WARNING_PREFIX`` instead of writing.
    """
    if hermes_home is None:
        return None, []
    reason = soul_md_would_be_seeded(hermes_home)
    if reason is not None:
        return None, [soul_seed_warning(hermes_home, reason)]
    soul_path = Path(hermes_home) / SOUL_FILENAME
    if not soul_path.exists():
        return None, []
    try:
        prepared = prepare_context_text(read_runtime_text(soul_path), strip_frontmatter=False)
    except READ_ERRORS:
        return None, []
    if prepared is None:
        return None, []
    content = scan_context_content(prepared.content, SOUL_LABEL)
    return truncate_content(
        content,
        SOUL_LABEL,
        hermes_home=hermes_home,
        context_length=context_length,
        read_path=str(soul_path),
    )
