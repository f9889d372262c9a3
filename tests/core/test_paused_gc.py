"""paused_gc: no collection while a big graph is built; at a command's last step what was made
is frozen for good instead of being walked once more (and only then)."""

import gc

from exobrain.util.gcpause import paused_gc


def test_a_pause_for_good_freezes_what_was_made_and_collects_again_after():
    assert gc.isenabled()
    before = gc.get_freeze_count()
    try:
        with paused_gc(for_good=True):
            assert not gc.isenabled()
            kept = [[n] for n in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()


def test_a_plain_pause_or_one_inside_another_freezes_nothing():
    # what an earlier test in this process froze may be freed meanwhile, which lowers the
    # count: start from nothing frozen
    gc.unfreeze()
    before = gc.get_freeze_count()
    with paused_gc():
        with paused_gc(for_good=True):  # the outer pause decides
            kept = [[n] for n in range(1000)]
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == before and kept
