"""The prefill file: a JSON list of messages inserted after the system prompt of every call.

Mirrored (hermes-agent 0.19.0 ``cli._resolve_prefill_messages_file`` and
``cli._load_prefill_messages``; the gateway and cron read the same file): the path is
``HERMES_PREFILL_MESSAGES_FILE`` (from ``.env``), else the top-level
``prefill_messages_file``, else the legacy ``agent.prefill_messages_file``; ``~`` is
expanded and a relative path is taken from the home. A file that does not parse as
UTF-8 JSON, or is not a list, is ignored. Every message is passed on verbatim, whatever
its role, and nothing is scanned. A ``system`` turn (SS901) or an ``assistant`` turn
(SS902) is a finding of its own, located at its ``role`` value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from soulscan.audit.env import PREFILL_FILE_VAR, EnvValue
from soulscan.audit.files import read_text
from soulscan.audit.homes import Home, config_section
from soulscan.audit.report import AuditItem, Facts, Hit, surface_rule, unscanned
from soulscan.audit.source import KeyPath, Marks, key_path_text
from soulscan.engine.matcher import rule_finditer
from soulscan.models import ORIGIN_HARDENED, RuntimeSummary

ROLE_RULES = {"system": "SS901", "assistant": "SS902"}
KIND = "prefill"


def prefill_path(home: Home, env: dict[str, EnvValue]) -> Path | None:
    configured = ""
    if PREFILL_FILE_VAR in env:
        configured = env[PREFILL_FILE_VAR].value.strip()
    if not configured:
        configured = str(home.config.get("prefill_messages_file", "") or "").strip()
    if not configured:
        configured = str(config_section(home, "agent", "prefill_messages_file") or "").strip()
    if not configured:
        return None
    path = Path(configured).expanduser()
    return path if path.is_absolute() else home.path / path


def _role_hits(marks: Marks, position: int, role: str) -> tuple[Hit, ...]:
    rule_id = ROLE_RULES.get(role)
    region = marks.region((position, "role"))
    if rule_id is None or region is None:
        return ()
    rule = surface_rule(rule_id)
    message = marks.region((position,)) or region
    text = marks.file_text[message[0]:message[1]]
    # Only the occurrence ending on this message's own role value counts.
    return tuple(
        Hit(Facts.of(rule), ORIGIN_HARDENED, 0, 0, file_span=(message[0] + a, message[0] + b))
        for a, b in rule_finditer(rule, text) if message[0] + b == region[1]
    ) or (Hit(Facts.of(rule), ORIGIN_HARDENED, 0, 0, file_span=region),)


def _texts(content: Any, path: KeyPath) -> Iterator[tuple[KeyPath, str]]:
    """The text of a message: a string, or the ``text`` of each part of a list."""
    if isinstance(content, str):
        yield path, content
    elif isinstance(content, list):
        for index, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield (*path, index, "text"), part["text"]


def prefill_items(home: Home, env: dict[str, EnvValue]) -> list[AuditItem]:
    path = prefill_path(home, env)
    if path is None or not path.exists():
        return []
    shown = str(path)
    try:
        file_text = read_text(path)
        messages = json.loads(file_text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return [AuditItem(shown, KIND, "", None, RuntimeSummary(
            "skip", detail="Hermes cannot read this prefill file as JSON and ignores it"))]
    if not isinstance(messages, list):
        return [AuditItem(shown, KIND, "", None, RuntimeSummary(
            "skip", detail="not a JSON list; Hermes ignores it"))]
    marks = Marks(file_text)
    items = []
    for position, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", ""))
        hits = _role_hits(marks, position, role)
        where = f"prefill turn {position + 1} (role {role or 'missing'}), sent after the system prompt"
        texts = list(_texts(message.get("content"), (position, "content")))
        for number, (key, text) in enumerate(texts or [((position, "role"), "")]):
            items.append(AuditItem(
                path=shown, kind=KIND, key=key_path_text(key), source=marks.source(key, text),
                runtime=unscanned(where, len(text)), hits=hits if number == 0 else ()))
    return items
