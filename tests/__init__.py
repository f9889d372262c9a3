"""The toolkit's tests, one package per family of scripts/exobrain (tests/core, tests/signals,
…), shared helpers in tests/support; imported as ``tests.<family>.test_<name>``."""
