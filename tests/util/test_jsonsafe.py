"""util.jsonsafe: whatever YAML's safe loader builds becomes strict JSON (no NaN, no Infinity,
text keys), the way show, the index rows and the site print frontmatter."""

from __future__ import annotations

import datetime
import json
import math

from hypothesis import given
from hypothesis import strategies as st

from exobrain.util.jsonsafe import json_safe

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=20)
    | st.dates()
    | st.datetimes(timezones=st.none() | st.timezones())
)
KEYS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS | st.dates() | st.binary(max_size=4), inner, max_size=4)
        | st.frozensets(st.text(max_size=4) | st.integers() | st.dates(), max_size=4)
    ),
    max_leaves=20,
)


@given(VALUES)
def test_every_value_becomes_strict_json(value):
    text = json.dumps(json_safe(value), allow_nan=False, sort_keys=True)
    assert json.loads(text) == json_safe(value)


def test_each_kind_reads_the_way_the_docs_say():
    assert json_safe(
        {
            datetime.date(2020, 1, 1): [b"abc", {3, 1}, (1, 2)],
            7: math.nan,
            None: -math.inf,
            "when": datetime.datetime(2020, 1, 2, 10, 30),
        }
    ) == {
        "2020-01-01": ["<3 bytes>", [1, 3], [1, 2]],
        "7": ".nan",
        "null": "-.inf",
        "when": "2020-01-02T10:30:00",
    }
