"""Command-line entry point: start-up caches, then the click group of
``soulscan.commands._group``, and the one error handler.

Exit codes: 0 clean, 1 findings at or above the fail-on threshold (or a refused
write), 2 usage/config/input errors, 3 internal error (a bug).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from soulscan.errors import SoulscanError

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_CRASH = 3


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the program itself (console script, python -m), not a caller
        _exit_without_teardown_after_handlers()
        _collect_cycles_less_often()
        _defer_seldom_used_modules()
        _settle_the_start_up_cache_directory()
        _import_through_the_start_up_cache()
        _compile_re_through_the_start_up_cache()
        _compile_named_tuples_through_the_start_up_cache()
    result = _main(argv)
    _exit_code[0] = result
    return result


# What main returned, for the exit below; None until it returned.
_exit_code: list[int | None] = [None]


def _exit_without_teardown_after_handlers() -> None:
    """End the process right after the exit handlers, skipping the interpreter's teardown.

    Freeing every module and object of a scan (rule packs, compiled patterns, Unicode
    tables) takes about a tenth of a one-file scan's time, for a process that is ending
    anyway (mypy exits the same way). Registered first, this handler runs after every
    handler registered later (cache records are saved, worker pools are gone); output is
    flushed first.
    """
    import atexit

    def finish() -> None:
        code = _exit_code[0]
        if code is None:
            return  # main did not return: let Python end as usual
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)

    atexit.register(finish)


# Container objects allocated (net of those freed) between two young collections.
YOUNG_GENERATION_SIZE = 50_000


def _collect_cycles_less_often() -> None:
    """Let the cycle collector run every 50,000 surviving allocations, not every 700.

    Start-up builds objects that live as long as the process (modules, classes, rule
    packs, gates): at the default threshold the collector walks them again and again,
    about a twentieth of a one-file scan, and finds nothing to free. A scan's garbage is
    freed by reference counting as before; cycles wait a little longer (the threshold
    counts objects allocated and not yet freed, so a scan that keeps little triggers few
    collections either way).
    """
    import gc

    gc.set_threshold(YOUNG_GENERATION_SIZE, *gc.get_threshold()[1:])


def _settle_the_start_up_cache_directory() -> None:
    """The start-up cache's directory, chosen from the environment once (``cache.
    settle_for_program``), not at each of its ~200 uses. Only for the program."""
    from soulscan.engine import cache

    cache.settle_for_program()


def _defer_seldom_used_modules() -> None:
    """``hashlib``, ``ipaddress`` and ``inspect``, imported when first used
    (``deferred_modules``): a clean file's scan uses none of them but ``inspect.cleandoc``,
    served from stored code. Only for the program."""
    from soulscan import deferred_modules

    deferred_modules.install()


def _import_through_the_start_up_cache() -> None:
    """soulscan's own modules, imported from their stored code (``module_cache``): one
    record read instead of a look-up and a ``.pyc`` read each, and no compile of a module
    whose ``.pyc`` is stale and cannot be rewritten. Only for the program."""
    from soulscan.engine import module_cache

    module_cache.install()


def _compile_re_through_the_start_up_cache() -> None:
    """Every ``re`` compile of the process, through the disk cache (``re_cache.install``):
    soulscan's module-level patterns and those of the standard library modules click
    imports. Only for the program: a caller's process keeps ``re`` as it was."""
    from soulscan.engine import re_cache

    re_cache.install()


def _compile_named_tuples_through_the_start_up_cache() -> None:
    """The expressions ``typing`` and ``namedtuple`` compile for each named tuple (its
    fields' annotations, its ``__new__``), read from the disk cache
    (``code_cache.install_for_program``). Only for the program."""
    from soulscan.engine import code_cache

    code_cache.install_for_program()


def _main(argv: Sequence[str] | None) -> int:
    from soulscan.engine import code_cache, regex_cache

    # Patterns are parsed, and dataclass methods compiled, once per machine, not per run:
    # installed before click is imported.
    regex_cache.install()
    code_cache.install()
    import click

    from soulscan.commands._group import cli

    try:
        result = cli.main(args=list(argv) if argv is not None else None, standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("soulscan: aborted", err=True)
        return EXIT_ERROR
    except click.exceptions.ClickException as exc:
        exc.show()
        return EXIT_ERROR
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except SoulscanError as exc:
        click.echo(f"soulscan: error: {exc}", err=True)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    except KeyboardInterrupt:
        click.echo("soulscan: interrupted", err=True)
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        click.echo(
            f"soulscan: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug; please report it with the command you ran)",
            err=True,
        )
        return EXIT_CRASH
    return int(result) if isinstance(result, int) else EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
