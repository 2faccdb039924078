"""Rule-pack validation: every mistake is a one-line RulePackError naming file and rule."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from soulscan.engine import rulepack
from soulscan.engine.matcher import RuleTimeoutError, rule_search
from soulscan.engine.rulepack import load_pack, runtime_pack
from soulscan.errors import RulePackError

GOOD_RULE = """
  - id: SSX001
    name: demo-rule
    scope: context
    severity: high
    confidence: medium
    message: Demo.
    pattern: 'evil'
    examples: {match: [evil], no-match: [good]}
"""


def _pack(tmp_path: Path, rules: str, header: str = "pack: {id: demo, name: Demo}\n") -> Path:
    path = tmp_path / "pack.yaml"
    path.write_text(header + "rules:\n" + textwrap.dedent(rules), encoding="utf-8")
    return path


def test_good_pack_loads(tmp_path: Path) -> None:
    pack = load_pack(_pack(tmp_path, GOOD_RULE))
    assert [r.id for r in pack.rules] == ["SSX001"]
    assert pack.origin == "hardened"
    assert rule_search(pack.rules[0], "an evil plan")


@pytest.mark.parametrize(
    ("rules", "header", "message"),
    [
        pytest.param(GOOD_RULE.replace("message:", "mesage:"), None, "unknown key 'mesage' in rule",
                     id="unknown-rule-key"),
        pytest.param(GOOD_RULE.replace("'evil'", "'(evil'"), None, "bad pattern", id="bad-regex"),
        pytest.param(GOOD_RULE.replace("scope: context", "scope: everywhere"), None,
                     "unknown scope 'everywhere'", id="bad-scope"),
        pytest.param(GOOD_RULE + GOOD_RULE, None, "duplicate rule id", id="duplicate-id"),
        pytest.param(GOOD_RULE.replace("severity: high", "severity: dire"), None,
                     "unknown severity", id="bad-severity"),
        pytest.param(GOOD_RULE.replace("demo-rule", "Demo Rule"), None, "kebab-case",
                     id="bad-name"),
        pytest.param(GOOD_RULE, "pack: {id: demo, name: Demo, dialect: perl}\n",
                     "unknown dialect 'perl'", id="bad-dialect"),
        pytest.param(GOOD_RULE, "pack: {id: demo, name: Demo, colour: red}\n",
                     "unknown key 'colour' in pack header", id="unknown-header-key"),
        pytest.param(GOOD_RULE.replace("    pattern: 'evil'\n", ""), None, "missing 'pattern'",
                     id="missing-pattern"),
        pytest.param(GOOD_RULE + "    kinds: [readme]\n", None, "unknown kind 'readme'",
                     id="bad-kind"),
    ],
)
def test_invalid_pack_is_rejected(tmp_path: Path, rules: str, header: str | None,
                                  message: str) -> None:
    path = _pack(tmp_path, rules, header or "pack: {id: demo, name: Demo}\n")
    with pytest.raises(RulePackError) as info:
        load_pack(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text("rules: [\n", encoding="utf-8")
    with pytest.raises(RulePackError, match="invalid YAML"):
        load_pack(path)


def test_catastrophic_pattern_is_stopped_by_the_time_limit(tmp_path: Path) -> None:
    pack = load_pack(_pack(tmp_path, GOOD_RULE.replace("'evil'", "'(a|aa)+$'")))
    with pytest.raises(RuleTimeoutError, match="SSX001"):
        rule_search(pack.rules[0], "a" * 40 + "!", timeout=0.2)


def test_runtime_pack_matches_the_runtime_table_shape() -> None:
    pack = runtime_pack()
    scopes = [rule.scope for rule in pack.rules]
    assert (scopes.count("all"), scopes.count("context"), scopes.count("strict")) == (11, 17, 8)
    assert len(pack.invisible_chars) == 17
    assert pack.scan_window == 65_536


def test_built_in_rules_compile_lazily_and_user_rules_eagerly(tmp_path: Path) -> None:
    from soulscan.engine import rulepack

    path = _pack(tmp_path, GOOD_RULE.replace("'evil'", "'lazy-only-pattern-x'"))
    rulepack._compiled.cache_clear()
    trusted = load_pack(path, trusted=True)
    assert rulepack._compiled.cache_info().currsize == 0
    assert rule_search(trusted.rules[0], "a lazy-only-pattern-x here")
    with pytest.raises(RulePackError):
        load_pack(_pack(tmp_path, GOOD_RULE.replace("'evil'", "'(evil'")))


def test_fullcase_rules_get_no_ascii_anchors(tmp_path: Path) -> None:
    pack = load_pack(_pack(tmp_path, GOOD_RULE.replace("'evil'", "'strasse'")
                           + "    flags: [ignorecase, fullcase]\n"))
    assert pack.rules[0].anchors is None
    assert rule_search(pack.rules[0], "STRASSE") and rule_search(pack.rules[0], "stra\u00dfe")


def test_the_hardened_packs_and_only_they_live_in_their_directory() -> None:
    """``builtin_packs_of`` picks the files to load by this, before reading any."""
    hardened_dir = rulepack.rules_dir() / rulepack.HARDENED_PACKS_DIR
    for pack in rulepack.builtin_packs():
        assert (pack.origin == "hardened") == (hardened_dir in pack.path.parents), pack.path


@pytest.mark.parametrize("origin", sorted(rulepack.ORIGINS))
def test_the_packs_of_one_origin_are_those_of_all_packs(origin: str) -> None:
    assert rulepack.builtin_packs_of(origin) == tuple(
        pack for pack in rulepack.builtin_packs() if pack.origin == origin)
    assert rulepack.builtin_packs_of(origin)


def test_the_built_in_pack_paths_are_what_rglob_finds(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert rulepack.builtin_pack_paths() == sorted(rulepack.rules_dir().rglob("*.yaml"))
    (tmp_path / "deep" / "er").mkdir(parents=True)
    for name in ("a.yaml", "a-b.yaml", "deep/b.yaml", "deep/er/c.yaml", "deep/notes.txt",
                 "deep/er/.hidden.yaml", "d.yml"):
        (tmp_path / name).write_text("id: x\n", encoding="utf-8")
    (tmp_path / "odd.yaml").mkdir()  # a directory by that name: rglob lists it too
    outside = tmp_path.parent / f"{tmp_path.name}-linked"
    outside.mkdir()
    (outside / "e.yaml").write_text("id: y\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)  # not followed
    monkeypatch.setattr(rulepack, "rules_dir", lambda: tmp_path)
    assert rulepack.builtin_pack_paths() == sorted(tmp_path.rglob("*.yaml"))
    assert len(rulepack.builtin_pack_paths()) == 6
