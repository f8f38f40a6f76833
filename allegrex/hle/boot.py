"""Start a loaded program: write its segments, reserve its memory, patch its imports,
map its folder as ms0:/PSP/GAME/<NAME>/ (the working directory), and start its entry
in the first thread, as the PSP's module manager does."""

import os

from allegrex.errors import AllegrexError
from allegrex.hle.kernel import Kernel, RunOptions
from allegrex.hle.libraries import MANAGERS
from allegrex.hle.modules import write_segments

MAIN_PRIORITY = 0x20
MAIN_STACK = 0x40000
MAIN_ATTR = 0x800040FF  # user thread with VFPU access (the low byte reads back set, as for every user thread)
ARGS_ADDR = 0x08001000  # kernel partition scratch for the argument block before it is copied to the stack


def program_folder(options: RunOptions, program_path: str | None) -> tuple[str, str | None]:
    """(guest folder, host folder to mount or None when --ms0 already contains it)."""
    if not program_path:
        return "ms0:/PSP/GAME/PROGRAM", None
    host_dir = os.path.dirname(os.path.realpath(program_path))
    if options.ms0:
        root = os.path.realpath(options.ms0)
        if host_dir == root or host_dir.startswith(root + os.sep):
            rel = os.path.relpath(host_dir, root).replace(os.sep, "/")
            return "ms0:/" + ("" if rel == "." else rel), None
    name = os.path.basename(host_dir) or "PROGRAM"
    return f"ms0:/PSP/GAME/{name}", host_dir


def new_kernel(machine, options: RunOptions | None = None) -> Kernel:
    """A Kernel with every library's manager, before any program is loaded."""
    return Kernel(machine, options, MANAGERS)


def boot(machine, image, options: RunOptions | None = None) -> Kernel:
    options = options or RunOptions()
    kernel = new_kernel(machine, options)
    memory = machine.memory
    low, high = write_segments(memory, image) if image.segments else (None, None)
    sfo = getattr(image, "sfo", None) or {}
    if str(sfo.get("MEMSIZE", 0)) == "1" and not kernel.sysmem.enable_large_memory():
        kernel.warn("the program asks for large memory (MEMSIZE=1), which a psp-1000 does not have")
    if low is not None:
        kernel.sysmem.reserve(low, high - low, "program")
    kernel.sysmem.reserve_system_area()
    kernel.image = image
    main_module = kernel.modules.boot(image) if image.segments else None  # registers the program's own libraries
    # A kernel-mode program (module attribute 0x1000, the 1.50-era layout) may touch kernel
    # memory: this is where its mode is decided (the CPU, compiled regions and Memory follow it).
    memory.set_kernel_mode(bool(main_module and main_module.kernel_mode))  # Machine.set_kernel_mode's state
    kernel.install_imports(image.imports)
    guest_dir, host_dir = program_folder(options, options.program_path)
    kernel.io.set_program_folder(guest_dir, host_dir)
    name = os.path.basename(options.program_path) if options.program_path else "program"
    argv0 = f"{guest_dir}/{name}".encode("latin-1", "replace") + b"\0"
    memory.write(ARGS_ADDR, argv0)
    module_name = getattr(getattr(image, "module_info", None), "name", None) or "main"
    thread = kernel.threads.create(str(module_name)[:31], image.entry, MAIN_PRIORITY, MAIN_STACK, MAIN_ATTR,
                                   image.gp or 0)
    thread.deleted_on_exit = True  # the module manager deletes the start thread (and frees its stack) when it returns
    try:
        kernel.threads.start(thread, len(argv0), ARGS_ADDR)
    except MemoryError:
        raise AllegrexError("no room for the main thread's stack in the user partition") from None
    if main_module is not None:
        kernel.modules.add(main_module)
    return kernel
