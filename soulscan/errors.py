"""The one exception family for user-facing failures.

The CLI turns a ``SoulscanError`` into a one-line message and exit code 2; anything
else is a crash (exit 3) with a pointer to file a bug.
"""

from __future__ import annotations


class SoulscanError(Exception):
    """A problem the user can fix: a bad path, rule pack, config or argument."""


class RulePackError(SoulscanError):
    """A rule pack failed validation; the message names the file and the rule."""


class ConfigError(SoulscanError):
    """A configuration file is malformed or has unknown keys."""


class InputError(SoulscanError):
    """A scanned input could not be read as text."""
