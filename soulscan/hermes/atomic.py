"""Crash-safe file replacement under the same lock file Hermes uses.

A memory file is never written in place: the new text goes to a temporary file
in the same directory, is flushed and fsynced, then renamed over the target, so
a reader (or a process killed mid-write) only ever sees the old or the new file.
Read-modify-write cycles hold an exclusive ``flock`` on ``<file>.lock``: the
lock file Hermes 0.19.0 itself takes, so soulscan and a running agent exclude
each other too.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def lock_path_for(path: Path) -> Path:
    """``MEMORY.md`` → ``MEMORY.md.lock`` (a separate file, so the target can be renamed over)."""
    return path.with_suffix(path.suffix + ".lock")


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock for ``path`` until the block exits."""
    lock_path = lock_path_for(path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable across a power loss; a no-op where
    # directories cannot be opened.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replaced_file_mode(target: Path, shown: Path) -> int | None:
    """The permission bits of ``target``, the file a write to ``shown`` replaces (its link
    followed); None when there is none yet. A target that is not a regular file (a FIFO, a
    device such as ``/dev/null``) raises ``OSError``: the rename would put a regular file in
    its place."""
    try:
        status = target.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(status.st_mode):
        raise OSError(errno.EINVAL, "not a regular file; left untouched", str(shown))
    return stat.S_IMODE(status.st_mode)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, no newline translation) atomically.

    A symlinked target keeps its link: the file it points to is replaced. A target that
    is not a regular file (a FIFO, a device such as ``/dev/null``) is left alone with an
    ``OSError``: the rename would put a regular file in its place.
    """
    real_target = Path(os.path.realpath(path)) if path.is_symlink() else path
    replaced_file_mode(real_target, path)
    fd, tmp_name = tempfile.mkstemp(dir=str(real_target.parent), prefix=".mem_", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, real_target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_directory(real_target.parent)
