"""The prompt-bearing variables of a home's ``.env``, and nothing else of that file.

Hermes 0.19.0 loads ``$HERMES_HOME/.env`` over the process environment
(``hermes_cli/env_loader.load_hermes_dotenv``, python-dotenv with ``override=True``).
Three of its variables put text into the prompt or choose what does:

* ``HERMES_EPHEMERAL_SYSTEM_PROMPT`` replaces ``agent.system_prompt`` (cli
  ``HermesCLI.__init__``, ``gateway/run.GatewayRunner._load_ephemeral_system_prompt``);
* ``HERMES_ENVIRONMENT_HINT`` replaces ``agent.environment_hint``
  (``agent/prompt_builder.build_environment_hints``: the variable wins);
* ``HERMES_PREFILL_MESSAGES_FILE`` replaces ``prefill_messages_file``.

The file holds API keys. Only lines that assign one of these keys are matched; every
other byte is blanked before anything keeps the text (line numbers survive, values do
not), so no other value can reach a report. Quoting follows python-dotenv: single
quotes literal, double quotes with backslash escapes, an unquoted value ends at `` #``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from soulscan.audit.files import read_text
from soulscan.audit.homes import Home
from soulscan.audit.report import AuditItem, unscanned
from soulscan.audit.source import SourceText

ENV_FILE = ".env"
SYSTEM_PROMPT_VAR = "HERMES_EPHEMERAL_SYSTEM_PROMPT"
ENVIRONMENT_HINT_VAR = "HERMES_ENVIRONMENT_HINT"
PREFILL_FILE_VAR = "HERMES_PREFILL_MESSAGES_FILE"
PROMPT_VARIABLES = (SYSTEM_PROMPT_VAR, ENVIRONMENT_HINT_VAR, PREFILL_FILE_VAR)
LANDS = {
    SYSTEM_PROMPT_VAR: "replaces agent.system_prompt: the ephemeral system prompt of every call",
    ENVIRONMENT_HINT_VAR: "replaces agent.environment_hint: the stable system prompt",
}
_ASSIGNMENT = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?P<key>" + "|".join(PROMPT_VARIABLES) + r")[ \t]*=[ \t]*"
    r"(?:'(?P<single>[^']*)'|\"(?P<double>(?:\\.|[^\"\\])*)\"|(?P<bare>[^\r\n]*))",
    re.MULTILINE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


@dataclass(frozen=True)
class EnvValue:
    key: str
    value: str
    source: SourceText


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text, flags=re.DOTALL)


def _bare(text: str) -> str:
    comment = re.search(r"[ \t]#", text)
    return (text[: comment.start()] if comment else text).strip()


def prompt_variables(home_path: Path) -> dict[str, EnvValue]:
    """The last assignment of each prompt variable (python-dotenv: later lines win)."""
    try:
        raw = read_text(home_path / ENV_FILE, errors="replace")
    except OSError:
        return {}
    matches = list(_ASSIGNMENT.finditer(raw))
    # Blank everything but the matched assignments before any of it is kept.
    kept = [" " if char != "\n" else "\n" for char in raw]
    for match in matches:
        kept[match.start():match.end()] = raw[match.start():match.end()]
    masked = "".join(kept)
    found: dict[str, EnvValue] = {}
    for match in matches:
        group = next(g for g in ("single", "double", "bare") if match.group(g) is not None)
        text = match.group(group)
        value = _unescape(text) if group == "double" else _bare(text) if group == "bare" else text
        found[match.group("key")] = EnvValue(
            match.group("key"), value,
            SourceText(value, masked, match.start(group), match.end(group)))
    return found


def env_items(home: Home, variables: dict[str, EnvValue]) -> list[AuditItem]:
    """One item per prompt text set in ``.env`` (the prefill path is followed by prefill.py)."""
    items = []
    for key in (SYSTEM_PROMPT_VAR, ENVIRONMENT_HINT_VAR):
        entry = variables.get(key)
        if entry is None or not entry.value.strip():
            continue
        items.append(AuditItem(
            path=home.shown(ENV_FILE), kind="env", key=key, source=entry.source,
            runtime=unscanned(LANDS[key], len(entry.value))))
    return items
