"""Test support shared by the conformance and differential suites.

Imported as ``support.*``: pytest puts ``tests/`` on ``sys.path`` (rootdir conftest, no
``tests/__init__.py``), so test modules write ``from support.spec import ...``.

- :mod:`support.spec`: the shared conformance file's plain-data conventions (cases, text
  specs, file trees, placeholders, :func:`~support.spec.materialise`).
- :mod:`support.compare`: ``expect_equal`` and the hash-order-tolerant comparisons.
- :mod:`support.oracle`: client of the real Hermes 0.19.0 runtime, run in its own venv
  (``.oracle``, built by ``scripts/ensure-oracle``) behind the JSON-lines subprocess
  :mod:`support.oracle_server`.
- :mod:`support.runtimes`: soulscan and the oracle behind one interface;
  :mod:`support.replay` replays scan / truncate / context_load cases on either.
- :mod:`support.fixtures`: the ``oracle`` / ``oracle_runtime`` fixtures (fail in CI, skip
  elsewhere when the oracle cannot be built); :mod:`support.differential`: run budgets,
  hypothesis settings, the ``tally`` of compared inputs; :mod:`support.strategies` and
  :mod:`support.tree_strategies`: hypothesis inputs.
"""
