"""Whether Hermes 0.19.0 can set up a home: ``hermes_cli.config.ensure_hermes_home``.

The runtime calls it before reading config.yaml and before seeding SOUL.md. When it
raises — the home is not a directory, a named profile's home is missing, or one of
its skeleton directories exists as something else — the config is not read (the
truncation cap falls back to the dynamic/default one) and nothing is seeded.
soulscan never creates the skeleton; it only predicts whether the runtime could.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Final

PROFILES_DIRNAME: Final = "profiles"
# The directories ensure_hermes_home makes, in its order (hermes_cli/config.py, 0.19.0).
SKELETON: Final = ("cron", "sessions", "logs", "logs/curator", "memories", "pairing", "hooks",
                   "image_cache", "audio_cache", "skills")


def home_setup_fails(home: Path) -> bool:
    """True when the runtime's home set-up would raise for this home."""
    if not home.exists():
        # A missing default home is created (by the runtime); a missing named
        # profile is refused. A dangling link or a file in the way fails mkdir.
        return home.parent.name == PROFILES_DIRNAME or home.is_symlink()
    if not home.is_dir():
        return True
    if any((path.exists() or path.is_symlink()) and not path.is_dir()
           for path in (home / sub for sub in SKELETON)):
        return True
    # Last, it seeds SOUL.md when there is none: writing through a link loop (or
    # into a missing directory) raises too.
    soul = home / "SOUL.md"
    return not soul.exists() and soul.is_symlink() and not writable_through_link(soul)


def writable_through_link(link: Path) -> bool:
    """Would writing to ``link`` (a symlink whose target does not exist) succeed?"""
    try:
        os.stat(link)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            return False  # a loop, or a component that is not a directory
    return Path(os.path.realpath(link)).parent.is_dir()
