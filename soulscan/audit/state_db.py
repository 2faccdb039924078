"""System prompts stored in ``state.db``, which Hermes replays verbatim on continued sessions.

Mirrored (hermes-agent 0.19.0 ``hermes_state.py``, table ``sessions``, column
``system_prompt``; ``run_agent._restore_or_build_system_prompt``): a session that is
continued and has history gets its stored system prompt back as the whole system
message, never rescanned, even when SOUL.md or memory changed since. Sessions that share
one stored prompt are reported once.

The database is never written: it is opened with ``mode=ro&immutable=1`` (plain
``mode=ro`` on a WAL database still creates ``-wal``/``-shm`` files beside it). When a
``-wal`` file exists, its pages are not in the main file, so the database and its WAL
are copied into a temporary directory and the copy is read instead.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from soulscan.audit.homes import Home
from soulscan.audit.report import AuditItem, unscanned
from soulscan.audit.source import SourceText
from soulscan.models import RuntimeSummary, ScanError

DB_FILE = "state.db"
KIND = "state-db"
_QUERY = ("SELECT id, COALESCE(message_count, 0), system_prompt FROM sessions "
          "WHERE system_prompt IS NOT NULL AND system_prompt != '' ORDER BY started_at, id")


def _connect(path: Path) -> sqlite3.Connection:
    uri = "file:" + urllib.parse.quote(str(path)) + "?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True)


@contextmanager
def _readable(path: Path) -> Iterator[Path]:
    """The database itself, or a private copy with its WAL when one exists."""
    wal = path.with_name(path.name + "-wal")
    if not wal.exists():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="soulscan-state-") as scratch:
        copy = Path(scratch) / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, Path(scratch) / wal.name)
        yield copy


def stored_prompts(path: Path) -> list[tuple[str, int, str]]:
    with _readable(path) as readable:
        if readable != path:  # a private copy: let SQLite apply the WAL to it
            connection = sqlite3.connect(f"file:{urllib.parse.quote(str(readable))}", uri=True)
        else:
            connection = _connect(readable)
        with closing(connection):
            return [(str(i), int(count), str(prompt)) for i, count, prompt in connection.execute(_QUERY)]


def state_db_items(home: Home) -> tuple[list[AuditItem], list[ScanError]]:
    path = home.path / DB_FILE
    if not path.is_file():
        return [], []
    try:
        rows = stored_prompts(path)
    except (sqlite3.Error, OSError) as exc:
        return [], [ScanError(str(path), f"cannot read the stored sessions: {exc}")]
    groups: dict[str, list[tuple[str, int]]] = {}
    for session_id, count, prompt in rows:
        groups.setdefault(prompt, []).append((session_id, count))
    items = []
    for prompt, sessions in groups.items():
        first = sessions[0][0]
        others = f" and {len(sessions) - 1} more" if len(sessions) > 1 else ""
        key = f"sessions[id={first}{others}].system_prompt"
        if any(count > 0 for _, count in sessions):
            runtime = unscanned("replayed verbatim as the whole system prompt when the "
                                "session is continued", len(prompt))
        else:
            runtime = RuntimeSummary("skip", (), len(prompt), 0,
                                     detail="never replayed: the session has no history")
        items.append(AuditItem(str(path), KIND, key, SourceText.detached(prompt), runtime,
                               analyze_kind="payload", reaches_model=runtime.action == "load"))
    return items, []
