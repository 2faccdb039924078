"""Memos keyed by a whole scanned text (or a payload decoded from one), and how to forget them.

Such a memo serves the many looks one scan takes at one text (each view and rule asking for
its distinct lines, the pipeline's second runtime scan of a file it has just judged), and,
as a side effect, a later file with the same text. A benchmark that times one input several
times must not time that side effect: before each timed run it forgets every memo registered
here (``forget_text_memos``, called by ``soulscan.bench.best_of``), so that each run costs
what the first scan of a text costs. Memos keyed by small pieces that recur in any text (one
character's NFKC, a short secret's digest) behave like tables and are not registered.

``tests/test_text_memos.py`` fails for an ``lru_cache`` on a function whose first parameter
is a ``text`` and that is not a ``text_memo``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_forgetters: list[Callable[[], None]] = []


def text_memo(maxsize: int) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """``functools.lru_cache(maxsize)``, registered to be forgotten by ``forget_text_memos``."""

    def remember(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _forgetters.append(cached.cache_clear)
        return cached

    return remember


def on_forget(forget: Callable[[], Any]) -> None:
    """Register ``forget`` (it empties a memo kept some other way) with ``forget_text_memos``."""
    _forgetters.append(forget)


def forget_text_memos() -> None:
    """Forget what every registered memo holds (those of modules imported so far: a module
    not imported yet holds nothing)."""
    for forget in _forgetters:
        forget()
