"""A large context file the runtime blocks, judged from the start of its text.

The runtime reads a context file whole (``read_text(encoding="utf-8")``: a file that is not
UTF-8 is skipped), but its verdict reads only the scan window, the first ``MAX_SCAN_CHARS``
characters after the leading whitespace; and the runtime profile's report of a blocked file
reads the text only near the verdict's occurrences, which lie in that window, and no
further past it than an excerpt's reach (``READ_AHEAD``). A megabyte that is not ASCII
decodes to a string of up to four megabytes (every character as wide as the widest), nearly
all of it written only to be thrown away: all the report needs of the rest of the file is
that it decodes and how many characters it holds.

So a large file that is not ASCII is decoded a piece at a time: the pieces that make up the
text's first lines, to the end of one at least ``READ_AHEAD`` characters past the window,
are kept and joined (that line's newline left out: a line's text and end read the same
without it), the rest are each checked (strict UTF-8, as the whole decode checks it),
counted and dropped. Any file this cannot judge exactly (no CR translation is done here, the leading
whitespace reaching past what is kept, a window the runtime loads, an error) is left to the
whole-text path (None).

A long line (a file of emoji sequences is one line of a megabyte) is cut: the start then
ends inside it, at the end of a piece at least ``READ_AHEAD`` characters past the window,
on a character other than whitespace. Of that cut line the report reads no more than the
start holds either (its findings' excerpts, their secret screen and the line's length up to
``LONG_LINE``), but for one thing: an excerpt that may show a secret redacts its whole line
(``FileExcerpts._shows_no_secret``). It does not when the span is short and no secret
anchor lies near it; so a cut start answers only when every verdict id is a hidden
character's (each finding one character) and no anchor lies on the cut line near the
window (``_cut_line_clear``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from soulscan.hermes.documents import FRAMING, RuntimeDocument, document_label, whole_document
from soulscan.hermes.scanner import MAX_SCAN_CHARS
from soulscan.hermes.sections import judge_section
from soulscan.hermes.truncation import DEFAULT_MAX_CHARS
from soulscan.report.excerpt import AFTER_LIMIT, BEFORE_LIMIT, LONG_LINE, REDACTION_MARGIN
from soulscan.report.secret_screen import ANCHOR_STARTS, LONGEST_ANCHOR, SecretScreen
from soulscan.verdict_occurrences import hidden_char

# Files up to this many bytes are decoded whole: the saving is in the megabytes.
LARGE_FILE_BYTES = 4 * MAX_SCAN_CHARS
# How far past the scan window the kept text reaches (and then to the end of its line): the
# report reads no further past a finding than a long line's limit (``LONG_LINE``) or an
# excerpt's redaction margin and the secret screen's block (``REDACTION_MARGIN`` each), and
# its findings end inside the window.
READ_AHEAD = 2 * (LONG_LINE + 2 * REDACTION_MARGIN)
# Bytes decoded at a time: each piece's string is small enough to be made in memory the
# last one freed (a multi-megabyte string is fresh pages each time), and most pieces of a
# text whose wide characters are few hold none: each is decoded to the narrowest string
# its own characters need (one character past U+FFFF makes its whole piece four bytes a
# character, converted once it is met). The 1 MB near-misses input (one such character in
# ~1,500): every 32 KB piece is four bytes a character, 58 of 245 4 KB pieces are; decoding
# it takes 0.38 ms in 32 KB pieces, 0.40 in 16 KB, 0.33 in 8 KB, 0.26 in 4 KB and 0.33 in
# 2 KB (a call a piece).
PIECE_BYTES = 4_096
# A file whose first this many bytes are ASCII is decoded whole (most likely all of it is).
ASCII_PROBE_BYTES = 32_768

_decode_utf8 = codecs.utf_8_decode
# Every byte but the ASCII characters a secret anchor can start with (``ANCHOR_STARTS``),
# and the leading byte of the one other's UTF-8 form (U+017F LONG S).
_NOT_ANCHOR_START_BYTES = bytes(byte for byte in range(256)
                                if byte > 0x7F or ANCHOR_STARTS.match(chr(byte)) is None)
_LONG_S_LEAD = "\u017f".encode()[:1]
# The end of a line that ends in no whitespace: the start ends there, before the newline,
# so it is its own stripped text (``prepare_context_text`` copies a text it strips).
_LINE_END = re.compile(r"\S\n")


def blocked_start_document(path: str, kind: str, data: bytes) -> RuntimeDocument | None:
    """The runtime-profile document of a large context file of a plain kind (no frontmatter
    removed) whose scan window the runtime blocks, as ``whole_document`` of its whole text
    gives it but for ``text``: the text's first lines, reaching ``READ_AHEAD`` characters
    past the window (``_read_start``; the summary counts every character). None for any other
    file, which the whole-text path judges."""
    if len(data) <= LARGE_FILE_BYTES or data[:ASCII_PROBE_BYTES].isascii():
        return None  # decoding it whole costs about what reading it costs
    # The kept text ends at a newline at least this many characters in, so at least this
    # many bytes in (a character is one to four bytes); a CR (and so universal newlines'
    # translation) is left to the whole-text path.
    kept_chars = MAX_SCAN_CHARS + READ_AHEAD
    if b"\r" in data:
        return None
    # (with no newline that far in, the start is cut in its last line at once)
    read = _read_start(data, kept_chars, cut_at_once=data.find(b"\n", kept_chars) == -1)
    if read is None:
        return None
    start, chars_total, cut = read
    label = document_label(path, kind)
    header, trailer, _ = FRAMING[kind]
    judged = judge_section(start, label, header=header, trailer=trailer, strip_frontmatter=False)
    # Its window and the text read past it must lie in the start (the leading whitespace
    # must not reach far into it), and its window must be the whole text's: the start's
    # trailing whitespace, stripped, must not reach back into it.
    if (judged is None or not judged.ids or judged.section_length > DEFAULT_MAX_CHARS
            or judged.prepared.scan_start + kept_chars > len(start)
            or len(judged.prepared.scanned) < MAX_SCAN_CHARS):
        return None
    if cut and not _cut_line_clear(start, data, judged.ids, judged.prepared.scan_start + MAX_SCAN_CHARS):
        return None
    return whole_document(path, kind, label, start, judged, chars_total)


def _read_start(
    data: bytes, kept_chars: int, cut_at_once: bool = False
) -> tuple[str, int, bool] | None:
    """The decoded text up to its first newline at or past ``kept_chars`` that follows a
    character other than whitespace (the newline left out), the whole text's length, and
    whether the start is cut inside a line instead: at the end of the first piece past
    ``kept_chars`` (``cut_at_once``), or past twice that (a long line), that ends in a character
    other than whitespace. None when the bytes are not UTF-8 or the start is not short."""
    pieces = _pieces(data)
    kept: list[str] = []
    kept_length = 0  # characters in ``kept``
    newline = -1
    # (past this many characters kept, a piece that ends in no whitespace ends the start)
    cut_past = kept_chars if cut_at_once else 2 * kept_chars
    cut = False
    try:
        for piece in pieces:
            if kept_length + len(piece) > kept_chars:
                if (kept_length > kept_chars and piece.startswith("\n") and kept[-1]
                        and not kept[-1][-1].isspace()):  # (a line's end split between pieces)
                    newline = 0
                else:
                    ending = _LINE_END.search(piece, max(kept_chars - kept_length, 0))
                    newline = -1 if ending is None else ending.end() - 1
            kept.append(piece)
            kept_length += len(piece)
            if newline != -1:
                break
            if kept_length > cut_past and piece and not piece[-1].isspace():
                cut = True
                newline = len(piece)  # (all of it kept)
                break
            if kept_length > 4 * kept_chars:
                return None  # (whitespace all the way: the whole-text path reads it)
        else:
            return None
        # (the rest only checked and counted)
        chars_total = kept_length + sum(map(len, pieces))
    except UnicodeDecodeError:
        return None
    # (joined up to the newline: slicing the joined text would copy it all again)
    kept[-1] = kept[-1][:newline]
    return "".join(kept), chars_total, cut


def _cut_line_clear(start: str, data: bytes, ids: tuple[str, ...], window_end: int) -> bool:
    """Whether no excerpt of a finding on the start's cut last line reads that line whole:
    every finding is one character (each id a hidden character's, a finding of which is
    that character), and no secret anchor lies on the line near the window, where
    ``FileExcerpts._shows_no_secret`` screens each finding's neighbourhood (from
    ``BEFORE_LIMIT + REDACTION_MARGIN`` before it, cut at the line's start, to
    ``AFTER_LIMIT + REDACTION_MARGIN`` after it; the findings lie in the window).
    ``data``: the file's bytes, whose UTF-8 text ``start`` begins."""
    line_start = start.rfind("\n") + 1
    if line_start >= window_end:
        return True  # (no finding on it)
    if not all(hidden_char(rule_id) is not None for rule_id in ids):
        return False  # (a pattern's match may be longer than an excerpt screens)
    low = max(line_start, window_end - MAX_SCAN_CHARS - BEFORE_LIMIT - REDACTION_MARGIN)
    high = window_end + AFTER_LIMIT + REDACTION_MARGIN
    # No character an anchor starts with, so no anchor starts there or reaches in: told
    # by the bytes (C passes, a quarter of one over the characters), of a stretch that
    # holds the characters' (a character is one to four bytes). An ASCII byte is an ASCII
    # character in UTF-8; the one other start's leading byte is looked for alone (a
    # ``memchr``: its two bytes are a slow search among emoji).
    encoded = data[max(0, low - LONGEST_ANCHOR + 1) : 4 * high]
    if not encoded.translate(None, _NOT_ANCHOR_START_BYTES) and _LONG_S_LEAD not in encoded:
        return True
    return SecretScreen(start).clear(low, high)


def _pieces(data: bytes) -> Iterator[str]:
    """``data`` decoded ``PIECE_BYTES`` at a time, as strict UTF-8 as the whole decode (a
    character cut at a piece's end opens the next piece; ``UnicodeDecodeError`` as there)."""
    view = memoryview(data)
    size = len(data)
    position = 0  # bytes decoded
    while position < size:
        end = position + PIECE_BYTES
        piece, used = _decode_utf8(view[position:end], "strict", end >= size)
        position += used
        yield piece
