"""discover → load as the runtime would → match rules → findings, one ``FileResult`` a file.

The runtime verdict (load / block / truncate / skip and the ids Hermes prints) comes from
``soulscan.hermes.documents.load_document``; the findings from ``soulscan.findings``.
This module reads the files, runs the scans (in worker processes with ``jobs``) and keeps
the results in discovery order.

Cursor files in their real place (a ``.cursorrules`` and the ``.cursor/rules/*.mdc`` of one
directory, however they were named or found) are judged together with
``soulscan.hermes.cursor_bundle``: Hermes cuts their concatenation as one unit, so whether
one file's text reaches the model depends on its neighbours (including neighbours not
being scanned). A file forced with ``--as cursorrules|mdc`` (``cursor_bundles=False``), one
whose name or place is not the runtime's, and standard input keep the single-file view.

Files are read here, not by the loader, so that a FIFO can never block a scan, a huge
file is refused before it is read, and an I/O failure becomes a recorded error rather
than a runtime "skip".
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from soulscan.blocked_start import blocked_start_document
from soulscan.discovery import Discovery, Target, describe_os_error, discover, kind_of
from soulscan.errors import SoulscanError
from soulscan.findings import PROFILES, document_findings, snippet_of
from soulscan.hermes.cursor_bundle import load_cursor_bundle
from soulscan.hermes.documents import (
    FRAMING,
    RuntimeDocument,
    document_label,
    load_document,
    whole_document,
)
from soulscan.hermes.sections import judge_section
from soulscan.hermes.sources import CURSORRULES_NAME, cursor_rule_files, decode_runtime_text
from soulscan.hermes.truncation import DEFAULT_MAX_CHARS
from soulscan.models import (
    FileResult,
    Finding,
    RuntimeSummary,
    ScanError,
    ScanReport,
    new_runtime_summary,
)

if TYPE_CHECKING:
    from soulscan.parallel import SharedWork

__all__ = [
    "DEFAULT_MAX_FILE_SIZE", "PROFILES", "ScanOptions", "bundle_directory", "discover_and_scan",
    "discover_and_scan_aside", "read_target", "run_scan", "scan_target", "snippet_of",
]

_Answer = TypeVar("_Answer")

# Hermes never loads more than 500,000 characters of a context file (its largest cap), and
# matching every rule over the whole text costs seconds per megabyte: a file many times
# that size is not a real context file, and is reported as an error, never as clean.
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
# Below this many jobs a process pool costs more than it saves.
PARALLEL_THRESHOLD = 8


@dataclass(frozen=True)
class ScanOptions:
    """How to scan: the profile, the runtime's settings and the extra rule packs."""
    profile: str = "all"
    hermes_home: Path | None = None
    context_length: int | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    rule_packs: tuple[str, ...] = ()  # project packs (config rule-packs), run with hardened


@dataclass(frozen=True)
class _Job:
    """One file, or the scanned members of one directory's cursor bundle (``bundle``)."""

    targets: tuple[Target, ...]
    data: bytes | None = None  # pre-read input (standard input); None: read the file
    bundle: Path | None = None  # the directory whose .cursorrules bundle holds ``targets``


def bundle_directory(target: Target) -> Path | None:
    """The directory whose cursor bundle ``target`` belongs to, when it sits in its real
    place under its real name; None for anything else (stdin, other kinds, forced names)."""
    path = target.path
    if path is None or target.kind not in ("cursorrules", "mdc") or kind_of(path) != target.kind:
        return None
    return path.parent if target.kind == "cursorrules" else path.parent.parent.parent


def read_target(target: Target, max_file_size: int, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of one target; an ``OSError`` or ``SoulscanError`` says why not."""
    return _read_path(target.path, max_file_size, stdin)


def _read_path(path: Path | str | None, max_file_size: int, stdin: BinaryIO | None = None) -> bytes:
    """``read_target`` of a target's path (None: standard input)."""
    if path is None:
        source = stdin if stdin is not None else sys.stdin.buffer
        data = source.read(max_file_size + 1)
        _check_size(len(data), max_file_size)
        return data
    # O_NONBLOCK: opening a FIFO that slipped past discovery (a race) must not hang.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise SoulscanError("not a regular file")
        _check_size(info.st_size, max_file_size)
        data = _read_up_to(descriptor, max_file_size + 1, info.st_size + 1)
        _check_size(len(data), max_file_size)
        return data
    finally:
        os.close(descriptor)


# What a read asks for at most once the file is past its size: a read allocates what it asks.
_READ_CHUNK = 1 << 20


def _read_up_to(descriptor: int, limit: int, first: int) -> bytes:
    """The file's bytes from where it stands to its end, or its first ``limit`` of them;
    asking ``first`` bytes at first (its size and one: a file that grew since is read on).
    Not one ``read(limit)``: that allocates the whole limit (4 MB) for each small file,
    ~15 us a file, as much as a clean file's scan costs beyond the scanner."""
    parts: list[bytes] = []
    total = 0
    ask = min(first, limit)
    while total < limit:
        part = os.read(descriptor, ask)
        if not part:
            break
        parts.append(part)
        total += len(part)
        ask = min(limit - total, _READ_CHUNK)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise SoulscanError(
            f"file is larger than the --max-file-size limit of {limit:,} bytes; not scanned"
        )


def scan_target(target: Target, options: ScanOptions, data: bytes | None = None) -> FileResult | ScanError:
    """Scan one file alone (the single-file view); every problem reading it becomes a
    ``ScanError``. ``run_scan`` judges cursor files in their real place as a bundle."""
    return _scan_file(target.path, target.display, target.kind, options, data)


def _scan_file(path: Path | str | None, display: str, kind: str, options: ScanOptions,
               data: bytes | None = None) -> FileResult | ScanError:
    """``scan_target`` of a target given by its fields: a worker is sent a lone file's path
    as a str (``_LoneFile``), and builds no ``Path`` or ``Target`` for it."""
    try:
        if data is None:
            data = _read_path(path, options.max_file_size)
        return _scan_bytes(path, display, kind, data, options)
    except SoulscanError as exc:
        return ScanError(display, str(exc))
    except OSError as exc:
        return ScanError(display, describe_os_error(exc, path if path is not None else "-"))


def _scan_bytes(path: Path | str | None, display: str, kind: str, data: bytes,
                options: ScanOptions) -> FileResult:
    # "-" is how the loader knows the text came from standard input (no path to name).
    name = str(path) if path is not None else "-"
    if (options.profile == "runtime" and kind in _PLAIN_CONTEXT_KINDS
            and options.hermes_home is None and options.context_length is None):
        whole = _whole_context_result(display, kind, name, data, options)
        if whole is not None:
            return whole
    document = load_document(
        name,
        kind,
        hermes_home=options.hermes_home,
        context_length=options.context_length,
        data=data,
    )
    return _result(display, kind, document, options)


# Context kinds whose scanned text is their stripped text (no frontmatter removed, no legacy
# template looked for): ``_whole_context_result`` judges them.
_PLAIN_CONTEXT_KINDS = frozenset({"agents", "claude", "cursorrules", "mdc"})


def _whole_context_result(display: str, kind: str, path: str, data: bytes,
                          options: ScanOptions) -> FileResult | None:
    """The runtime-profile result of a file of ``_PLAIN_CONTEXT_KINDS`` that the runtime
    takes whole (the default cap), as ``load_document`` and ``_file_result`` give it: a clean
    one without the document they build first (its region, its section in the prompt), which
    holds no finding to place; a flagged one from the section judged here (``load_document``
    would decode, strip and judge it again). None for any other file (undecodable, empty,
    cut), which the document path judges (the scanner remembers its last verdict: the text
    is not scanned twice)."""
    blocked = blocked_start_document(path, kind, data)  # a large file's start alone
    if blocked is not None:
        return _result(display, kind, blocked, options)
    try:
        text = decode_runtime_text(data)
    except UnicodeDecodeError:
        return None
    header, trailer, _ = FRAMING[kind]
    label = document_label(path, kind)
    judged = judge_section(text, label, header=header, trailer=trailer, strip_frontmatter=False)
    if judged is None:
        return None
    if judged.section_length > DEFAULT_MAX_CHARS:
        return None
    if judged.ids:  # ``documents._context_document`` of a section that fits
        return _result(display, kind, whole_document(path, kind, label, text, judged), options)
    # ``documents.whole_summary`` of a clean section: no frontmatter is removed here, so
    # its text starts after the leading whitespace alone (no detail)
    summary = new_runtime_summary("load", (), len(text), len(judged.prepared.scanned), None)
    return new_file_result(display, kind, summary, ())


_new_object = object.__new__


def new_file_result(path: str, kind: str, runtime: RuntimeSummary,
                    findings: tuple[Finding, ...]) -> FileResult:
    """``FileResult(path, kind, runtime, findings)`` without the frozen dataclass's
    ``__init__`` (an ``object.__setattr__`` a field): one is built for every scanned file.
    The same object in every way (tested), as ``models.new_finding`` builds a finding."""
    result: FileResult = _new_object(FileResult)
    result.__dict__.update({"path": path, "kind": kind, "runtime": runtime, "findings": findings})
    return result


def _file_result(target: Target, document: RuntimeDocument, options: ScanOptions) -> FileResult:
    return _result(target.display, target.kind, document, options)


def _result(display: str, kind: str, document: RuntimeDocument, options: ScanOptions) -> FileResult:
    findings: tuple[Finding, ...] = ()
    if document.text is not None:
        findings = document_findings(document, display, options.profile, options.rule_packs)
    return new_file_result(display, kind, document.summary, findings)


def _oversized_member(directory: Path, limit: int) -> str | None:
    """The name of a bundle member over ``limit`` bytes (the runtime would read it whole)."""
    for path in (directory / CURSORRULES_NAME, *cursor_rule_files(directory)):
        try:
            info = path.stat()
        except OSError:
            continue  # missing or unreadable: the bundle loader skips it, as the runtime does
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            return path.name
    return None


def _scan_bundle(
    directory: Path, targets: Sequence[Target], options: ScanOptions
) -> tuple[FileResult | ScanError, ...]:
    """The targets of one cursor bundle, each judged under the bundle's single cut."""
    refused: dict[Target, ScanError] = {}
    for target in targets:  # the checks a lone file gets: regular, within the size limit
        try:
            read_target(target, options.max_file_size)
        except SoulscanError as exc:
            refused[target] = ScanError(target.display, str(exc))
        except OSError as exc:
            reason = describe_os_error(exc, target.path or Path("-"))
            refused[target] = ScanError(target.display, reason)
    try:
        oversized = _oversized_member(directory, options.max_file_size)
        if oversized is not None:
            raise SoulscanError(
                f"its .cursorrules bundle holds {oversized}, larger than the --max-file-size "
                f"limit of {options.max_file_size:,} bytes; not scanned"
            )
        members = load_cursor_bundle(
            directory, hermes_home=options.hermes_home, context_length=options.context_length
        )
    except SoulscanError as exc:
        return tuple(refused.get(t) or ScanError(t.display, str(exc)) for t in targets)
    except OSError as exc:
        return tuple(refused.get(t) or ScanError(t.display, describe_os_error(exc, directory))
                     for t in targets)
    by_name = {(member.kind, Path(member.path).name): member for member in members}
    results: list[FileResult | ScanError] = []
    for target in targets:
        assert target.path is not None
        document = by_name.get((target.kind, target.path.name))
        if target in refused:
            results.append(refused[target])
        elif document is None:  # gone from the directory since discovery: judge it alone
            results.append(scan_target(target, options))
        else:
            results.append(_file_result(target, document, options))
    return tuple(results)


# A lone file as a worker is sent it: its path (a str), display name and kind. Not a
# ``_Job`` of a ``Target``: a pickled ``PosixPath`` is rebuilt from its parts, and the
# dataclasses' pickles cost ~28 ms both ways for the 6,000 lone files of the bench's tree
# (~4 ms as tuples of strings).
_LoneFile = tuple[str, str, str]


def _scan_job(job: _Job | _LoneFile, options: ScanOptions) -> tuple[FileResult | ScanError, ...]:
    if isinstance(job, tuple):
        path, display, kind = job
        return (_scan_file(path, display, kind, options),)
    if job.bundle is not None:
        return _scan_bundle(job.bundle, job.targets, options)
    return tuple(scan_target(target, options, job.data) for target in job.targets)


def run_scan(
    discovery: Discovery,
    options: ScanOptions,
    *,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    on_progress: Callable[[int], None] | None = None,
    cursor_bundles: bool = True,
) -> ScanReport:
    """Scan every discovered target; results keep the discovery order whatever ``jobs`` is.

    With ``cursor_bundles`` (the default) cursor files in their real place are judged as
    the one bundle Hermes truncates; pass False when their kind was forced (``--as``).
    """
    _check_profile(options)
    scan = _OverlappedScan(_Planner(options, stdin, cursor_bundles), options, jobs, on_progress)
    try:
        for target in discovery.targets:
            scan.add(target)
        return scan.finish(discovery)
    finally:
        scan.close()


def discover_and_scan(
    paths: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int,
    stdin: BinaryIO | None = None,
    cursor_bundles: bool = True,
    **discover_options: Any,
) -> tuple[Discovery, ScanReport]:
    """``discover(paths, **discover_options)`` then ``run_scan``, the same report; with
    ``jobs`` > 1 worker processes scan the files found first while the walk goes on
    (on a tree of thousands of files the walk is a tenth of a second or more)."""
    _check_profile(options)
    if jobs <= 1:
        discovery = discover(paths, **discover_options)
        return discovery, run_scan(discovery, options, stdin=stdin, cursor_bundles=cursor_bundles)
    scan = _OverlappedScan(_Planner(options, stdin, cursor_bundles), options, jobs)
    try:
        discovery = discover(paths, on_target=scan.add, **discover_options)
        return discovery, scan.finish(discovery)
    finally:
        scan.close()


@contextmanager
def discover_and_scan_aside(
    paths: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int,
    aside: Callable[[list[tuple[str, str, str]]], _Answer],
    cursor_bundles: bool = True,
    **discover_options: Any,
) -> Iterator[tuple[Discovery, ScanReport, Callable[[], _Answer]]]:
    """``discover_and_scan`` with ``jobs`` > 1, and ``aside`` of each scanned file's (path,
    kind, runtime action), worked out by a worker (idle once the scan is done) while this
    process goes on inside the ``with`` (renders the report): the serial tail of a run is
    shorter by what the two overlap. The third value waits for the answer (without a
    worker, it works it out). The workers are stopped on leaving."""
    _check_profile(options)
    scan = _OverlappedScan(_Planner(options, None, cursor_bundles), options, jobs)
    try:
        discovery = discover(paths, on_target=scan.add, **discover_options)
        report = scan.finish(discovery, aside)
        assert scan.answer is not None  # sent by finish
        yield discovery, report, scan.answer
    finally:
        scan.close()


def _check_profile(options: ScanOptions) -> None:
    if options.profile not in PROFILES:
        raise SoulscanError(f"unknown profile {options.profile!r}; use one of {', '.join(PROFILES)}")


_Outcomes = tuple[FileResult | ScanError, ...]
_Planned = list[tuple[tuple[int, ...], "_Job | ScanError"]]


def _in_order(discovery: Discovery, planned: _Planned,
              done: dict[int, _Outcomes]) -> list[FileResult | ScanError]:
    """Each target's outcome in discovery order: ``done`` holds the outcomes of each
    planned job."""
    # A list by target index, filled in place: the tail after the last result, which no
    # worker shares, walks 10,000 outcomes on a large tree.
    ordered: list[FileResult | ScanError | None] = [None] * len(discovery.targets)
    for position, (indices, item) in enumerate(planned):
        results = done[position] if isinstance(item, _Job) else (item,)
        for index, result in zip(indices, results, strict=True):
            ordered[index] = result
    if any(outcome is None for outcome in ordered):
        raise ValueError("a target was planned in no job")
    return ordered  # type: ignore[return-value]  # no None left


def _report_of(discovery: Discovery, ordered: list[FileResult | ScanError]) -> ScanReport:
    """The report of the outcomes ``_in_order`` gives."""
    files = tuple(outcome for outcome in ordered if isinstance(outcome, FileResult))
    errors = (*discovery.errors, *(outcome for outcome in ordered if isinstance(outcome, ScanError)))
    return ScanReport(files, errors)


class _Planner:
    """Targets, in discovery order, into jobs with the target indices they answer for:
    one a file, one a cursor bundle (whose members may be found far apart)."""

    def __init__(self, options: ScanOptions, stdin: BinaryIO | None, cursor_bundles: bool) -> None:
        self.options = options
        self.stdin = stdin
        self.cursor_bundles = cursor_bundles
        self.planned: _Planned = []
        self.bundle_positions: set[int] = set()
        self._bundles: dict[str, int] = {}  # the bundle's real directory -> its position
        self._real: dict[Path, str] = {}  # a bundle directory as found -> its real path
        self._count = 0

    def add(self, target: Target) -> int | None:
        """Plan ``target``; the position of a new lone-file job (None otherwise: an error,
        or a bundle, which gains members until discovery ends)."""
        index, self._count = self._count, self._count + 1
        directory = bundle_directory(target) if self.cursor_bundles else None
        if directory is None:
            self.planned.append(((index,), _prepare(target, self.options, self.stdin)))
            return len(self.planned) - 1 if isinstance(self.planned[-1][1], _Job) else None
        key = self._real_directory(directory)
        if key not in self._bundles:
            self._bundles[key] = len(self.planned)
            self.bundle_positions.add(len(self.planned))
            self.planned.append(((index,), _Job((target,), None, directory)))
            return None
        indices, job = self.planned[self._bundles[key]]
        assert isinstance(job, _Job)
        self.planned[self._bundles[key]] = ((*indices, index), replace(job, targets=(*job.targets, target)))
        return None

    def _real_directory(self, directory: Path) -> str:
        """``realpath`` once a directory: a bundle's .cursorrules and its .mdc files name
        the same one (``realpath`` asks the file system about every part of the path)."""
        real = self._real.get(directory)
        if real is None:
            real = self._real[directory] = os.path.realpath(directory)
        return real


# Jobs sent to a worker at a time (fewer near the end, ``soulscan.parallel``): enough that
# the round trips cost little.
_BATCH = 32


class _OverlappedScan:
    """Targets planned as they are found. With ``jobs`` > 1, once there are enough, the
    worker processes are forked and lone-file jobs go to them while discovery may still
    be walking; cursor bundles (complete only when the walk ends) are queued at
    ``finish``, where this process scans its own share (``soulscan.parallel``)."""

    def __init__(self, planner: _Planner, options: ScanOptions, jobs: int,
                 on_progress: Callable[[int], None] | None = None) -> None:
        self.planner = planner
        self.options = options
        self.jobs = jobs
        self.on_progress = on_progress
        self.done: dict[int, _Outcomes] = {}
        self.answer: Callable[[], Any] | None = None  # ``finish``'s aside, once sent
        self._ready: list[int] = []  # planned positions found before the workers started
        self._shared: SharedWork[int, _Job | _LoneFile, _Outcomes] | None = None

    def add(self, target: Target) -> None:
        position = self.planner.add(target)
        if position is None or self.jobs <= 1:
            return
        if self._shared is not None:
            self._shared.add(position, self._sent(position))
            return
        self._ready.append(position)
        if len(self._ready) >= PARALLEL_THRESHOLD:
            self._start(self._ready)
            self._ready = []

    def finish(self, discovery: Discovery,
               aside: Callable[[list[tuple[str, str, str]]], Any] | None = None) -> ScanReport:
        """The report once every job is done; with ``aside``, ``SharedWork.aside`` of each
        scanned file's (path, kind, runtime action), sent before the report is built (the
        worker starts on it sooner; ``answer`` waits for it)."""
        planned = self.planner.planned
        if self.jobs <= 1:
            remaining = [p for p, (_, item) in enumerate(planned) if isinstance(item, _Job)]
        else:
            remaining = [*self._ready, *sorted(self.planner.bundle_positions)]
        self._ready = []
        if self.jobs > 1 and self._shared is None and len(remaining) >= PARALLEL_THRESHOLD:
            self._start(remaining)
            remaining = []
        if self._shared is None:  # one job, or too few files for a worker to pay
            for position in remaining:
                self._record([(position, _scan_job(self._job(position), self.options))])
        else:
            for position in remaining:
                self._shared.add(position, self._sent(position))
            for outcomes in self._shared.results():
                self._record(outcomes)
        ordered = _in_order(discovery, planned, self.done)
        if aside is not None:
            files = [(outcome.path, outcome.kind, outcome.runtime.action)
                     for outcome in ordered if isinstance(outcome, FileResult)]
            self.answer = self._aside(aside, files)
        report = _report_of(discovery, ordered)
        if self._shared is None:
            return report
        # The report lives until it is printed: out of the collector's sight too, so that
        # the full collection while it is rendered (the part no worker shares) skips it.
        gc.freeze()
        return report

    def _aside(self, call: Callable[[list[tuple[str, str, str]]], _Answer],
               files: list[tuple[str, str, str]]) -> Callable[[], _Answer]:
        """``SharedWork.aside`` once every result is in; here when no worker was started."""
        if self._shared is None:
            return partial(call, files)
        return self._shared.aside(call, files)

    def close(self) -> None:
        if self._shared is not None:
            self._shared.close()

    def _start(self, positions: list[int]) -> None:
        """Scan the first of ``positions`` here, then fork the workers and queue the rest:
        the first scan loads and compiles the rule packs once, and forked workers inherit
        them instead of each paying."""
        first, *rest = positions
        self._record([(first, _scan_job(self._job(first), self.options))])
        # What the first scan built (compiled rules, gates) lives as long as the process: out
        # of the collector's sight, neither the parent's collections nor the forked workers'
        # walk it again (a worker's walk would also copy every page it touches).
        gc.freeze()
        _share_one_time_work(self.jobs)
        from soulscan.parallel import SharedWork  # costs start-up; only for -j > 1

        self._shared = SharedWork(partial(_scan_jobs, options=self.options), self.jobs - 1, _BATCH)
        for position in rest:
            self._shared.add(position, self._sent(position))

    def _record(self, outcomes: list[tuple[int, _Outcomes]]) -> None:
        self.done.update(outcomes)
        if self.on_progress is not None:
            self.on_progress(sum(len(outcome) for _, outcome in outcomes))

    def _job(self, position: int) -> _Job:
        job = self.planner.planned[position][1]
        assert isinstance(job, _Job)
        return job

    def _sent(self, position: int) -> _Job | _LoneFile:
        """The job at ``position`` as it is shared: a file of its own as a ``_LoneFile``."""
        job = self._job(position)
        if job.bundle is not None or job.data is not None or len(job.targets) != 1:
            return job
        target = job.targets[0]
        return job if target.path is None else (str(target.path), target.display, target.kind)


def _share_one_time_work(processes: int) -> None:
    """The RE2 sets a process builds once it has scanned enough text to pay for them are
    due, after the fork, at each process's share of what was still due: N processes split
    the run's text, and each scanning as much as one alone before its sets pay made
    ``-j 2`` scan ~2 M characters the slow way where ``-j 1`` scans 1 M."""
    from soulscan.engine.re2_literals import share_literal_sets_due
    from soulscan.hermes.scanner import share_quick_gate_due

    share_quick_gate_due(processes)
    share_literal_sets_due(processes)


def _scan_jobs(jobs: list[_Job | _LoneFile], options: ScanOptions) -> list[_Outcomes]:
    return [_scan_job(job, options) for job in jobs]


def _prepare(target: Target, options: ScanOptions, stdin: BinaryIO | None) -> _Job | ScanError:
    if target.path is not None:
        return _Job((target,))
    try:  # standard input is read once, here, so a worker process never needs it
        return _Job((target,), read_target(target, options.max_file_size, stdin))
    except SoulscanError as exc:
        return ScanError(target.display, str(exc))
    except OSError as exc:
        return ScanError(target.display, describe_os_error(exc, target.path or Path("-")))
