"""soulscan: a security linter for the files that shape an AI agent's system prompt."""

__version__ = "0.1.0"

RUNTIME = "hermes-agent 0.19.0"
