"""One scan finds exactly the pinned anchors that occur, however they overlap."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.engine.anchorscan import (
    MAX_GROUPS,
    AnchorScan,
    build_scan,
    letter_scans,
    on_pivots_of,
    pinnable,
    pivot_scans,
)
from soulscan.engine.rulepack import builtin_packs, runtime_pack

RUNTIME_ANCHORS = sorted({anchor for rule in runtime_pack().rules
                          for group in (rule.anchors or ()) for anchor in group})
ALL_ANCHORS = sorted({anchor for pack in builtin_packs() for rule in pack.rules
                      for group in (rule.anchors or ()) for anchor in group})
# Anchors that share pivots and tails and overlap one another.
TANGLED = ["kk", "kkk", "akka", "ka", "ak", "vkv", "xkx", "kx", "xk", "ekke", "bkb", "kb"]


@functools.cache
def _scan(anchors: tuple[str, ...], min_rank: int) -> AnchorScan:
    return build_scan(anchors, min_rank)


def _exact(anchors: list[str], min_rank: int, text: str) -> None:
    scan = _scan(tuple(anchors), min_rank)
    assert scan.present(text) == {anchor for anchor in scan.pinned if anchor in text}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(RUNTIME_ANCHORS + [" ", "x", "k", "v"]), max_size=30).map("".join))
def test_runtime_anchors_run_together(text: str) -> None:
    for min_rank in (0, 11, 20):
        _exact(RUNTIME_ANCHORS, min_rank, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TANGLED + ["a", "e", " "]), max_size=30).map("".join))
def test_overlapping_anchors_with_shared_pivots(text: str) -> None:
    _exact(TANGLED, 0, text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(ALL_ANCHORS), max_size=20).map(" ".join))
def test_every_built_in_anchor(text: str) -> None:
    _exact(ALL_ANCHORS, 20, text)


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("secret ecret", {"secret", "ecret"}, id="same-tail"),
    pytest.param("kkk", {"kk", "kkk"}, id="prefix-at-the-same-pivot"),
    pytest.param("xkx", {"xkx", "kx", "xk"}, id="hidden-inside-a-match"),
    pytest.param("", set(), id="empty"),
])
def test_examples(text: str, expected: set[str]) -> None:
    scan = build_scan(["secret", "ecret", "kk", "kkk", "xkx", "kx", "xk"], 0)
    assert scan.present(text) == expected


def test_only_anchors_with_a_rare_character_are_pinned() -> None:
    scan = build_scan(["the", "network", "you"])
    assert scan.pinned == {"network"}
    assert build_scan(["the"]).present("the") == set()


def test_a_common_anchor_hides_no_rarer_one_at_its_own_pivot() -> None:
    # "without" is tried before "with" at a "w": finding "with" there means "without" is not
    scan = build_scan(["with", "without"], 0)
    assert "without" not in scan.neighbours["with"]
    assert scan.present("with without") == {"with", "without"}
    assert scan.present("without") == {"with", "without"}
    assert scan.present("with") == {"with"}


def test_a_pivot_is_moved_to_keep_pivot_to_end_parts_apart() -> None:
    # "have" and "above" both end "ve" after their rarest character; "above" has another
    scan = build_scan(["have", "above"], 20)
    assert set(scan.by_tail) == {"ve", "bove"}
    assert scan.present("have above") == {"have", "above"}


# One pivot-to-end part ("ver") shared by anchors a character before the pivot tells apart,
# and by one ("ever") that no single place tells apart from "never".
SHARED_TAILS = ["sliver", "server", "never", "div", "check", "task", "disk", "key"]


def test_anchors_of_one_part_told_apart_by_a_captured_character() -> None:
    scan = build_scan(SHARED_TAILS, 20)
    assert scan.pattern is not None and scan.pattern.groups == 3  # the part, "ver", "k"
    assert {proven for proven, _ in scan.outcomes.values()} == {
        ("sliver",), ("server",), ("never",), ("check",), ("task",), ("disk",), ("key",), ("div",)}
    assert scan.present("never a server") == {"never", "server"}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*SHARED_TAILS, "ever", "v", "e", "r", "k", " "]),
                max_size=30).map("".join))
def test_anchors_of_one_part_run_together(text: str) -> None:
    _exact(SHARED_TAILS, 20, text)
    _exact([*SHARED_TAILS, "ever"], 20, text)


# Words of common characters only, several of them sharing their rarest one.
COMMON_WORDS = ["command", "metasploit", "must", "mythic", "prompt", "curl", "unset", "tell",
                "liner", "translate", "credentials", "yourself", "pretend"]


def test_letter_scans_pin_words_of_common_characters() -> None:
    scans = letter_scans(COMMON_WORDS)
    assert [scan.pattern.pattern[:1] for scan in scans if scan.pattern] == ["l", "m", "u", "y"]
    assert set().union(*(scan.pinned for scan in scans)) == set(COMMON_WORDS) - {"pretend"}
    # a literal first character and no group around it: ``re`` looks for it with a tight
    # loop, and goes on from the character after it
    assert all(scan.pattern and scan.pattern.groups == 0 for scan in scans)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*COMMON_WORDS, "l", "m", "u", "y", "e", " "]),
                max_size=30).map("".join))
def test_letter_scans_find_exactly_their_words(text: str) -> None:
    for scan in letter_scans(COMMON_WORDS):
        assert scan.present(text) == {word for word in scan.pinned if word in text}


# "now" ends at its pivot, where "with" (tried first) can match: "nowith" holds both.
PROBED = ["now", "with", "without", "wget", "codex", "execute", "kk", "kkk", "akk"]


def test_an_anchor_ending_at_its_pivot_is_probed_there() -> None:
    scan = build_scan(PROBED, 20)
    assert scan.pattern is not None and "(?:(?<=(no)w))?" in scan.pattern.pattern
    assert "now" not in scan.neighbours["with"] and "codex" not in scan.neighbours["execute"]
    assert scan.present("nowith") == {"now", "with"}
    assert scan.present("codexecute") == {"codex", "execute"}
    assert scan.present("with") == {"with"}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*PROBED, "no", "w", "k", "a", "x", "e", " "]),
                max_size=30).map("".join))
def test_probed_anchors_run_together(text: str) -> None:
    for min_rank in (0, 20):
        _exact(PROBED, min_rank, text)


def test_a_scan_of_many_anchors_keeps_few_groups() -> None:
    # Each group lengthens every find and each probe doubles what a find at its pivot can
    # give: past ``MAX_GROUPS`` the rest are left to ``in`` (a scan of a thousand anchors
    # would otherwise build millions of outcomes).
    for min_rank in (11, 20):
        scan = build_scan(ALL_ANCHORS, min_rank)
        assert scan.pattern is not None and scan.pattern.groups <= MAX_GROUPS + 1
        assert len(scan.outcomes) <= len(scan.by_tail) * 2 ** MAX_GROUPS


def test_a_pivot_only_other_anchors_use_is_left_out() -> None:
    anchors = {"execute", "codex", "have", "never", "-->", "with"}
    assert pinnable(anchors) == anchors
    assert on_pivots_of(anchors, {"have"}) == {"have", "never"}  # the x and > stops go
    assert on_pivots_of(anchors, {"have", "-->"}) == {"have", "never", "-->"}


def test_the_runtime_gate_stops_at_no_pivot_only_later_groups_need() -> None:
    from soulscan.hermes.scanner import _gate_in, _members

    gate = _gate_in(_members("context"))
    pinned = set().union(*(scan.pinned for scan in gate.scans if scan.pivot in "!.'2bkvw"))
    assert {"execute", "codex", "-->"}.isdisjoint(pinned)
    assert {"have", "now", "c2", "<!--"} <= pinned
    # one literal character first in each pattern: no set test of every character
    assert all(scan.pivot and scan.pattern and scan.pattern.pattern.lstrip("(\\")[0] == scan.pivot
               for scan in gate.scans)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*RUNTIME_ANCHORS, "x", " ", "e", "w", "now", "ith"]), max_size=25).map("".join))
def test_pivot_scans_find_what_one_scan_finds(text: str) -> None:
    anchors = set(RUNTIME_ANCHORS)
    one = build_scan(anchors).present(text)
    split = set().union(*(scan.present(text) for scan in pivot_scans(anchors)))
    assert split == one == {anchor for anchor in build_scan(anchors).pinned if anchor in text}


@pytest.mark.parametrize(
    ("anchors", "min_rank", "pivot", "max_groups"),
    [
        pytest.param(tuple(TANGLED), 0, None, MAX_GROUPS, id="tangled"),
        pytest.param(("kk", "kkk", "xkx", "kx"), 0, "k", 0, id="one-pivot"),
        pytest.param(("the", "and"), 20, None, MAX_GROUPS, id="none-pinned"),
    ],
)
def test_a_scan_from_the_start_up_cache_is_the_one_worked_out_afresh(
    anchors: tuple[str, ...], min_rank: int, pivot: str | None, max_groups: int
) -> None:
    """build_scan(stored=True) takes its parts from a persistent memo (marshal form on
    disk): they equal the parts worked out now, and so does the scan built from them."""
    import marshal

    from soulscan.engine import anchorscan

    key = (tuple(sorted(set(anchors))), min_rank, pivot, max_groups)
    fresh = anchorscan._scan_parts(*key)
    assert marshal.loads(marshal.dumps(fresh)) == fresh
    assert anchorscan._stored_scan_parts(*key) == fresh
    scan = build_scan(reversed(anchors), min_rank, pivot, max_groups, stored=True)  # any order
    source, pinned, by_tail, neighbours, outcomes = fresh
    assert (scan.pattern.pattern if scan.pattern else None) == source
    if source is not None:
        assert (scan.pinned, scan.by_tail, scan.neighbours, scan.outcomes) == (
            pinned, dict(by_tail), dict(neighbours), dict(outcomes))


def test_stored_pivot_and_letter_scans_are_those_worked_out_afresh() -> None:
    """The runtime gate's kind of scans (one a pivot, one a letter), built through the
    memo, equal those built without it (small entries: a test must not fill the record a
    start-up reads with big ones)."""
    fresh = (*pivot_scans(RUNTIME_ANCHORS), *letter_scans(RUNTIME_ANCHORS))
    stored = (*pivot_scans(RUNTIME_ANCHORS, stored=True), *letter_scans(RUNTIME_ANCHORS, stored=True))
    assert [(s.pattern, s.pinned, s.by_tail, s.neighbours, s.outcomes, s.pivot) for s in stored] == [
        (s.pattern, s.pinned, s.by_tail, s.neighbours, s.outcomes, s.pivot) for s in fresh]


def _located_exactly(scan: AnchorScan, text: str) -> None:
    """Every occurrence of a located anchor is where a find of its part ends, less its length."""
    assert scan.pattern is not None and not scan.pattern.groups
    finds = [(found.group(), found.end()) for found in scan.pattern.finditer(text)]
    for anchor, tail in scan.located().items():
        shared = len(scan.by_tail[tail]) > 1  # (only then can a find of the part be another's)
        where = [end - len(anchor) for part, end in finds
                 if part == tail and (not shared or text.startswith(anchor, end - len(anchor)))]
        assert where == [i for i in range(len(text)) if text.startswith(anchor, i)], anchor


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*RUNTIME_ANCHORS, *TANGLED, *SHARED_TAILS, "x", " ", "e", "w", "k", "v"]),
                max_size=30).map("".join))
def test_located_anchors_are_found_wherever_they_occur(text: str) -> None:
    for scan in (*pivot_scans(RUNTIME_ANCHORS + TANGLED + SHARED_TAILS), *letter_scans(COMMON_WORDS)):
        if scan.pattern is not None and not scan.pattern.groups:
            _located_exactly(scan, text)


def test_an_anchor_a_neighbour_can_hide_is_not_located() -> None:
    scan = build_scan(["kk", "kkk", "akka"], pivot="k", max_groups=0)
    located = scan.located()
    hidden = set().union(*scan.neighbours.values())
    assert hidden and not hidden & set(located)
    assert "kk" not in located  # "kkk" found first at a "kk" would hide it
    _located_exactly(scan, "akkakkkk kk")


def test_an_anchor_whose_match_can_hide_its_own_next_occurrence_is_not_located() -> None:
    scan = build_scan(["bkb"], pivot="b", max_groups=0)  # pinned to its first "b"
    assert "bkb" not in scan.located()
    assert "kbk" in build_scan(["kbk"], pivot="b", max_groups=0).located()  # ("kbkbk": found at 1, 3)
    _located_exactly(build_scan(["kbk"], pivot="b", max_groups=0), "kbkbk kbk")
