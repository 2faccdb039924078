"""Hypothesis strategies, one per mutation family, each mapping a seed to variants.

A strategy draws only the choices a transform in ``mutations`` takes; lists shrink to
empty and integers to zero, which the transforms read as "leave the seed alone", so a
shrunk failing example is the smallest obfuscation that evades.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from soulscan.fuzz import mutations, vocabulary

Family = Callable[[str], st.SearchStrategy[str]]

_POSITIONS = st.integers(min_value=0, max_value=10_000)
_SMALL = st.integers(min_value=0, max_value=64)
_COVERS = (
    "Thanks for reading the guide.",
    "Have a great day!",
    "See the changelog for details.",
)


def _pairs(max_size: int) -> st.SearchStrategy[list[tuple[int, int]]]:
    return st.lists(st.tuples(_POSITIONS, _SMALL), max_size=max_size)


def case(seed: str) -> st.SearchStrategy[str]:
    return st.builds(mutations.recase, st.just(seed), _pairs(24), st.integers(0, 4))


def whitespace(seed: str) -> st.SearchStrategy[str]:
    gaps = st.lists(st.integers(0, len(vocabulary.GAPS) - 1), max_size=48)
    return st.builds(mutations.regap, st.just(seed), gaps)


def filler(seed: str) -> st.SearchStrategy[str]:
    counts = st.lists(st.integers(0, 14), max_size=48)
    return st.builds(mutations.add_filler, st.just(seed), counts, _SMALL)


def markdown(seed: str) -> st.SearchStrategy[str]:
    wrappers = st.lists(st.integers(0, len(vocabulary.WORD_WRAPPERS) - 1), max_size=48)
    return st.builds(mutations.decorate, st.just(seed), wrappers, _pairs(8))


def invisible(seed: str) -> st.SearchStrategy[str]:
    return st.builds(
        mutations.insert_chars, st.just(seed), _pairs(32), st.just(vocabulary.INVISIBLES)
    )


def homoglyph(seed: str) -> st.SearchStrategy[str]:
    return st.builds(mutations.substitute_homoglyphs, st.just(seed), _pairs(24))


def smuggling(seed: str) -> st.SearchStrategy[str]:
    return st.builds(mutations.smuggle, st.just(seed), st.integers(0, 2), st.sampled_from(_COVERS))


def encoding(seed: str) -> st.SearchStrategy[str]:
    schemes = st.integers(0, len(mutations.ENCODINGS) - 1)
    return st.builds(mutations.encode, st.just(seed), schemes, st.booleans())


def translation(seed: str) -> st.SearchStrategy[str]:
    templates = st.integers(0, len(vocabulary.TRANSLATION_TEMPLATES) - 1)
    return st.builds(mutations.translate, st.just(seed), templates, _pairs(12))


def embedding(seed: str) -> st.SearchStrategy[str]:
    return st.builds(
        mutations.embed, st.just(seed), st.integers(0, 8), st.integers(0, 16)
    )


def padding(seed: str) -> st.SearchStrategy[str]:
    shifts = st.integers(min_value=-max(len(seed) - 1, 0), max_value=4096)
    return st.builds(mutations.pad_past_window, st.just(seed), shifts)


def stacked(seed: str) -> st.SearchStrategy[str]:
    """Two light families in a row (the second applied to the first's output)."""
    light = (case, whitespace, filler, markdown, invisible, homoglyph)
    return st.sampled_from(light).flatmap(lambda first: first(seed)).flatmap(
        lambda text: st.sampled_from(light).flatmap(lambda second: second(text))
    )


FAMILIES: dict[str, Family] = {
    "case": case,
    "whitespace": whitespace,
    "filler": filler,
    "markdown": markdown,
    "invisible": invisible,
    "homoglyph": homoglyph,
    "smuggling": smuggling,
    "encoding": encoding,
    "translation": translation,
    "embedding": embedding,
    "padding": padding,
    "stacked": stacked,
}
