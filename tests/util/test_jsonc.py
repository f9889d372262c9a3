"""JSONC read and edited one member at a time (exobrain.util.jsonc): comments, trailing commas
and the file's own spacing survive; what is not JSONC is refused."""

from pathlib import Path

import pytest

from exobrain.errors import InputFileError
from exobrain.util.jsonc import clean, loads, set_member

P = Path("settings.json")


def test_comment_and_comma_lookalikes_inside_strings_are_text():
    text = '{"url": "http://x/*y*/", "s": ",}", "q": "say \\"//\\"", "list": [1, 2,],}'
    assert loads(text, P) == {"url": "http://x/*y*/", "s": ",}", "q": 'say "//"', "list": [1, 2]}
    assert len(clean(text, P)) == len(text)


def test_a_member_is_inserted_after_a_trailing_comment_in_its_siblings_indentation():
    text = '{\n\t"a": 1, // one\n\t"b": {\n\t\t"c": 2 /* two */\n\t}\n}\n'
    out = set_member(text, ("b", "d"), [1], P)
    assert out == (
        '{\n\t"a": 1, // one\n\t"b": {\n\t\t"c": 2, /* two */\n\t\t"d": [\n\t\t\t1\n\t\t]\n\t}\n}\n'
    )


def test_a_one_line_file_stays_on_one_line():
    assert set_member('{"a": {}}', ("a", "x"), {"k": 1}, P) == '{"a": {"x": {"k": 1}}}'
    assert set_member('{"a": 1}', ("b", "x"), 2, P) == '{"a": 1, "b": {"x": 2}}'


def test_the_last_of_two_duplicate_keys_is_the_one_edited():
    out = set_member('{\n  "a": 1,\n  "a": 2\n}\n', ("a",), 3, P)
    assert out == '{\n  "a": 1,\n  "a": 3\n}\n' and loads(out, P) == {"a": 3}


@pytest.mark.parametrize("text", ["{a: 1}", "{'a': 1}", '{"a": 1', "/* open", '"a"'])
def test_what_is_not_jsonc_is_refused(text):
    with pytest.raises(InputFileError, match="settings.json"):
        set_member(text, ("a",), 1, P)
