"""Run an SDK-built program on the project's CPU with a minimal OS of its own, until
the HLE lands: loads the image, patches each import stub to `jr $ra; syscall n` (as the
PSP kernel does) and answers the handful of calls the SDK runtime makes. Only for
single-threaded programs built with PSP_NO_CREATE_MAIN_THREAD()."""

from dataclasses import dataclass, field

import loader
from allegrex.machine import Machine

A0, A1, A2, A3, T0, T1, T2, T3 = 4, 5, 6, 7, 8, 9, 10, 11
V0, V1, SP, RA = 2, 3, 29, 31
STACK_TOP = 0x09F00000
HEAP_BASE = 0x09000000
STDOUT, STDERR = 1, 2


@dataclass
class RunResult:
    stdout: str
    calls: list = field(default_factory=list)   # (name, a0..a3, t0..t3) per import call
    instructions: int = 0
    cycles: int = 0


def run_program(path, max_instructions=200_000_000, returns=None) -> RunResult:
    """returns: {import name: value} for calls the program makes beyond the runtime's."""
    image = loader.load(str(path))
    machine = Machine("psp-2000")
    for seg in image.segments:
        machine.memory.fill(seg.vaddr, 0, seg.memsz)
        machine.memory.write(seg.vaddr, seg.data)
    names = []
    for lib in image.imports:
        for fn in lib.functions:
            machine.memory.write_u32(fn.stub_addr, 0x03E00008)                    # jr $ra
            machine.memory.write_u32(fn.stub_addr + 4, (len(names) << 6) | 0x0C)  # syscall n
            names.append(fn.name)
    regs = machine.cpu.regs
    regs[SP] = STACK_TOP
    regs[A0], regs[A1] = 0, 0
    machine.cpu.jump(image.entry)
    result = RunResult("")
    out = []
    answers = {"sceKernelStdout": STDOUT, "sceKernelStderr": STDERR, "sceKernelStdin": 0,
               "sceKernelMaxFreeMemSize": 8 << 20, "sceKernelAllocPartitionMemory": 1,
               "sceKernelGetBlockHeadAddr": HEAP_BASE, **(returns or {})}

    def handle(m, code):
        name = names[code]
        args = tuple(int(regs[r]) for r in (A0, A1, A2, A3, T0, T1, T2, T3))
        result.calls.append((name, *args))
        if name == "sceKernelExitGame":
            return Machine.STOP
        if name == "sceIoWrite":
            out.append(m.memory.read(args[1], args[2]).decode("latin-1"))
            regs[V0] = args[2]
        elif name in answers:
            regs[V0] = answers[name] & 0xFFFFFFFF
        else:
            raise AssertionError(f"the test OS does not implement {name}")
        return None

    event = machine.run(max_instructions=max_instructions, syscall_handler=handle)
    assert event.kind == "syscall" and names[event.value] == "sceKernelExitGame", f"program stopped by {event}"
    result.stdout = "".join(out)
    result.instructions, result.cycles = machine.instructions, machine.cycles
    return result
