"""The lifecycle transition table the authoring gate (and `exobrain lifecycle`) rely on."""

import pytest

from exobrain.model import LIFECYCLES, Lifecycle, transition_problem

ALLOWED = {
    ("draft", "active"),
    ("active", "deprecated"),
    ("deprecated", "archived"),
    ("draft", "archived"),
    ("active", "archived"),
}


@pytest.mark.parametrize("old", LIFECYCLES)
@pytest.mark.parametrize("new", LIFECYCLES)
def test_table(old, new):
    expected = old == new or (old, new) in ALLOWED
    assert (transition_problem(old, new) is None) is expected


def test_messages_say_what_is_possible():
    assert Lifecycle.ARCHIVED.next_states == ()
    assert "archived is final" in transition_problem("archived", "active")
    assert transition_problem("deprecated", "active") == (
        "deprecated → active is not allowed: from deprecated a skill may only go to archived"
    )
    assert "active or archived" in transition_problem("draft", "deprecated")
    assert "not a lifecycle" in transition_problem("active", "retired")
    assert transition_problem("unknown", "active") is None  # validate reports bad values
