"""Configuration: every key, both file formats, and the errors a typo must produce."""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path
from typing import Any

import pytest

from soulscan import config
from soulscan.config import Settings, find_config, load_settings
from soulscan.engine import cache
from soulscan.errors import ConfigError
from soulscan.models import Severity
from soulscan.suppress import Suppression

DIGEST = "ab" * 32


def _yaml(tmp_path: Path, body: str) -> Settings:
    config = tmp_path / ".soulscan.yaml"
    config.write_text(textwrap.dedent(body), encoding="utf-8")
    return load_settings(config)


def _toml(tmp_path: Path, body: str) -> Settings:
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.soulscan]\n" + textwrap.dedent(body), encoding="utf-8")
    return load_settings(config)


# (YAML body, TOML body, attribute, expected value given tmp_path)
KEY_CASES = [
    pytest.param(
        "paths: [SOUL.md, docs]",
        'paths = ["SOUL.md", "docs"]',
        "paths",
        lambda base: ("SOUL.md", "docs"),
        id="paths",
    ),
    pytest.param(
        "exclude: ['vendor/**']",
        'exclude = ["vendor/**"]',
        "exclude",
        lambda base: ("vendor/**",),
        id="exclude",
    ),
    pytest.param(
        "profile: runtime",
        'profile = "runtime"',
        "profile",
        lambda base: "runtime",
        id="profile",
    ),
    pytest.param(
        "fail-on: HIGH",
        'fail-on = "high"',
        "fail_on",
        lambda base: "high",
        id="fail-on",
    ),
    pytest.param(
        "enable: [SS1*, prompt_injection]",
        'enable = ["SS1*", "prompt_injection"]',
        "enable",
        lambda base: ("SS1*", "prompt_injection"),
        id="enable",
    ),
    pytest.param(
        "disable: [SS401]",
        'disable = ["SS401"]',
        "disable",
        lambda base: ("SS401",),
        id="disable",
    ),
    pytest.param(
        "severity: {SS401: low, exfil_curl: critical}",
        'severity = { SS401 = "low", exfil_curl = "critical" }',
        "severity",
        lambda base: {"SS401": Severity.LOW, "exfil_curl": Severity.CRITICAL},
        id="severity",
    ),
    pytest.param(
        "rule-packs: [packs/team.yaml]",
        'rule-packs = ["packs/team.yaml"]',
        "rule_packs",
        lambda base: (base / "packs" / "team.yaml",),
        id="rule-packs",
    ),
    pytest.param(
        "hermes-home: home/.hermes",
        'hermes-home = "home/.hermes"',
        "hermes_home",
        lambda base: base / "home" / ".hermes",
        id="hermes-home",
    ),
    pytest.param(
        "context-length: 32000",
        "context-length = 32000",
        "context_length",
        lambda base: 32000,
        id="context-length",
    ),
    pytest.param(
        "suppressions:\n  - {rule: SS5*, path: 'docs/**/*.md', reason: examples, "
        f"sha256: {DIGEST}, expires: 2027-01-31}}",
        'suppressions = [{ rule = "SS5*", path = "docs/**/*.md", reason = "examples", '
        f'sha256 = "{DIGEST}", expires = 2027-01-31 }}]',
        "suppressions",
        lambda base: (
            Suppression("SS5*", "docs/**/*.md", "examples", DIGEST, dt.date(2027, 1, 31)),
        ),
        id="suppressions",
    ),
    pytest.param(
        "baseline: .soulscan-baseline.json",
        'baseline = ".soulscan-baseline.json"',
        "baseline",
        lambda base: base / ".soulscan-baseline.json",
        id="baseline",
    ),
]


@pytest.mark.parametrize(("yaml_body", "toml_body", "attribute", "expected"), KEY_CASES)
def test_every_key_in_both_formats(
    tmp_path: Path, yaml_body: str, toml_body: str, attribute: str, expected: Any
) -> None:
    yaml_dir, toml_dir = tmp_path / "y", tmp_path / "t"
    yaml_dir.mkdir()
    toml_dir.mkdir()
    from_yaml = _yaml(yaml_dir, yaml_body)
    from_toml = _toml(toml_dir, toml_body)
    assert getattr(from_yaml, attribute) == expected(yaml_dir)
    assert getattr(from_toml, attribute) == expected(toml_dir)
    # Every other attribute keeps its default.
    untouched = {name for name in Settings.__dataclass_fields__} - {attribute, "source"}
    for name in untouched:
        assert getattr(from_yaml, name) == getattr(Settings(), name), name


def test_snake_case_spelling_is_accepted(tmp_path: Path) -> None:
    assert _yaml(tmp_path, "fail_on: block\ncontext_length: 10").fail_on == "block"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param("fail-of: high", "unknown key 'fail-of'", id="unknown-key-typo"),
        pytest.param("fail-on: high\nfail_on: low", "given twice", id="duplicate-spellings"),
        pytest.param(
            "profile: paranoid", "profile: expected one of runtime, hardened", id="bad-profile"
        ),
        pytest.param("fail-on: severe", "fail-on: expected one of", id="bad-fail-on"),
        pytest.param("paths: SOUL.md\nexclude: [1]", "exclude: expected a list", id="bad-list"),
        pytest.param(
            "severity: {SS401: urgent}", "SS401: unknown severity 'urgent'", id="bad-severity"
        ),
        pytest.param("severity: [SS401]", "expected a mapping", id="severity-not-mapping"),
        pytest.param("context-length: 0", "expected a positive integer", id="zero-length"),
        pytest.param("context-length: true", "expected a positive integer", id="bool-length"),
        pytest.param("hermes-home: ''", "hermes-home: expected a path", id="empty-home"),
        pytest.param(
            "suppressions: [{rule: SS1*, path: '*'}]",
            "'reason' is required",
            id="suppression-without-reason",
        ),
        pytest.param(
            "suppressions: [{rule: x, path: y, reason: z, line: 3}]",
            "unknown key 'line'",
            id="suppression-unknown-key",
        ),
        pytest.param(
            "suppressions: [{rule: x, path: y, reason: z, sha256: nothex}]",
            "64 lower-case hex",
            id="suppression-bad-hash",
        ),
        pytest.param(
            "suppressions: [{rule: x, path: y, reason: z, expires: soon}]",
            "must be a date",
            id="suppression-bad-date",
        ),
        pytest.param(
            "suppressions: {rule: x}", "expected a list of suppressions", id="suppressions-not-list"
        ),
        pytest.param("- just\n- a list", "must be a mapping", id="top-level-list"),
        pytest.param("paths: [unclosed", "invalid YAML", id="malformed-yaml"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError, match=".soulscan.yaml") as error:
        _yaml(tmp_path, body)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_bad_toml_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid TOML"):
        _toml(tmp_path, "paths = [")


def test_discovery_prefers_yaml_and_walks_up_to_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    nested = repo / "a" / "b"
    nested.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "pyproject.toml").write_text('[tool.soulscan]\nprofile = "runtime"\n')
    assert find_config(nested) == repo / "pyproject.toml"
    assert load_settings(start=nested).profile == "runtime"
    (repo / ".soulscan.yaml").write_text("profile: hardened\n")
    assert find_config(nested) == repo / ".soulscan.yaml"
    # A config above the git root belongs to another project.
    (tmp_path / ".soulscan.yaml").write_text("profile: runtime\n")
    (repo / ".soulscan.yaml").unlink()
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert find_config(nested) is None
    assert load_settings(start=nested) == Settings()


def test_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.yaml")


def test_empty_yaml_gives_defaults(tmp_path: Path) -> None:
    settings = _yaml(tmp_path, "")
    assert settings == Settings(source=tmp_path / ".soulscan.yaml")


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache"
    monkeypatch.setenv("SOULSCAN_CACHE_DIR", str(home))
    monkeypatch.delenv("SOULSCAN_NO_CACHE", raising=False)
    config._tool_table.cache_clear()  # a fresh process: nothing read yet
    monkeypatch.setattr(config, "_written", [0])
    return home


def _fresh_load(path: Path) -> Settings:
    """``load_settings`` as a new process runs it (the file's table not yet in memory)."""
    config._tool_table.cache_clear()
    return load_settings(path)


def _pyproject_records(home: Path) -> list[Path]:
    return sorted((home / "pyproject").glob("*.bin"))


def _write_pyproject(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_pyproject_table_is_kept_and_what_a_second_run_reads(cache_home: Path,
                                                               tmp_path: Path) -> None:
    path = _write_pyproject(tmp_path, '[tool.soulscan]\nprofile = "runtime"\n')
    assert _fresh_load(path).profile == "runtime"
    (record,) = _pyproject_records(cache_home)
    cache.store(f"pyproject/{record.name}", ({"profile": "hardened"},))  # a hit skips the parse
    assert _fresh_load(path).profile == "hardened"
    path.write_text('[tool.soulscan]\nprofile = "all"\n', encoding="utf-8")  # an edit
    assert _fresh_load(path).profile == "all"


def test_a_pyproject_without_a_soulscan_table_is_kept_as_such(cache_home: Path,
                                                              tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    _write_pyproject(repo, "[project]\nname = 'x'\n")
    assert find_config(repo) is None
    (record,) = _pyproject_records(cache_home)
    assert cache.load(f"pyproject/{record.name}") == (None,)
    config._tool_table.cache_clear()
    assert find_config(repo) is None


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param(["not", "a", "tuple"], id="not-a-tuple"),
        pytest.param(({"profile": "hardened"}, "more"), id="long-tuple"),
        pytest.param(({1: "hardened"},), id="key-not-text"),
        pytest.param(({"exclude": ("a",)},), id="tuple-not-list"),
        pytest.param(({"exclude": [b"a"]},), id="bytes-not-text"),
        pytest.param(("profile",), id="table-not-a-mapping"),
    ],
)
def test_a_pyproject_record_of_another_shape_is_ignored(cache_home: Path, tmp_path: Path,
                                                        stored: object) -> None:
    path = _write_pyproject(tmp_path, '[tool.soulscan]\nprofile = "runtime"\n')
    _fresh_load(path)
    (record,) = _pyproject_records(cache_home)
    cache.store(f"pyproject/{record.name}", stored)
    assert _fresh_load(path).profile == "runtime"


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda record: record.write_bytes(record.read_bytes()[:-3]), id="torn"),
        pytest.param(lambda record: record.write_bytes(b"foreign"), id="foreign-file"),
    ],
)
def test_a_damaged_pyproject_record_is_ignored(cache_home: Path, tmp_path: Path,
                                               damage: Any) -> None:
    path = _write_pyproject(tmp_path, '[tool.soulscan]\nprofile = "runtime"\n')
    _fresh_load(path)
    (record,) = _pyproject_records(cache_home)
    damage(record)
    assert _fresh_load(path).profile == "runtime"


def test_a_table_with_a_date_is_parsed_each_time(cache_home: Path, tmp_path: Path) -> None:
    body = (f'[tool.soulscan]\n[[tool.soulscan.suppressions]]\nrule = "SS101"\npath = "*"\n'
            f'reason = "r"\nsha256 = "{DIGEST}"\nexpires = 2031-01-01\n')
    path = _write_pyproject(tmp_path, body)
    first = _fresh_load(path)
    assert first.suppressions[0].expires == dt.date(2031, 1, 1)
    assert _pyproject_records(cache_home) == []
    assert _fresh_load(path) == first


def test_invalid_toml_is_reported_each_time(cache_home: Path, tmp_path: Path) -> None:
    path = _write_pyproject(tmp_path, "[tool.soulscan]\npaths = [\n")
    for _ in range(2):
        with pytest.raises(ConfigError, match="invalid TOML"):
            _fresh_load(path)
    assert _pyproject_records(cache_home) == []


def test_the_kept_tables_are_bounded(cache_home: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "MAX_PYPROJECT_TABLES", 3)
    for profile in ("runtime", "hardened", "all"):
        _fresh_load(_write_pyproject(tmp_path, f'[tool.soulscan]\nprofile = "{profile}"\n'))
    assert len(_pyproject_records(cache_home)) == 3
    monkeypatch.setattr(config, "_written", [0])  # the next process
    _fresh_load(_write_pyproject(tmp_path, '[tool.soulscan]\nfail-on = "high"\n'))
    assert len(_pyproject_records(cache_home)) == 1
