"""A small on-disk cache for derived data that is slow to compute at start-up.

Translating the runtime pack's Python-``re`` patterns needs this interpreter's
whole Unicode case and category tables (~0.4 s); the result only depends on the
pattern text and the interpreter/``regex`` versions, so it is cached. The cache
is an optimisation only: any failure to read or write it is ignored, and writes
are atomic so a crash never leaves a torn file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import unicodedata
from pathlib import Path
from typing import Any


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
    if os.environ.get("SOULSCAN_NO_CACHE"):
        return None
    try:
        return json.loads((cache_dir() / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(name: str, data: Any) -> None:
    if os.environ.get("SOULSCAN_NO_CACHE"):
        return
    import tempfile  # only on a miss: it (with shutil, random) costs start-up

    target = cache_dir() / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
