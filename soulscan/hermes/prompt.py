"""The three-tier system prompt Hermes 0.19.0 builds (`agent/system_prompt.py`).

Modelled session: an interactive CLI agent as the conformance cases run it — no
tools loaded (so no tool, skills or model-family guidance), environment hints and
the subscription block empty, no external memory provider, no session id line.
Within that, every tier is assembled exactly as the runtime does: each part is
stripped, empty parts are dropped, parts are joined with a blank line.

* stable: the identity slot (SOUL.md, a BLOCKED SOUL placeholder, the SOUL.md
  the runtime would seed, or the default identity), then the runtime's help
  guidance, active-profile line and CLI platform hint;
* context: ``system_message``, then the project context files (skipping SOUL.md
  when it already is the identity), unless ``skip_context_files``;
* volatile: the frozen MEMORY and USER blocks, then the date/model/provider line.

Runtime-owned prose comes from :mod:`soulscan.hermes.runtime_text`. Every part
carries where it came from, so ``soulscan render`` can label it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from soulscan.hermes import runtime_text as rt
from soulscan.hermes.context import build_context_files_prompt
from soulscan.hermes.memory import MemoryStore
from soulscan.hermes.scanner import scan_context_content
from soulscan.hermes.soul import load_soul_md, soul_md_would_be_seeded
from soulscan.hermes.truncation import truncate_content

TIERS = ("stable", "context", "volatile")


@dataclass(frozen=True)
class PromptPart:
    """One part of a tier, before the tier strips and joins its parts."""

    tier: str
    source: str  # what produced it: a file path, "system_message", a runtime block name
    kind: str  # "file", "runtime", "caller", "generated"
    text: str
    note: str = ""


@dataclass(frozen=True)
class PromptParts:
    parts: tuple[PromptPart, ...]
    warnings: tuple[str, ...]
    identity_is_default: bool
    runtime: rt.RuntimeText
    memory_store: MemoryStore | None
    memory_load_error: str | None = None

    def tier(self, name: str) -> str:
        return join_parts(part.text for part in self.parts if part.tier == name)

    @property
    def stable(self) -> str:
        return self.tier("stable")

    @property
    def context(self) -> str:
        return self.tier("context")

    @property
    def volatile(self) -> str:
        return self.tier("volatile")

    @property
    def full_prompt(self) -> str:
        return "\n\n".join(text for text in (self.stable, self.context, self.volatile) if text)

    def as_dict(self) -> dict[str, str]:
        return {"stable": self.stable, "context": self.context, "volatile": self.volatile}


def join_parts(texts: object) -> str:
    """Strip each part, drop empty ones, join with a blank line (the runtime's tier join)."""
    return "\n\n".join(t.strip() for t in texts if t and t.strip())  # type: ignore[attr-defined]


def _seeded_soul(
    hermes_home: Path, runtime: rt.RuntimeText, context_length: object
) -> tuple[str, list[str]]:
    """What the runtime loads right after writing its default SOUL.md into the home."""
    if not runtime.has(rt.DEFAULT_SOUL):
        return runtime.get(rt.DEFAULT_SOUL), []
    content = scan_context_content(runtime.get(rt.DEFAULT_SOUL).strip(), "SOUL.md")
    return truncate_content(
        content,
        "SOUL.md",
        hermes_home=hermes_home,
        context_length=context_length,
        read_path=str(hermes_home / "SOUL.md"),
    )


def _identity(
    hermes_home: Path, runtime: rt.RuntimeText, *, try_soul: bool, context_length: object
) -> tuple[PromptPart, list[str], bool]:
    """The identity part, warnings, and whether SOUL.md filled the slot."""
    soul_path = str(hermes_home / "SOUL.md")
    if try_soul:
        seeded = soul_md_would_be_seeded(hermes_home)
        if seeded is not None:
            text, warnings = _seeded_soul(hermes_home, runtime, context_length)
            note = f"Hermes would first write its default SOUL.md here ({seeded}) and load it"
            return PromptPart("stable", soul_path, "runtime", text, note), warnings, True
        soul, warnings = load_soul_md(hermes_home=hermes_home, context_length=context_length)
        if soul:
            return PromptPart("stable", soul_path, "file", soul), list(warnings), True
        why = "SOUL.md is empty or unreadable" if Path(soul_path).exists() else "no SOUL.md"
        default = PromptPart("stable", rt.IDENTITY, "runtime", runtime.get(rt.IDENTITY), why)
        return default, list(warnings), False
    why = "SOUL.md not consulted (skip_context_files without load_soul_identity)"
    return PromptPart("stable", rt.IDENTITY, "runtime", runtime.get(rt.IDENTITY), why), [], False


def _memory_parts(
    store: MemoryStore, *, memory_enabled: bool, user_profile_enabled: bool
) -> list[PromptPart]:
    parts = []
    for target, enabled in (("memory", memory_enabled), ("user", user_profile_enabled)):
        block = store.format_for_system_prompt(target) if enabled else None
        if block:
            parts.append(PromptPart("volatile", str(store.path_for(target)), "file", block))
    return parts


def timestamp_line(now: dt.datetime, model: str, provider: str) -> str:
    line = f"Conversation started: {now.strftime('%A, %B %d, %Y')}"
    if model:
        line += f"\nModel: {model}"
    if provider:
        line += f"\nProvider: {provider}"
    return line


def build_system_prompt_parts(
    *,
    hermes_home: str | Path,
    cwd: str | Path,
    system_message: str | None = None,
    context_length: int | None = None,
    skip_context_files: bool = False,
    load_soul_identity: bool = False,
    memory_enabled: bool = True,
    user_profile_enabled: bool = True,
    memory_char_limit: int = 2200,
    user_char_limit: int = 1375,
    model: str = "",
    provider: str = "",
    now: dt.datetime | None = None,
    hermes_python: str | None = None,
) -> PromptParts:
    """The stable, context and volatile tiers for this home and working directory."""
    home = Path(hermes_home)
    runtime = rt.fetch_runtime_text(home, hermes_python)
    identity, warnings, soul_is_identity = _identity(
        home,
        runtime,
        try_soul=load_soul_identity or not skip_context_files,
        context_length=context_length,
    )
    parts = [identity]
    parts += [
        PromptPart("stable", name, "runtime", runtime.get(name))
        for name in (rt.HELP_GUIDANCE, rt.PROFILE_LINE, rt.CLI_HINT)
    ]
    if system_message is not None:
        parts.append(PromptPart("context", "system_message", "caller", system_message))
    if not skip_context_files:
        project, context_warnings = build_context_files_prompt(
            cwd, hermes_home=home, skip_soul=soul_is_identity, context_length=context_length
        )
        warnings += context_warnings
        parts.append(PromptPart("context", str(Path(cwd).resolve()), "file", project))
    store: MemoryStore | None = MemoryStore(home, memory_char_limit, user_char_limit)
    load_error = None
    try:
        store.load_from_disk()  # type: ignore[union-attr]
    except (UnicodeDecodeError, ValueError) as exc:
        # The agent swallows this: the store stays empty and no memory block appears.
        load_error = f"{type(exc).__name__}: {exc}"
        store = None
    if store is not None:
        parts += _memory_parts(
            store, memory_enabled=memory_enabled, user_profile_enabled=user_profile_enabled
        )
    moment = now if now is not None else dt.datetime.now().astimezone()
    parts.append(
        PromptPart("volatile", "timestamp", "generated", timestamp_line(moment, model, provider))
    )
    return PromptParts(
        parts=tuple(parts),
        warnings=tuple(warnings),
        identity_is_default=identity.source == rt.IDENTITY,
        runtime=runtime,
        memory_store=store,
        memory_load_error=load_error,
    )
