"""A small on-disk cache for derived data that is slow to compute at start-up.

Validated rule packs (``soulscan.engine.pack_cache``) and regex parses
(``soulscan.engine.regex_cache``) depend only on their inputs, this code and the
interpreter/``regex`` versions, so they are kept under ``~/.cache/soulscan`` (or
``$XDG_CACHE_HOME/soulscan``, or ``$SOULSCAN_CACHE_DIR``; ``SOULSCAN_NO_CACHE=1`` turns it
off). The cache is an optimisation only: any failure to read or write it is ignored.

A record is ``marshal`` data (what Python's own ``.pyc`` files hold, read at C speed)
behind a magic tag and a SHA-256 of the data: writes are atomic (a temporary file
renamed into place), and a record whose digest does not match — a damaged disk, a
foreign file — is a miss. Its name is a digest of everything it was derived from, so a
changed input is a different record, never a stale one.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import unicodedata
from pathlib import Path
from typing import Any

MAGIC = b"soulscan-cache-1\n"
_DIGEST_SIZE = 32  # bytes of a SHA-256
# The marshal format of this interpreter; the environment key pins the interpreter too.
_MARSHAL_VERSION = 4


def cache_dir() -> Path:
    explicit = os.environ.get("SOULSCAN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "soulscan"


def environment_key(*parts: str | bytes) -> str:
    """A digest of ``parts`` plus everything that changes Unicode semantics."""
    import regex

    digest = hashlib.sha256()
    for part in (sys.version, unicodedata.unidata_version, regex.__version__, *parts):
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def load(name: str) -> Any | None:
    """The value stored under ``name``, or None when there is no intact record."""
    if os.environ.get("SOULSCAN_NO_CACHE"):
        return None
    try:
        record = (cache_dir() / name).read_bytes()
    except OSError:
        return None
    header = len(MAGIC) + _DIGEST_SIZE
    if not record.startswith(MAGIC) or len(record) <= header:
        return None
    body = record[header:]
    if hashlib.sha256(body).digest() != record[len(MAGIC):header]:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def store(name: str, value: Any) -> None:
    """Keep ``value`` (plain data: str, int, bool, None, list, tuple, dict) under ``name``."""
    if os.environ.get("SOULSCAN_NO_CACHE"):
        return
    import tempfile  # only on a miss: it (with shutil, random) costs start-up

    try:
        body = marshal.dumps(value, _MARSHAL_VERSION)
    except ValueError:
        return
    target = cache_dir() / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(MAGIC + hashlib.sha256(body).digest() + body)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
