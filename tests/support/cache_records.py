"""Records of a start-up cache (``soulscan.engine.cache``) on disk, and ways to damage one,
for the tests that a damaged record is ignored (``re_cache``'s and ``regex_cache``'s)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from soulscan.engine import cache


def record_files(home: Path, subdirectory: str) -> list[Path]:
    return sorted((home / subdirectory).glob("*.bin"))


def flipped_body_bit(subdirectory: str) -> Callable[[Path], None]:
    """Damage: one bit flipped inside the only record's body, so its digest no longer matches."""

    def flip(home: Path) -> None:
        (entry,) = record_files(home, subdirectory)
        record = bytearray(entry.read_bytes())
        record[len(record) // 2] ^= 1
        entry.write_bytes(bytes(record))

    return flip


def resealed(subdirectory: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    """Damage: the only record replaced by a properly sealed one of another shape."""

    def rewrite(home: Path) -> None:
        (entry,) = record_files(home, subdirectory)
        name = f"{subdirectory}/{entry.name}"
        cache.store(name, change(cache.load(name)))

    return rewrite
