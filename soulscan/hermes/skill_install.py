"""Trust levels and the install decision of the Hermes 0.19.0 skills guard.

Facts (hermes-agent 0.19.0, `tools/skills_guard.py`):

* A source maps to a trust level after one leading ``skills-sh/``, ``skills.sh/``,
  ``skils-sh/`` or ``skils.sh/`` is dropped: ``agent-created`` → agent-created;
  ``official`` → builtin; one of ``TRUSTED_REPOS`` or a path inside it → trusted;
  anything else → community.
* ``INSTALL_POLICY`` (safe / caution / dangerous) per trust level, an unknown level
  treated as community; a dangerous verdict from a community or trusted source
  cannot be forced. "ask" comes back as ``allowed=None`` (needs confirmation).
* The reason strings below are the runtime's, with its finding count.
"""

from __future__ import annotations

from dataclasses import dataclass

from soulscan.hermes.skills_guard import CAUTION, DANGEROUS, SAFE, VERDICTS

BUILTIN, TRUSTED, COMMUNITY, AGENT_CREATED = "builtin", "trusted", "community", "agent-created"
TRUST_LEVELS = (BUILTIN, TRUSTED, COMMUNITY, AGENT_CREATED)
TRUSTED_REPOS = ("openai/skills", "anthropics/skills", "huggingface/skills", "NVIDIA/skills")
SOURCE_PREFIX_ALIASES = ("skills-sh/", "skills.sh/", "skils-sh/", "skils.sh/")

ALLOW, BLOCK, ASK = "allow", "block", "ask"
INSTALL_POLICY: dict[str, tuple[str, str, str]] = {
    BUILTIN: (ALLOW, ALLOW, ALLOW),
    TRUSTED: (ALLOW, ALLOW, BLOCK),
    COMMUNITY: (ALLOW, BLOCK, BLOCK),
    AGENT_CREATED: (ALLOW, ALLOW, ASK),
}


@dataclass(frozen=True)
class InstallDecision:
    trust_level: str
    verdict: str
    allowed: bool | None  # None: the runtime asks for confirmation
    reason: str

    @property
    def status(self) -> str:
        """The runtime's report word: ALLOWED, BLOCKED or NEEDS CONFIRMATION."""
        if self.allowed is True:
            return "ALLOWED"
        return "NEEDS CONFIRMATION" if self.allowed is None else "BLOCKED"


def resolve_trust_level(source: str) -> str:
    for prefix in SOURCE_PREFIX_ALIASES:
        if source.startswith(prefix):
            source = source[len(prefix):]
            break
    if source == AGENT_CREATED:
        return AGENT_CREATED
    if source == "official":
        return BUILTIN
    if any(source == repo or source.startswith(f"{repo}/") for repo in TRUSTED_REPOS):
        return TRUSTED
    return COMMUNITY


def _unforceable(verdict: str, trust_level: str) -> bool:
    return verdict == DANGEROUS and trust_level in (COMMUNITY, TRUSTED)


def install_decision(
    trust_level: str, verdict: str, finding_count: int, *, force: bool = False
) -> InstallDecision:
    policy = INSTALL_POLICY.get(trust_level, INSTALL_POLICY[COMMUNITY])
    index = VERDICTS.index(verdict) if verdict in VERDICTS else 2
    decision = policy[index]
    label = f"{trust_level} source + {verdict} verdict, {finding_count} findings"

    def result(allowed: bool | None, reason: str) -> InstallDecision:
        return InstallDecision(trust_level, verdict, allowed, reason)

    if decision == ALLOW:
        return result(True, f"Allowed ({trust_level} source, {verdict} verdict)")
    if force and not _unforceable(verdict, trust_level):
        return result(True, f"Force-installed despite {verdict} verdict ({finding_count} findings)")
    if decision == ASK:
        return result(None, f"Requires confirmation ({label})")
    if _unforceable(verdict, trust_level):
        return result(False, f"Blocked ({label}). --force does not override a dangerous verdict.")
    return result(False, f"Blocked ({label}). Use --force to override.")


def decisions_by_trust_level(verdict: str, finding_count: int) -> dict[str, InstallDecision]:
    """What each trust level would do with one verdict (no --force)."""
    return {level: install_decision(level, verdict, finding_count) for level in TRUST_LEVELS}


__all__ = [
    "AGENT_CREATED", "BUILTIN", "CAUTION", "COMMUNITY", "DANGEROUS", "SAFE", "TRUSTED",
    "InstallDecision", "decisions_by_trust_level", "install_decision", "resolve_trust_level",
]
