"""Remove hidden characters that have no business in an agent's context file.

What goes: the runtime's invisible set, bidi marks and controls, invisible operators, the
soft hyphen, blank fillers (Hangul, Khmer), format controls that render as nothing,
Unicode tag characters and variation selectors, unless the character is part of something
a human can see:

* a zero-width joiner between two emoji (a ZWJ sequence such as 👩‍💻);
* a zero-width (non-)joiner between two letters of a script whose spelling uses it
  (Persian, Devanagari, ...), never between Latin, Greek or Cyrillic letters;
* one variation selector right after a visible base character (❤️, keycaps like 1️⃣,
  standardised variants; the ideographic selectors only after an ideograph), so a run
  of selectors smuggling bytes after an emoji loses everything but the first;
* the tag characters of a subdivision flag (🏴 + 3-7 lower-case letters or digits +
  CANCEL TAG, as in the flag of England).

Every keep decision depends only on what has already been kept and on a following
character that is never removed, so running ``fix_text`` twice changes nothing the second
time. The text is otherwise untouched: newlines, a BOM's neighbours, everything else
stays byte for byte.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import regex

from soulscan.hermes.atomic import replaced_file_mode

_REMOVABLE = regex.compile(
    "["
    "\u00ad"  # soft hyphen
    "\u200b-\u200f"  # zero-width space/non-joiner/joiner, LRM, RLM
    "\u061c"  # Arabic letter mark
    "\u17b4\u17b5"  # Khmer inherent vowels (deprecated, render as nothing)
    "\u180e"  # Mongolian vowel separator
    "\u202a-\u202e"  # bidi embeddings and overrides
    "\u2060-\u2064"  # word joiner, invisible operators
    "\u2066-\u2069"  # bidi isolates
    "\ufeff"  # zero-width no-break space / BOM
    "\u3164\uffa0"  # Hangul fillers (blank letters)
    "\ufff0-\ufffb"  # unassigned specials, interlinear annotation controls
    "\U0001bca0-\U0001bca3"  # shorthand format controls
    "\U0001d173-\U0001d17a"  # musical symbol format controls
    "\ufe00-\ufe0f"  # variation selectors
    "\U000e0000-\U000e007f"  # tag characters
    "\U000e0080-\U000e0fff"  # ideographic variation selectors, unassigned ignorables
    "]"
)
_ZWJ = "\u200d"
_JOINERS = ("\u200c", "\u200d")
# Letters of scripts whose spelling uses ZWNJ/ZWJ between letters (Persian, Indic, ...).
_JOINING_LETTER = regex.compile(
    r"[\p{L}\p{M}--[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}"
    r"\p{Script=Inherited}]]",
    regex.V1,
)
_EMOJI = regex.compile(r"\p{Extended_Pictographic}")
_EMOJI_MODIFIER = regex.compile(r"\p{Emoji_Modifier}")
_IDEOGRAPH = regex.compile(r"\p{Ideographic}")
_SUBDIVISION_FLAG = regex.compile(
    "\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{3,7}\U000e007f"
)


@dataclass(frozen=True)
class Fix:
    original: str
    fixed: str
    removed: tuple[tuple[int, str], ...]  # (offset in original, character)

    @property
    def changed(self) -> bool:
        return bool(self.removed)

    def summary(self) -> str:
        """``removed 3 characters: U+200B x2, U+202E x1``."""
        counts = Counter(char for _, char in self.removed)
        parts = ", ".join(f"U+{ord(c):04X} x{n}" for c, n in sorted(counts.items()))
        noun = "character" if len(self.removed) == 1 else "characters"
        return f"removed {len(self.removed)} {noun}: {parts}"


def is_removable(char: str) -> bool:
    return _REMOVABLE.fullmatch(char) is not None


def fix_text(text: str) -> Fix:
    kept: list[str] = []
    removed: list[tuple[int, str]] = []
    index = 0
    while index < len(text):
        flag = _SUBDIVISION_FLAG.match(text, index)
        if flag is not None:
            kept.append(flag.group())
            index = flag.end()
            continue
        char = text[index]
        following = text[index + 1] if index + 1 < len(text) else ""
        if not is_removable(char) or _belongs_to_emoji(
            char, kept[-1][-1] if kept else "", following
        ):
            kept.append(char)
        else:
            removed.append((index, char))
        index += 1
    return Fix(text, "".join(kept), tuple(removed))


def _belongs_to_emoji(char: str, previous: str, following: str) -> bool:
    """Whether a removable ``char`` is part of a visible sequence, given its neighbours.

    ``previous`` is the last character kept so far, ``following`` the next original one.
    """
    if char in _JOINERS and _joins_letters(previous, following):
        return True
    if char == _ZWJ:
        joins_left = bool(previous) and (
            _EMOJI.match(previous) is not None
            or _EMOJI_MODIFIER.match(previous) is not None
            or previous == "\ufe0f"
        )
        return joins_left and _EMOJI.match(following) is not None
    if "\ufe00" <= char <= "\ufe0f":
        return _is_visible_base(previous)
    if "\U000e0100" <= char <= "\U000e01ef":
        return bool(previous) and _IDEOGRAPH.match(previous) is not None
    return False


def _joins_letters(previous: str, following: str) -> bool:
    # A blank filler (U+3164, U+FFA0) or a Khmer inherent vowel counts as a letter but is
    # removed itself: a joiner kept for it would join nothing on the next run.
    return (
        bool(previous)
        and bool(following)
        and _JOINING_LETTER.match(previous) is not None
        and _JOINING_LETTER.match(following) is not None
        and not is_removable(following)
    )


def _is_visible_base(char: str) -> bool:
    return bool(char) and not is_removable(char) and not char.isspace() and char.isprintable()


class FixError(Exception):
    """A file that cannot be fixed (not UTF-8, unreadable); reported, others go on."""


def fix_file(path: Path) -> Fix:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FixError(f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FixError(f"not valid UTF-8 (byte {exc.start}); left untouched") from None
    return fix_text(text)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half.

    A symlink is followed and its target replaced; the file keeps its permission bits.
    A target that is not a regular file (a device such as ``/dev/null``, a FIFO) is left
    alone with an error: the rename would put a regular file in its place.
    """
    target = path.resolve()
    mode = replaced_file_mode(target, path)
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
