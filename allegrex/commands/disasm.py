"""`allegrex disasm FILE [--function NAME | --addr ADDR --count N]`: Allegrex assembly
of a PSP executable, with symbolic registers, branch targets and symbol names."""

import sys

from allegrex.cpu.disasm import disassemble
from allegrex.errors import AllegrexError

PF_X = 1  # ELF segment flag: executable


class DisasmError(AllegrexError):
    """A function or address the image does not contain."""


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "disasm", help="disassemble a PSP executable (EBOOT.PBP, PRX, ELF)",
        description="Disassemble a PSP executable: a function by name, a range of words, "
                    "or (by default) every executable segment.")
    parser.add_argument("file", help="an EBOOT.PBP, a .prx module or a static .elf")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--function", metavar="NAME", help="disassemble this symbol")
    what.add_argument("--addr", metavar="ADDR", type=lambda s: int(s, 0), help="first address (0x... or decimal)")
    parser.add_argument("--count", metavar="N", type=int, default=32, help="words to show with --addr (default 32)")
    parser.add_argument("--symbols", metavar="FILE",
                        help="symbols and source lines from the unstripped ELF/PRX of the same build")
    return parser


def run(args) -> int:
    import loader  # delivered by the loader issue: loader.load(path) -> Image

    image = loader.load(args.file)
    if args.symbols:
        from loader.debug import with_symbols
        image = with_symbols(image, args.symbols)
    try:
        for line in render(image, function=args.function, addr=args.addr, count=args.count):
            print(line)
    except BrokenPipeError:  # `allegrex disasm ... | head`
        sys.stderr.close()
    return 0


def ranges(image, function=None, addr=None, count=32):
    """(start, word count) pairs to show."""
    if function is not None:
        symbol = image.symbol_named(function)
        if symbol is None:
            raise DisasmError(f"no symbol named {function!r} in {image.path or 'the image'}")
        return [(symbol.addr, max(1, symbol.size // 4))]
    if addr is not None:
        if count <= 0:
            raise DisasmError("--count must be positive")
        return [(addr & ~3, count)]
    return [(s.vaddr, len(s.data) // 4) for s in image.segments if s.flags & PF_X]


def render(image, function=None, addr=None, count=32):
    lines = []
    table = getattr(image, "lines", None)
    for start, words in ranges(image, function, addr, count):
        source = None
        for i in range(words):
            pc = start + 4 * i
            try:
                word = image.read_u32(pc)
            except KeyError:
                if i == 0:
                    raise DisasmError(f"0x{pc:08x} is outside the image's segments") from None
                break
            found = image.symbol_at(pc)
            if found and found[1] == 0:
                lines.append(f"{found[0].name}:")
            line = table.at(pc) if table is not None else None
            if line is not None and line != source:  # the source line this code comes from
                lines.append(f"    # {line}  {line.text()}".rstrip())
                source = line
            lines.append(f"  {pc:08x}:  {word:08x}  {disassemble(word, pc, image)}")
    return lines
