"""`allegrex vfpu FILE.s | -e "SNIPPET"`: the VFPU lab. Runs a snippet on a fresh
machine and shows every instruction's operands, results and timing, then the register
file; `--explain NAME` pictures a register name; `--html F` writes a web page of the run."""

import json
import sys

from allegrex.errors import AllegrexError


class LabUsageError(AllegrexError):
    """Bad combination of lab options or an unreadable snippet file."""


def add_parser(subparsers):
    p = subparsers.add_parser(
        "vfpu", help="the VFPU lab: run a snippet and see registers, results and timing",
        description="Assemble a VFPU/MIPS snippet, run it on a fresh simulated CPU one instruction at a "
                    "time and show what each instruction read, wrote and cost.")
    p.add_argument("file", nargs="?", help="assembly snippet (.s); or use -e")
    p.add_argument("-e", "--exec", dest="snippet", metavar="SNIPPET",
                   help='snippet text, statements separated by ";" (e.g. "vone.q C000; vadd.q C010, C000, C000")')
    p.add_argument("--mem", action="append", default=[], metavar="ADDR=V,V,..",
                   help="store floats at ADDR before running (repeatable)")
    p.add_argument("--warm", action="store_true",
                   help="start with the snippet's code and data in the caches (steady-state timing)")
    p.add_argument("--matrices", choices=("all", "used"), default="all",
                   help="final register view: all 8 matrices (default) or only those written")
    p.add_argument("--table", action="store_true", help="timing only: one line per instruction")
    p.add_argument("--step", action="store_true", help="walk one instruction at a time (Enter: next, q: quit)")
    p.add_argument("--json", action="store_true", help="print the whole run as JSON")
    p.add_argument("--html", metavar="FILE", help="write a self-contained web page of the run")
    p.add_argument("--explain", metavar="NAME", help="explain a register name (e.g. C012.t, E100.q, S321)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="ANSI colours")
    return p


def _source(args) -> str:
    if args.snippet is not None and args.file:
        raise LabUsageError("give a file or -e SNIPPET, not both")
    if args.snippet is not None:
        return args.snippet
    if not args.file:
        raise LabUsageError("nothing to run: give FILE.s, -e SNIPPET or --explain NAME")
    try:
        with open(args.file, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise LabUsageError(f"cannot read {args.file}: {exc}") from None


def run(args) -> int:
    from vfpu import lab, lab_text

    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    if args.explain:
        info = lab.explain(args.explain)
        if args.json:
            print(json.dumps(info, indent=1))
        else:
            sys.stdout.write(lab_text.render_explain(info, color))
        if not (args.file or args.snippet):
            return 0
    mem = [lab.parse_mem_option(m) for m in args.mem]
    session = lab.Lab(_source(args), mem=mem, warm=args.warm)
    if args.step:
        return _walk(session, color)
    trace = session.run()
    if args.html:
        from vfpu import lab_html
        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(lab_html.render(trace))
        except OSError as exc:
            raise LabUsageError(f"cannot write {args.html}: {exc}") from None
    if args.json:
        print(json.dumps(trace.as_dict(), indent=1))
    elif args.table:
        sys.stdout.write(lab_text.render_table(trace))
    elif not args.html:
        sys.stdout.write(lab_text.render_trace(trace, color, args.matrices))
    else:
        print(f"wrote {args.html}: {len(trace.steps)} instructions, {trace.total_cycles} cycles")
    return 0


def _walk(session, color) -> int:
    from vfpu import lab_text

    while True:
        step = session.step()
        if step is None:
            break
        print(lab_text.render_step_view(step, color))
        try:
            answer = input("-- Enter: next instruction, q: quit -- ")
        except EOFError:
            answer = ""
        if answer.strip().lower().startswith("q"):
            return 0
    sys.stdout.write(lab_text.render_trace(session.trace(), color, "used"))
    return 0
