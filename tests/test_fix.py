"""``soulscan fix``: removes hidden characters, keeps emoji, touches nothing else."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from soulscan.cli import main
from soulscan.fix import fix_text, is_removable

EMOJI_SEQUENCES = (
    "\U0001f469\u200d\U0001f4bb",  # woman technologist (ZWJ)
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag (VS16 + ZWJ)
    "\U0001f469\U0001f3fd\u200d\U0001f680",  # woman astronaut, skin tone (modifier + ZWJ)
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family (three ZWJ)
    "\u2764\ufe0f",  # red heart (VS16)
    "\u263a\ufe0e",  # smiling face, text style (VS15)
    "1\ufe0f\u20e3",  # keycap one
    "#\ufe0f\u20e3",  # keycap number sign
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland
    "\U0001f1e9\U0001f1ea",  # flag of Germany (regional indicators)
    "\u8fbb\U000e0100",  # ideographic variation sequence
)
HIDDEN = (
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u180e",
    "\u202a",
    "\u202e",
    "\u2060",
    "\u2061",
    "\u2064",
    "\u2066",
    "\u2069",
    "\ufeff",
    "\ufff9",
    "\ufe00",
    "\ufe0f",
    "\U000e0001",
    "\U000e0041",
    "\U000e007f",
    "\U000e0100",
    "\U000e01ef",
    "\u00ad",
    "\u3164",
    "\U0001d173",
)
PLAIN = (
    "Be kind.",
    " ",
    "\n",
    "\r\n",
    "\r",
    "\u00e9t\u00e9",
    "\u0645\u0631\u062d\u0628\u0627",
    "\u4f60\u597d",
    "\u0645\u06cc",
    "\u0915\u094d",
    "\u00ad",
    "\u00a0",
    "\t",
    "\U0001f600",
    "x",
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a\u200bb", "ab", id="zero-width-space"),
        pytest.param("evil\u202eexe.md", "evilexe.md", id="bidi-override"),
        pytest.param("\ufeffSOUL", "SOUL", id="leading-bom"),
        pytest.param(
            "ok\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065", "ok", id="tag-payload"
        ),
        pytest.param(
            "\U0001f600\ufe00\ufe01\ufe02\U000e0100",
            "\U0001f600\ufe00",
            id="selector-payload-after-emoji-keeps-first",
        ),
        pytest.param("a \ufe0f", "a ", id="selector-after-space"),
        pytest.param(
            "\U0001f3f4\U000e0061\U000e0062\U000e007f",
            "\U0001f3f4",
            id="flag-with-too-short-tag-run",
        ),
        pytest.param(
            "\U0001f3f4" + "\U000e0061" * 8 + "\U000e007f",
            "\U0001f3f4",
            id="flag-with-too-long-tag-run",
        ),
        pytest.param("a\u200d\U0001f600", "a\U0001f600", id="zwj-after-letter"),
        pytest.param("\U0001f600\u200db", "\U0001f600b", id="zwj-before-letter"),
        pytest.param("line\r\nnext\u200b\r\n", "line\r\nnext\r\n", id="crlf-preserved"),
        pytest.param(
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", None, id="persian-zwnj-kept"
        ),
        pytest.param("\u0915\u094d\u200d\u0937", None, id="devanagari-zwj-kept"),
        pytest.param("pay\u200cpal", "paypal", id="latin-zwnj-removed"),
        pytest.param("\u0645\u200c\ufe00\u0645", "\u0645\ufe00\u0645", id="joiner-before-selector"),
        pytest.param(
            "soft\u00adhyphen \u3164 filler", "softhyphen  filler", id="soft-hyphen-filler"
        ),
    ]
    + [pytest.param(seq, seq, id=f"keeps-emoji-{i}") for i, seq in enumerate(EMOJI_SEQUENCES)],
)
def test_fix_text(text: str, expected: str | None) -> None:
    assert fix_text(text).fixed == (text if expected is None else expected)


def _without(text: str, offsets: set[int]) -> str:
    return "".join(c for i, c in enumerate(text) if i not in offsets)


@st.composite
def context_texts(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A text mixing prose, hidden characters and emoji; with the emoji token spans."""
    pieces = draw(
        st.lists(
            st.one_of(
                st.sampled_from(EMOJI_SEQUENCES),
                st.sampled_from(HIDDEN),
                st.sampled_from(PLAIN),
                st.text(max_size=4),
            ),
            max_size=40,
        )
    )
    text, spans = "", []
    for piece in pieces:
        if piece in EMOJI_SEQUENCES:
            spans.append((len(text), len(text) + len(piece)))
        text += piece
    return text, spans


@pytest.mark.parametrize("filler", ["\u3164", "\uffa0", "\u17b4"])
def test_a_joiner_before_a_removed_letter_goes_too(filler: str) -> None:
    # hypothesis found it: the ZWNJ was kept for the Hangul filler after it, which was
    # removed, so a second run removed the ZWNJ (not idempotent)
    fix = fix_text("\u0645\u0631\u062d\u0628\u0627\u200c" + filler)
    assert fix.fixed == "\u0645\u0631\u062d\u0628\u0627"
    assert not fix_text(fix.fixed).changed


@settings(max_examples=300, deadline=None)
@given(context_texts())
def test_fix_properties(case: tuple[str, list[tuple[int, int]]]) -> None:
    text, emoji_spans = case
    fix = fix_text(text)
    removed = {offset for offset, _ in fix.removed}
    # Byte-identical apart from the removed characters, each of them a hidden one.
    assert fix.fixed == _without(text, removed)
    assert all(is_removable(char) and text[offset] == char for offset, char in fix.removed)
    assert fix.fixed.encode("utf-8") == _without(text, removed).encode("utf-8")
    # Every emoji sequence survives whole.
    assert not any(start <= offset < end for offset in removed for start, end in emoji_spans)
    # Idempotent.
    assert fix_text(fix.fixed).fixed == fix.fixed
    assert not fix_text(fix.fixed).changed


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fix_arbitrary_text_is_idempotent_and_only_removes(text: str) -> None:
    fix = fix_text(text)
    assert fix.fixed == _without(text, {offset for offset, _ in fix.removed})
    assert not fix_text(fix.fixed).changed


def test_fix_rewrites_file_keeping_mode_and_bytes(tmp_path: Path) -> None:
    soul = tmp_path / "SOUL.md"
    soul.write_bytes("Be helpful.\u200b\r\n\u2764\ufe0f\U000e0041\n".encode())
    soul.chmod(0o640)
    assert main(["fix", str(soul)]) == 0
    assert soul.read_bytes() == "Be helpful.\r\n\u2764\ufe0f\n".encode()
    assert stat.S_IMODE(soul.stat().st_mode) == 0o640
    assert main(["fix", str(soul)]) == 0  # idempotent on disk too
    assert soul.read_bytes() == "Be helpful.\r\n\u2764\ufe0f\n".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["SOUL.md"]  # no temp file left


def test_fix_diff_writes_nothing_and_shows_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text("Use ruff.\u202e\n", encoding="utf-8")
    assert main(["fix", "--diff", str(agents)]) == 1
    out = capsys.readouterr().out
    assert "-Use ruff.\\u{202E}\n+Use ruff.\n" in out
    assert "\u202e" not in out
    assert agents.read_text(encoding="utf-8") == "Use ruff.\u202e\n"


def test_fix_directory_finds_context_files_only(tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "style.mdc").write_text("a\u200bb", encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text("c\u2060d", encoding="utf-8")
    (tmp_path / "notes.md").write_text("e\u200bf", encoding="utf-8")
    assert main(["fix", str(tmp_path)]) == 0
    assert (rules / "style.mdc").read_text(encoding="utf-8") == "ab"
    assert (tmp_path / "CLAUDE.md").read_text(encoding="utf-8") == "cd"
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "e\u200bf"


def test_fix_leaves_invalid_utf8_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    soul = tmp_path / "SOUL.md"
    soul.write_bytes(b"bad \xff byte \xe2\x80\x8b")
    assert main(["fix", str(soul)]) == 2
    assert soul.read_bytes() == b"bad \xff byte \xe2\x80\x8b"
    assert "not valid UTF-8" in capsys.readouterr().err


def test_fix_follows_symlink_and_keeps_it(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_text("x\u200by", encoding="utf-8")
    link = tmp_path / "SOUL.md"
    os.symlink(target, link)
    assert main(["fix", str(link)]) == 0
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == "xy"


def test_fix_leaves_a_link_to_a_fifo_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (a FIFO stands in for a device such as /dev/null: the rename would replace it)
    from soulscan.fix import write_atomically

    os.mkfifo(tmp_path / "pipe")
    link = tmp_path / "SOUL.md"
    link.symlink_to(tmp_path / "pipe")
    with pytest.raises(OSError, match="not a regular file; left untouched"):
        write_atomically(link, b"fixed")
    assert stat.S_ISFIFO((tmp_path / "pipe").lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SOUL.md", "pipe"]
