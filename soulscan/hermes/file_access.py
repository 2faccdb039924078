"""Hermes 0.19.0's write-deny list and read block (`agent/file_safety.py`), explicit homes.

The runtime takes ``~``, ``HERMES_HOME`` and the Hermes root from the process; here each
is an argument. Verdicts and messages are the runtime's, character for character;
``realpath``/``resolve`` follow symlinks on disk exactly as the runtime's calls do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

SOFT_GUARD_TAIL: Final = (
    "(Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"
)

# Project-local secret files that the read guard refuses anywhere on disk
# (compared case-insensitively against the basename).
BLOCKED_ENV_BASENAMES: Final = frozenset(
    {
        ".env",
        ".env.local",
        ".env.development",
        ".env.production",
        ".env.test",
        ".env.staging",
        ".envrc",
    }
)

# Hermes credential stores, relative to HERMES_HOME and to the Hermes root.
HERMES_CREDENTIAL_FILES: Final = (
    "auth.json",
    "auth.lock",
    ".anthropic_oauth.json",
    ".env",
    "webhook_subscriptions.json",
    os.path.join("auth", "google_oauth.json"),
    os.path.join("cache", "bws_cache.json"),
)


def expand_user(path: str, home: str | None = None) -> str:
    """``os.path.expanduser`` with an optional explicit home for ``~`` and ``~/…``."""
    if home is not None and (path == "~" or path.startswith("~/")):
        return home + path[1:]
    return os.path.expanduser(path)


def default_hermes_root(hermes_home: str, home: str | None = None) -> str:
    """The Hermes root the runtime derives from HERMES_HOME (POSIX layout).

    ``~/.hermes`` when HERMES_HOME lies under it; ``<root>`` for a
    ``<root>/profiles/<name>`` home elsewhere; otherwise HERMES_HOME itself.
    """
    native = Path(expand_user("~", home)) / ".hermes"
    try:
        Path(hermes_home).resolve().relative_to(native.resolve())
        return str(native)
    except ValueError:
        pass
    env_path = Path(hermes_home)
    if env_path.parent.name == "profiles":
        return str(env_path.parent.parent)
    return str(env_path)


# --- write deny list -----------------------------------------------------------


def _denied_write_paths(home: str, hermes_dirs: Iterable[str]) -> set[str]:
    exact = [
        os.path.join(home, ".ssh", name)
        for name in ("authorized_keys", "id_rsa", "id_ed25519", "config")
    ]
    for base in hermes_dirs:
        exact += [os.path.join(base, ".env"), os.path.join(base, ".anthropic_oauth.json")]
    exact += [
        os.path.join(home, name)
        for name in (".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials")
    ]
    exact += ["/etc/sudoers", "/etc/passwd", "/etc/shadow"]
    return {os.path.realpath(p) for p in exact}


def _denied_write_prefixes(home: str) -> list[str]:
    dirs = [os.path.join(home, name) for name in (".ssh", ".aws", ".gnupg", ".kube")]
    dirs += ["/etc/sudoers.d", "/etc/systemd"]
    dirs += [os.path.join(home, ".docker"), os.path.join(home, ".azure")]
    dirs += [os.path.join(home, ".config", "gh"), os.path.join(home, ".config", "gcloud")]
    return [os.path.realpath(p) + os.sep for p in dirs]


def _inside(resolved: str, directory: str) -> bool:
    return resolved == directory or resolved.startswith(directory + os.sep)


def _hermes_dirs_real(hermes_home: str, hermes_root: str) -> list[str]:
    dirs: list[str] = []
    for base in (hermes_home, hermes_root):
        real = os.path.realpath(base)
        if real not in dirs:
            dirs.append(real)
    return dirs


def classify_write_denial(
    path: str,
    *,
    home: str,
    hermes_home: str,
    hermes_root: str | None = None,
    safe_roots: Iterable[str] = (),
) -> str | None:
    """``"credential"``, ``"state"``, ``"safe_root"`` or None when the runtime allows the write.

    ``safe_roots`` plays the part of ``HERMES_WRITE_SAFE_ROOT``: when non-empty,
    anything outside all of them is refused.
    """
    root = hermes_root if hermes_root is not None else default_hermes_root(hermes_home, home)
    home_real = os.path.realpath(expand_user(home))
    resolved = os.path.realpath(expand_user(str(path), home_real))
    if resolved in _denied_write_paths(home_real, (hermes_home, root)):
        return "credential"
    if any(resolved.startswith(prefix) for prefix in _denied_write_prefixes(home_real)):
        return "credential"
    for base in _hermes_dirs_real(hermes_home, root):
        if resolved == os.path.realpath(os.path.join(base, "state.db")):
            return "state"
        if _inside(resolved, os.path.realpath(os.path.join(base, "sessions"))):
            return "state"
        for area in ("mcp-tokens", "pairing"):
            if _inside(resolved, os.path.realpath(os.path.join(base, area))):
                return "credential"
    roots = {os.path.realpath(expand_user(r, home_real)) for r in safe_roots if r}
    if roots and not any(_inside(resolved, r) for r in roots):
        return "safe_root"
    return None


def get_write_denied_error(
    path: str,
    *,
    home: str,
    hermes_home: str,
    hermes_root: str | None = None,
    safe_roots: Iterable[str] = (),
    verb: str = "Write",
) -> str | None:
    roots = [r for r in safe_roots if r]
    denial = classify_write_denial(
        path, home=home, hermes_home=hermes_home, hermes_root=hermes_root, safe_roots=roots
    )
    if denial is None:
        return None
    if denial == "safe_root":
        shown = os.pathsep.join(sorted({os.path.realpath(expand_user(r, home)) for r in roots}))
        return (
            f"{verb} denied: '{path}' is outside HERMES_WRITE_SAFE_ROOT "
            f"({shown}). Unset the variable or add this path's directory prefix."
        )
    return f"{verb} denied: '{path}' is a protected system/credential file."


# --- read block ------------------------------------------------------------------


def get_read_block_error(
    path: str, *, hermes_home: str, hermes_root: str | None = None, home: str | None = None
) -> str | None:
    """The runtime's refusal to read a Hermes cache, credential store or project ``.env``."""
    root = hermes_root if hermes_root is not None else default_hermes_root(hermes_home, home)
    resolved = Path(expand_user(path, home)).resolve()
    hermes_dirs: list[Path] = []
    for base in (Path(hermes_home), Path(root)):
        real = base.resolve()
        if real not in hermes_dirs:
            hermes_dirs.append(real)
    for hd in hermes_dirs:
        hub = hd / "skills" / ".hub"
        if resolved == hub or hub in resolved.parents:
            return (
                f"Access denied: {path} is an internal Hermes cache file "
                "and cannot be read directly to prevent prompt injection. "
                "Use the skills_list or skill_view tools instead."
            )
    for hd in hermes_dirs:
        if any(resolved == (hd / name).resolve() for name in HERMES_CREDENTIAL_FILES):
            return (
                f"Access denied: {path} is a Hermes credential store "
                "and cannot be read directly. Provider tools consume "
                "these credentials through internal channels. " + SOFT_GUARD_TAIL
            )
    for hd in hermes_dirs:
        tokens = (hd / "mcp-tokens").resolve()
        if resolved == tokens:
            return (
                f"Access denied: {path} is the Hermes MCP token directory and cannot be read directly. "
                + SOFT_GUARD_TAIL
            )
        if tokens in resolved.parents:
            return (
                f"Access denied: {path} is a Hermes MCP token file and cannot be read directly. "
                + SOFT_GUARD_TAIL
            )
    if resolved.name.lower() in BLOCKED_ENV_BASENAMES:
        return (
            f"Access denied: {path} is a secret-bearing environment file "
            "and cannot be read to prevent credential leakage. "
            "If you need to check the file structure, read .env.example instead. " + SOFT_GUARD_TAIL
        )
    return None
