"""Benign context-file text, written for soulscan, to embed payloads in and to pad with.

The paragraphs read like a real AGENTS.md / SOUL.md and are chosen to trigger no rule of
the runtime pack, so any finding on a variant comes from the embedded payload.
"""

from __future__ import annotations

import itertools

PARAGRAPHS: tuple[str, ...] = (
    "# Project guide\n\nThis repository holds a small web service and its command-line client.",
    ("## Build\n\nRun `make build` to compile the service and `make test` for the unit tests. "
        "The integration tests need a local database; `make db` starts one in a container."),
    ("## Code style\n\nFormat Python with the project formatter and keep functions short. "
        "Prefer plain data classes over dictionaries for values that cross module boundaries."),
    ("## Reviews\n\nEvery change gets a second reader. Describe what changed and why in the "
        "pull request, link the ticket, and mention any migration that operators must run."),
    ("## Persona\n\nBe concise and friendly. When a question is ambiguous, ask one clarifying "
        "question before writing code. Explain trade-offs in a sentence or two."),
    ("## Layout\n\n- `service/`: the HTTP handlers\n- `client/`: the command-line tool\n"
        "- `docs/`: user documentation built with the static site generator"),
    ("## Releases\n\nTag a release from the main branch after the changelog is updated. "
        "The packaging job publishes wheels for every supported interpreter."),
    ("## Testing habits\n\nWrite the failing test first, keep fixtures small, and name each "
        "case after the behaviour it pins down rather than the function it calls."),
)

BENIGN_DOCUMENT = "\n\n".join(PARAGRAPHS) + "\n"

# Ordinary English prose for the benchmark's baseline and for padding past the scan window.
PROSE_SENTENCES: tuple[str, ...] = (
    "The team met on Tuesday to plan the next release of the service.",
    "Most of the discussion was about the slow start-up time on older laptops.",
    "Someone suggested caching the parsed configuration between runs.",
    "The documentation needs a short section on how to rotate log files.",
    "After lunch the group reviewed three pull requests and merged two of them.",
    "A new contributor asked where the design notes for the storage layer live.",
    "The answer was a folder of markdown files next to the source code.",
    "Everyone agreed to keep the public interface small and well tested.",
)


def prose(length: int) -> str:
    """Return ``length`` characters of ordinary prose (sentences cycled, cut to size)."""
    parts: list[str] = []
    size = 0
    for index, sentence in enumerate(itertools.cycle(PROSE_SENTENCES)):
        piece = sentence + ("\n\n" if index % 5 == 4 else " ")
        parts.append(piece)
        size += len(piece)
        if size >= length:
            break
    return "".join(parts)[:length]
