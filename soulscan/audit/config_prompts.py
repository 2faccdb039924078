"""Prompt text in config.yaml that Hermes 0.19.0 injects without any scan.

Mirrored (hermes-agent 0.19.0):

* ``agent.system_prompt`` → the ephemeral system prompt of every call (cli
  ``HermesCLI.__init__``, ``gateway/run.GatewayRunner._load_ephemeral_system_prompt``);
  ``HERMES_EPHEMERAL_SYSTEM_PROMPT`` from ``.env`` replaces it.
* ``agent.personalities.<name>`` → ``/personality <name>`` copies it into
  ``agent.system_prompt`` (cli ``_resolve_personality_prompt``: a string, or a dict whose
  ``system_prompt``, ``tone`` and ``style`` are joined). The top-level ``personalities``
  key is not read.
* ``platform_hints.<platform>`` → the last stable block (``agent/system_prompt.
  _resolve_platform_hint``: a bare string or ``append`` adds, ``replace`` wins).
* ``agent.environment_hint`` → the stable tier (``agent/prompt_builder.
  build_environment_hints``); ``HERMES_ENVIRONMENT_HINT`` replaces it.
* ``agent.coding_instructions`` → the stable tier, a string or a list of strings
  (``agent/coding_context._coding_instructions``).
* ``<platform>.channel_prompts.<id>`` (``gateway/config.py`` bridges it into the
  platform's ``extra`` for every ``Platform`` and plugin platform; also accepted there) → the ephemeral prompt of that channel (``gateway/platforms/base.
  resolve_channel_prompt``); ``platforms.<platform>.channel_overrides.<id>.system_prompt``
  (also bridged from the top-level platform section) → that channel's system prompt
  (``gateway/config.ChannelOverride``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from soulscan.audit.env import ENVIRONMENT_HINT_VAR, SYSTEM_PROMPT_VAR, EnvValue
from soulscan.audit.homes import Home
from soulscan.audit.report import AuditItem, unscanned
from soulscan.audit.source import KeyPath, key_path_text

EPHEMERAL = "the ephemeral system prompt of every call"
PERSONALITY_PARTS = ("system_prompt", "tone", "style")


def _item(home: Home, path: KeyPath, text: str, where: str, *, action: str = "load") -> AuditItem:
    return AuditItem(
        path=home.config_display, kind="config", key=key_path_text(path),
        source=home.config_source(path, text), runtime=unscanned(where, len(text), action=action),
        reaches_model=action == "load")


def _strings(value: Any, path: KeyPath) -> Iterator[tuple[KeyPath, str]]:
    """A string value, or each string of a list value, with its key path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for position, item in enumerate(value):
            if isinstance(item, (str, int, float)) and str(item).strip():
                yield (*path, position), str(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, str(value)


def _agent(home: Home, env: dict[str, EnvValue]) -> Iterator[AuditItem]:
    agent = home.config.get("agent")
    if not isinstance(agent, dict):
        return
    replaced = {
        "system_prompt": SYSTEM_PROMPT_VAR in env and env[SYSTEM_PROMPT_VAR].value != "",
        "environment_hint": ENVIRONMENT_HINT_VAR in env and env[ENVIRONMENT_HINT_VAR].value.strip() != "",
    }
    lands = {
        "system_prompt": EPHEMERAL,
        "environment_hint": "the stable system prompt (environment hints)",
        "coding_instructions": "the stable system prompt (coding posture, in code workspaces)",
    }
    for key, where in lands.items():
        for path, text in _strings(agent.get(key), ("agent", key)):
            if not text.strip():
                continue
            if replaced.get(key):
                variable = SYSTEM_PROMPT_VAR if key == "system_prompt" else ENVIRONMENT_HINT_VAR
                yield _item(home, path, text, f"replaced by {variable} from .env", action="skip")
            else:
                yield _item(home, path, text, where)
    personalities = agent.get("personalities")
    if isinstance(personalities, dict):
        for name, value in personalities.items():
            where = f"/personality {name} copies it into agent.system_prompt ({EPHEMERAL})"
            base: KeyPath = ("agent", "personalities", str(name))
            if isinstance(value, dict):
                for part in PERSONALITY_PARTS:
                    part_value = value.get(part)
                    if part_value:
                        yield _item(home, (*base, part), str(part_value), where)
            elif value is not None and str(value).strip():
                yield _item(home, base, str(value), where)


def _platform_hints(home: Home) -> Iterator[AuditItem]:
    hints = home.config.get("platform_hints")
    if not isinstance(hints, dict):
        return
    for platform, spec in hints.items():
        base: KeyPath = ("platform_hints", str(platform))
        where = f"the stable system prompt's platform hint on {platform}"
        if isinstance(spec, str) and spec.strip():
            yield _item(home, base, spec, where + " (appended)")
        elif isinstance(spec, dict):
            # Both a replacement and an appended text reach the model.
            for mode in ("replace", "append"):
                text = spec.get(mode)
                if isinstance(text, str) and text.strip():
                    yield _item(home, (*base, mode), text, f"{where} ({mode})")


# gateway/config.Platform of 0.19.0 ("local" has no channels). Plugins may add platforms.
KNOWN_PLATFORMS = frozenset({
    "telegram", "discord", "whatsapp", "whatsapp_cloud", "slack", "signal", "mattermost",
    "matrix", "homeassistant", "email", "sms", "dingtalk", "api_server", "webhook",
    "msgraph_webhook", "feishu", "wecom", "wecom_callback", "weixin", "bluebubbles", "qqbot",
    "yuanbao", "relay",
})


def _channel_sections(home: Home) -> Iterator[tuple[KeyPath, dict[Any, Any]]]:
    """Every platform section that may hold channel prompts or overrides."""
    for key, value in home.config.items():
        if isinstance(value, dict) and key not in ("platforms", "agent", "platform_hints"):
            yield (str(key),), value  # an unknown key counts only if a plugin names that platform
    platforms = home.config.get("platforms")
    if isinstance(platforms, dict):
        for name, value in platforms.items():
            if isinstance(value, dict):
                yield ("platforms", str(name)), value
                extra = value.get("extra")
                if isinstance(extra, dict):
                    yield ("platforms", str(name), "extra"), extra


def _plugin_note(base: KeyPath) -> str:
    platform = str(base[1] if base[0] == "platforms" and len(base) > 1 else base[0])
    return "" if platform in KNOWN_PLATFORMS else f", if a plugin provides platform {platform}"


def _channels(home: Home) -> Iterator[AuditItem]:
    for base, section in _channel_sections(home):
        prompts = section.get("channel_prompts")
        if isinstance(prompts, dict):
            for channel, text in prompts.items():
                if text is not None and str(text).strip():
                    yield _item(home, (*base, "channel_prompts", str(channel)), str(text),
                                f"the ephemeral prompt of channel {channel}{_plugin_note(base)}")
        overrides = section.get("channel_overrides")
        if isinstance(overrides, dict):
            for channel, override in overrides.items():
                text = override.get("system_prompt") if isinstance(override, dict) else None
                if text is not None and str(text).strip():
                    yield _item(home, (*base, "channel_overrides", str(channel), "system_prompt"),
                                str(text), f"the system prompt of channel {channel}{_plugin_note(base)}")


def config_prompt_items(home: Home, env: dict[str, EnvValue]) -> list[AuditItem]:
    return [*_agent(home, env), *_platform_hints(home), *_channels(home)]
