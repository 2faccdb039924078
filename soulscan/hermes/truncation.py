"""The context-file character cap and head/tail truncation of Hermes 0.19.0.

Facts (hermes-agent 0.19.0, `agent/prompt_builder.py`, `hermes_cli/config.py`):
the cap is `context_file_max_chars` from `$HERMES_HOME/config.yaml` when that is an
int or float above zero (``int()`` applied, YAML ``true`` counts as 1), else a cap
scaled from a positive int ``context_length`` (4 chars/token, 6 % of the window,
clamped to 20,000..500,000), else 20,000. Any failure to read or parse the config
falls back silently. Over-long text keeps ``int(cap*0.7)`` head and ``int(cap*0.2)``
tail characters (IEEE doubles); a zero tail keeps the *whole* text after the marker,
because ``text[-0:]`` is all of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from soulscan.hermes.home import home_setup_fails

DEFAULT_MAX_CHARS = 20_000
HEAD_RATIO = 0.7
TAIL_RATIO = 0.2
CHARS_PER_TOKEN = 4
WINDOW_FRACTION = 0.06
DYNAMIC_CEILING = 500_000

CONFIG_FILENAME = "config.yaml"
CONFIG_KEY = "context_file_max_chars"

HomePath = str | PathLike[str] | None


def read_hermes_config(hermes_home: HomePath) -> dict[Any, Any]:
    """The user's config.yaml mapping, or ``{}`` wherever the runtime falls back.

    The runtime merges the file over its defaults and, on any read or parse error,
    keeps the defaults; a document that is not a mapping fails the merge the same way.
    """
    if hermes_home is None:
        return {}
    import yaml  # only with a home: importing it costs every scan's start-up

    try:
        with open(Path(hermes_home) / CONFIG_FILENAME, encoding="utf-8") as stream:
            loaded = yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
        return {}
    if not isinstance(loaded, dict) or not _agent_section_normalises(loaded.get("agent")):
        return {}
    return loaded


def _agent_section_normalises(agent: object) -> bool:
    """Whether the runtime's ``dict(config["agent"] or {})`` succeeds.

    When it raises, the runtime's whole config load fails and every caller falls
    back to its defaults (0.19.0 `_normalize_max_turns_config`).
    """
    try:
        dict(agent or {})  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return False
    return True


def dynamic_max_chars(context_length: object) -> int:
    """The cap derived from a model window; only a positive ``int`` counts."""
    if not isinstance(context_length, int) or context_length <= 0:
        return DEFAULT_MAX_CHARS
    budget = int(context_length * CHARS_PER_TOKEN * WINDOW_FRACTION)
    return max(DEFAULT_MAX_CHARS, min(budget, DYNAMIC_CEILING))


def _configured_max_chars(config: dict[Any, Any]) -> int | None:
    value = config.get(CONFIG_KEY)
    # bool is an int subclass: YAML `true` is a cap of 1, as in the runtime.
    if not isinstance(value, (int, float)) or not value > 0:
        return None
    if isinstance(value, float) and math.isinf(value):
        return None  # int(inf) raises inside the runtime's guard: it falls back
    return int(value)


def context_file_max_chars(*, hermes_home: HomePath, context_length: object = None) -> int:
    """The cap Hermes 0.19.0 applies to each context source."""
    configured = None
    if hermes_home is not None and not home_setup_fails(Path(hermes_home)):
        # The runtime reads config.yaml only after setting up the home.
        configured = _configured_max_chars(read_hermes_config(hermes_home))
    if configured is not None:
        return configured
    return dynamic_max_chars(context_length)


@dataclass(frozen=True)
class Cut:
    """How a text of ``length`` characters is cut: head and tail sizes."""

    length: int
    head: int
    tail: int

    def kept_ranges(self) -> tuple[tuple[int, int], ...]:
        """Ranges of the original text that reach the output, in output order.

        Only meaningful for a positive cap (head and tail >= 0); a zero tail keeps
        the whole text after the marker.
        """
        tail_start = self.length - self.tail if self.tail else 0
        return ((0, self.head), (tail_start, self.length))


def plan_cut(length: int, max_chars: int) -> Cut | None:
    """The cut for a text of ``length`` characters, or None when it fits."""
    if length <= max_chars:
        return None
    return Cut(length, int(max_chars * HEAD_RATIO), int(max_chars * TAIL_RATIO))


def truncation_marker(label: str, cut: Cut, read_path: str | None) -> str:
    target = read_path or label
    return (
        f"\n\n[...truncated {label}: kept {cut.head}+{cut.tail} of {cut.length} chars. "
        "The middle is omitted \u2014 if you need the full instructions, read the complete "
        f"file with the read_file tool: {target}]\n\n"
    )


def truncation_warning(label: str, length: int, max_chars: int) -> str:
    # U+26A0 U+FE0F then two spaces, exactly as the runtime queues it.
    return (
        f"\u26a0\ufe0f  Context file {label} TRUNCATED: {length} chars exceeds limit of "
        f"{max_chars} \u2014 trim the file, pin a larger context_file_max_chars, or use a "
        "larger-context model!"
    )


def truncate_content(
    text: str,
    label: str,
    *,
    hermes_home: HomePath,
    max_chars: int | None = None,
    context_length: object = None,
    read_path: str | None = None,
) -> tuple[str, list[str]]:
    """The runtime's truncated text and the warnings it queues (none when it fits)."""
    if max_chars is None:
        max_chars = context_file_max_chars(hermes_home=hermes_home, context_length=context_length)
    cut = plan_cut(len(text), max_chars)
    if cut is None:
        return text, []
    output = text[: cut.head] + truncation_marker(label, cut, read_path) + text[-cut.tail :]
    return output, [truncation_warning(label, len(text), max_chars)]
