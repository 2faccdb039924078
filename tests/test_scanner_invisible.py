"""The runtime's invisible characters are found exactly, wherever they sit."""

from __future__ import annotations

from soulscan.hermes import scanner
from soulscan.hermes.scanner import runtime_matches, scan_for_threats

EVERY_BMP_CHARACTER = "".join(chr(cp) for cp in range(0x10000) if not 0xD800 <= cp < 0xE000)


def test_every_character_of_the_plane_is_told_apart() -> None:
    found = [match.start for match in runtime_matches(EVERY_BMP_CHARACTER, "context") if match.rule is None]
    expected = [index for index, ch in enumerate(EVERY_BMP_CHARACTER) if ch in scanner.INVISIBLE_CHARS]
    assert found == expected


def test_neighbours_of_the_set_are_not_invisible() -> None:
    # inside the set's span but not in it: U+2061 (function application), U+2065, U+2070
    assert scan_for_threats("a\u2061b\u2065c\u2070d", "context") == []
    assert scan_for_threats("a\u2062b\ufeff", "context") == ["invisible_unicode_U+2062",
                                                           "invisible_unicode_U+FEFF"]
