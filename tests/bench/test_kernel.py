"""`allegrex bench kernel` and allegrex.bench.kernel: one function of a PSP program
called on numpy buffers. Its outputs are numpy's answer; its cycles are what the same
function costs when a whole program calls it the same way; bad arguments are one clear
error each."""

import json

import numpy as np
import pytest

from allegrex.bench import kernel
from allegrex.bench.kernel import CALL_OVERHEAD, ArgumentError, Program, parse_arg
from allegrex.cli import main
from allegrex.sdk import build
from allegrex.timing.annotate import UnknownFunction
from tests.saxpy_app import SOURCES, build_saxpy

N = 1024  # what psp/apps/saxpy/main.c uses
A = np.float32(2.5)
KERNELS = ("saxpy_c", "saxpy_vfpu", "saxpy_vfpu2")


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel")
    return {reps: build_saxpy(folder / f"reps{reps}", reps=reps) for reps in (1, 3)}


@pytest.fixture(scope="module")
def program(builds):
    eboot, elf = builds[1]
    return Program(eboot, symbols=elf, os_tick=False)


def vectors(n=N, seed=7):
    rng = np.random.default_rng(seed)
    return rng.uniform(-4, 4, n).astype(np.float32), rng.uniform(-4, 4, n).astype(np.float32)


@pytest.mark.parametrize("name", KERNELS)
def test_outputs_are_numpys_answer(program, name):
    """float32 a*x, then + y, each rounded: numpy's float32 arithmetic, bit for bit."""
    x, y = vectors()
    r = program.call(name, float(A), x, y, N, n=2)
    assert np.array_equal(r.outputs[2], A * x + y)  # each call starts from the same y
    assert np.array_equal(r.outputs[1], x) and r.outputs[0] is None and r.outputs[3] is None
    assert r.calls == 2 and len(r.per_call) == 2


def calls_in_the_program(eboot, elf, name):
    """Counter growth over each call of `name` in the whole program (main.c calls it
    REPS times in a row): breakpoints at its entry and, once there, at its return
    address stop the run just before the first instruction and just after the return's
    delay slot."""
    import io
    from allegrex.commands.run import load_program
    from allegrex.hle.kernel import RunOptions
    from allegrex.cpu.state import PC
    from allegrex.timing import counters as C
    machine, kern = load_program(str(eboot), "psp-2000", RunOptions(stdout=io.StringIO()), str(elf))
    machine.timing.set_os_tick(False, 0)
    entry = kern.image.symbol_named(name).addr
    machine.breakpoints.add(entry)
    calls, start = [], None
    while True:
        kern.stop = None
        stop = kern.run()
        if stop.kind != "breakpoint":
            return calls
        pc = int(machine.cpu.regs[PC])
        if pc == entry:
            start = machine.cpu.counters.copy()
            machine.breakpoints.add(int(machine.cpu.regs[31]))
        else:
            machine.breakpoints.discard(pc)
            d = machine.cpu.counters - start
            calls.append({"elapsed": int(d[C.CYCLES]), "instructions": int(d[C.INSTRUCTIONS]),
                          "dcache_misses": int(d[C.DCACHE_MISSES]), "icache_misses": int(d[C.ICACHE_MISSES]),
                          **{C.NAMES[k]: int(d[k]) for k in C.PROF_STALL_KINDS}})


@pytest.mark.parametrize("name", KERNELS)
def test_cycles_are_those_of_the_calls_a_whole_program_makes(builds, program, name):
    """main.c (REPS=3) calls each kernel three times in a row on its own arrays: its
    second and third calls, warm, cost exactly what the bench's warm calls cost, counter
    for counter (OS tick off in both: its interrupts shift a stall by a cycle or two)."""
    in_program = calls_in_the_program(*builds[3], name)
    assert len(in_program) == 3
    x, y = vectors()
    r = program.call(name, float(A), x, y, N, n=2)
    for bench_call in r.per_call:
        for key, value in in_program[1].items():
            assert bench_call[key] == value == in_program[2][key], (key, bench_call[key], value)
    assert r.per_call[0]["cycles"] == r.per_call[0]["elapsed"]  # nothing but the function's own cycles


def test_cold_calls_miss_every_line_once(program):
    """From empty caches x and y (4 KiB each, 64-byte lines) miss once per line, and the
    kernel's code once per line it spans."""
    x, y = vectors()
    cold = program.call("saxpy_vfpu", float(A), x, y, N, n=2, warm=False)
    warm = program.call("saxpy_vfpu", float(A), x, y, N, n=2)
    sym = program.image.symbol_named("saxpy_vfpu")
    lines = (sym.addr + sym.size - 1) // 64 - sym.addr // 64 + 1
    for c in cold.per_call:
        assert c["dcache_misses"] == 2 * N * 4 // 64 and c["icache_misses"] == lines
    for c in warm.per_call:
        assert c["dcache_misses"] == 0 and c["icache_misses"] == 0
    assert cold.cycles > warm.cycles and np.array_equal(cold.outputs[2], warm.outputs[2])


def test_sizes_sweep_from_python(program):
    """Cycles grow with the vector: saxpy_vfpu's loop costs the same per quad at every size."""
    costs = []
    for n in (64, 256, 1024):
        x, y = vectors(n)
        costs.append(program.call("saxpy_vfpu", float(A), x, y, n).cycles)
    per_quad = [(b - a) / ((m - k) // 4) for (a, k), (b, m) in zip(zip(costs, (64, 256)), zip(costs[1:], (256, 1024)))]
    assert per_quad[0] == per_quad[1] > 0


def test_a_stripped_build_with_its_symbols_and_the_one_shot_call(builds):
    eboot, elf = builds[1]
    x, y = vectors(64)
    r = kernel.call(eboot, "saxpy_vfpu2", float(A), x, y, 64, symbols=elf)
    assert np.array_equal(r.outputs[2], A * x + y) and r.cycles > 0


def test_arguments_that_do_not_fit_the_buffers_are_refused(program):
    x, y = vectors(256)
    with pytest.raises(ArgumentError, match=r"wrote outside argument 2 \(float32\[256\], 1,024 bytes at 0x"
                                            r"[0-9a-f]{8}\): 64 of the 64 bytes after its end changed"):
        program.call("saxpy_vfpu", float(A), x, y, 512)


@pytest.mark.parametrize("args, message", [
    (("x", 1), "argument 0: str cannot be passed"),
    ((1 << 33,), "argument 0: 8589934592 does not fit a 32-bit register"),
    ((np.zeros(0, np.float32),), "argument 0: an array of 0 float32 cannot be passed"),
    ((2.5, np.zeros(40 << 20, np.uint8)), "argument 1 (uint8[41943040], 41,943,040 bytes) does not fit"),
])
def test_arguments_it_cannot_pass_are_refused(program, args, message):
    with pytest.raises(ArgumentError) as info:
        program.call("saxpy_vfpu", *args)
    assert message in str(info.value)


def test_an_unknown_function_names_the_close_ones(program):
    with pytest.raises(UnknownFunction, match=r"no function named 'saxpy' in .* \(did you mean"):
        program.call("saxpy", 1.0)


def test_calling_conventions_place_arguments_as_the_compilers_do():
    """o32 (our SDK; checked against zig's code for f(float, float*, float*, int) above
    and f(int, float, float)): leading floats in $f12/$f14, everything else in a0-a3 by
    position, then the stack from sp+16. EABI (psp-gcc): integers in a0-t3, floats in
    $f12-$f19, each in turn."""
    from allegrex.bench.kernel import _place
    f = 0x40200000  # 2.5f
    assert _place([("float", f), ("int", 1), ("int", 2), ("int", 3)], "o32") == ({5: 1, 6: 2, 7: 3}, {12: f}, [])
    assert _place([("int", 1), ("float", f), ("float", f)], "o32") == ({4: 1, 5: f, 6: f}, {}, [])
    assert _place([("float", f), ("float", f), ("float", f)], "o32") == ({6: f}, {12: f, 14: f}, [])
    assert _place([("int", k) for k in range(6)], "o32") == ({4: 0, 5: 1, 6: 2, 7: 3}, {}, [(16, 4), (20, 5)])
    assert _place([("int", 1), ("float", f), ("int", 2)], "eabi32") == ({4: 1, 5: 2}, {12: f}, [])
    assert _place([("int", k) for k in range(9)], "eabi32")[2] == [(0, 8)]


def test_parse_arg_reads_the_command_line_forms(tmp_path):
    assert parse_arg("12", 0) == 12 and parse_arg("0x40", 0) == 64 and parse_arg("-2.5", 0) == -2.5
    assert np.array_equal(parse_arg("f32:4:ramp", 0), np.arange(4, dtype=np.float32))
    assert np.array_equal(parse_arg("i16:3:1,-2,3", 0), np.array([1, -2, 3], np.int16))
    assert np.array_equal(parse_arg("u8:5:7", 0), np.full(5, 7, np.uint8))
    r = parse_arg("f32:1000:rand", 3)
    assert r.dtype == np.float32 and -1 <= r.min() and r.max() < 1 and np.array_equal(r, parse_arg("f32:1000:rand", 3))
    np.save(tmp_path / "a.npy", np.arange(6, dtype=np.int32))
    assert np.array_equal(parse_arg(f"@{tmp_path / 'a.npy'}", 0), np.arange(6))
    for bad, message in (("q32:4", "unknown element type 'q32'"), ("f32:0", "'0' is not a positive element count"),
                         ("f32:3:1,2", "2 values for 3 elements"), ("abc", "'abc' is not a number")):
        with pytest.raises(ArgumentError, match=message):
            parse_arg(bad, 0)


def test_the_command_compares_two_functions(builds, tmp_path, capsys):
    eboot, elf = builds[1]
    out = tmp_path / "r.json"
    assert main(["bench", "kernel", str(eboot), "saxpy_vfpu", "2.5", "f32:1024:rand", "f32:1024:rand", "1024",
                 "--symbols", str(elf), "-n", "2", "--no-os-tick", "--compare", "saxpy_vfpu2", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    a, b = json.loads(out.read_text())
    speedup = a["per_call"]["cycles"] / b["per_call"]["cycles"]
    assert f"speed-up of saxpy_vfpu2 over saxpy_vfpu: {speedup:.2f}x" in text and speedup > 1.5
    assert f"jal + delay slot ({CALL_OVERHEAD} cycles)" in text
    y = parse_arg("f32:1024:rand", 2) + np.float32(2.5) * parse_arg("f32:1024:rand", 1)
    assert f"argument 2 after the calls: float32[1024] {y[0]:.7g}, {y[1]:.7g}" in text


def test_the_command_compares_two_builds(tmp_path, capsys):
    """The C kernel at -O0 against -O2: two builds, FILE:FUNC."""
    o0 = build(SOURCES, tmp_path / "o0.elf", elf=True, opt="0")
    o2 = build(SOURCES, tmp_path / "o2.elf", elf=True, opt="2")
    assert main(["bench", "kernel", str(o0), "saxpy_c", "2.5", "f32:256:rand", "f32:256:rand", "256", "-n", "1",
                 "--compare", f"{o2}:saxpy_c"]) == 0
    text = capsys.readouterr().out
    speedup = float(text.split(f"speed-up of {o2} over {o0}: ")[1].split("x")[0])
    assert speedup > 1.2


@pytest.mark.parametrize("argv, message", [
    (["saxpy_vfpu", "2.5", "f32:64", "f32:64", "128"], "wrote outside argument 2"),
    (["nosuch", "1"], "no function named 'nosuch'"),
    (["saxpy_vfpu", "f32:x"], "'x' is not a positive element count"),
])
def test_command_errors_are_one_line(builds, capsys, argv, message):
    eboot, elf = builds[1]
    assert main(["bench", "kernel", str(eboot), "--symbols", str(elf), *argv]) != 0
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_psp_gcc_function_takes_its_float_arguments_by_eabi(pspautotests):
    """pspautotests' morph demo, built by psp-gcc (EABI: floats in $f12, $f13...), its
    EBOOT stripped: newlib's copysignf(3, -1) is -3 only if the second float is in $f13."""
    demos = pspautotests / "demos"
    prog = Program(demos / "morph.pbp", symbols=demos / "morph.elf")
    assert prog.abi == "eabi32" and prog.started_at_main
    assert prog.call("copysignf", 3.0, -1.0).returned["f0"] == -3.0
    assert prog.call("sinf", 0.5).returned["f0"] == pytest.approx(np.sin(0.5), rel=2 ** -23)


def test_a_call_that_faults_is_reported_with_the_functions_name(program):
    """x at address 4: lv.q faults there; the report names the kernel (symbols from the ELF)."""
    with pytest.raises(kernel.KernelError, match=r"saxpy_vfpu did not return: .*\n(.*\n)*.*<saxpy_vfpu\+0x"):
        program.call("saxpy_vfpu", 2.5, 4, np.zeros(64, np.float32), 64)


def test_a_function_of_a_prx_module(tmp_path):
    """A PRX (our SDK's, -g: the module ships without DWARF, symbols from x.debug.prx)
    has no main: calls start from its entry state; greeter_add adds its arguments."""
    module = SOURCES[0].parent.parent / "modules"
    prx = build([module / "greeter.c"], tmp_path / "greeter.prx", prx=True, exports=module / "greeter.exp", debug=True)
    prog = Program(prx, symbols=tmp_path / "greeter.debug.prx")
    r = prog.call("greeter_add", 2, -40, n=2)
    assert r.returned["v0"] == (2 - 40) & 0xFFFFFFFF and not prog.started_at_main and r.notes
    assert r.instructions > 0 and r.cycles >= r.instructions
