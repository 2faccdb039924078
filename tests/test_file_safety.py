"""File-safety checks against Hermes 0.19.0's ``agent/file_safety``, home layout by layout.

For four layouts of the Hermes home (native ``~/.hermes``, a profile under it, a custom
home such as a Docker ``/opt/data``, and a profile of that) and a table of paths (credential
files, state, caches, other profiles' areas, sandbox and container mirrors, ``..`` and
``~`` forms), every verdict and message of soulscan's explicit-home functions must equal
the runtime's, which reads the same homes from its environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fixtures import oracle  # noqa: F401 (pytest fixture)
from support.oracle import Oracle

from soulscan.hermes import file_safety as fs

LAYOUTS = {
    "native": "{HOME}/.hermes",
    "native-profile": "{HOME}/.hermes/profiles/coder",
    "custom": "{BASE}/opt/data",
    "custom-profile": "{BASE}/opt/data/profiles/worker",
}
PATHS = [
    "~/.ssh/id_rsa",
    "~/.ssh/known_hosts",
    "~/.aws/credentials",
    "~/.config/gh/hosts.yml",
    "~/.netrc",
    "~/.hermes/../.ssh/config",
    "{HH}/.env",
    "{ROOT}/.env",
    "{HH}/.anthropic_oauth.json",
    "{HH}/state.db",
    "{HH}/sessions",
    "{HH}/sessions/s1.json",
    "{ROOT}/state.db",
    "{HH}/mcp-tokens",
    "{HH}/mcp-tokens/t.json",
    "{ROOT}/pairing/code",
    "{HH}/SOUL.md",
    "{HH}/memories/MEMORY.md",
    "{HH}/skills/x/SKILL.md",
    "{ROOT}/skills/x/SKILL.md",
    "{ROOT}/memories/USER.md",
    "{ROOT}/profiles/other/memories/MEMORY.md",
    "{ROOT}/profiles/coder/cron/jobs.json",
    "{ROOT}/profiles/worker/plugins/p.py",
    "{ROOT}/profiles/x",
    "{ROOT}/profiles/x/notes/skills",
    "{HH}/auth.json",
    "{ROOT}/auth.lock",
    "{HH}/auth/google_oauth.json",
    "{HH}/cache/bws_cache.json",
    "{HH}/webhook_subscriptions.json",
    "{HH}/skills/.hub",
    "{HH}/skills/.hub/index-cache/a.json",
    "{BASE}/work/.env.local",
    "{BASE}/work/.ENVRC",
    "{BASE}/work/.env.example",
    "{BASE}/work/env",
    "{HOME}/sandboxes/docker/t1/home/.hermes/SOUL.md",
    "{HOME}/sandboxes/docker/t1/home/.hermes",
    "{HH}/../x.md",
    "/etc/passwd",
    "/etc/systemd/system/x",
    "relative/file.txt",
]


def _fill(template: str, base: Path, hermes_home: str, root: str) -> str:
    return (
        template.replace("{HH}", hermes_home)
        .replace("{ROOT}", root)
        .replace("{HOME}", str(base / "home"))
        .replace("{BASE}", str(base))
    )


def _ours(path: str, *, home: str, hermes_home: str, mirror_prefix: str) -> dict[str, Any]:
    homes = {"hermes_home": hermes_home, "home": home}
    return {
        "cross_profile": fs.classify_cross_profile_target(path, **homes),
        "cross_profile_warning": fs.get_cross_profile_warning(path, **homes),
        "sandbox": fs.classify_sandbox_mirror_target(path, home=home),
        "container": fs.classify_container_mirror_target(path, mirror_prefix, home=home),
        "write_denied": fs.get_write_denied_error(path, **homes),
        "read_blocked": fs.get_read_block_error(path, **homes),
    }


@pytest.mark.oracle
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_verdict_matches_runtime(oracle: Oracle, tmp_path: Path, layout: str) -> None:  # noqa: F811
    base = tmp_path.resolve()
    home = str(base / "home")
    hermes_home = LAYOUTS[layout].replace("{HOME}", home).replace("{BASE}", str(base))
    root = fs.default_hermes_root(hermes_home, home)
    Path(hermes_home).mkdir(parents=True)
    paths = [_fill(p, base, hermes_home, root) for p in PATHS]
    theirs = oracle.call(
        "file_safety_probe",
        hermes_home=hermes_home,
        home=home,
        paths=paths,
        mirror_prefix=hermes_home,
    )
    mismatches = [
        (path, key, mine[key], want[key])
        for path, want in zip(paths, theirs)
        for mine in [_ours(path, home=home, hermes_home=hermes_home, mirror_prefix=hermes_home)]
        for key in want
        if mine[key] != want[key]
    ]
    assert not mismatches, mismatches[:3]


@pytest.mark.parametrize(
    ("hermes_home", "expected_root"),
    [
        pytest.param("{HOME}/.hermes", "{HOME}/.hermes", id="native"),
        pytest.param("{HOME}/.hermes/profiles/coder", "{HOME}/.hermes", id="native-profile"),
        pytest.param("/opt/data", "/opt/data", id="custom"),
        pytest.param("/opt/data/profiles/w", "/opt/data", id="custom-profile"),
    ],
)
def test_default_hermes_root(tmp_path: Path, hermes_home: str, expected_root: str) -> None:
    home = str(tmp_path)
    root = fs.default_hermes_root(hermes_home.replace("{HOME}", home), home)
    assert root == expected_root.replace("{HOME}", home)


@pytest.mark.parametrize(
    ("safe_roots", "path", "expected"),
    [
        pytest.param([], "{T}/anything", None, id="no-safe-root"),
        pytest.param(["{T}/ok"], "{T}/ok/file", None, id="inside-safe-root"),
        pytest.param(
            ["{T}/ok"],
            "{T}/other/file",
            "Write denied: '{T}/other/file' is outside HERMES_WRITE_SAFE_ROOT ({T}/ok). "
            "Unset the variable or add this path's directory prefix.",
            id="outside-safe-root",
        ),
    ],
)
def test_write_safe_root(
    tmp_path: Path, safe_roots: list[str], path: str, expected: str | None
) -> None:
    t = str(tmp_path.resolve())
    error = fs.get_write_denied_error(
        path.replace("{T}", t),
        home=t + "/home",
        hermes_home=t + "/hh",
        safe_roots=[r.replace("{T}", t) for r in safe_roots],
    )
    assert error == (expected.replace("{T}", t) if expected else None)
