"""Hermes 0.19.0 file-safety checks (`agent/file_safety.py`), with explicit homes.

The runtime reads ``~``, ``HERMES_HOME`` and the Hermes root from the process;
here every home is an argument so a linter or a hook can ask about any layout.
Results and messages are the runtime's, character for character. All checks
are pure path logic except ``realpath``/``resolve``, which follow symlinks that
exist on disk, exactly like the runtime. This module holds the mirror and
cross-profile guards; the write-deny list and the read block live in
:mod:`soulscan.hermes.file_access` and are re-exported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, TypedDict

from soulscan.hermes.file_access import (
    BLOCKED_ENV_BASENAMES,
    HERMES_CREDENTIAL_FILES,
    SOFT_GUARD_TAIL,
    classify_write_denial,
    default_hermes_root,
    expand_user,
    get_read_block_error,
    get_write_denied_error,
)

__all__ = [
    "BLOCKED_ENV_BASENAMES",
    "HERMES_CREDENTIAL_FILES",
    "PROFILE_SCOPED_AREAS",
    "CrossProfileTarget",
    "MirrorTarget",
    "active_profile_name",
    "classify_container_mirror_target",
    "classify_cross_profile_target",
    "classify_sandbox_mirror_target",
    "classify_write_denial",
    "default_hermes_root",
    "expand_user",
    "get_container_mirror_warning",
    "get_cross_profile_warning",
    "get_read_block_error",
    "get_sandbox_mirror_warning",
    "get_write_denied_error",
]

# Areas of a profile that the cross-profile guard protects.
PROFILE_SCOPED_AREAS: Final = ("skills", "plugins", "cron", "memories")


class MirrorTarget(TypedDict):
    target_path: str
    mirror_root: str
    inner_path: str


class CrossProfileTarget(TypedDict):
    active_profile: str
    target_profile: str
    area: str
    target_path: str


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
        "explicit user direction, retry with ``cross_profile=True``. " + SOFT_GUARD_TAIL
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
        "user direction, retry the call with ``cross_profile=True``. " + SOFT_GUARD_TAIL
    )


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
        "``cross_profile=True``. " + SOFT_GUARD_TAIL
    )
