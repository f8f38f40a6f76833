"""`allegrex disasm` over an image (a stand-in with the loader's Image interface, so the
command is tested before the loader lands)."""

import bisect
from dataclasses import dataclass

import pytest

import loader
from allegrex import cli
from allegrex.cpu.asm import code_bytes, enc
from tests.cpu.program import BASE


@dataclass
class Seg:
    vaddr: int
    data: bytes
    memsz: int
    flags: int


@dataclass
class Sym:
    name: str
    addr: int
    size: int


class FakeImage:
    path = "fake.prx"

    def __init__(self):
        code = [enc("addiu", rt="sp", rs="sp", imm=-16), enc("jal", target=BASE + 16), 0,
                enc("jr", rs="ra"), enc("addiu", rt="v0", rs="zero", imm=1), enc("jr", rs="ra"), 0]
        self.segments = [Seg(BASE, code_bytes(code), 28, 5), Seg(BASE + 0x1000, b"\0" * 8, 8, 6)]
        self.symbols = [Sym("main", BASE, 16), Sym("helper", BASE + 16, 12)]

    def symbol_at(self, addr):
        i = bisect.bisect_right([s.addr for s in self.symbols], addr)
        return (self.symbols[i - 1], addr - self.symbols[i - 1].addr) if i else None

    def symbol_named(self, name):
        return next((s for s in self.symbols if s.name == name), None)

    def read_u32(self, addr):
        for s in self.segments:
            if s.vaddr <= addr < s.vaddr + len(s.data):
                return int.from_bytes(s.data[addr - s.vaddr:addr - s.vaddr + 4], "little")
        raise KeyError(addr)


@pytest.fixture
def fake_loader(monkeypatch):
    monkeypatch.setattr(loader, "load", lambda path: FakeImage(), raising=False)


def test_function_by_name(fake_loader, capsys):
    assert cli.main(["disasm", "x.prx", "--function", "main"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "main:"
    assert out[1] == f"  {BASE:08x}:  27bdfff0  addiu   sp, sp, -16"
    assert out[2].endswith(f"jal     0x{BASE + 16:08x} <helper>")
    assert out[3].endswith("nop") and len(out) == 5


def test_address_range_and_whole_image(fake_loader, capsys):
    assert cli.main(["disasm", "x.prx", "--addr", hex(BASE + 16), "--count", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["helper:", f"  {BASE + 16:08x}:  24020001  addiu   v0, zero, 1",
                   f"  {BASE + 20:08x}:  03e00008  jr      ra"]
    assert cli.main(["disasm", "x.prx"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 7 + 2  # 7 words + 2 labels; data segment skipped


def test_unknown_function_or_address_is_a_clear_error(fake_loader, capsys):
    assert cli.main(["disasm", "x.prx", "--function", "nope"]) == 2
    assert "no symbol named 'nope'" in capsys.readouterr().err
    assert cli.main(["disasm", "x.prx", "--addr", "0x1000"]) == 2
    assert "outside the image" in capsys.readouterr().err
