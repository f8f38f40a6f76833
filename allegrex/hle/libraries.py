"""Every HLE library of a run, in one place.

Importing a library module registers its functions (registry.hle). A library that keeps
per-run state names its manager class in MANAGERS: boot builds each as Class(kernel) and
the Kernel keeps it as kernel.<name>, in this order. A new library adds its module to
the import below and, if it has state, one line to MANAGERS (docs/contributing.md).
"""

# each import registers the module's functions (most are used only for that)
from allegrex.hle import (audio, battery, ccc, ctrl, display, dmac, hash, hprm, http, intr, io, io_async,
                          kernel_libraries, misc, modules, msgpipe, mt19937, net, net_adhoc, pools, power, reg, rtc,
                          stdio, sync, sysmem, systemparam, threads, timers, tls, umd, usb, utility, utility_modules,
                          vaudio, vpl)

MANAGERS = {
    "sysmem": sysmem.SysMem,
    "threads": threads.ThreadManager,
    "io": io.IoManager,
    "display": display.Display,
    "ctrl": ctrl.Ctrl,
    "utility": utility.Utility,
    "power": power.Power,
    "umd": umd.UmdState,
    "reg": reg.RegState,
    "ccc": ccc.CccState,
    "volatile_lock": misc.VolatileLock,
    "vblank_handlers": timers.VblankHandlers,
    "ge_sub_handlers": intr.SubHandlers,
    "audio": audio.Audio,
    "vaudio": vaudio.VaudioState,
    "modules": modules.ModuleManager,
    "utility_modules": utility_modules.LoadedModules,
    "net": net.NetStack,
    "usb": usb.Usb,
}
