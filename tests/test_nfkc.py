"""The linear NFKC and its offset map."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.hermes.nfkc import MappedText, _map_piece, _pieces, nfkc, nfkc_by_chunks, nfkc_mapped

# Letters, marks of several classes, compatibility characters, Hangul jamo, invisibles.
ALPHABET = st.sampled_from(
    list("aeiouKIi ſ\n>-") + ["\u0301", "\u0316", "\u0334", "\u0308", "\u0323", "\u0307",
                               "\u0130", "\uff41", "\uff49", "\u2460", "\ufb01", "\u1100",
                               "\u1161", "\u11a8", "\uac00", "\u200d", "\U0001f468", "\u00e9",
                               "\u0f73", "\u3000", "\u2126"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_nfkc_is_exact(text: str) -> None:
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join), st.integers(min_value=0, max_value=8))
def test_nfkc_by_chunks_is_exact(text: str, size: int) -> None:
    assert nfkc_by_chunks(text, size) == unicodedata.normalize("NFKC", text)


def test_a_long_text_normal_but_in_one_place() -> None:
    text = "plain words " * 400 + "caf\u0065\u0301 \u2026 \uff41" + " more words" * 400
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


FIVE_MARKS = "\u0301\u0316\u0334\u0308\u0323"
MANY_MARKS = "".join(map(chr, range(0x300, 0x340)))  # 64 marks of many classes


@pytest.mark.parametrize("marks", [31, 32, 33, 2_000])
@pytest.mark.parametrize("kinds", [FIVE_MARKS, MANY_MARKS], ids=["five-marks", "many-marks"])
def test_nfkc_is_exact_on_long_runs_of_mixed_marks(marks: int, kinds: str) -> None:
    run = (kinds * marks)[:marks]
    for text in (f"a{run}", f"x{run}b{run}", f"\u00e9{run}\uff41"):
        assert nfkc(text) == unicodedata.normalize("NFKC", text)


def _check_map(text: str) -> None:
    mapped = nfkc_mapped(text)
    assert mapped.text == unicodedata.normalize("NFKC", text)
    sources: dict[tuple[int, int], str] = {}
    for index, char in enumerate(mapped.text):
        start, end = mapped.source_span(index, index + 1)
        assert 0 <= start < end <= len(text)
        if (start, end) not in sources:
            sources[start, end] = unicodedata.normalize("NFKC", text[start:end])
        assert char in sources[start, end]
    whole = mapped.source_span(0, len(mapped.text))
    assert whole == ((0, len(text)) if text else (0, 0))
    assert mapped.source_span(len(mapped.text), len(mapped.text) + 3) == (len(text), len(text))


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_every_normalised_character_maps_back_to_its_source(text: str) -> None:
    _check_map(text)


@pytest.mark.parametrize("text", [
    pytest.param("plain ascii", id="ascii"),
    pytest.param("ａｂｃ ignore", id="fullwidth"),
    pytest.param("x" * 3000 + "\uff49gnore" + "y" * 3000, id="changed-piece-among-unchanged"),
    pytest.param("a" + "\u0301\u0316" * 2000, id="long-mark-run"),
    pytest.param("\u2460" * 5000, id="long-changed-run"),
])
def test_map_on_long_texts(text: str) -> None:
    _check_map(text)


def test_identity_map_for_normalised_text() -> None:
    mapped = nfkc_mapped("caf\u00e9 \U0001f468\u200d\U0001f469")
    assert not mapped.out_starts
    assert mapped.source_span(2, 4) == (2, 4)


def test_a_mark_run_longer_than_a_piece_only_reorders_marks() -> None:
    # Documented in soulscan.hermes.nfkc: such a run is cut anyway, which can change the
    # order of marks inside it but never a letter; verdicts use the exact NFKC.
    text = "a" + "\u0301\u0316\u0334" * 6000 + "b"
    mapped = nfkc_mapped(text)
    exact = unicodedata.normalize("NFKC", text)
    assert sorted(mapped.text) == sorted(exact)
    assert mapped.text[0] == exact[0] and mapped.text[-1] == exact[-1] == "b"
    assert mapped.source_span(len(mapped.text) - 1, len(mapped.text)) == (len(text) - 1, len(text))


def _mapped_group_by_group(text: str) -> MappedText:
    """The map as built before units: every group of a changed piece mapped on its own,
    ASCII characters included (the reference the unit-by-unit map must agree with)."""
    out: list[str] = []
    out_starts: list[int] = []
    src_starts: list[int] = []
    src_ends: list[int] = []
    one_to_one: list[bool] = []
    for a, b in _pieces(text):
        piece = text[a:b]
        normal = nfkc(piece)
        parts = ([(0, len(piece), piece, True)] if normal == piece else
                 [(ga, gb, group, False) for ga, gb, group in _map_piece(piece, normal) if group])
        for ga, gb, group, plain in parts:
            out_starts.append(sum(map(len, out)))
            out.append(group)
            src_starts.append(a + ga)
            src_ends.append(a + gb)
            one_to_one.append(plain)
    return MappedText("".join(out), len(text), tuple(out_starts), tuple(src_starts),
                      tuple(src_ends), tuple(one_to_one))


def _assert_same_spans(text: str) -> None:
    mapped, reference = nfkc_mapped(text), _mapped_group_by_group(text)
    assert mapped.text == reference.text
    length = len(mapped.text)
    for start in range(length + 1):
        for end in range(start, min(length, start + 12) + 1):
            assert mapped.source_span(start, end) == reference.source_span(start, end)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_units_map_every_span_as_groups_do(text: str) -> None:
    _assert_same_spans(text)


@pytest.mark.parametrize("text", [
    pytest.param("x" * 3000 + "e\u0301\uff49gnore \u2026 a\u0316\u0301b" + "y" * 3000, id="long-ascii-around"),
    pytest.param("\u1100\u1161\u11a8 ok \uac00\u11a8", id="hangul-composing-across-starters"),
    pytest.param("\u0301\u0316 leading marks then \uff41", id="leading-marks"),
    pytest.param(("word \u00e9 " * 300) + "\u2460", id="many-units-in-one-piece"),
])
def test_units_map_long_texts_as_groups_do(text: str) -> None:
    _assert_same_spans(text)
