"""The text-view rules of one kind of file (raw, nfkc, skeleton, words) over one text's views.

Each view's text is prepared (folded) once; the anchors of the raw, NFKC and skeleton gates
are looked up together, once a distinct folded text of those views (most texts fold the
same in all three), and the words view's once; the gate then says which rules, and which
of their branches, can match; a live rule whose RE2 superset finds nothing in the view
(``soulscan.hardened.rule_supersets``, once the RE2 sets are built; on a long text where
many of a view's rules are live, one pass of the view's set answers for all) is not
searched; the others only where a match can start (``soulscan.hardened.branch_search``),
with what the lookup found ruling out the start strings the text cannot hold.
"""

from __future__ import annotations

import functools

from soulscan.engine.matcher import PreparedText, rule_finditer
from soulscan.engine.rulepack import Rule, builtin_packs_of
from soulscan.hardened import rule_supersets
from soulscan.hardened.anchor_finder import PivotFinder, WordsIndex, pivot_finder, token_finder
from soulscan.hardened.branch_search import BranchSearch
from soulscan.hardened.gate import ViewGate
from soulscan.hardened.views import Views

# Views whose gates' anchors one finder looks up together, once a distinct folded text.
SHARED_VIEWS = ("raw", "nfkc", "skeleton")


@functools.cache
def hardened_rules() -> tuple[Rule, ...]:
    return tuple(
        rule for pack in builtin_packs_of("hardened") for rule in pack.rules
    )


def applies(rule: Rule, kind: str) -> bool:
    return not rule.kinds or kind in rule.kinds


@functools.cache
def view_gate(view: str, kind: str) -> ViewGate:
    return ViewGate([r for r in hardened_rules() if r.view == view and applies(r, kind)], view)


@functools.cache
def shared_finder(kind: str) -> PivotFinder:
    """One finder of the anchors of every shared view's gate: a view's anchors found with the
    others' too cost one pass a distinct folded text, and a gate reads only its own."""
    return pivot_finder(frozenset().union(*(view_gate(view, kind).anchors for view in SHARED_VIEWS)))


@functools.cache
def view_superset(view: str, kind: str) -> rule_supersets.ViewSuperset | None:
    """One RE2 set of the supersets of the rules of `view` searched by their own pattern
    (``rule_supersets.ViewSuperset``), built at the first long text that asks for it."""
    return rule_supersets.view_superset_of(
        [gated[0].rule for gated in view_gate(view, kind).rules
         if searched_by_pattern(gated[0].rule)])


def rule_spans(
    rule: Rule,
    search: BranchSearch,
    prepared: PreparedText,
    words: WordsIndex | None = None,
    present: set[str] | None = None,
) -> list[tuple[int, int]]:
    """Every match of the rule; `search` runs the rule's pattern or the branches the gate left;
    `words` and `present`: what the gate found in the view's folded text."""
    if not rule.trusted or rule.exact_source is not None:
        # a time limit, or a python-re rule whose exact form depends on the text
        return list(rule_finditer(rule, prepared))
    return search.spans(prepared, words, present)


def searched_by_pattern(rule: Rule) -> bool:
    """Whether ``rule_spans`` runs the rule's own pattern over the view's text (what its
    RE2 superset, ``rule_supersets``, is a superset of)."""
    return rule.trusted and rule.exact_source is None


class ViewRules:
    """The text-view rules of `kind` over the views of one text, each view worked on once."""

    def __init__(self, views: Views, kind: str) -> None:
        self.views = views
        self.kind = kind
        self._prepared: dict[str, PreparedText] = {}
        self._live: dict[str, dict[str, BranchSearch]] = {}
        self._found: dict[str, set[str]] = {}
        # the folded texts of the shared views looked up, each with the anchors it holds
        self._shared_found: list[tuple[str, set[str]]] = []
        self._words: WordsIndex | None = None
        self._utf8: dict[int, bytes | None] = {}  # id of a PreparedText -> its text's UTF-8
        # whether the rule supersets are built, asked once a text: sets built while it is
        # worked on are used from the next (a superset only spares a search)
        self._supersets_due: bool | None = None
        # view -> the live rules its set rules out (a long text); None: each rule asks its own
        self._ruled_out: dict[str, frozenset[str] | None] = {}

    def prepared(self, view: str) -> PreparedText:
        """One PreparedText a view, so anchor folding is done once, not once a rule; views
        with the same text (most texts read the same raw and NFKC) share theirs: one fold,
        and one object for what is worked out from it."""
        prepared = self._prepared.get(view)
        if prepared is None:
            text = self.views.get(view).text
            for other in self._prepared.values():
                if len(other.text) == len(text) and other.text == text:
                    prepared = other
                    break
            else:
                prepared = PreparedText(text, folded=self.views.folded(view))
            self._prepared[view] = prepared
        return prepared

    def live(self, view: str) -> dict[str, BranchSearch]:
        """Rule id -> search, for the rules of `view` whose anchors occur in its text."""
        live = self._live.get(view)
        if live is None:
            found = self.present(view)  # (which prepares the view)
            live = view_gate(view, self.kind).live(self._prepared[view], found)
            self._live[view] = live
        return live

    def spans(self, rule: Rule) -> list[tuple[int, int]]:
        """Every match of a rule of a text view, in that view's offsets."""
        view = rule.view
        search = self.live(view).get(rule.id)
        if search is None:
            return []
        # (``live`` has prepared the view and found its anchors)
        prepared = self._prepared[view]
        due = self._supersets_due
        if due is None:
            due = self._supersets_due = rule_supersets.due()
        if due and searched_by_pattern(rule) and not self._may_match(rule, prepared):
            return []
        words = self.words_index() if view == "words" else None
        return rule_spans(rule, search, prepared, words, self._found[view])

    def _may_match(self, rule: Rule, prepared: PreparedText) -> bool:
        """False only when the rule's superset rules out its search in the view's text: by
        one pass of the view's set on a long text where many of its rules are live, else
        by the rule's own set."""
        data = self._encoded(prepared)
        if data is None:
            return True
        if len(data) >= rule_supersets.LONG_TEXT_BYTES:
            view = rule.view
            if view not in self._ruled_out:
                self._ruled_out[view] = self._ruled_out_by_view_set(view, data)
            ruled_out = self._ruled_out[view]
            if ruled_out is not None:
                return rule.id not in ruled_out
        return rule_supersets.may_match(rule, data)

    def _ruled_out_by_view_set(self, view: str, data: bytes) -> frozenset[str] | None:
        """The live rules of `view` that its set rules out in `data`, when at least half of
        the rules it holds are live (one pass then costs less than theirs); None: each
        live rule asks its own set."""
        superset = view_superset(view, self.kind)
        if superset is None:
            return None
        searches = self.live(view)
        live = [rule_id for rule_id in superset.rule_ids if rule_id in searches]
        if len(live) < 2 or 2 * len(live) < len(superset.rule_ids):
            return None
        return frozenset(live) - superset.may_match(data)

    def _encoded(self, prepared: PreparedText) -> bytes | None:
        """A view's text as UTF-8, encoded once for every rule tried (None: a lone
        surrogate). Keyed by the object, which ``_prepared`` keeps alive."""
        key = id(prepared)
        if key in self._utf8:
            return self._utf8[key]
        try:
            encoded: bytes | None = prepared.text.encode("utf-8")
        except UnicodeEncodeError:
            encoded = None
        self._utf8[key] = encoded
        return encoded

    def words_index(self) -> WordsIndex:
        if self._words is None:
            view, folded = self.views.get("words"), self.prepared("words").folded
            # the view's own tokens, where it split its text anyway and folding changes nothing
            own = view.tokens if view.tokens is not None and folded == view.text else None
            self._words = WordsIndex.of(folded) if own is None else WordsIndex(own)
        return self._words

    def present(self, view: str) -> set[str]:
        """The anchors of the view's gate (and maybe others) found in its folded text."""
        found = self._found.get(view)
        if found is None:
            folded = self.prepared(view).folded
            if view in SHARED_VIEWS:
                found = self._shared_present(folded)
            else:
                finder = token_finder(view_gate(view, self.kind).anchors)
                found = finder.present(folded, self.words_index)
            self._found[view] = found
        return found

    def _shared_present(self, folded: str) -> set[str]:
        """The anchors of every shared view found in `folded`, looked up once a distinct
        folded text (most texts fold the same raw, NFKC and as a skeleton)."""
        for seen, found in self._shared_found:
            if seen is folded or len(seen) == len(folded) and seen == folded:
                return found
        found = shared_finder(self.kind).present(folded)
        self._shared_found.append((folded, found))
        return found
