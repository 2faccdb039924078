"""discover → load as the runtime would → match rules → findings, one ``FileResult`` a file.

The runtime verdict (load / block / truncate / skip and the ids Hermes prints) comes from
``soulscan.hermes.documents.load_document``; the findings from ``soulscan.findings``.
This module reads the files, runs the scans (in worker processes with ``jobs``) and keeps
the results in discovery order.

Files are read here, not by the loader, so that a FIFO can never block a scan, a huge
file is refused before it is read, and an I/O failure becomes a recorded error rather
than a runtime "skip".
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from soulscan.discovery import Discovery, Target, describe_os_error
from soulscan.errors import SoulscanError
from soulscan.findings import PROFILES, document_findings, snippet_of
from soulscan.hermes.documents import load_document
from soulscan.models import FileResult, Finding, ScanError, ScanReport

__all__ = [
    "DEFAULT_MAX_FILE_SIZE", "PROFILES", "ScanOptions", "read_target", "run_scan", "scan_target",
    "snippet_of",
]

# Hermes never loads more than 500,000 characters of a context file (its largest cap), and
# matching every rule over the whole text costs seconds per megabyte: a file many times
# that size is not a real context file, and is reported as an error, never as clean.
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 8


@dataclass(frozen=True)
class ScanOptions:
    profile: str = "all"
    hermes_home: Path | None = None
    context_length: int | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    rule_packs: tuple[str, ...] = ()  # project packs (config rule-packs), run with hardened


@dataclass(frozen=True)
class _Job:
    target: Target
    data: bytes | None  # pre-read input (standard input); None: read target.path


def read_target(target: Target, max_file_size: int, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of one target; an ``OSError`` or ``SoulscanError`` says why not."""
    if target.path is None:
        source = stdin if stdin is not None else sys.stdin.buffer
        data = source.read(max_file_size + 1)
        _check_size(len(data), max_file_size)
        return data
    # O_NONBLOCK: opening a FIFO that slipped past discovery (a race) must not hang.
    descriptor = os.open(target.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SoulscanError("not a regular file")
        _check_size(info.st_size, max_file_size)
        data = handle.read(max_file_size + 1)
        _check_size(len(data), max_file_size)
        return data


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise SoulscanError(
            f"file is larger than the --max-file-size limit of {limit:,} bytes; not scanned"
        )


def scan_target(target: Target, options: ScanOptions, data: bytes | None = None) -> FileResult | ScanError:
    """Scan one file; every problem reading it becomes a ``ScanError``."""
    try:
        if data is None:
            data = read_target(target, options.max_file_size)
        return _scan_bytes(target, data, options)
    except SoulscanError as exc:
        return ScanError(target.display, str(exc))
    except OSError as exc:
        return ScanError(target.display, describe_os_error(exc, target.path or Path("-")))


def _scan_bytes(target: Target, data: bytes, options: ScanOptions) -> FileResult:
    # "-" is how the loader knows the text came from standard input (no path to name).
    path = str(target.path) if target.path is not None else "-"
    document = load_document(
        path,
        target.kind,
        hermes_home=options.hermes_home,
        context_length=options.context_length,
        data=data,
    )
    findings: tuple[Finding, ...] = ()
    if document.text is not None:
        findings = document_findings(
            document, target.display, options.profile, options.rule_packs
        )
    return FileResult(target.display, target.kind, document.summary, findings)


def _scan_job(job: _Job, options: ScanOptions) -> FileResult | ScanError:
    return scan_target(job.target, options, job.data)


def run_scan(
    discovery: Discovery,
    options: ScanOptions,
    *,
    jobs: int = 1,
    stdin: BinaryIO | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> ScanReport:
    """Scan every discovered target; results keep the discovery order whatever ``jobs`` is."""
    if options.profile not in PROFILES:
        raise SoulscanError(f"unknown profile {options.profile!r}; use one of {', '.join(PROFILES)}")
    prepared: list[_Job | ScanError] = [_prepare(target, options, stdin) for target in discovery.targets]
    runnable = [job for job in prepared if isinstance(job, _Job)]
    outcomes = iter(_run_jobs(runnable, options, jobs, on_progress))
    files: list[FileResult] = []
    errors: list[ScanError] = list(discovery.errors)
    for item in prepared:
        outcome = next(outcomes) if isinstance(item, _Job) else item
        if isinstance(outcome, FileResult):
            files.append(outcome)
        else:
            errors.append(outcome)
    return ScanReport(tuple(files), tuple(errors))


def _prepare(target: Target, options: ScanOptions, stdin: BinaryIO | None) -> _Job | ScanError:
    if target.path is not None:
        return _Job(target, None)
    try:  # standard input is read once, here, so a worker process never needs it
        return _Job(target, read_target(target, options.max_file_size, stdin))
    except SoulscanError as exc:
        return ScanError(target.display, str(exc))
    except OSError as exc:
        return ScanError(target.display, describe_os_error(exc, target.path or Path("-")))


def _run_jobs(
    runnable: Sequence[_Job],
    options: ScanOptions,
    jobs: int,
    on_progress: Callable[[int], None] | None,
) -> Iterator[FileResult | ScanError]:
    if jobs <= 1 or len(runnable) < PARALLEL_THRESHOLD:
        for job in runnable:
            outcome = _scan_job(job, options)
            if on_progress is not None:
                on_progress(1)
            yield outcome
        return
    # The first file is scanned here: that loads and compiles the rule packs once, and
    # forked workers inherit them instead of each paying for it.
    first, rest = runnable[0], runnable[1:]
    yield _scan_job(first, options)
    if on_progress is not None:
        on_progress(1)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunksize = max(1, len(rest) // (jobs * 8))
        for outcome in pool.map(_scan_job, rest, [options] * len(rest), chunksize=chunksize):
            if on_progress is not None:
                on_progress(1)
            yield outcome
