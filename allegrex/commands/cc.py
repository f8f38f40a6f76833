"""`allegrex cc`: compile C and assembly into a PSP EBOOT.PBP (or ELF) with the SDK."""

from pathlib import Path


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "cc", help="build a PSP program (EBOOT.PBP) from C and assembly sources",
        description="Compile and link C/.S sources with the allegrex PSP SDK (zig's C compiler) "
                    "into an EBOOT.PBP, or an ELF with --elf. Builds are cached by content.")
    parser.add_argument("sources", nargs="+", metavar="SRC", help=".c, .S or .s files")
    parser.add_argument("-o", dest="output", required=True, metavar="OUT", help="output file")
    parser.add_argument("--title", help="title in PARAM.SFO and default module name (default: from the source path)")
    parser.add_argument("--heap-kb", type=int, metavar="N",
                        help="malloc heap in KB; negative: all free memory but N KB (like PSP_HEAP_SIZE_KB)")
    parser.add_argument("--large-memory", action="store_true", help="ask for the 64 MB layout (MEMSIZE=1 in PARAM.SFO)")
    parser.add_argument("-O", dest="opt", default="2", metavar="LEVEL", help="optimisation level: 0 1 2 3 s z (default 2)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR", help="add an include folder")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]", help="define a macro")
    parser.add_argument("--elf", action="store_true", help="write the linked ELF instead of an EBOOT.PBP")
    parser.add_argument("--prx", action="store_true",
                        help="build a relocatable PRX module (the sources define module_start) instead of an EBOOT.PBP")
    parser.add_argument("--exports", metavar="FILE", help="with --prx: the libraries the module exports ([Name] then function names)")
    parser.add_argument("--imports", metavar="FILE",
                        help="functions of other modules' libraries the program calls (imports.txt format)")
    parser.add_argument("--host", action="store_true", help="build a host (x86-64 Linux) executable of the same program")
    parser.add_argument("-g", dest="debug", action="store_true",
                        help="debug info (DWARF: source lines for profile --annotate --by-line); an EBOOT.PBP "
                             "or PRX ships without it and the full image is written beside it (EBOOT.elf, x.debug.prx)")
    parser.add_argument("--strip", action="store_true",
                        help="no symbol table in the output (a release build); the full ELF is written beside it")
    return parser


def run(args) -> int:
    from allegrex.sdk import build, build_host

    if args.host:
        out = build_host(args.sources, args.output, opt=args.opt, include_dirs=args.include_dirs, defines=args.defines)
    else:
        from allegrex.sdk.build import unstripped_path
        out = build(args.sources, args.output, title=args.title, heap_kb=args.heap_kb, large_memory=args.large_memory,
                    opt=args.opt, include_dirs=args.include_dirs, defines=args.defines, elf=args.elf, prx=args.prx,
                    exports=args.exports, imports=args.imports, debug=args.debug, strip=args.strip)
        if args.strip or (args.debug and (args.prx or not args.elf)):
            print(f"wrote {unstripped_path(out)} (symbols{' and DWARF' if args.debug else ''})")
    print(f"wrote {Path(out)}")
    return 0
