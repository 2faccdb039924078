"""Work shared between this process and forked worker processes (``scan -j N``).

The scanning process is one of the N: it hands chunks of jobs to N - 1 forked workers as
they come (while discovery is still walking), and at the end runs the jobs no worker has
been given yet itself, taking them from the back of the queue while the workers take
theirs from the front, in chunks that shrink as the queue empties so that everyone
finishes together. On two cores two processes compete for them, not three; this process
keeps what it has warmed (compiled rules, caches) for its share; and only the workers'
share of the results is pickled. Once every result is in, the workers are idle: ``aside``
gives one of them a last piece of work while this process goes on with its own (the scan
command's notes while it renders the report).

A worker is a plain ``os.fork`` child with two pipes (length-prefixed pickles; the
function it runs is inherited, never sent): no executor threads competing with this
process for its core, and no ``multiprocessing`` import, which costs more than forking.
A worker ignores Ctrl-C (this process stops it, and a worker whose parent is gone sees
its job pipe close), so an interrupted scan leaves no process and prints no traceback.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, NoReturn, TypeVar

Key = TypeVar("Key")
Job = TypeVar("Job")
Result = TypeVar("Result")
Argument = TypeVar("Argument")
Answer = TypeVar("Answer")

_HEADER_SIZE = 8  # each frame: its length (little-endian), then a pickle
_READ_SIZE = 1 << 20
# A pipe this large (Linux: F_SETPIPE_SZ, within /proc/sys/fs/pipe-max-size) takes a whole
# frame at once: the writer goes on instead of waiting for the reader to make room (the
# notes of a 10,000-file tree are ~1 MB; the files sent for them ~0.3 MB).
_PIPE_SIZE = 1 << 20
# Chunks a worker holds at once (the one it runs and the next ones): enough that it never
# waits while this process runs a chunk of its own, few enough that what is left at the
# end is small.
_OUTSTANDING = 3
# This process runs chunks this many times shorter than a worker's: between two of its
# own it gives the workers more.
_OWN_SHARE = 4
# ``os.fork`` and ``select.poll`` are POSIX only: elsewhere no worker is forked and this
# process runs every job itself (``-j`` then changes nothing but the order of the work).
CAN_FORK = hasattr(os, "fork") and hasattr(select, "poll")


class WorkerLost(RuntimeError):
    """A worker process ended before giving back the results of its jobs."""


@dataclass
class _Worker(Generic[Key]):
    """One forked worker: its process and its pipes. (A docstring of its own: without one,
    ``dataclass`` writes it from ``inspect.signature``, and importing ``inspect`` cost a
    ``-j 2`` run ~4 ms before the fork.)"""

    pid: int
    jobs_out: int  # this process writes job frames here (-1 once closed)
    results_in: int  # and reads result frames here
    received: bytearray = field(default_factory=bytearray)
    given: deque[list[Key]] = field(default_factory=deque)  # the keys of each chunk sent


class SharedWork(Generic[Key, Job, Result]):
    """``run`` over jobs, in ``workers`` forked processes and in this one.

    ``run`` takes a list of jobs and returns one result for each. Create this only once the
    process holds what the workers should inherit (they are copies of it), and ``close``
    it in a ``finally``.
    """

    def __init__(self, run: Callable[[list[Job]], list[Result]], workers: int, chunk: int) -> None:
        self._run = run
        self._chunk = chunk
        self._pending: deque[tuple[Key, Job]] = deque()
        self._done: list[list[tuple[Key, Result]]] = []
        self._workers: list[_Worker[Key]] = []
        self._poll = select.poll() if CAN_FORK else None
        try:
            for _ in range(workers if CAN_FORK else 0):
                if not self._fork():
                    break  # no more processes to be had: this one does the rest
        except BaseException:  # Ctrl-C while forking: no worker is left behind
            self.close()
            raise

    def add(self, key: Key, job: Job) -> None:
        """Queue one job; ``key`` names its result. Results already back are read here,
        so a worker's exception or death (see ``results``) may be raised here too."""
        self._pending.append((key, job))
        if len(self._pending) >= self._chunk:
            self._receive(0)
            self._give(finishing=False)

    def results(self) -> Iterator[list[tuple[Key, Result]]]:
        """The results of every job added, as (key, result) pairs, a chunk at a time in no
        set order. A job that raised in a worker raises its exception here (as a
        ``RuntimeError`` naming it when it does not pickle); a worker that died raises
        ``WorkerLost``."""
        while True:
            self._receive(0)
            self._give(finishing=True)
            done, self._done = self._done, []
            yield from done
            if self._pending:  # a short chunk, so that the workers are given more soon
                size = max(1, self._size(finishing=True) // _OWN_SHARE)
                taken = [self._pending.pop() for _ in range(size)]
                keys = [key for key, _ in taken]
                yield list(zip(keys, self._run([job for _, job in taken]), strict=True))
            elif any(worker.given for worker in self._workers):
                self._receive(None)
            else:
                return

    def aside(self, call: Callable[[Argument], Answer], argument: Argument) -> Callable[[], Answer]:
        """``call(argument)`` worked out by a worker while this process goes on; the function
        returned waits for its answer (raising what ``call`` raised). Only once ``results``
        is done: the workers are idle then, and no job is added after. Without a worker, or
        when the worker ends before answering (killed), the function returned works it out
        here: the scan's results are all in by then, and ``call`` gives the same answer."""
        # (a result still to come would be read as the answer; a second aside would be
        # written to a closed pipe)
        if self._pending or any(worker.given or worker.jobs_out < 0 for worker in self._workers):
            raise RuntimeError("aside: once, and only after every result is in")
        if not self._workers:
            return partial(call, argument)
        worker = self._workers[0]
        try:
            self._send(worker, pickle.dumps((call, argument), pickle.HIGHEST_PROTOCOL))
        except WorkerLost:
            return partial(call, argument)
        for each in self._workers:  # no job follows: each ends once it has answered
            os.close(each.jobs_out)
            each.jobs_out = -1
        return partial(self._answer, worker, partial(call, argument))

    def _answer(self, worker: _Worker[Key], here: Callable[[], Any]) -> Any:
        try:
            frame = _read_frame(worker.results_in)
        except EOFError:  # gone in the middle of its answer
            frame = None
        if frame is None:  # the worker is gone: the answer is worked out here
            return here()
        succeeded, value = pickle.loads(frame)
        if not succeeded:
            raise value
        return value

    def close(self) -> None:
        """Stop and reap the workers (idle at the end; busy after an error or Ctrl-C)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            if worker.jobs_out >= 0:
                os.close(worker.jobs_out)
            os.close(worker.results_in)
            try:
                os.kill(worker.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for worker in workers:
            try:
                os.waitpid(worker.pid, 0)
            except ChildProcessError:  # reaped already (SIGCHLD ignored)
                pass

    def _size(self, *, finishing: bool) -> int:
        """Jobs in the next chunk: whole chunks while jobs are still coming, then smaller
        ones as the queue empties, so that the last chunks are short. A worker holds
        ``_OUTSTANDING`` chunks: an eighth of the queue each (for one worker) leaves it
        less to finish alone once the queue is empty than a quarter (a model of the bench
        tree's last 1,900 jobs: ~2 jobs' time, not ~36)."""
        if not finishing:
            return self._chunk
        share = len(self._pending) // (4 * (len(self._workers) + 1))
        return max(1, min(self._chunk, share, len(self._pending)))

    def _give(self, *, finishing: bool) -> None:
        for worker in self._workers:
            while len(worker.given) < _OUTSTANDING and self._pending:
                size = self._size(finishing=finishing)
                if len(self._pending) < size:
                    break
                taken = [self._pending.popleft() for _ in range(size)]
                worker.given.append([key for key, _ in taken])
                jobs = [job for _, job in taken]
                self._send(worker, pickle.dumps((None, jobs), pickle.HIGHEST_PROTOCOL))

    def _send(self, worker: _Worker[Key], payload: bytes) -> None:
        """Write one frame; while the pipe is full, read results (the worker may be
        waiting for this process to read them before it reads more jobs)."""
        view = memoryview(len(payload).to_bytes(_HEADER_SIZE, "little") + payload)
        while view:
            try:
                view = view[os.write(worker.jobs_out, view):]
            except BrokenPipeError:
                raise WorkerLost(f"worker process {worker.pid} ended before taking its jobs") from None
            except BlockingIOError:
                writable = select.poll()
                writable.register(worker.jobs_out, select.POLLOUT)
                writable.register(worker.results_in, select.POLLIN)
                if any(fd == worker.results_in for fd, _ in writable.poll()):
                    self._read(worker)

    def _receive(self, timeout: int | None) -> None:
        """Read what the workers have sent; wait up to ``timeout`` ms (None: until one has)."""
        if self._poll is None:
            return
        for fd, _ in self._poll.poll(timeout):
            self._read(next(w for w in self._workers if w.results_in == fd))

    def _read(self, worker: _Worker[Key]) -> None:
        data = os.read(worker.results_in, _READ_SIZE)
        if not data:
            raise WorkerLost(f"worker process {worker.pid} ended before finishing its jobs")
        worker.received += data
        while len(worker.received) >= _HEADER_SIZE:
            size = int.from_bytes(worker.received[:_HEADER_SIZE], "little")
            if len(worker.received) < _HEADER_SIZE + size:
                break
            frame = bytes(worker.received[_HEADER_SIZE:_HEADER_SIZE + size])
            del worker.received[:_HEADER_SIZE + size]
            succeeded, value = pickle.loads(frame)
            keys = worker.given.popleft()
            if not succeeded:
                raise value
            self._done.append(list(zip(keys, value, strict=True)))

    def _fork(self) -> bool:
        """Start one more worker; False when the system has no process to give."""
        jobs_in, jobs_out = os.pipe()
        results_in, results_out = os.pipe()
        _enlarge(jobs_out)
        _enlarge(results_out)
        # Ctrl-C stays blocked until the worker ignores it and this process knows of the
        # worker: a KeyboardInterrupt in between would run this process's code in the
        # worker, or leave a worker that ``close`` does not stop.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            try:  # whatever happens, this process's code never runs on in the worker
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                for worker in self._workers:  # the other workers' pipes: theirs to close
                    os.close(worker.jobs_out)
                    os.close(worker.results_in)
                os.close(jobs_out)
                os.close(results_in)
                _serve(self._run, jobs_in, results_out)
            finally:
                os._exit(1)
        os.close(jobs_in)
        os.close(results_out)
        if pid < 0:
            os.close(jobs_out)
            os.close(results_in)
        else:
            os.set_blocking(jobs_out, False)
            self._workers.append(_Worker(pid, jobs_out, results_in))
            assert self._poll is not None  # forking is tried only where poll exists
            self._poll.register(results_in, select.POLLIN)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return pid > 0


def _enlarge(pipe: int) -> None:
    """Make ``pipe`` hold ``_PIPE_SIZE`` bytes where the system lets it (a pipe keeps its
    default size elsewhere: frames then pass in pieces, as before)."""
    try:
        import fcntl  # POSIX; its F_SETPIPE_SZ only on Linux
    except ImportError:
        return
    resize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if resize is not None:
        try:
            fcntl.fcntl(pipe, resize, _PIPE_SIZE)
        except OSError:  # over the system's limit for this user
            pass


def _serve(run: Callable[[list[Job]], list[Result]], jobs_in: int, results_out: int) -> NoReturn:
    """A worker's life: read a chunk, run it, write back its results (or the exception it
    raised), until the job pipe closes; then leave without running any of the parent's
    clean-up (``os._exit``). A frame is (None, a chunk of jobs) or (``call``, its argument),
    from ``SharedWork.aside``."""
    status = 0
    try:
        while (frame := _read_frame(jobs_in)) is not None:
            try:
                call, argument = pickle.loads(frame)
                reply: tuple[bool, object] = (True, run(argument) if call is None else call(argument))
            except Exception as exc:  # noqa: BLE001 - a bug: the parent raises it
                reply = (False, _picklable(exc))
            _write_all(results_out, pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))
    except BaseException:  # noqa: BLE001 - the parent gone (a broken pipe): just leave
        status = 1
    finally:
        os._exit(status)


def _picklable(exc: Exception) -> Exception:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any exception that does not survive the trip
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _read_frame(fd: int) -> bytes | None:
    header = _read_exactly(fd, _HEADER_SIZE)
    if header is None:
        return None
    frame = _read_exactly(fd, int.from_bytes(header, "little"))
    if frame is None:
        raise EOFError("pipe closed in the middle of a frame")
    return frame


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        part = os.read(fd, min(size, _READ_SIZE))
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(len(payload).to_bytes(_HEADER_SIZE, "little") + payload)
    while view:
        view = view[os.write(fd, view):]
