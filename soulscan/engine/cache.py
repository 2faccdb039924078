"""A small on-disk cache for derived data that is slow to compute at start-up.

Validated rule packs (``soulscan.engine.pack_cache``) and regex parses
(``soulscan.engine.regex_cache``) depend only on their inputs, this code and the
interpreter/``regex`` versions, so they are kept under ``~/.cache/soulscan`` (or
``$XDG_CACHE_HOME/soulscan``, or ``$SOULSCAN_CACHE_DIR``; ``SOULSCAN_NO_CACHE=1`` turns it
off). The cache is an optimisation only: any failure to read or write it is ignored.

A record is ``marshal`` data (what Python's own ``.pyc`` files hold, read at C speed)
behind a magic tag and a CRC-32 of the data: writes are atomic (a temporary file
renamed into place), and a record whose check does not match — a damaged disk, a torn
or foreign file — is a miss. The check is against damage, not tampering (the directory
is private, below): a CRC-32 reads three times faster than a SHA-256, and a scan's
start reads some 3.5 MB of records. Its name is a digest of everything it was derived from, so a
changed input is a different record, never a stale one.

Records hold what start-up then trusts (rule packs, regex programs, compiled code), so
a cache directory that another user could write to — not owned by this user, or group-
or world-writable — is not used at all; one this creates is private (0700).
"""

from __future__ import annotations

import atexit
import binascii
import functools
import marshal
import os
import sys
import threading
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from hashlib import _Hash

MAGIC = b"soulscan-cache-2\n"
_CHECK_SIZE = 4  # bytes of a CRC-32
# The marshal format of this interpreter; the environment key pins the interpreter too.
_MARSHAL_VERSION = 4


def cache_dir() -> Path:
    explicit = os.environ.get("SOULSCAN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "soulscan"


def _interpreters_sha256() -> Callable[[bytes], _Hash]:
    """SHA-256 from the interpreter's own module (``_sha256``; ``_sha2`` from 3.12): the
    digests ``hashlib`` gives, without loading OpenSSL, ~2 ms of a start-up that needs no
    other digest (``soulscan.deferred_modules``)."""
    for name in ("_sha256", "_sha2"):
        try:
            return __import__(name).sha256  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    import hashlib

    return hashlib.sha256


sha256: Callable[[bytes], _Hash] = _interpreters_sha256()


def environment_key(*parts: str | bytes) -> str:
    """A digest of ``parts`` plus everything that changes Unicode semantics."""
    return interpreter_key(_regex_version(), *parts)


@functools.cache  # a start-up asks a hundred times
def _regex_version() -> str:
    import regex

    return str(regex.__version__)


def interpreter_key(*parts: str | bytes) -> str:
    """A digest of ``parts`` plus the interpreter and its Unicode database (for what does
    not depend on ``regex``: ``re`` programs are keyed by this while ``regex`` itself may
    be importing)."""
    digest = _INTERPRETER_DIGEST.copy()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:32]


# The digest of the interpreter's version and Unicode database, each part ended by a NUL
# as ``interpreter_key`` ends the others.
_INTERPRETER_DIGEST = sha256(
    f"{sys.version}\0{unicodedata.unidata_version}\0".encode("utf-8", "surrogatepass"))


@functools.cache
def _private(directory: Path) -> bool:
    """Whether only this user can write ``directory`` (created, private, if missing)."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = directory.stat()
    except OSError:
        return False
    owner_only = not status.st_mode & 0o022
    return owner_only and (not hasattr(os, "getuid") or status.st_uid == os.getuid())


def _usable_dir() -> Path | None:
    if _SETTLED:
        return _SETTLED[0]
    environ = os.environ
    return _usable_dir_for(environ.get("SOULSCAN_NO_CACHE"), environ.get("SOULSCAN_CACHE_DIR"),
                           environ.get("XDG_CACHE_HOME"), environ.get("HOME"))


# The directory the program settled on (``settle_for_program``); empty in any other process.
_SETTLED: list[Path | None] = []


def settle_for_program() -> None:
    """Choose the directory once for the rest of the process: the program's environment
    does not change while it runs, and its start-up asks ~200 times (four variables each,
    most of them unset: a KeyError raised and caught for each). A caller's process (the
    tests change the variables between cases) keeps reading them at each use."""
    _SETTLED[:] = [_usable_dir()]


@functools.cache
def _usable_dir_for(no_cache: str | None, *where: str | None) -> Path | None:
    """Once per setting of the variables that choose the directory (a scan asks often)."""
    if no_cache:
        return None
    directory = cache_dir()
    return directory if _private(directory) else None


def in_use() -> bool:
    """Whether records are read and written at all (a private directory, not turned off)."""
    return _usable_dir() is not None


def load(name: str) -> Any | None:
    """The value stored under ``name``, or None when there is no intact record."""
    directory = _usable_dir()
    if directory is None:
        return None
    try:
        record = (directory / name).read_bytes()
    except OSError:
        return None
    header = len(MAGIC) + _CHECK_SIZE
    if not record.startswith(MAGIC) or len(record) <= header:
        return None
    body = memoryview(record)[header:]  # not a copy: a record can be a megabyte
    if _check(body) != record[len(MAGIC):header]:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def seal(body: bytes) -> bytes:
    """A record of ``body`` (``marshal`` data), as ``store`` writes it and ``load`` reads it."""
    return MAGIC + _check(body) + body


def _check(body: bytes | memoryview) -> bytes:
    return binascii.crc32(body).to_bytes(_CHECK_SIZE, "big")


def store(name: str, value: Any, directory: Path | None = None) -> None:
    """Keep ``value`` (anything ``marshal`` writes: plain data, code objects) as ``name``,
    in ``directory`` (a cache directory ``_usable_dir`` chose) or the one in use now."""
    directory = directory or _usable_dir()
    if directory is None:
        return
    import tempfile  # only on a miss: it (with shutil, random) costs start-up

    try:
        body = marshal.dumps(value, _MARSHAL_VERSION)
    except ValueError:
        return
    target = directory / name
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(seal(body))
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


class StoredTable:
    """A dict of derived values kept in one record across runs: the entries the record
    held (``known``) plus those added in this run (``new``), written back once, at exit.
    A record that ``valid`` rejects counts as empty; past ``limit`` entries the record
    starts over, so stale keys do not pile up."""

    def __init__(self, name: str | None, limit: int,
                 valid: Callable[[Any], bool] = lambda value: isinstance(value, dict)) -> None:
        stored: Any = None if name is None else load(name)
        self.known: dict[Any, Any] = stored if valid(stored) else {}
        self.new: dict[Any, Any] = {}
        self._name = name
        self._limit = limit
        self._directory = _usable_dir()  # saved where it was read, whatever changes meanwhile
        if name is not None:
            atexit.register(self.save)

    def save(self) -> None:
        if not self.new or self._name is None or self._directory is None:
            return
        table = {} if len(self.known) + len(self.new) > self._limit else dict(self.known)
        table.update(self.new)
        store(self._name, table, self._directory)
        self.new = {}


F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
# A memo record with more entries than this starts over: stale keys do not pile up.
MAX_MEMO_ENTRIES = 2048


def persistent(function: F) -> F:
    """Memoise a pure function of plain arguments on disk, across runs.

    For derived data start-up recomputes from the rule packs every run (literal anchors
    of a pattern's branches, say): the results are kept in one record per function,
    keyed by the source of the module defining it (and the interpreter), so editing that
    module starts a fresh memo. Results must be immutable plain data (tuples, not
    lists); new ones are written once, when the process exits. A function whose result
    also depends on code of other soulscan modules is ``persistent_depending_on`` them.
    """
    return persistent_depending_on()(function)


def persistent_depending_on(*modules: str, limit: int = MAX_MEMO_ENTRIES) -> Callable[[F], F]:
    """``persistent``, keyed by the sources of ``modules`` too (the modules whose code the
    result depends on besides the defining one's): an edit to any of them is a fresh memo,
    never a stale one. ``limit``: the entries past which the record starts over (lower for
    big results a start-up reads all of, whatever it asks for)."""

    def decorate(function: F) -> F:
        return _persistent(function, modules, limit)

    return decorate


_ABSENT = object()


def _persistent(function: F, modules: tuple[str, ...], limit: int) -> F:
    source = Path(function.__code__.co_filename)
    name_parts = (function.__module__, function.__qualname__)
    table: StoredTable | None = None  # read on the first call, not at import

    @functools.wraps(function)
    def memoised(*arguments: Any) -> Any:
        nonlocal table
        if table is None:
            table = StoredTable(memo_record_name(source, modules, name_parts), limit)
        # An int flag (re.IGNORECASE) equals, and hashes as, the plain int it is stored
        # under: the arguments find a stored entry as they are, no key built per call.
        found = table.known.get(arguments, _ABSENT)
        if found is not _ABSENT:
            return found
        key = tuple(int(a) if isinstance(a, int) else a for a in arguments)  # flags: plain
        if key not in table.new:
            table.new[key] = function(*arguments)
        return table.new[key]

    return memoised  # type: ignore[return-value]


def memo_record_name(source: Path, modules: tuple[str, ...],
                     name_parts: tuple[str, str]) -> str | None:
    """The record of a memo of the function ``name_parts`` (module, qualified name) defined
    in ``source`` and depending on ``modules``: a digest of their sources, or None when a
    source cannot be read (the memo then lives in this process only).

    The digest of sources unchanged since an earlier run (each one's size and modification
    time, taken before it is read, as the import system and ``module_cache`` trust them) is
    looked up in a small index (``_memo_names``): a start-up's seven memos otherwise read
    and hash ~200 KB of source (~1 ms)."""
    try:
        paths = [source, *(_module_path(name) for name in modules)]
    except (ImportError, TypeError):
        return None
    index = _memo_names()
    index_key = _states_key(name_parts, paths)
    if index is not None and index_key is not None:
        known = index.new.get(index_key) or index.known.get(index_key)
        if _is_memo_record_name(known):
            return known
    try:
        sources = [path.read_bytes() for path in paths]
    except OSError:
        return None
    name = f"memo-{environment_key('memo 1', *name_parts, *sources)}.bin"
    if index is not None and index_key is not None:
        index.new[index_key] = name
    return name


_HEX_DIGITS = frozenset("0123456789abcdef")


def _is_memo_record_name(name: Any) -> bool:
    """Whether ``name`` is what ``memo_record_name`` makes (an index entry naming any other
    file, another directory's say, is never used)."""
    return (isinstance(name, str) and len(name) == 41 and name.startswith("memo-")
            and name.endswith(".bin") and _HEX_DIGITS.issuperset(name[5:37]))


def _states_key(name_parts: tuple[str, str], paths: list[Path]) -> tuple[Any, ...] | None:
    """The index key: the function, then each source's path, size and modification time."""
    states: list[Any] = list(name_parts)
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            return None
        states += (str(path), status.st_size, status.st_mtime_ns)
    return tuple(states)


_MEMO_NAMES: dict[Path, StoredTable] = {}


def _memo_names() -> StoredTable | None:
    """The index of memo record names by their sources' states, per cache directory."""
    return _table_in_use(_MEMO_NAMES, lambda: StoredTable(
        f"memo-names-{environment_key('memo names 1')}.bin", MAX_MEMO_ENTRIES))


def _table_in_use(tables: dict[Path, StoredTable],
                  make: Callable[[], StoredTable]) -> StoredTable | None:
    """The table of ``tables`` for the cache directory in use (``make()`` there at first
    use); None when records are not in use."""
    directory = _usable_dir()
    if directory is None:
        return None
    table = tables.get(directory)
    if table is None:
        table = tables[directory] = make()
    return table


def _module_path(name: str) -> Path:
    """The source file of module ``name`` (imported if it is not yet)."""
    import importlib

    module = sys.modules.get(name) or importlib.import_module(name)
    return Path(module.__file__)  # type: ignore[arg-type]


def store_bounded(name: str, data: Any, *, written: list[int], most_new: int,
                  subdirectory: str, most_on_disk: int) -> None:
    """Store a record of a cache keyed by values that vary without end (regex programs):
    ``written[0]`` counts this process's new records, at most ``most_new``, and the
    subdirectory starts over (``make_room``) before the first of them."""
    if written[0] >= most_new:
        return
    if written[0] == 0:
        make_room(subdirectory, most_on_disk)
    written[0] += 1
    store(name, data)


# Part of each gathered record's name: how its entries are kept (``GatheredRecords``).
GATHERED_FORMAT = "gathered 3: entries in marshal form, by what each is of"


class GatheredRecords:
    """The records of a cache keyed by values that vary without end (regex programs: one
    file each, ``store_bounded``), with those a second process needed gathered into one
    record (``gathered_name``), read at once: a start-up that compiles a hundred patterns
    reads one file, not a hundred.

    A record joins the gathered one when it is read from its own file, i.e. some earlier
    process wrote it: what only one run needed (a pattern built for one text) stays out.
    Past ``limit`` entries the gathered record starts over. Per cache directory, as the
    directory in use can change within a process (tests do that).

    Each gathered entry is kept in ``marshal`` form and read when it is asked for: the
    record holds what every command and profile needed (a few hundred programs), one scan
    asks for a fifth of them, and reading them all cost more than the scan's own lookups
    (~3 ms of ~90 for ``sre``'s record). It is found by what it is of (a tuple of plain
    values: a pattern's kind, flags and source), not by its own file's name, a digest
    worked out only when the gathered record lacks it (~165 digests a start-up).
    """

    def __init__(self, gathered_name: Callable[[], str], limit: int) -> None:
        self._gathered_name = gathered_name
        self._limit = limit
        self._tables: dict[Path, StoredTable] = {}

    def load(self, key: tuple[Any, ...], name: Callable[[], str]) -> Any | None:
        """The value of the record of ``key``: gathered, else read from its own file
        (``name()``), then gathered."""
        table = self._table()
        if table is None:
            return None
        gathered = table.known.get(key)
        if gathered is None:
            gathered = table.new.get(key)
        if gathered is not None:
            return _unmarshalled(gathered)
        found = load(name())
        if found is not None:
            table.new[key] = marshal.dumps(found, _MARSHAL_VERSION)
        return found

    def replace(self, key: tuple[Any, ...], name: str, data: Any, **bounds: Any) -> None:
        """Store ``data`` as the record of ``key`` (its own file ``name``, within
        ``bounds``, as ``store_bounded``), and in place of a gathered copy (that one was
        unusable)."""
        table = self._table()
        if table is not None and (key in table.known or key in table.new):
            try:
                table.new[key] = marshal.dumps(data, _MARSHAL_VERSION)
            except ValueError:
                table.new.pop(key, None)
        store_bounded(name, data, **bounds)

    def _table(self) -> StoredTable | None:
        return _table_in_use(self._tables, lambda: StoredTable(
            self._gathered_name(), self._limit, _is_marshalled_table))


def _unmarshalled(stored: Any) -> Any | None:
    """The value ``stored`` holds in ``marshal`` form; None when it holds none."""
    try:
        return marshal.loads(stored)
    except (EOFError, ValueError, TypeError):
        return None


def _is_marshalled_table(value: Any) -> bool:
    """A gathered record: keys (tuples), each with its value in ``marshal`` form."""
    return isinstance(value, dict) and all(
        type(key) is tuple and isinstance(stored, bytes) for key, stored in value.items())


# Recording swaps a module attribute: two threads compiling at once must not interleave.
_RECORDING = threading.RLock()


def recorded_calls(owner: Any, attribute: str,
                   run: Callable[[], T]) -> tuple[T, list[tuple[Any, ...]]]:
    """What ``run`` returns and the arguments of every call it made to ``owner.attribute``
    (a C compiler, whose input is what the caches keep): the attribute is swapped for a
    recording one while ``run`` runs, one thread at a time."""
    with _RECORDING:
        real = getattr(owner, attribute)
        seen: list[tuple[Any, ...]] = []

        def recorder(*arguments: Any) -> Any:
            seen.append(arguments)
            return real(*arguments)

        setattr(owner, attribute, recorder)
        try:
            result = run()
        finally:
            setattr(owner, attribute, real)
    return result, seen


def make_room(subdirectory: str, limit: int) -> None:
    """Empty ``subdirectory`` of the cache once it holds ``limit`` records or more.

    For caches keyed by values that vary without end (regex programs built per text):
    starting over keeps the directory bounded, and entries of older versions go too.
    """
    directory = _usable_dir()
    if directory is None:
        return
    try:
        with os.scandir(directory / subdirectory) as entries:
            records = [entry.path for entry in entries if entry.name.endswith(".bin")]
    except OSError:
        return
    if len(records) < limit:
        return
    for path in records:
        try:
            os.unlink(path)
        except OSError:
            pass
