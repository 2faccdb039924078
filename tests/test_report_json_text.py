"""The JSON report's writer: the very text ``json.dumps(indent=2, ensure_ascii=False)`` gives."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.models import ScanReport
from soulscan.report import RenderOptions
from soulscan.report.json import indented_json, render, report_document

_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(), st.floats(allow_nan=True),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.text(max_size=5), children, max_size=4),
        st.dictionaries(st.integers(), children, max_size=2),
    ),
    max_leaves=20,
)


def _reference(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


@settings(max_examples=300, deadline=None)
@given(_VALUES)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert indented_json(value) == _reference(value)


def test_nesting_empty_containers_and_raw_characters() -> None:
    value = {"a": [], "b": {}, "c": [[{}], {"d": [None, True, False, -7]}],
             "e": "\u202e\x00\u00e9\"\\\n"}
    assert indented_json(value) == _reference(value)


def test_empty_report_renders_as_json_dumps_would() -> None:
    report = ScanReport((), ())
    assert render(report, RenderOptions()) == _reference(report_document(report)) + "\n"


def test_strings_go_through_the_encoder_json_uses() -> None:
    from soulscan.report import json as report_json

    assert report_json._encode_string is json.encoder.encode_basestring


def test_a_json_report_is_rendered_without_importing_the_json_package() -> None:
    """The writer takes json's C string encoder from ``_json``: a scan's report needs no
    other part of the json package (its decoder compiles patterns at import)."""
    import subprocess
    import sys

    probe = ("import sys\n"
             "from soulscan.models import ScanReport\n"
             "from soulscan.report import RenderOptions\n"
             "from soulscan.report.json import render\n"
             "text = render(ScanReport((), ()), RenderOptions())\n"
             "print('json' in sys.modules, text.count('schema'))\n")
    completed = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                               text=True, timeout=60)
    assert completed.stdout.split() == ["False", "1"]


def test_a_report_of_real_kinds_renders_as_json_dumps_would() -> None:
    """Each file is written straight from its result (``_FileEntries``): the same text as
    its dict through json.dumps: a block with ids, a skip with a detail, findings with a
    decoded payload, hostile paths, errors."""
    from tests.report_samples import sample_report

    report = sample_report()
    assert render(report, RenderOptions()) == _reference(report_document(report)) + "\n"


_TEXTS = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXTS, st.sampled_from(["agents", "soul", "mdc"]),
                          st.sampled_from(["load", "block", "truncate", "skip"]),
                          st.lists(_TEXTS, max_size=3), st.integers(), st.integers(),
                          st.none() | _TEXTS), max_size=4))
def test_file_entries_render_as_json_dumps_would(files: list[tuple[Any, ...]]) -> None:
    from soulscan.models import FileResult, RuntimeSummary

    report = ScanReport(tuple(
        FileResult(path, kind, RuntimeSummary(action, tuple(ids), total, loaded, detail))
        for path, kind, action, ids, total, loaded, detail in files), ())
    assert render(report, RenderOptions()) == _reference(report_document(report)) + "\n"


def test_a_file_entry_with_values_no_scan_makes_is_left_to_the_dict_writer() -> None:
    """A subclass of int (a bool) or of str is written as json.dumps writes it."""
    from soulscan.models import FileResult, RuntimeSummary

    class Named(str):
        pass

    report = ScanReport((FileResult("a", Named("agents"), RuntimeSummary("load", (), True, 3)),), ())
    assert render(report, RenderOptions()) == _reference(report_document(report)) + "\n"
