"""Hermes 0.19.0 file-safety checks (`agent/file_safety.py`), with explicit homes.

The runtime reads ``~``, ``HERMES_HOME`` and the Hermes root from the process;
here every home is an argument so a linter or a hook can ask about any layout.
Results and messages are the runtime's, character for character. All checks
are pure path logic except ``realpath``/``resolve``, which follow symlinks that
exist on disk, exactly like the runtime.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final, TypedDict

_SOFT_GUARD_TAIL: Final = (
    "(Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"
)

# Areas of a profile that the cross-profile guard protects.
PROFILE_SCOPED_AREAS: Final = ("skills", "plugins", "cron", "memories")

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


class MirrorTarget(TypedDict):
    target_path: str
    mirror_root: str
    inner_path: str


class CrossProfileTarget(TypedDict):
    active_profile: str
    target_profile: str
    area: str
    target_path: str


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


# --- container and sandbox mirrors -------------------------------------------


def classify_container_mirror_target(
    path: str, mirror_prefix: str | None = None, *, home: str | None = None
) -> MirrorTarget | None:
    """Where ``path`` falls inside a container's bind-mounted Hermes home, if it does."""
    if not mirror_prefix:
        return None
    try:
        target = Path(expand_user(str(path), home)).resolve()
        mirror = Path(expand_user(mirror_prefix, home)).resolve()
        inner = target.relative_to(mirror)
    except (OSError, RuntimeError, ValueError):
        return None
    return {"target_path": str(target), "mirror_root": str(mirror), "inner_path": inner.as_posix()}


def get_container_mirror_warning(
    path: str, mirror_prefix: str | None = None, *, home: str | None = None
) -> str | None:
    info = classify_container_mirror_target(path, mirror_prefix, home=home)
    if info is None:
        return None
    return (
        f"Sandbox-mirror write blocked by soft guard: {info['target_path']} "
        f"sits under {info['mirror_root']!r}, which is the container's "
        "bind-mounted home — a per-task mirror that the host Hermes "
        "process never reads. The authoritative file is "
        f"{info['inner_path']!r} under the real HERMES_HOME. Use the "
        "host-side tool for authoritative state (e.g. ``memory`` for "
        "memories), or address the host path directly. To bypass after "
        "explicit user direction, retry with ``cross_profile=True``. " + _SOFT_GUARD_TAIL
    )


def _sandbox_inner_index(parts: tuple[str, ...]) -> int | None:
    """Index of ``.hermes`` in the first ``sandboxes/<b>/<t>/home/.hermes/<x>`` run."""
    for i, part in enumerate(parts):
        shaped = i + 5 < len(parts) and parts[i + 3] == "home" and parts[i + 4] == ".hermes"
        if part == "sandboxes" and shaped:
            return i + 4
    return None


def classify_sandbox_mirror_target(path: str, *, home: str | None = None) -> MirrorTarget | None:
    """Where ``path`` falls inside a host-side per-task sandbox mirror, if it does."""
    try:
        target = Path(expand_user(str(path), home)).resolve()
    except (OSError, RuntimeError):
        return None
    parts = target.parts
    inner_index = _sandbox_inner_index(parts)
    if inner_index is None:
        return None
    inner = str(Path(*parts[inner_index + 1 :])) if inner_index + 1 < len(parts) else ""
    return {
        "target_path": str(target),
        "mirror_root": str(Path(*parts[: inner_index + 1])),
        "inner_path": inner,
    }


def get_sandbox_mirror_warning(path: str, *, home: str | None = None) -> str | None:
    info = classify_sandbox_mirror_target(path, home=home)
    if info is None:
        return None
    return (
        f"Sandbox-mirror write blocked by soft guard: {info['target_path']} "
        f"sits under {info['mirror_root']!r}, which is a per-task mirror "
        "created by a non-local terminal backend (docker/daytona/etc.). "
        "Writes here land on a copy that the host Hermes process never "
        f"reads — the authoritative file is likely {info['inner_path']!r} "
        "under the real HERMES_HOME. Use the host-side tool for "
        "authoritative state (e.g. ``memory`` for memories), or address "
        "the host path directly. To bypass this guard after explicit "
        "user direction, retry the call with ``cross_profile=True``. " + _SOFT_GUARD_TAIL
    )


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
                "these credentials through internal channels. " + _SOFT_GUARD_TAIL
            )
    for hd in hermes_dirs:
        tokens = (hd / "mcp-tokens").resolve()
        if resolved == tokens:
            return (
                f"Access denied: {path} is the Hermes MCP token directory and cannot be read directly. "
                + _SOFT_GUARD_TAIL
            )
        if tokens in resolved.parents:
            return (
                f"Access denied: {path} is a Hermes MCP token file and cannot be read directly. "
                + _SOFT_GUARD_TAIL
            )
    if resolved.name.lower() in BLOCKED_ENV_BASENAMES:
        return (
            f"Access denied: {path} is a secret-bearing environment file "
            "and cannot be read to prevent credential leakage. "
            "If you need to check the file structure, read .env.example instead. "
            + _SOFT_GUARD_TAIL
        )
    return None


# --- cross-profile guard ---------------------------------------------------------


def active_profile_name(hermes_home: str, hermes_root: str) -> str:
    """``default`` for the root itself, ``X`` for ``<root>/profiles/X[/…]``."""
    try:
        rel = Path(hermes_home).resolve().relative_to(Path(hermes_root).resolve() / "profiles")
    except (ValueError, OSError, RuntimeError):
        return "default"
    return rel.parts[0] if rel.parts else "default"


def classify_cross_profile_target(
    path: str, *, hermes_home: str, hermes_root: str | None = None, home: str | None = None
) -> CrossProfileTarget | None:
    """The other profile and area a write lands in, or None for in-profile/outside paths."""
    root = hermes_root if hermes_root is not None else default_hermes_root(hermes_home, home)
    try:
        target = Path(expand_user(str(path), home)).resolve()
        rel = target.relative_to(Path(root).resolve())
    except (OSError, RuntimeError, ValueError):
        return None
    parts = rel.parts
    if parts and parts[0] in PROFILE_SCOPED_AREAS:
        target_profile, area = "default", parts[0]
    elif len(parts) >= 3 and parts[0] == "profiles" and parts[2] in PROFILE_SCOPED_AREAS:
        target_profile, area = parts[1], parts[2]
    else:
        return None
    active = active_profile_name(hermes_home, root)
    if target_profile == active:
        return None
    return {
        "active_profile": active,
        "target_profile": target_profile,
        "area": area,
        "target_path": str(target),
    }


def get_cross_profile_warning(
    path: str, *, hermes_home: str, hermes_root: str | None = None, home: str | None = None
) -> str | None:
    info = classify_cross_profile_target(
        path, hermes_home=hermes_home, hermes_root=hermes_root, home=home
    )
    if info is None:
        return None
    return (
        f"Cross-profile write blocked by soft guard: {info['target_path']} "
        f"belongs to Hermes profile {info['target_profile']!r}, but the "
        f"agent is running under profile {info['active_profile']!r}. "
        f"Editing another profile's {info['area']}/ will affect that "
        "profile's future sessions, not the one you are currently in. "
        "Confirm with the user before proceeding. To bypass this guard "
        "after explicit user direction, retry the call with "
        "``cross_profile=True``. " + _SOFT_GUARD_TAIL
    )
