"""Kernel objects: what the Kernel keeps by uid (threads, semaphores, pools, memory blocks,
modules...). Each kind states its own sceKernelGetThreadmanIdType number and answers the
thread manager's events about the threads that wait on it or hold part of it, so the
thread manager needs to know no object module. Also the status record the Refer*Status
calls write."""


class KernelObject:
    uid: int  # set when the Kernel hands it out (Kernel.new_uid)
    threadman_type: int | None = None  # sceKernelGetThreadmanIdType's number (None: not a thread manager object)

    def forget_waiter(self, thread) -> None:
        """`thread`'s wait on this object ended (woken, timed out, cancelled)."""

    def wait_ended(self, k, wait, result: int) -> None:
        """`wait` on this object ended with `result` (before the waiter gets it)."""

    def serve_waiters(self, k) -> None:
        """A waiter gave up (timeout): the ones queued behind it may be served now."""

    def release_thread(self, k, thread) -> None:
        """`thread` ended: give back what it held of this object."""


def object_name(name) -> str:
    """The name an object keeps: at most 31 characters (a missing name reads as empty)."""
    return (name or "")[:31]


def status_block(size, name, words) -> bytes:
    """A Refer*Status record: its size, the name (32 bytes) and 32-bit words from offset 36."""
    data = bytearray(size)
    data[0:4] = size.to_bytes(4, "little")
    raw = name.encode("latin-1")[:31]
    data[4:4 + len(raw)] = raw
    for i, v in enumerate(words):
        data[36 + 4 * i:40 + 4 * i] = (v & 0xFFFFFFFF).to_bytes(4, "little")
    return bytes(data)


def write_status(k, info, block: bytes) -> None:
    """Write a status block, honouring the size the caller put in its first word."""
    size = k.memory.read_u32(info)
    if size:
        k.memory.write(info, block[:min(size, len(block))])
