"""JSON with limits: what Python's json would accept, turn into infinity or crash on."""

import pytest

from exobrain.util.boundedjson import MAX_DEPTH, JsonLimitError, loads, within_depth


def test_ordinary_documents_read_as_json_reads_them():
    text = '{"skills": [{"name": "a", "n": 12, "x": -1.5e3, "ok": true, "none": null}]}'
    assert loads(text) == {
        "skills": [{"name": "a", "n": 12, "x": -1500.0, "ok": True, "none": None}]
    }


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 200_000 + "]" * 200_000, f"nested deeper than {MAX_DEPTH} levels"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
        (
            ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).encode("utf-16"),
            f"nested deeper than {MAX_DEPTH} levels",
        ),
        ("9" * 5000, "a number of 5000 digits (at most 64)"),
        ("0." + "1" * 100, "a number of 102 characters (at most 64)"),
        ("[NaN]", "NaN is not a JSON number"),
        ('{"a": Infinity}', "Infinity is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e999", "the number 1e999 is too large to be finite"),
    ],
)
def test_hostile_documents_are_refused_with_the_reason(text, words):
    with pytest.raises(JsonLimitError, match=words.replace("(", r"\(").replace(")", r"\)")):
        loads(text)


def test_the_limit_is_a_value_error_like_invalid_json():
    assert issubclass(JsonLimitError, ValueError)


def test_depth_counts_containers_only():
    nested = [[[[{"a": [1]}]]]]
    assert within_depth(nested, 6) and not within_depth(nested, 5)
    assert within_depth("text", 0) and within_depth(
        loads("[" * MAX_DEPTH + "]" * MAX_DEPTH), MAX_DEPTH
    )


def test_brackets_inside_strings_only_make_the_depth_walk_run():
    text = '{"skills": [{"name": "' + "[{" * 100 + '"}]}'
    assert loads(text) == {"skills": [{"name": "[{" * 100}]}
