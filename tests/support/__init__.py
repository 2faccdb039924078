"""Test support shared by the conformance and differential suites.

- :mod:`tests.support.spec`: the plain-data conventions of the shared conformance file
  (text specs, file trees, placeholders, blobs, unordered findings).
- :mod:`tests.support.oracle`: a client for the real Hermes 0.19.0 runtime, run in its own
  venv (``.oracle``) behind a JSON-lines subprocess (:mod:`tests.support.oracle_server`).
- :mod:`tests.support.fixtures`: pytest fixtures built on both (import them into a test module).
"""
