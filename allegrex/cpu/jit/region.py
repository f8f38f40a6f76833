"""Which code a compiled region holds: the instructions reachable from an entry address
through static control flow, cut into basic blocks.

Followed: fall-through, branch targets, `j`, calls (`jal`: the callee and the return
point, reached back through `jr ra`). Not followed: jumps through registers (compiled
code looks their target up among the region's blocks at run time and leaves the region
when it is not one). A region never holds an instruction that must reach Python
(break, halt, a reserved word) or a control transfer in a delay slot: it ends before
them and the interpreter takes over there. It holds system calls (which it leaves at
unless the run loop's table answers them, allegrex.hle.pure).
"""

from dataclasses import dataclass, field

from allegrex.cpu.decode import (BRANCH, DELAY_SLOT, EVENT, JUMP, LINK, OP_INVALID, REGISTER_TARGET, SEM, SEM_OF_OP,
                                 TABLE, decode)
from allegrex.cpu.fields import branch_target, jump_target

MAX_INSTRUCTIONS = 128  # bounds compile time (~0.1 s per instruction); inner loops come first
# A block's straight code over PIECE instructions is compiled as functions of PIECE instructions
# each (jit.codegen): the region's own function holds a call per piece, so such a block counts
# PIECE towards MAX_INSTRUCTIONS, and at most MAX_BLOCK instructions (a piece compiles in
# ~1.5-2.5 s, roughly in proportion to its length: the llama2 VFPU matmul region, 502 words in
# 16 pieces, in ~34 s alone; MEASURED 2026-12-02, benchmarks/region_compile.py; pieces of 64:
# no faster to compile, and that region then held fewer blocks and ran longer in all).
PIECE = 32
MAX_BLOCK = 320
SCAN_LIMIT = 1024  # instructions looked at to find the loop (only the loop is compiled)


def _sems(flags, without=0):
    """Semantic ids of the decode rows that have any of `flags` and none of `without`."""
    return frozenset(SEM[i.sem] for i in TABLE if i.flags & flags and not i.flags & without)


BRANCHES = _sems(BRANCH)
LINKING = _sems(LINK)
STATIC_JUMPS = _sems(JUMP, without=REGISTER_TARGET)
REGISTER_JUMPS = _sems(REGISTER_TARGET)
TRANSFERS = _sems(DELAY_SLOT)
# The run loop hands these to Python. A syscall stays: a region answers the calls the run
# loop answers (allegrex.hle.pure) and leaves with the event for the others.
STOPS = (_sems(EVENT) - {SEM["syscall"]}) | {SEM["invalid"]}


@dataclass
class Instruction:
    pc: int
    word: int
    op: int
    sem: int

    @property
    def transfer(self) -> bool:
        return self.sem in TRANSFERS

    def static_target(self):
        if self.sem in BRANCHES:
            return branch_target(self.pc + 4, self.word) & 0xFFFFFFFF
        if self.sem in STATIC_JUMPS:
            return jump_target(self.pc + 4, self.word)
        return None


@dataclass
class Block:
    head: int
    instructions: list = field(default_factory=list)  # the slot of an ending transfer included
    successors: list = field(default_factory=list)  # static addresses control may go to next
    dynamic: bool = False  # ends in a jump through a register

    @property
    def ends_in_transfer(self) -> bool:
        return len(self.instructions) >= 2 and self.instructions[-2].transfer


@dataclass
class Region:
    entry: int
    blocks: list  # by address
    words: dict  # pc -> word of every instruction compiled (checked on entry)

    @property
    def heads(self):
        return [b.head for b in self.blocks]


def _fetch(read_word, pc):
    word = read_word(pc)
    if word is None:
        return None
    op = decode(word)
    return Instruction(pc, word, op, int(SEM_OF_OP[op]) if op < OP_INVALID else SEM["invalid"])


def _usable(ins) -> bool:
    return ins is not None and ins.sem not in STOPS


def discover(entry: int, read_word, limit: int = MAX_INSTRUCTIONS):
    """The Region of the loop at `entry`: the blocks reachable from it that lead back
    to it (its loop nest and the functions it calls), or None when its first
    instruction cannot be compiled or its first block alone is over the limit (_weight).
    read_word(addr) -> int | None reads guest memory."""
    blocks = _reachable(entry, read_word)
    if entry not in blocks or _weight(blocks[entry]) > limit:
        return None
    kept = _leading_back(entry, blocks)
    ordered, count = [], 0
    for h in blocks:  # in the order found from the entry: the innermost loop first
        if h in kept and count + _weight(blocks[h]) <= limit:
            ordered.append(blocks[h])
            count += _weight(blocks[h])
    ordered.sort(key=lambda b: b.head)  # by address: block k is heads[k]
    words = {i.pc: i.word for b in ordered for i in b.instructions}
    return Region(entry, ordered, words)


def _weight(block) -> int:
    """What `block` adds to a region's own function: its instructions, or for a block
    written as pieces (over PIECE instructions) PIECE; one over MAX_BLOCK does not fit."""
    n = len(block.instructions)
    return n if n <= PIECE else PIECE if n <= MAX_BLOCK else MAX_BLOCK + 1


def _leading_back(entry, blocks):
    """Heads of the blocks from which `entry` can be reached again. A jump through a
    register in a called function may return to any call's return point; one only in
    the entry's own function (its return: to a caller outside the region) does not."""
    calls = [b.instructions[-2] for b in blocks.values() if b.ends_in_transfer and b.instructions[-2].sem in LINKING]
    returns = sorted({c.pc + 8 for c in calls})
    called = _reached(blocks, [c.static_target() for c in calls])
    preds = {h: set() for h in blocks}
    for h, b in blocks.items():
        for s in list(b.successors) + (returns if b.dynamic and h in called else []):
            if s in preds:
                preds[s].add(h)
    kept, todo = {entry}, [entry]
    while todo:
        for p in preds[todo.pop()]:
            if p not in kept:
                kept.add(p)
                todo.append(p)
    return kept


def _reached(blocks, starts):
    """Heads of the blocks reached from `starts` (the code of the functions called there)."""
    todo = [h for h in starts if h in blocks]
    seen = set(todo)
    while todo:
        for s in blocks[todo.pop()].successors:
            if s in blocks and s not in seen:
                seen.add(s)
                todo.append(s)
    return seen


def _reachable(entry, read_word):
    """head -> Block for code reachable from `entry` (at most SCAN_LIMIT instructions)."""
    limit = SCAN_LIMIT
    heads = [entry]
    seen_heads = {entry}
    blocks = {}
    count = 0
    while heads and count < limit:
        head = heads.pop(0)
        block = _scan_block(head, read_word, seen_heads, limit - count)
        if block is None:
            continue
        blocks[head] = block
        count += len(block.instructions)
        for s in block.successors:
            if s not in seen_heads:
                seen_heads.add(s)
                heads.append(s)
    # A block that runs into a head found later does not stop there: each block is
    # compiled on its own, so such code is compiled twice, never wrongly.
    return blocks


def _scan_block(head, read_word, heads, budget):
    block = Block(head)
    pc = head
    while len(block.instructions) < budget:
        if pc != head and pc in heads:
            block.successors.append(pc)
            return block
        ins = _fetch(read_word, pc)
        if not _usable(ins):
            break
        if ins.transfer:
            slot = _fetch(read_word, pc + 4)
            if not _usable(slot) or slot.transfer:
                break  # leave the region at the transfer: the interpreter runs the pair
            block.instructions += [ins, slot]
            target = ins.static_target()
            if target is not None:
                block.successors.append(target)
            if ins.sem in BRANCHES or ins.sem in LINKING:
                block.successors.append((pc + 8) & 0xFFFFFFFF)
            block.dynamic = ins.sem in REGISTER_JUMPS
            return block
        block.instructions.append(ins)
        pc = (pc + 4) & 0xFFFFFFFF
    return block if block.instructions else None
