"""High-level emulation of the PSP system libraries: one module per library group, each
registering its functions by name (see registry); allegrex.hle.libraries lists them all
and their per-run managers. `Kernel` owns the OS state of one run."""
