"""pipeline.read_target reads a file as one ``read(limit + 1)`` would, without asking for
the whole limit at once (which allocates it for every small file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.discovery import Target
from soulscan.errors import SoulscanError
from soulscan.pipeline import _read_up_to, read_target


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 3000), limit=st.integers(1, 2500), first=st.integers(1, 4000),
       chunk=st.sampled_from([1, 7, 1 << 20]))
def test_reads_what_one_read_of_the_limit_reads(
    tmp_path_factory: pytest.TempPathFactory, size: int, limit: int, first: int, chunk: int
) -> None:
    """Whatever the size hint says (a file that grew or shrank since ``fstat``) and however
    small the later reads, the bytes are the file's first ``limit``."""
    from soulscan import pipeline

    path = tmp_path_factory.mktemp("read") / "f"
    content = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path.write_bytes(content)
    saved = pipeline._READ_CHUNK
    pipeline._READ_CHUNK = chunk
    try:
        descriptor = os.open(path, os.O_RDONLY)
        try:
            assert _read_up_to(descriptor, limit, first) == content[:limit]
        finally:
            os.close(descriptor)
    finally:
        pipeline._READ_CHUNK = saved


def test_a_file_over_the_limit_is_an_error_and_one_at_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"x" * 100)
    target = Target(path, "AGENTS.md", "agents")
    assert read_target(target, 100) == b"x" * 100
    with pytest.raises(SoulscanError, match="larger than the --max-file-size limit of 99"):
        read_target(target, 99)
    with pytest.raises(SoulscanError, match="not a regular file"):
        read_target(Target(tmp_path, "dir", "agents"), 100)
