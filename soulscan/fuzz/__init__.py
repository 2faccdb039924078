"""Mutation fuzzer: obfuscate attack seeds the way real attackers do and measure what
the runtime verdict and the hardened verdict still catch.

The pure text transforms (``mutations``) and adversarial inputs (``adversarial``) need
nothing beyond the standard library; the hypothesis strategies (``strategies``) and the
runner need ``hypothesis``, which the CLI asks for only when ``soulscan fuzz`` runs.
"""
