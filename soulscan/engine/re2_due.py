"""When a process's RE2 sets pay for themselves.

Importing ``re2`` and building a set cost ~10-20 ms; the pure-Python passes a set replaces
cost about that much a million characters. So a process builds its sets only once it has read
that much text the slow way: a one-file run (a hook on a few files, the cold start) never
loads RE2. The runtime scanner's sets (``soulscan.hermes.scanner``) and the hardened literal
sets (``soulscan.engine.re2_literals``) each keep one ``DueAfter``.
"""

from __future__ import annotations


class DueAfter:
    """The characters a process has read the slow way, and how many make its sets due."""

    def __init__(self, after: int | None) -> None:
        self.after = after  # None: never
        self.read = 0

    def restart(self, after: int | None) -> None:
        """Due once ``after`` more characters are read (0: at the next read; None: never)."""
        self.after, self.read = after, 0

    def due(self, chars: int) -> bool:
        """Count ``chars`` characters read the slow way; whether the sets are due now."""
        if self.after is None:
            return False
        self.read += chars
        return self.read >= self.after

    def share(self, processes: int) -> None:
        """Before ``processes`` processes share a run's text (``scan -j N`` forks its
        workers): each will read a share of it, so each is due after its share of the
        characters still due, and the run as a whole reads no more of them the slow way than
        one process would."""
        if self.after is not None and processes > 1:
            self.after = self.read + max(0, self.after - self.read) // processes
