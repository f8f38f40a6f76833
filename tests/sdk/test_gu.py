"""The SDK's GU and GUM libraries (psp/sdk/gu), run on the CPU with the SDK tests' own
small OS (psp_harness: every OS call recorded, the GE not involved):

- every command word the sceGu* calls of psp/apps/exercise/gu_commands.c append, against
  the encoding the official SDK's pspgu.h documents and its libpspgu emits (written out
  here call by call from those facts);
- the OS calls the library makes (enqueue with the stall address, stall updates, the
  display buffer swaps);
- GUM's VFPU matrix arithmetic (psp/apps/exercise/gum_matrices.c) against numpy, and
  the matrix uploads sceGumDrawArray puts in the list.
"""

import re
import struct

import numpy as np
import pytest

from allegrex.ge import regs
from allegrex.sdk import build
from psp_harness import run_program
from sdk_paths import APPS, SDK

EDRAM = 0x04000000
DIRECT_LIST_ID = 0x11
CALLBACK_ID = 3
OS_ANSWERS = {"sceGeEdramGetAddr": EDRAM, "sceGeSetCallback": CALLBACK_ID, "sceGeListEnQueue": DIRECT_LIST_ID,
              "sceGeListSync": 0, "sceGeDrawSync": 0, "sceGeListUpdateStallAddr": 0, "sceGeUnsetCallback": 0,
              "sceKernelCpuSuspendIntr": 1, "sceKernelCpuResumeIntr": 0}


def bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def floats(words) -> np.ndarray:
    return np.array([struct.unpack("<f", struct.pack("<I", w))[0] for w in words], dtype=np.float64)


class Words:
    """An expected display list: command words in order, with the address each lands at."""

    def __init__(self, start: int):
        self.start, self.words = start, []

    def here(self) -> int:
        return self.start + 4 * len(self.words)

    def cmd(self, name: str, arg: int = 0) -> "Words":
        self.words.append((getattr(regs, name) << 24) | (arg & 0xFFFFFF))
        return self

    def fcmd(self, name: str, value: float) -> "Words":
        """A float argument: the single's top 24 bits."""
        return self.cmd(name, bits(value) >> 8)

    def op(self, opcode: int, arg: int = 0) -> "Words":
        self.words.append((opcode << 24) | (arg & 0xFFFFFF))
        return self

    def base_and(self, name: str, address: int) -> "Words":
        """An address command after the BASE that carries the address's bits 24-27."""
        return self.cmd("BASE", (address >> 8) & 0xF0000).cmd(name, address)

    def skip(self, nbytes: int) -> "Words":
        self.words += [None] * (nbytes // 4)
        return self


def list_words(result, address: int, size: int) -> list:
    return list(struct.unpack(f"<{size // 4}I", result.machine.memory.read(address, size)))


@pytest.fixture(scope="module")
def gu_run(out_dir):
    elf = build([APPS / "exercise" / "gu_commands.c"], out_dir / "gu_commands.elf", elf=True)
    result = run_program(elf, returns=OS_ANSWERS)
    lists = {}
    for m in re.finditer(r"list (\w+) 0x([0-9a-f]+) (\d+)", result.stdout):
        address, size = int(m.group(2), 16), int(m.group(3))
        lists[m.group(1)] = (address, list_words(result, address, size))
    return result, lists


def assert_list(lists, name, expected: Words):
    address, words = lists[name]
    assert address == expected.start
    assert len(words) == len(expected.words), f"{name}: {len(words)} words, expected {len(expected.words)}"
    for i, (got, want) in enumerate(zip(words, expected.words)):
        if want is not None:
            assert got == want, f"{name} word {i}: {got:08x}, expected {want:08x}"


def test_the_c_opcode_names_are_the_ge_tables():
    enum = (SDK / "gu" / "gu_internal.h").read_text()
    pairs = re.findall(r"GE_(\w+) = (0x[0-9A-F]+)", enum)
    assert len(pairs) > 100
    for name, value in pairs:
        assert getattr(regs, name) == int(value, 16), name


def test_init_resets_every_state_command(gu_run):
    """sceGuInit enqueues a list setting every state and matrix command to 0 (not the
    flow, drawing and transfer-start commands, nor the unused opcodes), then FINISH
    and END, and waits for it."""
    result, _ = gu_run
    enqueue = next(c for c in result.calls if c[0] == "sceGeListEnQueue")
    address, stall, callback = enqueue[1:4]
    assert (stall, callback) == (0, CALLBACK_ID) and address < 0x10000000
    skipped = {0x03, 0x11, 0x14, 0x29, 0x34, 0x35, 0x39, 0x4E, 0x4F, 0x52, 0x59, 0x5A, 0xB6, 0xB7, 0xD1, 0xEA, 0xED}
    skipped |= set(range(0x04, 0x10))
    ops = [op for op in range(0xEF) if op not in skipped]
    expected = [op << 24 for op in ops] + [regs.FINISH << 24, regs.END << 24]
    got = struct.unpack(f"<{len(expected)}I", result.machine.memory.read(address, 4 * len(expected)))
    assert list(got) == expected
    calls = [c[0] for c in result.calls]
    assert calls[calls.index("sceGeListEnQueue") + 1:][:2] == ["sceGeListSync", "sceGeDrawSync"]


def test_setup_list(gu_run):
    """The first sceGuStart's defaults (dither matrix, patch division, material update,
    specular power, texture scale) and frame buffer, then the buffers, offset, viewport,
    depth range and scissor calls of a typical program."""
    _, lists = gu_run
    e = Words(lists["setup"][0])
    for row, values in enumerate(((-4, 0, -3, 1), (2, -2, 3, -1), (-3, 1, -4, 0), (3, -1, 2, -2))):
        e.op(regs.DITH0 + row, sum((v & 0xF) << (4 * i) for i, v in enumerate(values)))
    e.cmd("PATCHDIVISION", 0x1010).cmd("MATERIALUPDATE", 7).fcmd("MATERIALSPECULARCOEF", 1.0)
    e.fcmd("TEXSCALEU", 1.0).fcmd("TEXSCALEV", 1.0)
    e.cmd("FRAMEBUFPTR", 0).cmd("FRAMEBUFWIDTH", 480)   # sceGuInit's default width
    # sceGuDrawBuffer(8888, 0, 512): the depth buffer defaults to after a 32-bit frame
    e.cmd("FRAMEBUFPIXFORMAT", 3).cmd("FRAMEBUFPTR", 0).cmd("FRAMEBUFWIDTH", 512)
    e.cmd("ZBUFPTR", 272 * 512 * 4).cmd("ZBUFWIDTH", 512)
    e.cmd("ZBUFPTR", 0x110000).cmd("ZBUFWIDTH", 512)   # sceGuDispBuffer sends nothing
    e.cmd("OFFSETX", (2048 - 240) << 4).cmd("OFFSETY", (2048 - 136) << 4)
    e.fcmd("VIEWPORTXSCALE", 240).fcmd("VIEWPORTYSCALE", -136).fcmd("VIEWPORTXCENTER", 2048).fcmd("VIEWPORTYCENTER", 2048)
    e.fcmd("VIEWPORTZSCALE", 32767 - 65535).fcmd("VIEWPORTZCENTER", 32767).cmd("MINZ", 0).cmd("MAXZ", 65535)
    end = (271 << 10) | 479   # sceGuScissor sends nothing until the test is enabled
    e.cmd("SCISSOR1", 0).cmd("SCISSOR2", end).cmd("REGION1", 0).cmd("REGION2", end)
    e.fcmd("VIEWPORTZSCALE", 32767 - 65535).fcmd("VIEWPORTZCENTER", 32767 + 100).cmd("MINZ", 0).cmd("MAXZ", 65535)
    e.fcmd("VIEWPORTZSCALE", 25500 - 1000).fcmd("VIEWPORTZCENTER", 25500 + 100).cmd("MINZ", 1000).cmd("MAXZ", 50001)
    e.cmd("FINISH").cmd("END")
    assert_list(lists, "setup", e)


ENABLES = ["ALPHATESTENABLE", "ZTESTENABLE", None, "STENCILTESTENABLE", "ALPHABLENDENABLE", "CULLFACEENABLE",
           "DITHERENABLE", "FOGENABLE", "DEPTHCLIPENABLE", "TEXTUREMAPENABLE", "LIGHTINGENABLE", "LIGHTENABLE0",
           1, 2, 3, "ANTIALIASENABLE", "PATCHCULLENABLE", "COLORTESTENABLE", "LOGICOPENABLE", "REVERSENORMAL",
           "PATCHFACING"]   # GU_ALPHA_TEST..GU_PATCH_FACE; None: scissor; n: LIGHTENABLE0 + n


def test_states_list(gu_run):
    result, lists = gu_run
    e = Words(lists["states"][0])
    for on in (1, 0):
        for state, name in enumerate(ENABLES):
            if name is None:   # a call list's scissor is all zero; disabling covers the 480x272 buffer
                end = 0 if on else (271 << 10) | 479
                e.cmd("SCISSOR1", 0).cmd("SCISSOR2", end).cmd("REGION1", 0).cmd("REGION2", end)
            elif isinstance(name, int):
                e.op(regs.LIGHTENABLE0 + name, on)
            else:
                e.cmd(name, on)
        e.cmd("TEXFUNC", 0x10000 if on else 0)   # GU_FRAGMENT_2X: TEXFUNC's doubling bit
    e.cmd("ZTEST", 7).cmd("ZWRITEDISABLE", 1)
    e.cmd("ALPHATEST", 6 | 0x80 << 8 | 0xFF << 16)
    e.cmd("COLORTEST", 3).cmd("COLORREF", 0x123456).cmd("COLORTESTMASK", 0xFFFEFD)
    e.cmd("STENCILTEST", 2 | 3 << 8 | 0x0F << 16).cmd("STENCILOP", 0 | 4 << 8 | 2 << 16)
    e.cmd("BLENDMODE", 2 | 3 << 4 | 2 << 8).cmd("BLENDFIXEDA", 0x102030).cmd("BLENDFIXEDB", 0xA0B0C0)
    e.cmd("LOGICOP", 6).cmd("MASKRGB", 0x00FF00).cmd("MASKALPHA", 0xFF)
    e.cmd("FOGCOLOR", 0x808080).fcmd("FOG1", 50.0).fcmd("FOG2", 1 / np.float32(40))
    e.cmd("FOGCOLOR", 1).fcmd("FOG1", 5.0).cmd("FOG2", 0)   # near == far: 0, not a division
    e.cmd("SHADEMODE", 1).cmd("CULL", 1).cmd("CULL", 0)
    for row, values in enumerate(((1, 2, 3, 4), (-1, -2, -3, -4), (7, -8, 0, 15), (0, 0, 0, 0))):
        e.op(regs.DITH0 + row, sum((v & 0xF) << (4 * i) for i, v in enumerate(values)))
    e.cmd("RET")
    assert_list(lists, "states", e)
    assert "status all 0x3fffff one 1\nstatus all 0x000000 one 0\n" in result.stdout


def test_lights_list(gu_run):
    _, lists = gu_run
    e = Words(lists["lights"][0])
    # sceGuColor = sceGuMaterial(ambient|diffuse|specular); the alpha is shifted as a signed int
    e.cmd("MATERIALAMBIENT", 0x7F1020).cmd("MATERIALALPHA", 0xFFFFFF)
    e.cmd("MATERIALDIFFUSE", 0x7F1020).cmd("MATERIALSPECULAR", 0x7F1020)
    e.cmd("MATERIALUPDATE", 3).cmd("MATERIALSPECULAR", 0x223344)
    e.cmd("MATERIALEMISSIVE", 0x020304).cmd("MATERIALDIFFUSE", 0x0A0B0C)
    e.cmd("MATERIALAMBIENT", 0x060708).cmd("MATERIALSPECULAR", 0x0E0F10)
    e.cmd("AMBIENTCOLOR", 0x402010).cmd("AMBIENTALPHA", 0x80)
    e.cmd("MATERIALAMBIENT", 0xC0C0C0).cmd("MATERIALALPHA", 0xC0)
    e.fcmd("MATERIALSPECULARCOEF", 12.5)
    for light, kind, terms in ((0, 0, 0), (1, 1, 1), (3, 2, 2)):
        for axis, value in enumerate((1.5, -2.0, 0.25)):
            e.op(regs.LX0 + 3 * light + axis, bits(value) >> 8)
        e.op(regs.LIGHTTYPE0 + light, kind << 8 | terms)
    for i, value in enumerate((1.0, 0.5, 0.125)):
        e.op(regs.LKA0 + 6 + i, bits(value) >> 8)
    for light, offsets, color in ((0, (0,), 0x111111), (1, (1,), 0x222222), (2, (2,), 0x333333),
                                  (3, (0, 1), 0x444444), (3, (1, 2), 0x555555)):
        for offset in offsets:
            e.op(regs.LAC0 + 3 * light + offset, color)
    e.cmd("LIGHTMODE", 1)
    e.op(regs.LKS0 + 2, bits(4.0) >> 8).op(regs.LKO0 + 2, bits(0.75) >> 8)
    for axis, value in enumerate((0.0, -1.0, 0.5)):
        e.op(regs.LDX0 + 6 + axis, bits(value) >> 8)
    e.cmd("RET")
    assert_list(lists, "lights", e)


def test_textures_list(gu_run):
    _, lists = gu_run
    e = Words(lists["textures"][0])
    e.cmd("TEXMODE", 2 << 16 | 1 << 8 | 1).cmd("TEXFORMAT", 5).cmd("TEXFLUSH")
    e.cmd("TEXADDR0", 0x154320).cmd("TEXBUFWIDTH0", 0x04 << 16 | 256).cmd("TEXSIZE0", 6 << 8 | 8).cmd("TEXFLUSH")
    e.op(regs.TEXADDR0 + 1, 0x876540).op(regs.TEXBUFWIDTH0 + 1, 0x09 << 16 | 128).op(regs.TEXSIZE0 + 1, 5 << 8 | 7)
    e.cmd("TEXFLUSH")
    e.cmd("TEXFUNC", 0x102).cmd("TEXFUNC", 0x10102).cmd("TEXFUNC", 0x10004).cmd("TEXFUNC", 0x4)
    e.cmd("TEXENVCOLOR", 0xFF8040).cmd("TEXFILTER", 5 | 1 << 8).cmd("TEXWRAP", 1)
    e.fcmd("TEXSCALEU", 0.5).fcmd("TEXSCALEV", 2.0).fcmd("TEXOFFSETU", -0.25).fcmd("TEXOFFSETV", 0.125)
    e.cmd("TEXMAPMODE", 2 << 8).cmd("TEXMAPMODE", 2 << 8 | 2).cmd("TEXSHADELS", 2 << 8 | 3)
    # the bias in 1/16 levels in bits 16-23: -1.5 -> -24; 8.0 -> +128, which reads as -128; -20 clamps to -128
    e.cmd("TEXLEVEL", (-24 & 0xFF) << 16 | 2).cmd("TEXLEVEL", 0x80 << 16 | 1).cmd("TEXLEVEL", 0x80 << 16)
    e.fcmd("TEXLODSLOPE", 0.75).cmd("TEXFLUSH").cmd("TEXSYNC")
    e.cmd("CLUTFORMAT", 1 | 4 << 2 | 0x3F << 8 | 7 << 16)
    e.cmd("CLUTADDR", 0xA00040).cmd("CLUTADDRUPPER", 0x08 << 16).cmd("LOADCLUT", 32)
    e.cmd("RET")
    assert_list(lists, "textures", e)


VERTICES, INDICES = 0x09123450, 0x08ABCDE0


def test_drawing_list(gu_run):
    result, lists = gu_run
    start = lists["drawing"][0]
    e = Words(start)
    e.cmd("VERTEXTYPE", 3 | 7 << 2 | 3 << 7).base_and("VADDR", VERTICES).cmd("PRIM", 3 << 16 | 36)
    e.cmd("VERTEXTYPE", 2 << 11 | 2 << 7).base_and("IADDR", INDICES).base_and("VADDR", VERTICES)
    e.cmd("PRIM", 4 << 16 | 4)
    e.cmd("PRIM", 1 << 16 | 2)   # vtype 0 and no arrays: only the primitive
    e.cmd("VERTEXTYPE", 2 << 7 | 1 << 23).base_and("VADDR", VERTICES)
    for _ in range(3):
        e.cmd("PRIM", 6 << 16 | 2)
    e.cmd("PATCHDIVISION", 4 << 8 | 8).cmd("PATCHFACING", 1)
    e.cmd("PATCHPRIMITIVE", 1).cmd("PATCHPRIMITIVE", 2).cmd("PATCHPRIMITIVE", 0)
    e.cmd("VERTEXTYPE", 3 << 7).base_and("VADDR", VERTICES).cmd("BEZIER", 7 << 8 | 4)
    e.cmd("VERTEXTYPE", 3 << 7).base_and("IADDR", INDICES).base_and("VADDR", VERTICES)
    e.cmd("SPLINE", 2 << 18 | 1 << 16 | 6 << 8 | 5)
    m = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16.5], dtype=np.float32)
    e.cmd("PROJMATRIXNUMBER", 0)
    for value in m:
        e.fcmd("PROJMATRIXDATA", value)
    for number, data in (("VIEWMATRIXNUMBER", "VIEWMATRIXDATA"), ("WORLDMATRIXNUMBER", "WORLDMATRIXDATA"),
                         ("TGENMATRIXNUMBER", "TGENMATRIXDATA"), ("BONEMATRIXNUMBER", "BONEMATRIXDATA")):
        e.cmd(number, 5 * 12 if number.startswith("BONE") else 0)   # bone 5 starts at its 60th value
        for column in range(4):
            for row in range(3):   # 4x3: the last row is not sent
                e.fcmd(data, m[4 * column + row])
    e.op(regs.MORPHWEIGHT0 + 3, bits(-0.5) >> 8)
    e.cmd("TRANSFERSRC", 0x100000).cmd("TRANSFERSRCW", 0x09 << 16 | 512).cmd("TRANSFERSRCPOS", 4 << 10 | 3)
    e.cmd("TRANSFERDST", 0).cmd("TRANSFERDSTW", 0x04 << 16 | 512).cmd("TRANSFERDSTPOS", 8 << 10 | 7)
    e.cmd("TRANSFERSIZE", 49 << 10 | 99).cmd("TRANSFERSTART", 1)
    e.cmd("TRANSFERSRC", 0x088000).cmd("TRANSFERSRCW", 0x04 << 16 | 480).cmd("TRANSFERSRCPOS", 0)
    e.cmd("TRANSFERDST", 0x900000).cmd("TRANSFERDSTW", 0x08 << 16 | 512).cmd("TRANSFERDSTPOS", 2 << 10 | 1)
    e.cmd("TRANSFERSIZE", 271 << 10 | 479).cmd("TRANSFERSTART", 0)
    e.op(0x12, 0x345678).op(0x44, bits(-3.0) >> 8)   # raw commands: 24 bits of the argument
    clears = []
    for flags, count in ((3, 2), (4, 30)):   # 8888: 30 corners of 32-pixel strips for the fast clear
        after = e.here() + 8 + 12 * count    # sceGuGetMemory: a jump over the vertices
        e.cmd("BASE", (after >> 8) & 0xF0000).cmd("JUMP", after)
        clears.append((e.here(), count))
        e.skip(12 * count)
        e.cmd("CLEARMODE", flags << 8 | 1).cmd("VERTEXTYPE", 7 << 2 | 2 << 7 | 1 << 23)
        e.base_and("VADDR", clears[-1][0]).cmd("PRIM", 6 << 16 | count).cmd("CLEARMODE", 0)
    memory = e.here() + 8   # sceGuGetMemory(10): 12 bytes
    e.cmd("BASE", ((memory + 12) >> 8) & 0xF0000).cmd("JUMP", memory + 12).skip(12)
    assert f"memory 0x{memory | 0x40000000:08x}\n" in result.stdout   # inside the list, as written (uncached)
    called = int(re.search(r"called 0x([0-9a-f]+)", result.stdout).group(1), 16)
    e.base_and("CALL", called)
    e.cmd("SIGNAL", 0x11 << 16 | called >> 16).cmd("END", called & 0xFFFF)   # signal call mode
    e.cmd("SIGNAL", 3 << 16 | 0x1234).cmd("END").cmd("FINISH").cmd("END")   # GU_SIGNAL_PAUSE
    e.cmd("SIGNAL", 1 << 16 | 0x2345).cmd("END")
    e.cmd("VERTEXTYPE", 2 << 7).base_and("VADDR", VERTICES).cmd("BOUNDINGBOX", 8)
    end_of_object = e.here() + 12   # the conditional jump, then one PRIM
    e.base_and("BJUMP", end_of_object).cmd("PRIM", 1)
    assert e.here() - start == int(re.search(r"check (\d+)", result.stdout).group(1))
    e.cmd("RET")
    assert_list(lists, "drawing", e)
    assert "object 0\n" in result.stdout
    for address, count in clears:   # sprites: colour 8888, x, y, z 16-bit (padded to 12 bytes)
        corners = [struct.unpack("<IHHH", result.machine.memory.read(address + 12 * i, 10)) for i in range(count)]
        if count == 2:
            assert corners == [(0x5A223344, 0, 0, 0x1234), (0x5A223344, 480, 272, 0x1234)]
        else:
            assert corners == [(0x5A223344, 32 * ((i >> 1) + (i & 1)), 272 * (i & 1), 0x1234)
                               for i in range(count)]


def test_os_calls_of_the_list_and_display_functions(gu_run):
    """sceGuStart(GU_DIRECT) enqueues the list (written through the uncached view) with
    its start as the stall address; the list's end is the stall address after each
    draw and at sceGuFinish; sceGuDisplay and sceGuSwapBuffers show VRAM + the buffer."""
    result, lists = gu_run
    calls = [c for c in result.calls if c[0].startswith(("sceGe", "sceDisplay"))]
    setup = lists["setup"][0] | 0x40000000
    names = [c[0] for c in calls]
    start = [i for i, name in enumerate(names) if name == "sceGeListEnQueue"][1]   # after sceGuInit's
    assert calls[start][1:5] == (setup, setup, CALLBACK_ID, 0)
    assert calls[start + 1][:4] == ("sceDisplaySetMode", 0, 480, 272)
    assert calls[start + 2][:3] == ("sceGeListUpdateStallAddr", DIRECT_LIST_ID, setup + 4 * len(lists["setup"][1]))
    assert [c[:5] for c in calls[start + 3:]] == [
        ("sceGeDrawSync", 0, 0, *calls[start + 3][3:5]),
        ("sceDisplaySetFrameBuf", EDRAM + 0x88000, 512, 3, 1),   # sceGuDisplay: from the next vblank
        ("sceDisplaySetFrameBuf", EDRAM, 512, 3, 0),             # swaps: at once (the default)
        ("sceDisplaySetFrameBuf", EDRAM + 0x88000, 512, 3, 0),
        ("sceGeUnsetCallback", CALLBACK_ID, *calls[-1][2:5]),
    ]
    assert "sync 0\ndisplay 1\nswap 0x00088000\nswap 0x00000000\n" in result.stdout


# --- GUM ---

def rotation(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m = np.eye(4)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


def translation(x, y, z) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = x, y, z
    return m


def perspective(fovy, aspect, near, far) -> np.ndarray:
    cot = 1 / np.tan(np.radians(fovy) / 2)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = cot / aspect, cot
    m[2, 2], m[2, 3], m[3, 2] = (far + near) / (near - far), 2 * far * near / (near - far), -1
    return m


def ortho(left, right, bottom, top, near, far) -> np.ndarray:
    m = np.diag([2 / (right - left), 2 / (top - bottom), -2 / (far - near), 1.0])
    m[:3, 3] = -(right + left) / (right - left), -(top + bottom) / (top - bottom), -(far + near) / (far - near)
    return m


def look_at(eye, center, up) -> np.ndarray:
    eye = np.array(eye, dtype=float)
    forward = np.array(center) - eye
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, up)
    side /= np.linalg.norm(side)
    above = np.cross(side, forward)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = side, above, -forward
    return m @ translation(*-eye)


def quaternion_matrix(x, y, z, w) -> np.ndarray:
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 0],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 0],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y), 0],
                     [0, 0, 0, 1]])


def quaternion_product(a, b) -> np.ndarray:
    """Hamilton product of (x, y, z, w) quaternions, normalized (gumMultQuaternion)."""
    (ax, ay, az, aw), (bx, by, bz, bw) = a, b
    p = np.array([aw * bx + bw * ax + ay * bz - az * by, aw * by + bw * ay + az * bx - ax * bz,
                  aw * bz + bw * az + ax * by - ay * bx, aw * bw - ax * bx - ay * by - az * bz])
    return p / np.linalg.norm(p)


def expected_gum_steps() -> dict:
    """What each step of gum_matrices.c leaves, as math matrices (column vectors)."""
    loose = np.array([0.5, 1, 0, 0, -1, 0.5, 0, 0, 0, 0, 2, 0, 3, -4, 5, 1]).reshape(4, 4).T
    turn = (0.3, 0.5, 0.7)
    steps = {"perspective": perspective(60, 480 / 272, 0.5, 100),
             "lookat": look_at((1, 2, 5), (0, 0.5, 0), (0, 1, 0)),
             "translate": translation(1, -2, 3)}
    steps["rotatexyz"] = steps["translate"] @ rotation(0, turn[0]) @ rotation(1, turn[1]) @ rotation(2, turn[2])
    steps["scale"] = steps["rotatexyz"] @ np.diag([2, 0.5, 1.5, 1])
    steps["rotatezyx"] = steps["scale"] @ rotation(2, turn[2]) @ rotation(1, turn[1]) @ rotation(0, turn[0])
    steps["rotatexyz2"] = steps["rotatezyx"] @ rotation(0, -1.25) @ rotation(1, 2.5) @ rotation(2, 4.0)
    steps["popped"] = steps["scale"]
    steps["mult"] = steps["popped"] @ loose
    steps["fullinverse"] = np.linalg.inv(steps["mult"])
    steps["ortho"] = ortho(-2, 6, -1, 3, -10, 20)
    rigid = loose @ rotation(1, 0.75)
    fast = np.eye(4)   # a rotation's inverse: the transpose, and the translation taken back through it
    fast[:3, :3] = rigid[:3, :3].T
    fast[:3, 3] = -rigid[:3, :3].T @ rigid[:3, 3]
    steps["fastinverse"] = fast
    steps["quaternion"] = fast @ quaternion_matrix(0.1, 0.2, 0.3, 0.9)
    return steps


@pytest.fixture(scope="module")
def gum_run(out_dir):
    elf = build([APPS / "exercise" / "gum_matrices.c"], out_dir / "gum_matrices.elf", elf=True)
    result = run_program(elf, returns=OS_ANSWERS)
    values = {}
    for line in result.stdout.splitlines():
        name, *words = line.split()
        values[name] = [int(w, 16) for w in words] if name != "list" else words
    return result, values


def test_gum_matrices_match_numpy(gum_run):
    """Within 1e-6 of the largest entry (the program's agree to 1e-7): float32
    arithmetic and the VFPU's approximate sine/cosine and reciprocal (vrot, vrcp)
    against float64."""
    _, values = gum_run
    for name, m in expected_gum_steps().items():
        got = floats(values[name]).reshape(4, 4).T
        assert np.allclose(got, m, rtol=0, atol=1e-6 * max(1.0, np.abs(m).max())), f"{name}:\n{got}\n{m}"


def test_gum_vectors_and_quaternions(gum_run):
    _, values = gum_run
    a, b = np.array([1, 2, 3.0]), np.array([-2, 0.5, 4.0])
    q = np.array([0.5, -0.25, 0.125, 0.8])
    axis = np.array([0, 0.6, 0.8])
    half = 0.6
    expected = {"cross": np.cross(a, b), "dot": [a @ b], "normalize": b / np.linalg.norm(b),
                "axisangle": [*axis * np.sin(half), np.cos(half)]}
    expected["multquaternion"] = quaternion_product(expected["axisangle"], q)
    conjugate = [-q[0], -q[1], -q[2], q[3]]   # q v q*, normalized at each product as the official library does
    expected["rotatevector"] = quaternion_product(q, quaternion_product([*a, 0], conjugate))[:3]
    expected["loadquaternion"] = quaternion_matrix(*q).T.ravel()
    for name, want in expected.items():
        assert np.allclose(floats(values[name]), want, rtol=0, atol=2e-6), name


def test_gum_uploads_changed_matrices_in_mode_order(gum_run):
    """sceGumDrawArray: projection (16 values), view, model, texture (4x3), each as the
    float's top 24 bits of the stored matrix, then the draw; the second draw uploads
    only the model matrix, marked changed by a pop at the bottom of its stack."""
    result, values = gum_run
    address, size = int(values["list"][0], 16), int(values["list"][1])
    words = list_words(result, address, size)
    e = Words(address)

    def upload(number, data, matrix, count):
        e.cmd(number, 0)
        for column in range(4):
            for row in range(count):
                e.cmd(data, matrix[4 * column + row] >> 8)

    upload("PROJMATRIXNUMBER", "PROJMATRIXDATA", values["perspective"], 4)
    upload("VIEWMATRIXNUMBER", "VIEWMATRIXDATA", values["lookat"], 3)
    upload("WORLDMATRIXNUMBER", "WORLDMATRIXDATA", values["fullinverse"], 3)
    upload("TGENMATRIXNUMBER", "TGENMATRIXDATA", values["quaternion"], 3)
    e.cmd("VERTEXTYPE", 3 << 7).base_and("VADDR", 0x08900000).cmd("PRIM", 1)
    upload("WORLDMATRIXNUMBER", "WORLDMATRIXDATA", values["fullinverse"], 3)
    e.cmd("PRIM", 1).cmd("RET")
    assert words == e.words
