"""``soulscan.parallel.SharedWork``: every job's result exactly once, whoever ran it (this
process or a forked worker); a worker's exception or death raised here; big payloads
both ways without a deadlock; no worker left after ``close``, whatever happened."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from soulscan.parallel import SharedWork, WorkerLost

REPO = Path(__file__).resolve().parents[1]


def _square_with_pid(jobs: list[int]) -> list[tuple[int, int]]:
    time.sleep(0.001)  # slower than queueing: jobs are left for this process at the end
    return [(job * job, os.getpid()) for job in jobs]


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a process (a zombie, never reaped, counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _all_results(shared: SharedWork[str, int, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    results: dict[str, tuple[int, int]] = {}
    for chunk in shared.results():
        for key, result in chunk:
            assert key not in results, "a job's result given twice"
            results[key] = result
    return results


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("count", [0, 1, 6, 7, 8, 200, 2_000])
def test_every_job_once_with_its_own_result(workers: int, count: int) -> None:
    shared: SharedWork[str, int, tuple[int, int]] = SharedWork(_square_with_pid, workers, chunk=7)
    pids = [worker.pid for worker in shared._workers]
    try:
        for job in range(count):
            shared.add(f"k{job}", job)
        results = _all_results(shared)
    finally:
        shared.close()
    assert {key: value for key, (value, _) in results.items()} == {
        f"k{job}": job * job for job in range(count)}
    if count >= 2_000:  # enough for everyone: this process and every worker took a share
        assert {pid for _, pid in results.values()} == {os.getpid(), *pids}
    assert len(pids) == workers
    assert not [pid for pid in pids if _alive(pid)]


def test_results_are_given_as_workers_finish_for_a_progress_bar() -> None:
    shared: SharedWork[int, int, tuple[int, int]] = SharedWork(_square_with_pid, 1, chunk=4)
    try:
        for job in range(400):
            shared.add(job, job)
        sizes = [len(chunk) for chunk in shared.results()]
    finally:
        shared.close()
    assert sum(sizes) == 400
    assert max(sizes) <= 4  # never more than a chunk at a time
    assert len(sizes) >= 400 // 4


def _fail_on_13(jobs: list[int]) -> list[int]:
    if 13 in jobs and os.getpid() != PARENT:
        raise ValueError("job 13 is unlucky")
    return jobs


class _Unpicklable(Exception):
    def __init__(self, lock: object) -> None:
        super().__init__("holds a lock")
        self.lock = lock

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("not picklable")


def _fail_unpicklably(jobs: list[int]) -> list[int]:
    if os.getpid() != PARENT:
        raise _Unpicklable(object())
    return jobs


PARENT = os.getpid()


@pytest.mark.parametrize(
    ("run", "expected", "message"),
    [
        pytest.param(_fail_on_13, ValueError, "job 13 is unlucky", id="exception-as-raised"),
        pytest.param(_fail_unpicklably, RuntimeError, "_Unpicklable: holds a lock",
                     id="unpicklable-exception-as-its-name"),
    ],
)
def test_a_worker_exception_is_raised_here(
    run: object, expected: type[Exception], message: str
) -> None:
    shared: SharedWork[int, int, int] = SharedWork(run, 2, chunk=4)  # type: ignore[arg-type]
    pids = [worker.pid for worker in shared._workers]
    try:
        with pytest.raises(expected, match=message):  # from a later add, or from results
            for job in range(12, 400):  # job 13 in the workers' first chunk
                shared.add(job, job)
            _drain(shared.results())
    finally:
        shared.close()
    assert not [pid for pid in pids if _alive(pid)]


def _drain(chunks: Iterator[list[tuple[int, int]]]) -> None:
    for _ in chunks:
        pass


def _slow(jobs: list[int]) -> list[int]:
    time.sleep(0.01)
    return jobs


def test_a_worker_killed_is_a_worker_lost() -> None:
    shared: SharedWork[int, int, int] = SharedWork(_slow, 1, chunk=2)
    pids = [worker.pid for worker in shared._workers]
    try:
        for job in range(2_000):
            shared.add(job, job)
        os.kill(pids[0], signal.SIGKILL)
        with pytest.raises(WorkerLost, match=f"worker process {pids[0]} ended"):
            _drain(shared.results())
    finally:
        shared.close()
    assert not _alive(pids[0])


def test_close_while_workers_are_busy_leaves_none() -> None:
    shared: SharedWork[int, int, int] = SharedWork(_slow, 3, chunk=2)
    pids = [worker.pid for worker in shared._workers]
    for job in range(2_000):
        shared.add(job, job)
    next(shared.results())  # some work started, most not
    shared.close()
    assert len(pids) == 3
    assert not [pid for pid in pids if _alive(pid)]


def test_without_a_process_to_fork_this_process_does_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    _assert_all_done_here()


def _assert_all_done_here() -> None:
    """Two workers asked for, 50 jobs: no worker, every job run by this process."""
    shared: SharedWork[str, int, tuple[int, int]] = SharedWork(_square_with_pid, 2, chunk=3)
    try:
        for job in range(50):
            shared.add(str(job), job)
        results = _all_results(shared)
    finally:
        shared.close()
    assert not shared._workers
    assert results == {str(job): (job * job, os.getpid()) for job in range(50)}


def test_where_fork_and_poll_do_not_exist_this_process_does_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import select

    from soulscan import parallel

    # as on Windows: neither exists, so touching either would raise AttributeError
    monkeypatch.delattr(os, "fork")
    monkeypatch.delattr(select, "poll")
    monkeypatch.setattr(parallel, "CAN_FORK", False)
    _assert_all_done_here()


_BIG_PAYLOADS = """
import os
from soulscan.parallel import SharedWork

def run(jobs):
    return [job * 3 for job in jobs]

shared = SharedWork(run, 2, chunk=2)
try:
    for number in range(40):  # 1 MB a job, 3 MB a result: both pipes fill many times over
        shared.add(number, bytes([number]) * 1_000_000)
    results = dict(pair for chunk in shared.results() for pair in chunk)
finally:
    shared.close()
assert results == {n: bytes([n]) * 3_000_000 for n in range(40)}
print("ok")
"""


def test_payloads_bigger_than_a_pipe_pass_both_ways_without_a_deadlock() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BIG_PAYLOADS)], capture_output=True, text=True,
        timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert (completed.returncode, completed.stdout, completed.stderr) == (0, "ok\n", "")


def _answer_with_pid(argument: bytes) -> tuple[bytes, int]:
    return argument * 2, os.getpid()


def _answer_slowly(argument: bytes) -> bytes:
    time.sleep(5)
    return argument


def _answer_slowly_with_pid(argument: bytes) -> tuple[bytes, int]:
    if os.getpid() != _THIS_PROCESS:  # a worker: killed while it sleeps
        time.sleep(5)
    return argument, os.getpid()


_THIS_PROCESS = os.getpid()


def _fail_aside(argument: bytes) -> bytes:
    raise ValueError(f"aside of {len(argument)} bytes fails")


def _scanned_and_closed(workers: int, chunk: int = 3) -> SharedWork[str, int, tuple[int, int]]:
    """A shared run of 50 jobs whose results are all in (``aside`` comes after them)."""
    shared: SharedWork[str, int, tuple[int, int]] = SharedWork(_square_with_pid, workers, chunk)
    for job in range(50):
        shared.add(str(job), job)
    assert len(_all_results(shared)) == 50
    return shared


@pytest.mark.parametrize("workers", [1, 3])
def test_aside_is_answered_by_a_worker_while_this_process_goes_on(workers: int) -> None:
    shared = _scanned_and_closed(workers)
    pids = [worker.pid for worker in shared._workers]
    try:
        argument = bytes(range(256)) * 4_000  # 1 MB each way: more than a pipe holds
        answer = shared.aside(_answer_with_pid, argument)
        doubled, pid = answer()
    finally:
        shared.close()
    assert doubled == argument * 2
    assert pid in pids and pid != os.getpid()
    assert not [pid for pid in pids if _alive(pid)]


def test_an_aside_exception_is_raised_by_its_answer() -> None:
    shared = _scanned_and_closed(1)
    pids = [worker.pid for worker in shared._workers]
    try:
        answer = shared.aside(_fail_aside, b"abc")
        with pytest.raises(ValueError, match="aside of 3 bytes fails"):
            answer()
    finally:
        shared.close()
    assert not [pid for pid in pids if _alive(pid)]


def test_an_aside_never_asked_for_is_stopped_by_close() -> None:
    shared = _scanned_and_closed(2)
    pids = [worker.pid for worker in shared._workers]
    shared.aside(_answer_slowly, b"abc")
    started = time.monotonic()
    shared.close()
    assert time.monotonic() - started < 4  # stopped, not waited for
    assert not [pid for pid in pids if _alive(pid)]


def test_an_aside_whose_worker_is_killed_before_answering_is_answered_here() -> None:
    shared = _scanned_and_closed(1)
    pid = shared._workers[0].pid
    try:
        answer = shared.aside(_answer_slowly_with_pid, b"abc")
        os.kill(pid, signal.SIGKILL)
        assert answer() == (b"abc", os.getpid())
    finally:
        shared.close()


def test_an_aside_comes_once_and_after_every_result() -> None:
    """Else a result still to come would be read as its answer, or a second aside written
    to a closed pipe."""
    shared: SharedWork[str, int, tuple[int, int]] = SharedWork(_square_with_pid, 1, 3)
    try:
        for job in range(50):
            shared.add(str(job), job)
        with pytest.raises(RuntimeError, match="after every result"):
            shared.aside(_answer_with_pid, b"ab")
        assert len(_all_results(shared)) == 50
        answer = shared.aside(_answer_with_pid, b"ab")
        with pytest.raises(RuntimeError, match="once"):
            shared.aside(_answer_with_pid, b"ab")
        assert answer()[0] == b"abab"
    finally:
        shared.close()


def test_without_a_worker_an_aside_is_answered_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    shared = _scanned_and_closed(2)
    try:
        assert shared.aside(_answer_with_pid, b"ab")() == (b"abab", os.getpid())
    finally:
        shared.close()


def test_a_workers_pipes_take_a_large_frame_at_once() -> None:
    """Both ways, where the system lets a pipe grow (a 10,000-file tree's notes are ~1 MB:
    the worker writes them and ends instead of waiting for this process to read)."""
    fcntl = pytest.importorskip("fcntl")
    from soulscan import parallel

    limit = Path("/proc/sys/fs/pipe-max-size")
    if not hasattr(fcntl, "F_GETPIPE_SZ") or not limit.exists():
        pytest.skip("Linux pipes only")
    if int(limit.read_text()) < parallel._PIPE_SIZE:
        pytest.skip("this system keeps pipes smaller")
    shared: SharedWork[int, int, int] = SharedWork(_slow, 1, chunk=2)
    worker = shared._workers[0]
    try:
        assert fcntl.fcntl(worker.jobs_out, fcntl.F_GETPIPE_SZ) == parallel._PIPE_SIZE
        assert fcntl.fcntl(worker.results_in, fcntl.F_GETPIPE_SZ) == parallel._PIPE_SIZE
    finally:
        shared.close()
