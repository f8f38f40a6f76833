"""`allegrex run FILE`: run a PSP program (EBOOT.PBP, PRX or ELF) headless.

The guest's text goes to stdout; diagnostics and progress to stderr. Exit status:
0 the program exited (or every thread sleeps, waiting for HOME), 1 guest fault / unknown import / deadlock, 2 bad input,
3 a --max-seconds or --timeout limit stopped it.
"""

import json
import os
import sys
import time

from allegrex.errors import AllegrexError
from allegrex.hle.kernel import RunOptions
from allegrex.limits import add_time_limits, count

MODELS = ("psp-1000", "psp-2000", "psp-3000")
PROGRESS_EVERY_S = 2.0  # wall-clock seconds between progress lines


def add_parser(subparsers):
    p = subparsers.add_parser("run", help="run a PSP program (EBOOT.PBP, PRX, ELF) headless",
                              description="Run a PSP program: its text on stdout, files in the mapped folders.")
    p.add_argument("file", help="EBOOT.PBP, .prx or .elf")
    p.add_argument("--model", choices=MODELS, default="psp-2000", help="PSP model (memory size); default psp-2000")
    p.add_argument("--ms0", metavar="DIR", help="host folder mapped as ms0:/ (memory stick)")
    p.add_argument("--host0", metavar="DIR", help="host folder mapped as host0:/")
    p.add_argument("--input", metavar="FILE", help="button script: lines '<time> BUTTON[+BUTTON] [for <dur>]'")
    p.add_argument("--press", metavar="B@T", action="append", default=[], help="press a button, e.g. CROSS@2s")
    p.add_argument("--osk", metavar="TEXT", default="", help="text the on-screen keyboard returns")
    p.add_argument("--msgdialog", choices=("yes", "no", "back"), default="yes", help="message dialog answer, given once the dialog has been visible 60 frames")
    p.add_argument("--screenshot", metavar="FILE.png", help="write the displayed frame at exit")
    p.add_argument("--frames", metavar="DIR", help="write displayed frames as PNG files")
    p.add_argument("--frames-every", metavar="N", type=count, default=1, help="with --frames: every N-th vblank")
    p.add_argument("--audio", metavar="FILE.wav",
                   help="write what the speaker plays (16-bit stereo 44.1 kHz WAV, as long as the simulated time)")
    p.add_argument("--ge-dump", metavar="FILE", help="write every GE display-list command executed, by frame "
                   "(address, command, decoded arguments)")
    add_time_limits(p)
    p.add_argument("--stats", action="store_true", help="print cycles, instructions, time and exit reason")
    p.add_argument("--json", metavar="F", help="write the run report as JSON")
    p.add_argument("--strict", action="store_true",
                   help="refuse programs with unimplemented imports; stop on sandbox refusals")
    p.add_argument("--epoch", type=int, default=None, help="wall-clock start in Unix seconds (default 2010-01-01)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--symbols", metavar="FILE",
                   help="symbols and source lines from the unstripped ELF/PRX of the same build (checked against the code)")
    return p


def options_from_args(args) -> RunOptions:
    from allegrex.hle import ctrl
    events = []
    if args.input:
        try:
            with open(args.input, encoding="utf-8") as f:
                events += ctrl.parse_script(f.read())
        except OSError as exc:
            raise AllegrexError(f"cannot read input script {args.input}: {exc.strerror}") from None
    events += [ctrl.parse_press(spec) for spec in args.press]
    for folder, flag in ((args.ms0, "--ms0"), (args.host0, "--host0")):
        if folder and not os.path.isdir(folder):
            raise AllegrexError(f"{flag} {folder}: not a folder")
    opts = RunOptions(ms0=args.ms0, host0=args.host0, program_path=args.file, osk_text=args.osk,
                      msgdialog_result=args.msgdialog, input_events=events, frames_dir=args.frames,
                      frames_every=args.frames_every, strict=args.strict, audio_path=args.audio)
    if args.epoch is not None:
        opts.epoch = args.epoch
    if args.ge_dump:
        from allegrex.ge.dump import open_dump
        opts.ge_dump = open_dump(args.ge_dump)
    return opts


def load_program(path: str, model: str, options: RunOptions, symbols: str | None = None):
    """Machine + booted Kernel for the program at `path` (with the symbols and source
    lines of the unstripped file `symbols`, which must hold the same code)."""
    if os.path.isdir(path):
        raise AllegrexError(f"{path} is a folder: name the program in it (EBOOT.PBP, a .prx or an .elf)")
    if not os.path.isfile(path):
        raise AllegrexError(f"{path}: no such file")
    try:
        import loader
        from allegrex.machine import Machine
    except ImportError as exc:
        raise AllegrexError(f"this checkout lacks the loader or the CPU ({exc.name})") from None
    from allegrex.hle.boot import boot
    try:
        image = loader.load(path)
    except AllegrexError:
        raise
    except Exception as exc:  # loader errors are LoaderError; anything else is reported plainly
        if exc.__class__.__name__ == "LoaderError":
            raise AllegrexError(f"{path}: {exc}") from None
        raise
    if symbols:
        from loader.debug import with_symbols
        image = with_symbols(image, symbols)
    machine = Machine(model)
    machine.symbol_lookup = image  # fault reports name functions
    if options.frames_dir:
        try:
            os.makedirs(options.frames_dir, exist_ok=True)
        except OSError as exc:
            raise AllegrexError(f"cannot create frames folder {options.frames_dir}: {exc.strerror}") from None
    return machine, boot(machine, image, options)


class Progress:
    def __init__(self, stream):
        self.stream = stream
        self.start = time.monotonic()
        self.last = self.start
        self.shown = False

    def restart(self) -> None:
        """Count from now (after a compile: its wait is no simulation speed)."""
        self.start = self.last = time.monotonic()

    def __call__(self, kernel):
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        s = kernel.stats()
        mips = s["instructions"] / max(now - self.start, 1e-9) / 1e6
        print(f"allegrex: {s['simulated_seconds']:.3f} simulated s, {s['cycles']:,} cycles, "
              f"{s['instructions']:,} instructions, {mips:.1f} MIPS", file=self.stream, flush=True)
        self.shown = True


def run(args) -> int:
    options = options_from_args(args)
    machine, kernel = load_program(args.file, args.model, options, args.symbols)
    progress = None if args.quiet else Progress(sys.stderr)
    if not args.quiet:
        def notice(message):
            say(message)
            progress.restart()
        machine.notice = notice
    from allegrex.cpu.jit import background
    if background.wanted():  # new hot loops compile in a helper process while the run goes on
        machine.jit.background = background.Background(None if args.quiet else say)
    wall_start = time.monotonic()
    try:
        stop = kernel.run(max_seconds=args.max_seconds, timeout=args.timeout, progress=progress, started=args.started)
    except BaseException:  # (Ctrl-C too) no helper outlives the command
        machine.stop_compiles()
        raise
    wall = time.monotonic() - wall_start
    kernel.audio.close()  # the speaker's output up to the end of the simulated time
    report = kernel.stats()
    report["program"] = args.file
    report["model"] = args.model
    report["wall_seconds"] = round(wall, 3)
    report["exit_code"] = stop.exit_code
    sys.stdout.flush()
    if stop.kind not in ("exit", "threads-ended", "sleeping"):
        print(f"allegrex run: {stop.message}", file=sys.stderr)
    if args.screenshot:
        try:
            kernel.display.save_png(args.screenshot, final=True)
        except (OSError, ValueError) as exc:
            raise AllegrexError(f"cannot write screenshot {args.screenshot}: {exc}") from None
    if args.stats:
        print(f"exit: {stop.kind} ({stop.message.splitlines()[0]})\n"
              f"cycles: {report['cycles']:,} (idle {report['idle_cycles']:,}, HLE {report['hle_cycles']:,})\n"
              f"instructions: {report['instructions']:,}\n"
              f"simulated time: {report['simulated_seconds']:.6f} s at {report['cpu_mhz']} MHz\n"
              f"audio: {report['audio_seconds']:.6f} s of sound\n"
              f"wall time: {wall:.2f} s", file=sys.stderr)
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=2)
        except OSError as exc:
            raise AllegrexError(f"cannot write {args.json}: {exc.strerror}") from None
    if stop.kind == "timeout":  # the wall-clock limit holds: a helper's compile is left
        machine.stop_compiles()
    else:
        machine.finish_compiles()
    return stop.exit_code


def say(message: str) -> None:
    print(f"allegrex: {message}", file=sys.stderr, flush=True)
