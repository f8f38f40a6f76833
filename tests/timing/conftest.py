import pytest

from allegrex.cpu.asm import code_bytes
from allegrex.machine import Machine

CODE = 0x08804000


def run_words(words, clock=(333, 166), timing=True, setup=None, model="psp-1000"):
    """Run `words` (ending in `break`) on a fresh machine; returns it."""
    m = Machine(model, timing=timing)
    m.timing.set_clock(*clock, 0)
    if setup:
        setup(m)
    m.load_raw(CODE, code_bytes(words), entry=CODE)
    ev = m.run(max_instructions=50_000_000)
    assert ev.kind == "break", ev
    return m


@pytest.fixture
def run():
    return run_words

