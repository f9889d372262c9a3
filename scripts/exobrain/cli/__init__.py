"""Thin click commands: parse options, call the library, render text or ``--json``.

One module per console script; ``edge`` holds what they share (the error edge, ``--repo``,
``--json``, terminal detection).
"""
