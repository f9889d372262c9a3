"""Benchmarks kept with the project: ``python scripts/benchmarks NAME``.

Each benchmark module builds its own data (synthetic exobrains, generated repositories) and
times real commands; figures are printed, never asserted in the test suite.
"""
