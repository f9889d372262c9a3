"""The library's one shape of progress, and the counting wrapper of a stream."""

from exobrain.util.progress import STEP, counted


def test_a_counted_stream_reports_every_step_and_at_the_end():
    reports: list[tuple[str, int, int]] = []
    total = 2 * STEP + 5
    items = list(counted(range(total), lambda *r: reports.append(r), "read", total))
    assert items == list(range(total))
    assert reports == [("read", STEP, total), ("read", 2 * STEP, total), ("read", total, total)]


def test_an_empty_stream_still_ends_its_stage_and_none_reports_nothing():
    reports: list[tuple[str, int, int]] = []
    assert list(counted([], lambda *r: reports.append(r), "read", 0)) == []
    assert reports == [("read", 0, 0)]
    assert list(counted("ab", None, "read", 2)) == ["a", "b"]
