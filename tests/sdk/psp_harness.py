"""Run an SDK-built program on the project's CPU with a minimal OS of its own (written
before the HLE landed; kept because it records every OS call's registers and isolates
SDK tests from the HLE): loads the image, patches each import stub to `jr $ra; syscall n` (as the
PSP kernel does) and answers the handful of calls the SDK runtime makes. Only for
single-threaded programs built with PSP_NO_CREATE_MAIN_THREAD()."""

from dataclasses import dataclass, field

import loader
from allegrex.cpu.state import A0, A1, A2, A3, SP, T0, T1, T2, T3, V0, V1
from allegrex.machine import Machine

STACK_TOP = 0x09F00000
HEAP_BASE = 0x09000000
STDOUT, STDERR = 1, 2


@dataclass
class RunResult:
    stdout: str
    calls: list = field(default_factory=list)   # (name, a0..a3, t0..t3) per import call
    files: object = None                        # the MemoryFiles the program used
    machine: object = None                      # the Machine after the run (memory, registers)
    instructions: int = 0
    cycles: int = 0


class MemoryFiles:
    """sceIo* over a dict of path -> bytearray (the test's ms0:/)."""

    NOT_FOUND = 0x80010002

    def __init__(self):
        self.files, self.open_files, self.next_fd = {}, {}, 3

    def open(self, path, flags):
        if path not in self.files:
            if not flags & 0x0200:  # PSP_O_CREAT
                return self.NOT_FOUND
            self.files[path] = bytearray()
        if flags & 0x0400:  # PSP_O_TRUNC
            self.files[path][:] = b""
        fd, self.next_fd = self.next_fd, self.next_fd + 1
        self.open_files[fd] = [path, 0, bool(flags & 0x0100)]
        return fd

    def read(self, fd, size):
        path, pos, _ = self.open_files[fd]
        data = bytes(self.files[path][pos:pos + size])
        self.open_files[fd][1] = pos + len(data)
        return data

    def write(self, fd, data):
        entry = self.open_files[fd]
        content = self.files[entry[0]]
        pos = len(content) if entry[2] else entry[1]
        content[pos:pos + len(data)] = data
        entry[1] = pos + len(data)
        return len(data)

    def seek(self, fd, offset, whence):
        entry = self.open_files[fd]
        base = (0, entry[1], len(self.files[entry[0]]))[whence]
        entry[1] = base + offset
        return entry[1]


def _s64(lo, hi):
    value = lo | (hi << 32)
    return value - (1 << 64) if value >> 63 else value


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
               "sceKernelGetBlockHeadAddr": HEAP_BASE, "sceDisplaySetMode": 0, "sceDisplaySetFrameBuf": 0,
               **(returns or {})}

    files = result.files = MemoryFiles()

    def handle(m, code):
        name = names[code]
        args = tuple(int(regs[r]) for r in (A0, A1, A2, A3, T0, T1, T2, T3))
        result.calls.append((name, *args))
        if name == "sceKernelExitGame":
            return Machine.STOP
        if name in (returns or {}):
            regs[V0] = returns[name] & 0xFFFFFFFF
        elif name == "sceIoWrite" and args[0] in (STDOUT, STDERR):
            out.append(m.memory.read(args[1], args[2]).decode("latin-1"))
            regs[V0] = args[2]
        elif name == "sceIoWrite":
            regs[V0] = files.write(args[0], m.memory.read(args[1], args[2]))
        elif name == "sceIoRead":
            data = files.read(args[0], args[2])
            m.memory.write(args[1], data)
            regs[V0] = len(data)
        elif name == "sceIoOpen":
            regs[V0] = files.open(m.memory.read_cstring(args[0]).decode(), args[1])
        elif name == "sceIoClose":
            regs[V0] = 0 if files.open_files.pop(args[0], None) else files.NOT_FOUND
        elif name == "sceIoLseek":   # fd in a0, the 64-bit offset in a2:a3, whence in t0 (EABI)
            pos = files.seek(args[0], _s64(args[2], args[3]), args[4])
            regs[V0], regs[V1] = pos & 0xFFFFFFFF, (pos >> 32) & 0xFFFFFFFF
        elif name == "sceIoRemove":
            regs[V0] = 0 if files.files.pop(m.memory.read_cstring(args[0]).decode(), None) is not None else files.NOT_FOUND
        elif name in answers:
            regs[V0] = answers[name] & 0xFFFFFFFF
        else:
            raise AssertionError(f"the test OS does not implement {name}")
        return None

    event = machine.run(max_instructions=max_instructions, syscall_handler=handle)
    assert event.kind == "syscall" and names[event.value] == "sceKernelExitGame", f"program stopped by {event}"
    result.stdout = "".join(out)
    result.instructions, result.cycles = machine.instructions, machine.cycles
    result.machine = machine
    return result
