import json

import pytest

from exobrain.util.jsonstyle import locate_array, render_like, splice_array

HOUSE = """{
  "$schema": "../../skills.schema.json",
  "skills": [
    { "name": "review-pr", "owner": "alex", "tier": "optional" },
    { "name": "tidy", "owner": "acme", "tier": "always", "force": true },
    { "name": "skill-creator", "owner": "anthropic", "tier": "optional",
      "source": { "repo": "https://github.com/anthropics/skills", "path": "skills/skill-creator", "ref": "main" } }
  ]
}
"""
ONE = [{"name": "a", "owner": "x", "tier": "always"}]
STYLES = {
    "house": HOUSE,
    "indent4": json.dumps({"skills": ONE}, indent=4) + "\n",
    "tabs-no-final-newline": json.dumps({"$schema": "s", "skills": ONE * 2}, indent="\t"),
    "minified": json.dumps({"skills": ONE}, separators=(",", ":")),
    "one-line": json.dumps({"$schema": "s", "skills": []}),
    "crlf": HOUSE.replace("\n", "\r\n"),
    "unpadded": '{\n  "skills": [\n    {"name": "a", "owner": "x", "tier": "always"},\n'
    '    {"name": "b", "owner": "x", "tier": "always"}\n  ]\n}\n',
    "empty-house": '{\n  "$schema": "skills.schema.json",\n  "skills": []\n}\n',
    "non-ascii-escaped": json.dumps({"skills": [dict(ONE[0], notes="café")]}, indent=2),
}
NEW = {"name": "new", "from": "groups/acme", "tier": "off", "notes": "naïve"}


def edit(text, new):
    return splice_array(text, locate_array(text, "skills"), json.loads(text)["skills"], new)


@pytest.mark.parametrize("style", STYLES)
def test_append_then_remove_gives_back_the_same_bytes(style):
    text = STYLES[style]
    old = json.loads(text)["skills"]
    added = edit(text, [*old, NEW])
    assert json.loads(added)["skills"] == [*old, NEW]
    assert added.startswith(text[: text.index("[")])  # nothing before the array moved
    assert edit(added, old) == text


def test_house_style_new_entry_is_one_line_and_untouched_entries_keep_their_bytes():
    added = edit(HOUSE, json.loads(HOUSE)["skills"] + [NEW])
    line = '    { "name": "new", "from": "groups/acme", "tier": "off", "notes": "naïve" }'
    assert added == HOUSE.replace('"ref": "main" } }\n  ]', '"ref": "main" } },\n' + line + "\n  ]")


def test_expanded_file_gets_expanded_entries_at_its_own_indent():
    text = STYLES["indent4"]
    added = edit(text, [*ONE, NEW])
    assert '        {\n            "name": "new",\n            "from": "groups/acme",' in added
    assert added == json.dumps({"skills": [*ONE, NEW]}, indent=4, ensure_ascii=False) + "\n"


def test_escaped_file_stays_ascii():
    added = edit(
        STYLES["non-ascii-escaped"], json.loads(STYLES["non-ascii-escaped"])["skills"] + [NEW]
    )
    assert added.isascii() and "na\\u00efve" in added


def test_changed_entry_is_rerendered_in_place_and_others_keep_their_bytes():
    entries = json.loads(HOUSE)["skills"]
    changed = [entries[0], dict(entries[1], tier="optional"), entries[2]]
    out = edit(HOUSE, changed)
    assert '    { "name": "tidy", "owner": "acme", "tier": "optional", "force": true },\n' in out
    assert out.replace('"tier": "optional", "force"', '"tier": "always", "force"') == HOUSE


def test_removing_a_middle_entry_keeps_neighbours_verbatim():
    entries = json.loads(HOUSE)["skills"]
    out = edit(HOUSE, [entries[0], entries[2]])
    assert "tidy" not in out and '"path": "skills/skill-creator", "ref": "main" } }\n  ]' in out
    assert edit(out, entries) == HOUSE


def test_emptying_an_array_and_filling_it_again():
    text = '{\n  "skills": [\n    { "name": "a", "owner": "x", "tier": "always" }\n  ]\n}\n'
    empty = edit(text, [])
    assert empty == '{\n  "skills": []\n}\n'
    assert edit(empty, ONE) == text


def test_duplicate_key_uses_the_array_json_loads_keeps():
    text = '{"skills": [{"name": "ghost", "owner": "x", "tier": "always"}], "skills": []}'
    assert json.loads(edit(text, ONE))["skills"] == ONE


def test_render_like_keeps_indent_newlines_and_final_newline():
    assert (
        render_like('{\n    "a": 1\n}\n', {"a": 2, "b": [1]})
        == '{\n    "a": 2,\n    "b": [\n        1\n    ]\n}\n'
    )
    assert render_like('{"a":1}', {"a": 2, "b": 3}) == '{"a":2,"b":3}'
    assert render_like('{\r\n\t"a": 1\r\n}', {"a": 2}) == '{\r\n\t"a": 2\r\n}'


def test_unpadded_file_gets_unpadded_entries():
    text = STYLES["unpadded"]
    added = edit(
        text, json.loads(text)["skills"] + [{"name": "c", "from": "global", "tier": "off"}]
    )
    assert added.endswith(
        '"always"},\n    {"name": "c", "from": "global", "tier": "off"}\n  ]\n}\n'
    )
