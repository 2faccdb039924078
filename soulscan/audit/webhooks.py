"""Webhook route templates: which payload fields an outsider writes into the user turn.

Mirrored (hermes-agent 0.19.0 ``gateway/platforms/webhook.WebhookAdapter``): static
routes come from ``platforms.webhook.extra.routes`` in config.yaml, dynamic ones from
``webhook_subscriptions.json`` in the home (a dynamic route whose name a static route
already uses is dropped). ``_render_prompt`` replaces every ``{dot.path}`` of the route's
``prompt`` with that payload field (``{__raw__}``: the whole payload as JSON, 4,000
characters; ``{event_type}``: the event name) and sends the result as the user message,
unscanned. A route without a template sends the whole payload the same way. A
``deliver_only`` route never reaches the agent.
"""

from __future__ import annotations

import json
from typing import Any

from soulscan.audit.files import read_text
from soulscan.audit.homes import Home, config_section
from soulscan.audit.report import AuditItem, Facts, Hit, surface_rule, unscanned
from soulscan.audit.source import KeyPath, Marks, SourceText, key_path_text
from soulscan.engine.matcher import rule_finditer
from soulscan.models import ORIGIN_HARDENED, RuntimeSummary

SUBSCRIPTIONS_FILE = "webhook_subscriptions.json"
PLACEHOLDER_RULES = ("SS905", "SS906")
KIND = "webhook"


def _route_item(shown: str, route_name: str, route: dict[str, Any], key: KeyPath,
                source_of: Any) -> AuditItem:
    template = route.get("prompt") or ""
    template = template if isinstance(template, str) else str(template)
    prompt_key = (*key, "prompt")
    source: SourceText = source_of(prompt_key, template)
    if route.get("deliver_only"):
        runtime = RuntimeSummary("skip", (), len(template), 0,
                                 detail=f"route {route_name} delivers directly; the agent never sees it")
        return AuditItem(shown, KIND, key_path_text(prompt_key), source, runtime, reaches_model=False)
    if not template.strip():
        runtime = unscanned(f"route {route_name} has no template: every event's whole payload "
                            "(as JSON, 4,000 characters) becomes the user message", 0)
        return AuditItem(shown, KIND, key_path_text(key), None, runtime)
    hits = tuple(
        Hit(Facts.of(rule), ORIGIN_HARDENED, start, end)
        for rule in map(surface_rule, PLACEHOLDER_RULES)
        for start, end in rule_finditer(rule, template)
    )
    where = f"the user message of each event on route {route_name}, payload fields filled in"
    return AuditItem(shown, KIND, key_path_text(prompt_key), source,
                     unscanned(where, len(template)), hits=hits)


def webhook_items(home: Home) -> list[AuditItem]:
    items: list[AuditItem] = []
    static = config_section(home, "platforms", "webhook", "extra", "routes")
    static = static if isinstance(static, dict) else {}
    global_secret = config_section(home, "platforms", "webhook", "extra", "secret")
    base: KeyPath = ("platforms", "webhook", "extra", "routes")
    for name, route in static.items():
        if isinstance(route, dict):
            items.append(_route_item(home.config_display, str(name), route, (*base, str(name)),
                                     home.config_source))
    path = home.path / SUBSCRIPTIONS_FILE
    try:
        text = read_text(path)
        dynamic = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return items
    if not isinstance(dynamic, dict):
        return items
    marks = Marks(text)
    for name, route in dynamic.items():
        if not isinstance(route, dict) or name in static:
            continue
        item = _route_item(str(path), str(name), route, (str(name),), marks.source)
        if not route.get("secret", global_secret):
            item = AuditItem(item.path, KIND, item.key, item.source, RuntimeSummary(
                "skip", detail=f"route {name} has no secret; Hermes refuses to serve it"),
                reaches_model=False)
        items.append(item)
    return items
