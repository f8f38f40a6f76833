"""Export the call stacks over simulated time as a speedscope file (an "evented"
profile: a frame opens when a call's delay slot retires and closes when its return's
does; https://www.speedscope.app opens it): `allegrex profile FILE --speedscope F`.

The events come from the call log the run loop keeps while profiling with calls
(timing/calls.py), which holds the first `log_entries` calls and returns: a longer run is
cut there (the profile's name says so) and frames still open are closed at the end.
Times are simulated nanoseconds (timing.seconds: clock changes included).
"""

import json

from allegrex.errors import AllegrexError
from allegrex.timing import counters as C
from allegrex.timing.calls import LOG_CLOSE, LOG_OPEN
from allegrex.timing.callgraph import read_log

SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def speedscope_document(profile, name: str = "allegrex") -> dict:
    """The speedscope JSON document for a finished profile (a Profile with calls)."""
    machine = profile.machine
    timing = machine.timing
    events, lost = read_log(timing.tm)
    lines = getattr(profile.image, "lines", None)
    start = int(profile.start_counters[C.CYCLES])
    end = int(machine.cpu.counters[C.CYCLES])
    if lost and len(events):
        end = int(events[-1, 2])
    frames, index = [], {}

    def frame(addr):
        if addr not in index:
            index[addr] = len(frames)
            entry = {"name": profile.function_of(addr)}
            line = lines.at(addr) if lines is not None else None
            if line is not None:
                entry.update(file=line.file, line=line.line)
            frames.append(entry)
        return index[addr]

    def at(cycle):
        return round((timing.seconds(int(cycle)) - timing.seconds(start)) * 1e9, 3)

    out, stack = [], []
    for kind, callee, cycle in events.tolist():
        if kind == LOG_OPEN:
            stack.append(frame(callee))
            out.append({"type": "O", "frame": stack[-1], "at": at(cycle)})
        elif kind == LOG_CLOSE and stack:
            out.append({"type": "C", "frame": stack.pop(), "at": at(cycle)})
    while stack:
        out.append({"type": "C", "frame": stack.pop(), "at": at(end)})
    title = name + (f" (the first {len(events):,} calls and returns: {lost:,} more were not logged)" if lost else "")
    return {"$schema": SCHEMA, "exporter": "allegrex", "name": title, "activeProfileIndex": 0,
            "shared": {"frames": frames},
            "profiles": [{"type": "evented", "name": title, "unit": "nanoseconds", "startValue": 0.0,
                          "endValue": at(end), "events": out}]}


def write_speedscope(path, profile, name: str = "allegrex") -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(speedscope_document(profile, name), f)
    except OSError as exc:
        raise AllegrexError(f"cannot write {path}: {exc.strerror}") from None
