"""Memory pools kept as the firmware keeps them: VPL bookkeeping in the pool's own memory,
thread-local storage blocks per thread, and message pipes between threads."""

from allegrex.hle import codes
from allegrex.hle.vpl import PoolMemory, Vpl
from helpers import ENTRY, call, make_kernel

TM = "ThreadManForUser"
NAME = 0x08A00000
OUT = 0x08A00100
BUF = 0x08A01000


def create_vpl(k, size, attr=0):
    k.memory.write(NAME, b"vpl\0")
    uid = call(k, TM, "sceKernelCreateVpl", NAME, 2, attr, size, 0)
    assert uid > 0
    return uid, k.get(uid, Vpl)


def allocate(k, uid, nbytes) -> int:
    assert call(k, TM, "sceKernelTryAllocateVpl", uid, nbytes, OUT) == 0
    return k.memory.read_u32(OUT)


def test_a_vpl_formats_its_memory_and_carves_blocks_from_the_end():
    k = make_kernel()
    uid, vpl = create_vpl(k, 0x100)
    base, m = vpl.base, k.memory
    assert [m.read_u32(base + 4 * i) for i in range(4)] == [base, base, base + 7, 0xF8]
    assert (m.read_u32(base + 0x18), m.read_u32(base + 0x1C)) == (base + 0xF8, 0xE0 // 8)  # one free block
    assert allocate(k, uid, 0x10) == base + 0xE0 + 8  # 0x10 bytes and the 8-byte header, at the top
    assert allocate(k, uid, 1) == base + 0xD0 + 8
    assert m.read_u32(base + 0xE0) == base + 8  # an allocated block points at the pool's mark
    assert m.read_u32(base + 0x10) == (0x18 + 0x10) // 8  # allocated units


def test_freeing_merges_neighbours_and_refuses_double_frees():
    k = make_kernel()
    uid, vpl = create_vpl(k, 0x100)
    a, b, c = allocate(k, uid, 0x10), allocate(k, uid, 0x10), allocate(k, uid, 0x10)
    for addr in (b, a, c):
        assert call(k, TM, "sceKernelFreeVpl", uid, addr) == 0
    assert call(k, TM, "sceKernelFreeVpl", uid, b) == codes.signed(codes.ILLEGAL_MEMBLOCK)
    pool = PoolMemory(k.memory, vpl)
    assert pool.units(pool.first) == 0xE0 // 8 and pool.next(pool.first) == pool.last  # whole again
    assert pool.allocated == 0


def test_a_vpl_of_a_few_bytes_gets_the_default_4_kib_and_refuses_oversized_requests():
    k = make_kernel()
    uid, vpl = create_vpl(k, 0x30)
    assert vpl.size == 0x1000
    assert call(k, TM, "sceKernelTryAllocateVpl", uid, 0x1000, OUT) == codes.signed(codes.ILLEGAL_MEMSIZE)


def test_a_ring_the_guest_broke_cannot_hang_the_allocator():
    k = make_kernel()
    uid, vpl = create_vpl(k, 0x100)
    pool = PoolMemory(k.memory, vpl)
    pool.set(pool.first, pool.first + 8, 1)  # a free block pointing into itself
    pool.set(pool.first + 8, pool.first + 8, 1)
    assert call(k, TM, "sceKernelTryAllocateVpl", uid, 0x40, OUT) == codes.signed(codes.NO_MEMORY)


def test_each_thread_gets_its_own_cleared_tls_block_until_none_is_left():
    k = make_kernel()
    k.memory.write(NAME, b"tls\0")
    pool = call(k, TM, "sceKernelCreateTlspl", NAME, 2, 0, 0x20, 1, 0)
    assert pool > 0
    addr = call(k, "Kernel_Library", "sceKernelGetTlsAddr", pool)
    assert addr > 0 and k.memory.read(addr, 0x20) == bytes(0x20)
    assert call(k, "Kernel_Library", "sceKernelGetTlsAddr", pool) == addr  # the same block again
    k.memory.write(addr, b"\xcc" * 4)
    assert call(k, TM, "sceKernelFreeTlspl", pool) == 0
    assert k.memory.read(addr, 4) == bytes(4)  # a freed block reads as zeros


def test_sixteen_tls_pools_at_most():
    k = make_kernel()
    k.memory.write(NAME, b"tls\0")
    made = [call(k, TM, "sceKernelCreateTlspl", NAME, 2, 0, 0x10, 1, 0) for _ in range(17)]
    assert all(uid > 0 for uid in made[:16]) and made[16] == codes.signed(0x800201D1)


def test_a_receiver_waits_for_a_sender_on_a_pipe_without_buffer():
    k = make_kernel()
    k.memory.write(NAME, b"pipe\0")
    pipe = call(k, TM, "sceKernelCreateMsgPipe", NAME, 2, 0, 0, 0)
    k.memory.write(NAME + 0x10, b"rx\0")
    rx = call(k, TM, "sceKernelCreateThread", NAME + 0x10, ENTRY + 0x40, 0x10, 0x1000, 0, 0)
    call(k, TM, "sceKernelStartThread", rx, 0, 0)
    assert k.threads.current.name == "rx"
    call(k, TM, "sceKernelReceiveMsgPipe", pipe, BUF, 4, 0, OUT, 0)  # FULL: waits for all 4 bytes
    assert k.threads.current.name == "main"
    k.memory.write(BUF + 0x100, b"ping")
    assert call(k, TM, "sceKernelSendMsgPipe", pipe, BUF + 0x100, 4, 0, OUT + 4, 0) == 0
    assert k.threads.current.name == "rx"  # woken, and higher priority
    assert k.memory.read(BUF, 4) == b"ping" and k.memory.read_u32(OUT) == 4


def test_a_buffered_pipe_hands_out_bytes_in_order_and_asap_takes_what_is_there():
    k = make_kernel()
    k.memory.write(NAME, b"pipe\0")
    pipe = call(k, TM, "sceKernelCreateMsgPipe", NAME, 2, 0, 8, 0)
    k.memory.write(BUF, b"abcdef")
    assert call(k, TM, "sceKernelTrySendMsgPipe", pipe, BUF, 6, 0, OUT) == 0
    assert call(k, TM, "sceKernelTrySendMsgPipe", pipe, BUF, 6, 0, OUT) == codes.signed(0x800201B3)  # full
    assert call(k, TM, "sceKernelTryReceiveMsgPipe", pipe, BUF + 0x10, 4, 0, OUT) == 0
    assert call(k, TM, "sceKernelTryReceiveMsgPipe", pipe, BUF + 0x20, 4, 1, OUT) == 0  # ASAP: the 2 left
    assert k.memory.read(BUF + 0x10, 4) == b"abcd" and k.memory.read(BUF + 0x20, 2) == b"ef"
    assert k.memory.read_u32(OUT) == 2


def test_the_volatile_memory_is_lent_to_one_holder_at_a_time():
    k = make_kernel()
    SU = "sceSuspendForUser"
    addr, size = OUT, OUT + 4
    assert call(k, SU, "sceKernelVolatileMemLock", 1, addr, size) == codes.signed(codes.INVALID_MODE)
    assert call(k, SU, "sceKernelVolatileMemLock", 0, addr, size) == 0
    assert (k.memory.read_u32(addr), k.memory.read_u32(size)) == (0x08400000, 0x00400000)
    assert call(k, SU, "sceKernelVolatileMemTryLock", 0, addr, size) == codes.signed(0x802B0200)
    k.memory.write(NAME, b"waiter\0")
    waiter = call(k, TM, "sceKernelCreateThread", NAME, ENTRY + 0x40, 0x10, 0x1000, 0, 0)
    call(k, TM, "sceKernelStartThread", waiter, 0, 0)
    call(k, SU, "sceKernelVolatileMemLock", 0, 0, 0)  # the waiter waits in line
    assert k.threads.current.name == "main"
    assert call(k, SU, "sceKernelVolatileMemUnlock", 0) == 0  # handed to the waiter
    assert k.threads.current.name == "waiter"
    assert call(k, SU, "sceKernelVolatileMemUnlock", 0) == 0
    assert call(k, SU, "sceKernelVolatileMemUnlock", 0) == codes.signed(codes.SEMA_OVERFLOW)  # not locked
