"""High-level emulation of the PSP system libraries: one module per library group,
registered by name (see registry). `Kernel` owns the OS state of one run."""

# Modules whose import registers HLE functions.
LIBRARY_MODULES = ["threads", "sync", "sysmem", "io", "stdio", "display", "ctrl", "rtc", "power",
                   "utility", "systemparam", "umd", "misc", "timers", "pools", "vpl", "tls", "msgpipe", "modules", "dmac", "hash", "intr", "ccc", "reg", "mt19937", "ge"]
