"""``soulscan hermes``: every prompt surface of a Hermes 0.19.0 installation, as one report.

One module per surface turns a home into ``AuditItem``s (a piece of text that can reach
the model, where it sits, and what the runtime does with it); ``report.item_result``
adds the hardened findings and makes each a ``FileResult``, so every reporter and the
policy/baseline machinery of ``soulscan scan`` apply unchanged. The default home and
every ``profiles/<name>/`` are audited alike. Nothing in the home is written.
"""

from __future__ import annotations

from pathlib import Path

from soulscan.audit.config_prompts import config_prompt_items
from soulscan.audit.context import config_item, context_results
from soulscan.audit.cron import cron_items
from soulscan.audit.env import env_items, prompt_variables
from soulscan.audit.homes import Home, UnreadableConfig, installation_paths, load_home
from soulscan.audit.pending import pending_items
from soulscan.audit.prefill import prefill_items
from soulscan.audit.report import AuditItem, item_result
from soulscan.audit.skills import skill_results
from soulscan.audit.state_db import state_db_items
from soulscan.audit.webhooks import webhook_items
from soulscan.errors import InputError
from soulscan.models import FileResult, ScanError, ScanReport
from soulscan.pipeline import PROFILES, ScanOptions
from soulscan.report.escape import escape_text


def _home_results(home: Home, options: ScanOptions) -> tuple[list[FileResult], list[ScanError]]:
    results: list[FileResult] = []
    errors: list[ScanError] = []
    for outcome in context_results(home, options):
        if isinstance(outcome, FileResult):
            results.append(outcome)
        else:
            errors.append(outcome)
    env = prompt_variables(home.path)
    items: list[AuditItem] = []
    settings = config_item(home, options.context_length)
    if settings is not None:
        items.append(settings)
    items += config_prompt_items(home, env)
    items += env_items(home, env)
    items += prefill_items(home, env)
    items += webhook_items(home)
    results += [item_result(item, options.profile) for item in items]
    skill_files, skill_items, skill_errors = skill_results(home, options.profile)
    results += skill_files
    errors += skill_errors
    later = skill_items + cron_items(home) + pending_items(home)
    stored, stored_errors = state_db_items(home)
    errors += stored_errors
    results += [item_result(item, options.profile) for item in later + stored]
    return results, errors


def audit_installation(root: Path, options: ScanOptions) -> ScanReport:
    """Every surface of the home at ``root`` and of each of its profiles."""
    if options.profile not in PROFILES:
        raise InputError(f"unknown profile {options.profile!r}; use one of {', '.join(PROFILES)}")
    if not root.is_dir():
        raise InputError(f"{escape_text(str(root))}: not a directory (expected a Hermes home)")
    files: list[FileResult] = []
    errors: list[ScanError] = []
    for label, path in installation_paths(root):
        try:
            home = load_home(label, path)
        except UnreadableConfig as exc:
            errors.append(ScanError(str(exc), "not a regular file; Hermes cannot use it and "
                                              "soulscan does not audit this home"))
            continue
        results, home_errors = _home_results(home, options)
        files += results
        errors += home_errors
    return ScanReport(tuple(files), tuple(errors))
