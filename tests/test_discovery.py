"""discover(): paths → (file, kind) as Hermes names them; problems become recorded errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from soulscan.discovery import Discovery, discover, kind_of


def _tree(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if relative.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_text(text, encoding="utf-8")


def _found(discovery: Discovery, root: Path) -> list[tuple[str, str]]:
    return [
        (Path(target.display).relative_to(root).as_posix(), target.kind)
        for target in discovery.targets
    ]


@pytest.mark.parametrize(
    ("relative", "kind"),
    [
        pytest.param("SOUL.md", "soul", id="soul"),
        pytest.param(".hermes.md", "hermes", id="dot-hermes"),
        pytest.param("HERMES.md", "hermes", id="upper-hermes"),
        pytest.param("AGENTS.md", "agents", id="agents"),
        pytest.param("agents.md", "agents", id="agents-lower"),
        pytest.param("CLAUDE.md", "claude", id="claude"),
        pytest.param("claude.md", "claude", id="claude-lower"),
        pytest.param(".cursorrules", "cursorrules", id="cursorrules"),
        pytest.param(".cursor/rules/a.mdc", "mdc", id="mdc"),
        pytest.param(".cursor/rules/.hidden.mdc", "mdc", id="mdc-dotfile"),
        pytest.param(".cursor/rules/x.MDC", None, id="mdc-suffix-case-sensitive"),
        pytest.param(".cursor/rules/sub/a.mdc", None, id="mdc-not-recursive"),
        pytest.param("rules/a.mdc", None, id="mdc-outside-cursor"),
        pytest.param("memories/MEMORY.md", "memory", id="memory"),
        pytest.param("memories/USER.md", "user", id="user"),
        pytest.param("MEMORY.md", None, id="memory-outside-memories"),
        pytest.param("Agents.md", None, id="mixed-case-not-read"),
        pytest.param("README.md", None, id="other-markdown"),
    ],
)
def test_kind_of(relative: str, kind: str | None) -> None:
    assert kind_of(Path("/project") / relative) == kind


def test_directory_walk_is_sorted_and_skips_vendored_directories(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "AGENTS.md": "a", "CLAUDE.md": "c", "README.md": "r", ".cursorrules": "x",
        ".cursor/rules/b.mdc": "b", ".cursor/rules/a.mdc": "a",
        "sub/AGENTS.md": "s", "sub/deeper/.hermes.md": "h",
        ".git/AGENTS.md": "g", ".venv/AGENTS.md": "v", "node_modules/pkg/AGENTS.md": "n",
        "oracle-env/pyvenv.cfg": "home = /usr", "oracle-env/lib/AGENTS.md": "o",
    })
    # Files of a directory first, then its subdirectories, each sorted by code point.
    assert _found(discover([str(tmp_path)]), tmp_path) == [
        (".cursorrules", "cursorrules"), ("AGENTS.md", "agents"), ("CLAUDE.md", "claude"),
        (".cursor/rules/a.mdc", "mdc"), (".cursor/rules/b.mdc", "mdc"),
        ("sub/AGENTS.md", "agents"), ("sub/deeper/.hermes.md", "hermes"),
    ]


@pytest.mark.parametrize(
    ("exclude", "expected"),
    [
        pytest.param(("sub",), [("AGENTS.md", "agents")], id="directory-name"),
        pytest.param(("sub/*",), [("AGENTS.md", "agents")], id="relative-glob"),
        pytest.param(("AGENTS.md",), [], id="file-name-anywhere"),
        pytest.param((), [("AGENTS.md", "agents"), ("sub/AGENTS.md", "agents")], id="none"),
    ],
)
def test_exclude_globs(tmp_path: Path, exclude: tuple[str, ...], expected: list[tuple[str, str]]) -> None:
    _tree(tmp_path, {"AGENTS.md": "a", "sub/AGENTS.md": "s"})
    assert _found(discover([str(tmp_path)], exclude=exclude), tmp_path) == expected


def test_forced_kind_takes_every_regular_file(tmp_path: Path) -> None:
    _tree(tmp_path, {"notes.txt": "n", "x/persona.md": "p"})
    found = _found(discover([str(tmp_path)], forced_kind="soul"), tmp_path)
    assert found == [("notes.txt", "soul"), ("x/persona.md", "soul")]


def test_explicit_file_with_unknown_name_needs_as(tmp_path: Path) -> None:
    _tree(tmp_path, {"persona.md": "p"})
    discovery = discover([str(tmp_path / "persona.md")])
    assert discovery.targets == ()
    assert [error.message.split(";")[0] for error in discovery.errors] == [
        "not a file Hermes reads by this name"
    ]
    assert discover([str(tmp_path / "persona.md")], forced_kind="agents").targets[0].kind == "agents"


def test_stdin_and_missing_paths(tmp_path: Path) -> None:
    discovery = discover(["-", str(tmp_path / "absent"), "-"])
    assert [(t.path, t.display, t.kind) for t in discovery.targets] == [(None, "<stdin>", "agents")]
    assert [e.message for e in discovery.errors] == [
        "no such file or directory", "standard input named more than once",
    ]


def test_same_file_twice_is_scanned_once(tmp_path: Path) -> None:
    _tree(tmp_path, {"AGENTS.md": "a"})
    assert len(discover([str(tmp_path), str(tmp_path / "AGENTS.md")]).targets) == 1


def test_hermes_home_files_and_missing_soul_note(tmp_path: Path) -> None:
    _tree(tmp_path, {"memories/MEMORY.md": "m", "memories/USER.md": "u", "skills/AGENTS.md": "s"})
    discovery = discover([], hermes_home=tmp_path)
    assert _found(discovery, tmp_path) == [("memories/MEMORY.md", "memory"), ("memories/USER.md", "user")]
    assert len(discovery.notes) == 1 and "default SOUL.md" in discovery.notes[0]


def test_symlinks_are_not_followed_and_noted(tmp_path: Path) -> None:
    _tree(tmp_path, {"real/AGENTS.md": "a", "project/CLAUDE.md": "c"})
    (tmp_path / "project" / "AGENTS.md").symlink_to(tmp_path / "real" / "AGENTS.md")
    (tmp_path / "project" / "linked").symlink_to(tmp_path / "real")
    discovery = discover([str(tmp_path / "project")])
    assert _found(discovery, tmp_path) == [("project/CLAUDE.md", "claude")]
    assert len(discovery.notes) == 1
    assert discovery.notes[0].startswith("skipped 2 symbolic link(s)")
    assert discovery.errors == ()


def test_follow_symlinks_survives_a_loop(tmp_path: Path) -> None:
    _tree(tmp_path, {"project/AGENTS.md": "a"})
    (tmp_path / "project" / "loop").symlink_to(tmp_path / "project")
    (tmp_path / "project" / "self").symlink_to(tmp_path / "project" / "self")
    discovery = discover([str(tmp_path / "project")], follow_symlinks=True)
    assert _found(discovery, tmp_path) == [("project/AGENTS.md", "agents")]
    assert [error.message for error in discovery.errors] == ["symbolic link loop"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda p: os.mkfifo(p), "not a regular file (a FIFO)", id="fifo"),
        pytest.param(lambda p: p.mkdir(), None, id="directory-with-the-name-is-walked"),
        pytest.param(lambda p: p.symlink_to(p), "symbolic link loop", id="explicit-link-loop"),
        pytest.param(lambda p: p.symlink_to(p.parent / "gone"), "dangling symbolic link", id="dangling"),
    ],
)
def test_special_files_named_explicitly(tmp_path: Path, make, message: str | None) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "AGENTS.md"
    make(path)
    discovery = discover([str(path)])
    assert discovery.targets == ()
    assert [error.message for error in discovery.errors] == ([message] if message else [])


def test_fifo_with_a_context_name_inside_a_directory(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "CLAUDE.md")
    _tree(tmp_path, {"AGENTS.md": "a"})
    os.mkfifo(tmp_path / "unrelated.pipe")
    discovery = discover([str(tmp_path)])
    assert _found(discovery, tmp_path) == [("AGENTS.md", "agents")]
    assert [(Path(e.path).name, e.message) for e in discovery.errors] == [
        ("CLAUDE.md", "not a regular file (a FIFO)")
    ]


def test_unreadable_directory_is_a_recorded_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, {"ok/AGENTS.md": "a", "locked/AGENTS.md": "l"})
    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    discovery = discover([str(tmp_path)])
    assert _found(discovery, tmp_path) == [("ok/AGENTS.md", "agents")]
    assert [(Path(e.path).name, e.message) for e in discovery.errors] == [("locked", "permission denied")]


@pytest.mark.parametrize(
    ("files", "argument", "expected"),
    [
        pytest.param(
            {".git/": "", ".hermes.md": "h", "a/b/AGENTS.md": "x"}, "a/b",
            [(".hermes.md", "hermes"), ("a/b/AGENTS.md", "agents")], id="up-to-git-root",
        ),
        pytest.param(
            {".git/": "", "HERMES.md": "u", "a/.hermes.md": "h", "a/b/AGENTS.md": "x"}, "a/b",
            [("a/.hermes.md", "hermes"), ("a/b/AGENTS.md", "agents")], id="nearest-wins",
        ),
        pytest.param(
            {".hermes.md": "h", "a/AGENTS.md": "x"}, "a", [("a/AGENTS.md", "agents")],
            id="no-git-root-no-walk",
        ),
        pytest.param(
            {".hermes.md": "h", "a/.git": "gitdir: x", "a/b/AGENTS.md": "x"}, "a/b",
            [("a/b/AGENTS.md", "agents")], id="nearest-git-bounds-it",
        ),
    ],
)
def test_parent_hermes_md_of_a_directory_argument(
    tmp_path: Path, files: dict[str, str], argument: str, expected: list[tuple[str, str]]
) -> None:
    _tree(tmp_path, files)
    assert _found(discover([str(tmp_path / argument)]), tmp_path) == expected


def test_unreadable_directory_probe_never_crashes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, {"ok/AGENTS.md": "a"})
    real_stat = os.stat

    def stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("pyvenv.cfg"):
            raise PermissionError(13, "Permission denied")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    assert _found(discover([str(tmp_path)]), tmp_path) == [("ok/AGENTS.md", "agents")]
