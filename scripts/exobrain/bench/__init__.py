"""Benchmarks: synthetic exobrains and timings of the commands on them.

Each module in this package is one benchmark with a ``run(argv) -> int`` function; run one as
``python -m exobrain.bench <name>``. Figures are printed, never asserted: tests stay fast and
deterministic, and the numbers go into the issue notes.
"""
