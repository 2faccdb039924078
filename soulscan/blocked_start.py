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
whitespace or a single long line reaching past what is kept, a window the runtime loads, an
error) is left to the whole-text path (None).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from soulscan.hermes.documents import FRAMING, RuntimeDocument, document_label, whole_document
from soulscan.hermes.scanner import MAX_SCAN_CHARS
from soulscan.hermes.sections import judge_section
from soulscan.hermes.truncation import DEFAULT_MAX_CHARS
from soulscan.report.excerpt import LONG_LINE, REDACTION_MARGIN

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
    if data.find(b"\n", kept_chars) == -1 or b"\r" in data:
        return None
    read = _read_start(data, kept_chars)
    if read is None:
        return None
    start, chars_total = read
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
    return whole_document(path, kind, label, start, judged, chars_total)


def _read_start(data: bytes, kept_chars: int) -> tuple[str, int] | None:
    """The decoded text up to its first newline at or past ``kept_chars`` that follows a
    character other than whitespace (the newline left out), and the whole text's length;
    None when the bytes are not UTF-8 or the start is not short."""
    pieces = _pieces(data)
    kept: list[str] = []
    kept_length = 0  # characters in ``kept``
    newline = -1
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
            if kept_length > 2 * kept_chars:
                return None  # (a long line: the whole-text path reads it)
        else:
            return None
        # (the rest only checked and counted)
        chars_total = kept_length + sum(map(len, pieces))
    except UnicodeDecodeError:
        return None
    # (joined up to the newline: slicing the joined text would copy it all again)
    kept[-1] = kept[-1][:newline]
    return "".join(kept), chars_total


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
