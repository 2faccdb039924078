"""One module per CLI subcommand; each defines ``command`` (a click command).

The module name, with ``_`` turned into ``-``, is the subcommand's name. They are
imported lazily so ``soulscan scan`` does not pay for ``soulscan fuzz``.
"""
