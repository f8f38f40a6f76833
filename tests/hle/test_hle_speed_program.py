"""The guest of benchmarks/hle_speed.py runs every kind of call to the end, and its vblank
waits take a frame each (after the first, which ends at the next vblank): 1/59.94 s at
the boot clock of 222 MHz (the display's refresh)."""

from benchmarks.hle_speed import KINDS, build, run_once

CALLS = 16


def test_every_kind_runs_and_frame_waits_take_a_frame(tmp_path):
    eboot = build(CALLS, tmp_path)
    _, _, out = run_once(eboot)
    assert [m[0] for m in out.marks] == [*KINDS, "done"]
    per_call = out.per_call()
    frame = 222e6 / 59.94
    waits = CALLS // 8
    total = per_call["vblank"][2] * waits  # the first wait ends at the next vblank, the others a frame later
    assert (waits - 1) * frame < total <= waits * frame + 1000
    assert per_call["ctrl-read"][2] * waits <= waits * frame + 1000  # samples taken meanwhile return at once
    for kind in ("time", "ctrl-peek", "ge-enqueue", "ge-stall"):
        assert per_call[kind][2] < 1000  # no wait: the call's own cost in cycles
