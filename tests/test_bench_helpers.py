"""The benchmark's building blocks: what it feeds both sides and how it times them."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from soulscan import bench
from soulscan.bench import (
    BenchOptions,
    best_of,
    chosen_sections,
    comparable,
    corpus_texts,
    interleaved_medians,
    loaded_text,
    medians_taking_turns,
    sections,
    timed_runs,
    wall_and_cpu,
    wall_seconds,
)
from soulscan.errors import SoulscanError
from soulscan.fuzz.adversarial import ADVERSARIAL, of_bytes, prose


@pytest.mark.parametrize(
    ("raw", "loaded"),
    [
        pytest.param("  a\r\nb\rc  \n", "a\nb\nc", id="universal-newlines-and-strip"),
        pytest.param("\ufeffbody", "body", id="one-bom-removed"),
        pytest.param("\ufeff\ufeffbody", "\ufeffbody", id="only-one-bom"),
        pytest.param(" \n\t ", "", id="blank"),
    ],
)
def test_loaded_text_is_what_the_runtime_scans(raw: str, loaded: str) -> None:
    assert loaded_text(raw) == loaded


def test_comparable_ignores_the_order_of_invisible_ids_only() -> None:
    a = ["invisible_unicode_U+200B", "invisible_unicode_U+200C", "prompt_injection", "sys_prompt_override"]
    b = ["invisible_unicode_U+200C", "invisible_unicode_U+200B", "prompt_injection", "sys_prompt_override"]
    assert comparable(a) == comparable(b)
    assert comparable(a) != comparable(list(reversed(a)))


def test_corpus_texts_keeps_every_nth_loadable_encodable_item(tmp_path: Path) -> None:
    corpus = tmp_path / "one"
    corpus.mkdir()
    items = [{"text": f"item {n}"} for n in range(6)] + [{"text": "   "}, {"text": "\ud800 lone"}]
    (corpus / "items.jsonl").write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    where, texts = corpus_texts(tmp_path, 1)
    assert texts == [f"item {n}" for n in range(6)]
    assert where.startswith("6 items from 1 corpora")
    assert corpus_texts(tmp_path, 2)[1] == ["item 0", "item 2", "item 4"]


def test_corpus_texts_falls_back_to_the_built_in_seeds(tmp_path: Path) -> None:
    where, texts = corpus_texts(tmp_path / "missing", 1)
    assert "built-in seeds" in where and len(texts) > 40


def test_best_of_times_cpu_not_waiting() -> None:
    # Sleeping costs no CPU: a wall clock would report the 50 ms, the CPU clock does not.
    seconds, result = best_of(2, lambda: time.sleep(0.05) or "done")
    assert result == "done"
    assert seconds < 0.04


def test_timed_runs_keeps_every_run_in_order_and_the_first_is_shown() -> None:
    calls: list[int] = []
    times, result = timed_runs(3, lambda: calls.append(len(calls)) or len(calls))
    assert result == 3 and calls == [0, 1, 2]  # the last run's result
    assert len(times) == 3
    assert bench._first_run([0.25, 0.125, 0.5]) == "; first of 3 runs 0.25 s"
    assert bench._first_run([0.25]) == ""  # one run (--quick): nothing left out


def test_medians_taking_turns_take_each_figure_s_own_median() -> None:
    order: list[str] = []
    figures = {"a": iter([(3.0, 30.0), (1.0, 20.0), (2.0, 10.0)]), "b": iter([(5.0, 1.0)] * 3)}

    def measure(name: str) -> tuple[float, ...]:
        order.append(name)
        return next(figures[name])

    assert medians_taking_turns([lambda: measure("a"), lambda: measure("b")], 3) == [
        (2.0, 20.0), (5.0, 1.0)]
    assert "".join(order) == "ababab"


def test_interleaved_medians_time_each_command_in_turn(tmp_path: Path) -> None:
    log = tmp_path / "order"
    append = "import sys; open(sys.argv[1], 'a').write(sys.argv[2])"
    commands = [[sys.executable, "-c", append, str(log), tag] for tag in "ab"]
    medians = interleaved_medians(commands, 3)
    assert len(medians) == 2 and all(m > 0 for m in medians)
    assert log.read_text() == "ababab"


@pytest.mark.parametrize("timed", [wall_seconds, wall_and_cpu], ids=["wall", "wall-and-cpu"])
def test_a_timed_command_that_fails_stops_the_benchmark(
    tmp_path: Path, timed: Callable[[list[str], Path], object]
) -> None:
    # Its seconds would read as a speed-up: a scan that crashes at once is very fast.
    command = [sys.executable, "-c", "import sys; print('started'); sys.exit('scan crashed')"]
    with pytest.raises(SoulscanError, match=r"timed command failed \(exit 1\): .*: scan crashed$"):
        timed(command, tmp_path)


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        pytest.param((), ["corpora", "cold-start", "tree", "adversarial"], id="none-named-is-all"),
        pytest.param(("adversarial", "corpora"), ["corpora", "adversarial"], id="benchmark-order"),
        pytest.param(("tree", "tree"), ["tree"], id="once-each"),
    ],
)
def test_chosen_sections(names: tuple[str, ...], chosen: list[str]) -> None:
    assert chosen_sections(names) == chosen


def test_an_unknown_section_names_the_known_ones() -> None:
    with pytest.raises(SoulscanError, match=r"^unknown bench section 'cold start': choose from corpora, cold-start, tree, adversarial$"):
        chosen_sections(("corpora", "cold start"))


@pytest.mark.parametrize(
    ("quick", "size", "size_in_bytes"),
    [
        pytest.param(False, None, 1_000_000, id="full"),
        pytest.param(True, None, 256_000, id="quick"),
        pytest.param(True, 2_000, 2_000, id="chosen"),
    ],
)
def test_adversarial_input_size(quick: bool, size: int | None, size_in_bytes: int) -> None:
    options = BenchOptions(Path("python"), None, quick, adversarial_size=size)
    assert options.adversarial_bytes == size_in_bytes


@pytest.mark.parametrize("name", ["prose", *ADVERSARIAL])
@pytest.mark.parametrize("size", [1_000, 4_099, 65_536])
def test_adversarial_inputs_are_sized_in_utf8_bytes(name: str, size: int) -> None:
    build = ADVERSARIAL.get(name, prose)
    text = of_bytes(build, size)
    encoded = len(text.encode("utf-8"))
    assert size - 4 < encoded <= size  # one character more would not fit
    assert len(build(len(text) + 1).encode("utf-8")) > size or len(text) == size
    assert text == build(len(text))  # the builder's own input, only shorter


def test_shuffled_emoji_holds_emoji_sequences_without_a_short_repeat() -> None:
    from soulscan.fuzz.adversarial import EMOJI, shuffled_emoji

    text = shuffled_emoji(70_000)
    assert text == shuffled_emoji(70_000) and shuffled_emoji(100_000).startswith(text)
    assert set(text) == set("".join(EMOJI))
    # (the paths for repeating texts look for a period of up to 512 characters)
    assert not any(text[distance:].startswith(text[:2_000]) for distance in range(1, 4_096))


@pytest.mark.parametrize(
    ("only", "needs_oracle"),
    [
        pytest.param(("cold-start", "tree"), False, id="own-timings-only"),
        pytest.param(("tree", "adversarial"), True, id="adversarial"),
        pytest.param(("corpora",), True, id="corpora"),
        pytest.param((), True, id="all"),
    ],
)
def test_a_missing_oracle_is_reported_before_running_only_when_needed(
    tmp_path: Path, only: tuple[str, ...], needs_oracle: bool
) -> None:
    options = BenchOptions(tmp_path / "missing", None, True, only=only)
    if needs_oracle:
        with pytest.raises(SoulscanError, match="not found"):
            sections(options)
    else:
        assert len(sections(options)) == 1 + len(only)  # the machine lines, then each section
