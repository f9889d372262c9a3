"""The one output filter: what it escapes, what it keeps, and JSON that is the same data."""

from __future__ import annotations

import json

import pytest

from exobrain.util.terminal import json_safe, json_text, safe_line, safe_text, unsafe_in


@pytest.mark.parametrize(
    ("text", "line", "first"),
    [
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07", "\\x1b"),
        ("a\x9b31mb", "a\\x9b31mb", "\\x9b"),
        ("\x85\x90\x9f", "\\x85\\x90\\x9f", "\\x85"),
        ("\x7f\x00\r", "\\x7f\\x00\\x0d", "\\x7f"),
        ("\u202ea\u2066\u2069\u200e", "\\u202ea\\u2066\\u2069\\u200e", "\\u202e"),
        ("\u200f\u061c\u202a\u202d", "\\u200f\\u061c\\u202a\\u202d", "\\u200f"),
        ("bytes \udc9b", "bytes \\udc9b", "\\udc9b"),
        ("two\nlines\tand a tab", "two\\x0alines\\x09and a tab", "\\x0a"),
    ],
)  # fmt: skip
def test_every_dangerous_character_is_shown_escaped(text, line, first):
    assert safe_line(text) == line
    assert unsafe_in(text) == first


def test_text_keeps_its_newlines_and_tabs_and_nothing_else():
    assert safe_text("one\n\ttwo\r\x1b[2J") == "one\n\ttwo\\x0d\\x1b[2J"
    assert unsafe_in("one\n\ttwo", lines=True) is None
    assert unsafe_in("one\n\ttwo") == "\\x0a"


def test_ordinary_text_is_left_as_it_is():
    text = "Grüße привет مرحبا 你好 👩‍💻 ✓ \\x1b (a backslash stays) \u00a0 \u200d"
    assert safe_line(text) == text and safe_text(text) == text and unsafe_in(text) is None


def test_json_carries_the_same_data_and_nothing_raw():
    data = {"d\u202e": ["\x1b]0;t\x07", "\x7f\x9b\u2066", "\udc80", "é 中 👩‍💻"]}
    text = json_text(data)
    assert json.loads(text) == data
    assert not any(c in text for c in "\x1b\x07\x7f\x9b\u202e\u2066\udc80")
    assert "é 中 👩‍💻" in text and json_safe('"plain"') == '"plain"'
    assert json_text({"a": 1}, indent=None) == '{"a": 1}'
