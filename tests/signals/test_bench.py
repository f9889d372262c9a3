"""The signals benchmark measures the real thing: its lines are exactly what the toolkit writes."""

import time

from benchmarks.signals import write_ledgers
from exobrain.signals.ledger import dump_line, ledger_files, make_signal
from exobrain.signals.lines import fast_rows
from tests.support.signal_helpers import every_ledger

REFS = [f"skill:s{i}@global" for i in range(30)] + ["skill:t@groups/acme"]


def test_generated_ledgers_take_the_fast_path_and_parse_cleanly(tmp_path):
    files = write_ledgers(tmp_path, REFS, 3000, 3, 2, time.time(), days=30)
    assert files == 6
    paths = ledger_files(tmp_path)
    assert all(fast_rows(p.read_text(), p.parent.name) is not None for p in paths)
    agg = every_ledger(tmp_path)
    assert agg.lines == 3000 and agg.problems == []


def test_every_kind_the_cli_writes_takes_the_fast_path():
    lines = [
        make_signal("vote", REFS[0], -1, by="al", host="h"),
        make_signal("rank", REFS[0], 0.35, by="al", host="h", dimension="novelty"),
        make_signal("rank", REFS[0], 1, by="al", host="h", dimension="scope"),
        make_signal("usage", REFS[0], 1, by="al", host="h", auto=True, agent="claude"),
        make_signal("calibration", REFS[0], False, by="al", host="h"),
        make_signal("fund", REFS[0], 12.5, by="al", host="h", currency="eur"),
    ]
    rows = fast_rows("".join(dump_line(line) for line in lines), "al")
    assert rows is not None and len(rows) == len(lines)
