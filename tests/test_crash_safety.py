"""Memory writes survive SIGKILL at any instant and concurrent writers lose nothing.

Crash safety: a forked child rewrites MEMORY.md through the store's locked atomic save in a
loop, each generation replacing one large entry with the next; the parent kills it with
SIGKILL after a random delay, hundreds of times. After every kill the file must parse to
exactly the entry list of one complete generation (never a torn or empty file), and a
fresh store must load it.

Concurrency: several processes add distinct entries at once, soulscan's and (when the
oracle venv is present) the real runtime's together, since both take the same
``MEMORY.md.lock``; every entry must be in the file afterwards.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support.oracle import ORACLE_PYTHON

from soulscan.hermes.atomic import exclusive_lock
from soulscan.hermes.memory import MemoryStore
from soulscan.hermes.memory_format import parse_entries

KILLS = 300
SLOW_KILLS = 3000
BIG_LIMIT = 1_000_000
STABLE_ENTRIES = ["stable fact one", "stable fact two — ünïcödé §"]


def generation_entry(gen: int) -> str:
    """A large entry whose every byte depends on ``gen``: a torn write cannot pass for one."""
    rng = random.Random(gen)
    chars = "".join(rng.choice("abcdefghij §") for _ in range(6000))
    body = "\n".join(chars[i : i + 80] for i in range(0, len(chars), 80))  # no line is a lone §
    return f"generation {gen}\n{body}\nend {gen}"


def _generation_of(entries: list[str]) -> int | None:
    """Which generation a parsed file is, or None when it is no complete generation."""
    if len(entries) != len(STABLE_ENTRIES) + 1 or entries[:2] != STABLE_ENTRIES:
        return None
    head = entries[2].split("\n", 1)[0]
    if not head.startswith("generation "):
        return None
    gen = int(head.removeprefix("generation "))
    return gen if parse_entries(generation_entry(gen)) == [entries[2]] else None


def _child_rewrites_forever(home: Path, start: int) -> None:
    """Rewrite generation after generation through the store's write path (lock + atomic save).

    The batch API would spend most of its time in the strict scan of the big entry; the
    write path is what crash safety is about, so the child drives it directly.
    """
    store = MemoryStore(home, memory_char_limit=BIG_LIMIT)
    gen = start
    while True:
        with exclusive_lock(store.path_for("memory")):
            store.memory_entries = [*STABLE_ENTRIES, generation_entry(gen + 1)]
            store.save_to_disk("memory")
        gen += 1


def _kills(request: pytest.FixtureRequest) -> int:
    return SLOW_KILLS if request.config.getoption("--slow") else KILLS


def test_sigkill_never_leaves_a_torn_file(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    home = tmp_path / "hh"
    MemoryStore(home, memory_char_limit=BIG_LIMIT).apply_batch(
        "memory", [{"action": "add", "content": e} for e in [*STABLE_ENTRIES, generation_entry(0)]]
    )
    path = home / "memories" / "MEMORY.md"
    rng = random.Random(1234)
    gen, advanced = 0, 0
    for _ in range(_kills(request)):
        pid = os.fork()
        if pid == 0:  # child: never returns into pytest
            try:
                _child_rewrites_forever(home, gen)
            finally:
                os._exit(4)
        time.sleep(rng.uniform(0, 0.02))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), f"child ended on its own (status {status})"
        found = _generation_of(parse_entries(path.read_text(encoding="utf-8")))
        assert found is not None and found >= gen, (
            f"torn or stale file after a kill (last gen {gen})"
        )
        advanced += found > gen
        gen = found
    fresh = MemoryStore(home, memory_char_limit=BIG_LIMIT)
    fresh.load_from_disk()
    assert fresh.memory_entries == [*STABLE_ENTRIES, generation_entry(gen)]
    assert advanced > 0, "no kill landed after a completed write: the test proved nothing"
    print(
        f"\ncrash safety: {_kills(request)} SIGKILLs, {advanced} after at least one completed rewrite, file always one whole generation"
    )


def _soulscan_adder(home: Path, label: str, count: int) -> None:
    store = MemoryStore(home, memory_char_limit=BIG_LIMIT)
    for i in range(count):
        if not store.add("memory", f"{label} entry {i}").get("success"):
            os._exit(3)
    os._exit(0)


_ORACLE_ADDER = """
import os, sys
os.environ["HERMES_HOME"] = sys.argv[1]
from tools.memory_tool import MemoryStore
store = MemoryStore(memory_char_limit=int(sys.argv[3]))
for i in range(int(sys.argv[2])):
    assert store.add("memory", f"hermes entry {i}")["success"]
"""


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "hh"
    count, writers = 40, 4
    oracle = None
    if ORACLE_PYTHON.exists():
        oracle = subprocess.Popen(
            [str(ORACLE_PYTHON), "-I", "-c", _ORACLE_ADDER, str(home), str(count), str(BIG_LIMIT)],
            stderr=subprocess.PIPE,
            cwd=os.sep,
        )
    pids = []
    for w in range(writers):
        pid = os.fork()
        if pid == 0:
            try:
                _soulscan_adder(home, f"writer {w}", count)
            finally:
                os._exit(4)
        pids.append(pid)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    expected = {f"writer {w} entry {i}" for w in range(writers) for i in range(count)}
    if oracle is not None:
        _, err = oracle.communicate(timeout=60)
        assert oracle.returncode == 0, err.decode(errors="replace")
        expected |= {f"hermes entry {i}" for i in range(count)}
    entries = parse_entries((home / "memories" / "MEMORY.md").read_text(encoding="utf-8"))
    assert set(entries) == expected
    assert len(entries) == len(expected)
