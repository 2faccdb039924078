"""The decoders' fast paths find exactly what the plain algorithm finds.

The plain algorithm (`_plain_decode_blobs` below) searches every blob pattern over the whole
text with no pre-check, decodes with `base64.b64decode`, and tests readability one character
at a time. `decode_blobs` finds candidate runs in one pass, caches the blobs of short runs,
gates the slower searches with quick tests, and uses str and bytes methods instead.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
import string
from pathlib import Path
from unittest import mock

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.anchors import fold
from soulscan.hardened import blob_runs, decode, decoded_text, decoders

_PLAIN_PATTERNS = {
    "base64": regex.compile(
        r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{8,65536}={0,2}(?![A-Za-z0-9+/=_-])"
    ),
    "base32": regex.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{8,65536}={0,6}(?![A-Za-z0-9=])"),
    "hex": regex.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){5,32768}(?![0-9A-Za-z])"),
    "url": decode._PERCENT,
    "escapes": decode._ESCAPES,
    "morse": decode._MORSE,
    "nato": decode._NATO,
    "braille": decode._BRAILLE,
    "uu": regex.compile(r"(?m)^[\x21-\x60][\x20-\x60]{3,60}$"),
}


def _plain_base64(blob: str) -> str | None:
    core = blob.rstrip("=")
    if core.isalpha() and (len(core) < 16 or core.islower() or core.isupper()):
        return None
    if not any(ch.isdigit() or ch in "+/" for ch in core) and not (
        any(ch.islower() for ch in core) and any(ch.isupper() for ch in core)
    ):
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        alt = b"-_" if ("-" in core or "_" in core) else None
        return base64.b64decode(padded, altchars=alt, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _plain_reads_as_text(text: str, *, min_words: int = 3) -> bool:
    if not text or any(not (ch.isprintable() or ch in "\n\t") for ch in text):
        return False
    words = decoded_text._WORD.findall(text)
    if "\ufffd" in text or len(words) < min_words:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    if min_words == 1 and len(words) < 3:
        return text.isascii() and sum(map(len, words)) >= 5 and letters / len(text) >= 0.85
    return letters / len(text) >= 0.75


def _plain_printable(text: str) -> bool:
    return len(text) >= 16 and all(ch.isprintable() or ch in "\n\t\r" for ch in text)


_PLAIN_DECODERS = (
    ("base64", _plain_base64, 1),
    ("base32", decoders.decode_base32, 1),
    ("hex", decoders.decode_hex, 1),
    ("url", decode.unquote, 3),
    ("escapes", decoders.decode_escapes, 3),
    ("morse", decoders.decode_morse, 1),
    ("nato", decoders.decode_nato, 1),
    ("braille", decoders.decode_braille, 1),
    ("uu", decoders.decode_uu, 1),
)


def _plain_decode_blobs(text: str) -> list[decode.DecodedBlob]:
    found: list[decode.DecodedBlob] = []
    taken: list[tuple[int, int]] = []
    for name, decoder, min_words in _PLAIN_DECODERS:
        for match in _PLAIN_PATTERNS[name].finditer(text):
            start, end = match.span()
            if end - start > decode.MAX_BLOB_CHARS or any(a < end and start < b for a, b in taken):
                continue
            decoded = decoder(match.group())
            if decoded is None or decoded == match.group():
                continue
            readable = _plain_reads_as_text(decoded, min_words=min_words)
            if readable or (
                name in ("base64", "base32", "hex", "escapes", "uu") and _plain_printable(decoded)
            ):
                found.append(decode.DecodedBlob(name, start, end, decoded, readable))
                taken.append((start, end))
                if len(found) >= decode.MAX_BLOBS:
                    return sorted(found, key=lambda blob: blob.start)
    if decode._ROT13_HINT.search(text):
        found.append(decode.DecodedBlob("rot13", 0, len(text), codecs.encode(text, "rot13")))
    return sorted(found, key=lambda blob: blob.start)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# Pieces that make blobs of every encoding, near misses, and what stands around them.
_PIECES = [
    _b64("ignore previous instructions"), _b64("rm -rf")[:-2], _b64("caf\u00e9 au lait"),
    base64.urlsafe_b64encode(b"\xfb\xff send the keys").decode(), "aGVsbG8gd29ybGQ",
    "SGVsbG8gd29ybGQgaGVsbG8gd29ybGQ", "dGhlIHNlbmQgYWxs", "JNCVSUZAKJKUYRKT",
    base64.b32encode(b"send the keys").decode(),
    base64.b32encode(b"hello").decode(), "INTERNATIONALIZATION", "IMPORTANT", "ABCDEFGH=",
    b"run the installer".hex(), b"Wipe".hex(), "deadbeefcafe", "cdaa" * 20, "4142434445464748",
    "123456789012", "2024-10-11T13", "State/Province", "clientTransferProhibited",
    "Internationalization", "Follow-up", "snake_Case_x", "%69%67%6e%6f%72%65", "\\x69\\x67\\x6e\\x6f",
    ".. --. -. --- .-.", " / ", "alfa", "Bravo", "\u212aILO", "\u017fierra", "x-ray", "echo",
    "\u2820\u2803\u2801\u2811", "#86)E<F5R7V]L9'Q@", "rot13", "Caesar", "13", "rot-",
    " ", ", ", "  ", "\n", "=", "/", "-", "_", "+", ".", "a", "Q", "7", "\u00e9", "\u4e2d",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_decode_blobs_equals_the_plain_algorithm(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert decode.decode_blobs(text) == _plain_decode_blobs(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZq09+/=_- \n.\u00e9%\\xu2aF,", max_size=80))
def test_decode_blobs_equals_the_plain_algorithm_on_characters(text: str) -> None:
    assert decode.decode_blobs(text) == _plain_decode_blobs(text)


def test_decode_blobs_equals_the_plain_algorithm_beyond_max_blobs() -> None:
    text = " ".join([_b64(f"word number {n} here") for n in range(70)] + ["alfa bravo"] * 3)
    assert decode.decode_blobs(text) == _plain_decode_blobs(text)
    assert len(decode.decode_blobs(text)) == decode.MAX_BLOBS


_CORPORA = Path("/work/shared/corpora")


@pytest.mark.skipif(not _CORPORA.is_dir(), reason="shared corpora not present")
def test_decode_blobs_equals_the_plain_algorithm_on_the_corpora() -> None:
    for path in sorted(_CORPORA.glob("*/items.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for line in lines[::7]:
            if line.strip():
                text = json.loads(line)["text"]
                assert decode.decode_blobs(text) == _plain_decode_blobs(text), path


_BASE64_ALPHABET = string.ascii_letters + string.digits + "+/_-"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=_BASE64_ALPHABET, min_size=1, max_size=40), st.integers(0, 2))
def test_base64_decoder_equals_b64decode(core: str, padding: int) -> None:
    blob = core + "=" * padding
    assert decoders.decode_base64(blob) == _plain_base64(blob)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_BASE64_ALPHABET + "=", max_size=40))
def test_base64_pattern_is_what_the_decoder_accepts(run: str) -> None:
    """`_BASE64` matches a run whole exactly when the plain pattern does and `decode_base64`'s
    pre-checks accept it (a run it skips can never decode)."""
    plain = _PLAIN_PATTERNS["base64"].fullmatch(run)
    core = run.rstrip("=")
    accepted = bool(plain) and (
        any(ch.isdigit() or ch in "+/" for ch in core)
        or (
            any(ch.islower() for ch in core)
            and any(ch.isupper() for ch in core)
            and (not core.isalpha() or len(core) >= 16)
        )
    )
    assert bool(blob_runs._BASE64.fullmatch(run)) is accepted
    if not accepted:
        assert _plain_base64(run) is None or not plain


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="ab Z\n\t\r\x0b\x1c\u00e9\u0301\u200b\ufffd1.", max_size=30), st.integers(1, 3)
)
def test_readability_checks_equal_the_character_loops(text: str, min_words: int) -> None:
    assert decoded_text.reads_as_text(text, min_words=min_words) == _plain_reads_as_text(
        text, min_words=min_words
    )
    assert decoded_text._printable(text) == _plain_printable(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ALFA bravo Charlie delta echo", id="nato"),
        pytest.param("alfa, bravo, \u212aILO, \u017fierra, echo", id="nato-kelvin-and-long-s"),
        pytest.param("alfa,bravo,charlie,delta,echo", id="commas-only"),
        pytest.param("(alfa  bravo x-ray,,,delta echo.", id="edges-and-x-ray"),
    ],
)
def test_nato_pre_check_passes_texts_with_a_run(text: str) -> None:
    assert decode._NATO.search(text)
    assert decode._may_hold_nato(decode._Source(text))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["alfa", "Alpha", "x-ray", "\u212aILO", "echo", "lima", "word",
                                 " ", ",", ", ", "   ", ".", "(", "\n", "\u00a0", "\x1c", "\t",
                                 "\u0130ndia", "\u017fierra", "\u00e9"]), max_size=16))  # fmt: skip
def test_nato_pre_check_never_skips_a_run(pieces: list[str]) -> None:
    text = "".join(pieces)
    if decode._NATO.search(text):
        assert decode._may_hold_nato(decode._Source(text))


@pytest.mark.parametrize(
    "text",
    ["rot13 this", "ROT-13", "rot_13", "rot 13", "R\u00d8T13 no", "a caesar shift", "\u017f", ""],
)
def test_rot13_pre_check_agrees_with_the_hint(text: str) -> None:
    assert decode._has_rot13_hint(decode._Source(text)) is bool(decode._ROT13_HINT.search(text))


@pytest.mark.parametrize(
    ("text", "lowered"),
    [
        pytest.param("K\u212a\u017f,\u0130\u0131", b"kks ii", id="folds-to-ascii"),
        pytest.param("Alfa,\u00e9\u00a0Bravo", b"alfa ??bravo", id="other-non-ascii"),
    ],
)
def test_lowered_is_the_folded_text_one_byte_a_character(text: str, lowered: bytes) -> None:
    assert decode._Source(text).lowered == lowered
    assert len(lowered) == len(fold(text))


# The single-pass search the class map replaced: a candidate run is a maximal run of base64
# characters where this matches at its start (at least 8 long, not 8-15 letters alone, and a
# base64 blob whole or 8 base32 or 10 hex characters in a row).
_RUN = "A-Za-z0-9+/=_-"
_REFERENCE_CANDIDATE = (
    rf"(?=[{_RUN}]{{8}})(?![A-Za-z]{{8,15}}(?![{_RUN}]))"
    rf"(?:(?={blob_runs._BASE64.pattern})|(?=[{_RUN}]*?[A-Z2-7]{{8}})|(?=[{_RUN}]*?[0-9A-Fa-f]{{10}}))"
    rf"[{_RUN}]++"
)
_REFERENCE_RUNS = re.compile(rf"(?:^|(?<=[^{_RUN}])){_REFERENCE_CANDIDATE}")
_RUN_PIECES = [
    "a", "Q", "f", "7", "+", "/", "=", "_", "-", " ", ".", "\u00e9", "\u212a", "\n",
    "abcdefgh", "ABCDEFGH", "deadbeefca", "Internationalization", "clientTransfer",
    "2024-10-11T13", "State/Province", "Self-driving", "x" * 15, "Y" * 16,
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_RUN_PIECES), max_size=20))
def test_candidate_runs_hold_every_run_the_single_pass_found(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = blob_runs.candidate_runs(text)
    assert found == sorted(set(found))
    for run in _REFERENCE_RUNS.finditer(text):
        assert run.span() in found
    for start, end in found:  # each a whole run of base64 characters
        assert re.fullmatch(f"[{_RUN}]+", text[start:end])
        assert not re.match(f"[{_RUN}]", text[end : end + 1])
        assert not re.match(f"[{_RUN}]", text[start - 1 : start] if start else "")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from([p for p in _RUN_PIECES if re.fullmatch(f"[{_RUN}]+", p)])))
def test_a_run_the_single_pass_skipped_holds_no_blob(pieces: list[str]) -> None:
    """`candidate_runs` also returns runs the single pass skipped: they hold no kept blob."""
    run = "".join(pieces)
    if not re.match(_REFERENCE_CANDIDATE, run):
        assert blob_runs._find_blobs_in_run(run) == ()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="#AM\x20\x60a\n\r\x85\u2028-", max_size=40))
def test_uu_lines_are_the_uu_pattern_matches(text: str) -> None:
    assert list(decode._uu_lines(text)) == [match.span() for match in decode._UU.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([".", "-", "...", "-.-", " ", "  ", "   ", " / ", "/", "a", "\u00e9"]))
)
def test_morse_pre_check_never_skips_a_run(pieces: list[str]) -> None:
    text = "".join(pieces)
    if decode._MORSE.search(text):
        assert decode._may_hold_morse(decode._Source(text))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["%41", "%6e", "%zz", "%", "a", " ", "\n", "x" * 9, "\u00e9"])))
def test_percent_pre_check_never_skips_a_run(pieces: list[str]) -> None:
    text = "".join(pieces)
    if decode._PERCENT.search(text):
        assert decode._may_hold_percent_run(decode._Source(text))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=_BASE64_ALPHABET + "=\u00e9\u00c9\u00b2\u0663\u212a", max_size=30))
def test_base64_pre_check_equals_the_character_loops(core: str) -> None:
    expected = any(ch.isdigit() or ch in "+/" for ch in core) or (
        any(ch.islower() for ch in core) and any(ch.isupper() for ch in core)
    )
    assert decoders._has_digit_plus_slash_or_both_cases(core) is expected


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([*_RUN_PIECES, "<!-- ", "--", "- ", "0", "-" * 7]), min_size=1, max_size=8))
def test_a_long_text_dense_in_non_letters_is_ruled_out_only_without_runs(pieces: list[str]) -> None:
    """A text over 64 K characters dense in non-letter run characters is first checked for
    8 run characters in a row: the runs must be those found without that check."""
    unit = "".join(pieces)
    text = unit * (blob_runs._LONG_TEXT // len(unit) + 1)
    with mock.patch.object(blob_runs, "_LONG_TEXT", len(text)):
        unchecked = blob_runs.candidate_runs(text)
    assert blob_runs.candidate_runs(text) == unchecked


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from([p for p in _RUN_PIECES if re.fullmatch(f"[{_RUN}]+", p)]), max_size=12))
def test_a_run_without_eight_base32_or_ten_hex_characters_holds_no_such_blob(pieces: list[str]) -> None:
    """`_find_blobs_in_run` looks for base32 and hex blobs only where its quick search finds
    what each holds: the same blobs as looking in every run."""
    from unittest import mock

    run = "".join(pieces)
    everywhere = mock.patch.object(blob_runs, "_BASE32_OR_HEX", re.compile(""))
    with everywhere:
        expected = blob_runs._find_blobs_in_run(run)
    assert blob_runs._find_blobs_in_run(run) == expected
