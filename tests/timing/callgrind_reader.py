"""A reader of callgrind profile files written from the format's specification
(valgrind's "Callgrind Format Specification"), independent of allegrex's writer: the
header's positions and events, name compression `(id) name`, fl/fi/fe/fn, cost lines
(absolute, +N/-N relative or `*` same position), and calls= lines with the call's
inclusive costs on the next line.

    data = read(path)
    data.events, data.self_costs[fn] (summed cost vector), data.calls[(caller, callee)]
"""

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Callgrind:
    positions: list
    events: list
    self_costs: dict = field(default_factory=lambda: defaultdict(list))  # function -> summed costs
    lines: dict = field(default_factory=lambda: defaultdict(list))  # function -> [(positions, costs)]
    calls: dict = field(default_factory=dict)  # (caller, callee) -> [count, summed inclusive costs]
    totals: list | None = None

    def total(self) -> list:
        out = [0] * len(self.events)
        for costs in self.self_costs.values():
            out = [a + b for a, b in zip(out, costs)]
        return out


def _add(a, b):
    if len(a) < len(b):
        a += [0] * (len(b) - len(a))
    for i, v in enumerate(b):
        a[i] += v
    return a


def read(path) -> Callgrind:
    names = {"fl": {}, "fn": {}, "ob": {}}
    kinds = {"fl": "fl", "fi": "fl", "fe": "fl", "fn": "fn", "cfi": "fl", "cfl": "fl", "cfn": "fn", "ob": "ob",
             "cob": "ob"}

    def name(kind, text):
        text = text.strip()
        table = names[kinds[kind]]
        if text.startswith("("):
            ident, _, rest = text[1:].partition(")")
            if rest.strip():
                table[ident] = rest.strip()
            return table[ident]
        return text

    data, fn, callee, pending_call, last = None, None, None, None, None
    positions = ["line"]
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("# callgrind format"), "not a callgrind file"
    for raw in lines[1:]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if data is None:  # header: `name: value` lines up to `events:`
            if line.startswith("positions:"):
                positions = line.split(":", 1)[1].split()
            elif line.startswith("events:"):
                data = Callgrind(positions, line.split(":", 1)[1].split())
                last = [0] * len(positions)
        elif line.startswith(("totals:", "summary:")):
            data.totals = [int(v) for v in line.split(":", 1)[1].split()]
        elif sep and key in kinds:
            n = name(key, value)
            if key == "fn":
                fn = n
            elif key == "cfn":
                callee = n
        elif key == "calls" and sep:
            count, *_target = value.split()
            pending_call = int(count)
        elif sep and key in ("jump", "jcnd", "jfi", "jfn"):
            continue
        else:
            parts = line.split()
            pos = []
            for k in range(len(positions)):
                p = parts[k]
                if p == "*":
                    pos.append(last[k])
                elif p[0] in "+-":
                    pos.append(last[k] + int(p, 0))
                else:
                    pos.append(int(p, 0))
            last = pos
            costs = [int(v) for v in parts[len(positions):]]
            if pending_call is not None:  # the line after calls=: the call's inclusive costs
                entry = data.calls.setdefault((fn, callee), [0, []])
                entry[0] += pending_call
                _add(entry[1], costs)
                pending_call = None
            else:
                _add(data.self_costs[fn], costs)
                data.lines[fn].append((pos, costs))
    return data
