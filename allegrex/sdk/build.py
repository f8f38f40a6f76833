"""Build PSP programs (EBOOT.PBP or ELF) and host reference executables from C and
assembly with the SDK in psp/sdk. Results are cached by a hash of everything that
goes into them, so rebuilding an unchanged program costs one hash and one copy."""

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from allegrex.sdk import imports as import_tables
from allegrex.sdk import prx as prx_tables
from allegrex.sdk import toolchain
from allegrex.sdk.errors import SdkError, UnknownImportError
from allegrex.sdk.symbols import read_symbols, resolve

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "psp" / "sdk"
SDK_INCLUDE = SDK / "include"
IMPORTS = SDK / "imports.txt"
LINKER_SCRIPT = SDK / "link.ld"
LIBRARY_DIRS = ("libc", "libm", "screen")
PSP_LIBRARY_DIRS = LIBRARY_DIRS + ("gu",)   # gu: GE display lists and VFPU matrices, PSP only
HOST_OS = SDK / "host" / "host_os.c"
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os", "-Oz")
CACHE_FORMAT = "1"   # bump when the build recipe changes in a way the hash cannot see


def cache_root() -> Path:
    return Path(os.environ.get("ALLEGREX_CACHE") or Path.home() / ".cache" / "allegrex")


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()[:32]


def _tree_digest(paths) -> str:
    """Hash of the named files and of every file under the named folders."""
    parts = []
    for root in paths:
        root = Path(root)
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for f in files:
            if "__pycache__" not in f.parts:
                parts += [str(f.relative_to(root.parent) if root.is_dir() else f.name), f.read_bytes()]
    return _digest(*parts)


def sdk_digest() -> str:
    """Everything a build depends on besides its own inputs: the SDK tree, this driver,
    and the VFPU assembler that rewrites .S files."""
    vfpu = sorted(p for p in (REPO / "vfpu").glob("*.py") if not p.name.startswith("_"))
    return _digest(_tree_digest([SDK, Path(__file__).parent]), _tree_digest(vfpu) if vfpu else "")


def _opt_flag(opt: str) -> str:
    flag = opt if opt.startswith("-O") else f"-O{opt}"
    if flag not in OPT_LEVELS:
        raise SdkError(f"unknown optimisation level {opt!r}: use one of {', '.join(OPT_LEVELS)}")
    return flag


def _check_sources(sources) -> list:
    if not IMPORTS.is_file():
        raise SdkError(f"the SDK sources are missing ({SDK}): allegrex cc needs a checkout "
                       "(pip install -e .), not a wheel without psp/")
    paths = [Path(s) for s in sources]
    if not paths:
        raise SdkError("no source files given")
    for p in paths:
        if not p.is_file():
            raise SdkError(f"source file not found: {p}")
        if p.suffix not in (".c", ".S", ".s"):
            raise SdkError(f"{p}: unsupported source type {p.suffix!r} (expected .c, .S or .s)")
    return paths


def _user_flags(include_dirs, defines) -> list:
    flags = []
    for d in include_dirs:
        flags += ["-I", str(d)]
    for d in defines:
        flags.append(f"-D{d}")
    return flags


def _inputs_digest(paths, include_dirs) -> str:
    """Sources, their folders' headers and the include folders' headers."""
    parts = []
    for p in paths:
        parts += [p.name, p.read_bytes()]
        parts += [h.read_bytes() for h in sorted(p.parent.glob("*.h"))]
    for d in include_dirs:
        parts.append(_tree_digest([Path(d)]))
    return _digest(*parts)


class _Workspace:
    """A temporary folder plus the object cache."""

    def __init__(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="allegrex-cc-"))
        self.objects = cache_root() / "objects"
        self.objects.mkdir(parents=True, exist_ok=True)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def generated_include(self) -> Path:
        """include/pspimports.h generated from imports.txt, shared by every build."""
        text = import_tables.header_text(import_tables.load_imports(IMPORTS))
        folder = cache_root() / "include" / _digest(text)
        if not (folder / "pspimports.h").exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f"pspimports.h.{os.getpid()}"
            tmp.write_text(text)
            tmp.replace(folder / "pspimports.h")
        return folder

    def compile_cached(self, source: Path, flags: list, key: str) -> Path:
        obj = self.objects / f"{source.stem}-{key}.o"
        if not obj.exists():
            tmp = self.objects / f"{obj.name}.{os.getpid()}.tmp"   # same folder: the rename is atomic
            if source.suffix == ".S":
                self.assemble(source, f"sdk-{source.name}", tmp, flags)
            else:
                toolchain.compile_object(source, tmp, flags, f"compiling {source.name}")
            os.replace(tmp, obj)
        return obj

    def assemble(self, source: Path, name: str, obj: Path, flags: list, debug: bool = False) -> None:
        """A .S file with its VFPU lines rewritten first (line for line; #line names the
        original file in messages), and with debug=True a .loc per line: the
        assembler's own line table skips data words, which VFPU lines become."""
        rewritten = self.tmp / name
        quoted = _c_string(str(source.resolve()))
        text = _rewrite_vfpu(source.read_text(), source)
        if debug:
            text = f".file 1 {quoted}\n" + _with_line_directives(text)
        rewritten.write_text(f"#line 1 {quoted}\n" + text)
        toolchain.compile_object(rewritten, obj, flags + ["-I", str(source.parent)], f"assembling {source}")

    def compile_source(self, source: Path, flags: list, index: int, debug: bool = False) -> Path:
        """A user source (.S files through `assemble`)."""
        obj = self.tmp / f"{index:03d}-{source.stem}.o"
        if source.suffix == ".S":
            self.assemble(source, f"{index:03d}-{source.name}", obj, flags, debug)
        else:  # debug: absolute names in DWARF, so a cached build finds its sources from any folder
            toolchain.compile_object(source.resolve() if debug else source, obj, flags, f"compiling {source}")
        return obj


def _with_line_directives(text: str) -> str:
    """Assembly text with `.loc 1 N;` in front of every statement line N (file 1 is the
    user's source), so every emitted word, .word included, has its line in .debug_line.
    Preprocessor lines and their continuations stay as they are."""
    out = []
    continued = False
    for n, line in enumerate(text.split("\n"), 1):
        directive = continued or line.lstrip().startswith("#")
        continued = directive and line.rstrip().endswith("\\")
        out.append(line if directive or not line.strip() else f".loc 1 {n}; {line}")
    return "\n".join(out)


def _rewrite_vfpu(text: str, source: Path) -> str:
    """VFPU mnemonics become .word directives via vfpu.asm when that module exists."""
    try:
        from vfpu.asm import rewrite_vfpu_lines
    except ImportError:
        return text
    try:
        return rewrite_vfpu_lines(text)
    except SdkError:
        raise
    except Exception as exc:  # the VFPU assembler's own error type: report, don't trace
        if isinstance(exc, (ValueError,)) or exc.__class__.__module__.startswith(("vfpu", "allegrex")):
            raise SdkError(f"{source}: {exc}") from exc
        raise


def _sdk_objects(ws: _Workspace, flags: list, tag: str, dirs=LIBRARY_DIRS) -> list:
    key = _digest(tag, sdk_digest(), toolchain.zig_version(), *flags)
    sources = sorted(p for d in dirs for p in (SDK / d).iterdir() if p.suffix in (".c", ".S"))
    return [ws.compile_cached(src, flags, key) for src in sources]


def _psp_flags(opt_flag: str, include: Path, debug: bool = False) -> list:
    cflags = [("-g" if debug and f == "-g0" else f) for f in toolchain.PSP_CFLAGS]  # -g: same code, plus DWARF
    return [*toolchain.PSP_TARGET, opt_flag, *cflags, "-D__PSP__=1", "-I", str(SDK_INCLUDE), "-I", str(include)]


def _linker_script(ws, debug: bool) -> Path:
    """The SDK's linker script; for debug builds without the line that drops DWARF."""
    if not debug:
        return LINKER_SCRIPT
    text = LINKER_SCRIPT.read_text()
    kept = text.replace("*(.debug*) ", "")
    if kept == text:
        raise SdkError(f"{LINKER_SCRIPT} no longer discards .debug* as the debug build expects")
    script = ws.tmp / "link-debug.ld"
    script.write_text(kept)
    return script


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _generated_object(ws: _Workspace, name: str, text: str, flags: list, suffix: str = ".c") -> Path:
    source = ws.tmp / f"{name}{suffix}"
    source.write_text(text)
    obj = ws.tmp / f"{name}.o"
    toolchain.compile_object(source, obj, flags, f"compiling generated {name}.c")
    return obj


def _linker_script_symbols() -> set:
    """Symbols the linker script defines (_gp, __lib_stub_top...)."""
    return set(re.findall(r"\b(\w+)\s*=", LINKER_SCRIPT.read_text()))


def _import_objects(ws, missing: dict, flags: list, imports, origins: dict) -> list:
    """Stubs for the imported functions; anything else unresolved is reported here."""
    provided = _linker_script_symbols()
    unknown = {n: r for n, r in missing.items()
               if n not in imports.functions and n not in provided and not n.startswith("__")}
    if unknown:
        listed = ", ".join(f"{n} (called from {origins.get(r, r)})" for n, r in sorted(unknown.items()))
        raise UnknownImportError(
            f"unknown function(s): {listed}; not defined by the program or the SDK libc, "
            f"and not declared in {IMPORTS.relative_to(REPO)}")
    used = sorted(n for n in missing if n in imports.functions)
    if not used:
        return []
    stubs = ws.tmp / "imports.S"
    stubs.write_text(import_tables.stubs_assembly(imports, used))
    obj = ws.tmp / "imports.o"
    toolchain.compile_object(stubs, obj, flags, "assembling the import stubs")
    return [obj]


def _link_psp_elf(ws, paths, title, heap_kb, opt_flag, include_dirs, defines, prx=None, imports_text=None,
                  debug=False, strip=False):
    """(the full linked ELF, the ELF to ship). prx: None for a program, else the module's
    exports ({library: (attributes, names)}); imports: extra import declarations
    (libraries of other modules) in imports.txt form. For a debug or stripped build the
    ELF to ship is the same objects linked again without DWARF (the SDK's script drops
    it) and with strip, without symbols: the same code and data, less in the file."""
    include = ws.generated_include()
    base_flags = _psp_flags(opt_flag, include, debug)
    user_flags = base_flags + _user_flags(include_dirs, defines)
    user_objs = [ws.compile_source(p, user_flags, i, debug) for i, p in enumerate(paths)]
    sdk_flags = base_flags + toolchain.SDK_CFLAGS
    if prx is None:  # a program starts in crt0; a module in its own module_start
        starts = [ws.compile_cached(SDK / "crt" / "crt0.c", sdk_flags,
                                    _digest("crt0", sdk_digest(), toolchain.zig_version(), *sdk_flags))]
    else:
        starts = []
    program = [read_symbols(o) for o in [*starts, *user_objs]]
    defined = set().union(*(o.defined for o in program))
    extra = []
    if prx is not None:
        if "module_start" not in defined:
            raise SdkError("a PRX module must define module_start(SceSize args, void *argp)")
        extra.append(_generated_object(ws, "exports", prx_tables.exports_assembly(prx, "module_stop" in defined),
                                       sdk_flags, suffix=".S"))
    if "module_info" not in defined:
        extra.append(_generated_object(
            ws, "module_info", f'#define MODULE_NAME {_c_string(title[:27])}\n'
            f'#include "{SDK / "crt" / "module_default.c"}"\n', sdk_flags))
    if heap_kb is not None:
        if "sce_newlib_heap_kb_size" in defined:
            raise SdkError("the heap size is set twice: by PSP_HEAP_SIZE_KB in the program and by heap_kb/--heap-kb")
        extra.append(_generated_object(ws, "heap_size", f"int sce_newlib_heap_kb_size = {int(heap_kb)};\n", sdk_flags))
    program += [read_symbols(o) for o in extra]
    library = [read_symbols(o) for o in _sdk_objects(ws, sdk_flags, "psp", PSP_LIBRARY_DIRS)]
    pulled, missing = resolve(program, library)
    imports = import_tables.load_imports(IMPORTS)
    if imports_text:
        imports = import_tables.merge(imports, import_tables.parse_imports(imports_text, "the program's imports"))
    origins = {o.name: str(p) for o, p in zip(user_objs, paths)}
    origins.update({o.path.name: f"the SDK's {o.path.stem.rsplit('-', 1)[0]}.c" for o in library})
    stub_objs = _import_objects(ws, missing, sdk_flags, imports, origins)
    objects = [*starts, *user_objs, *extra, *[o.path for o in pulled], *stub_objs]
    elf = ws.tmp / "program.elf"

    def link(output, script, extra=()):
        flags = [*toolchain.PSP_TARGET, "-static", "-T", str(script), "-Wl,--no-undefined", "-Wl,--gc-sections", *extra]
        if prx is None:
            toolchain.link(objects, output, flags + ["-Wl,-e,_start"])
        else:  # linked at 0 with every relocation kept for the module loader
            toolchain.link_keeping_relocations(objects, output, flags + ["-Wl,-e,module_start"],
                                               ["--defsym=__prx_base=0"])
        return output

    elf = link(ws.tmp / "program.elf", _linker_script(ws, debug))
    if not (debug or strip):
        return elf, elf
    return elf, link(ws.tmp / "shipped.elf", LINKER_SCRIPT, [toolchain.STRIP_ALL] if strip else [])


def _pack(elf: bytes, title: str, large_memory: bool) -> bytes:
    try:
        from loader.pack import pack_eboot
    except ImportError:
        from loader.pbp import write_pbp
        from loader.sfo import homebrew_sfo, write_sfo
        return write_pbp({"PARAM.SFO": write_sfo(homebrew_sfo(title, large_memory)), "DATA.PSP": elf})
    return pack_eboot(elf, title, large_memory)


def _store(product: bytes, cached: Path) -> None:
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(f"{cached.name}.{os.getpid()}")
    tmp.write_bytes(product)
    tmp.replace(cached)


def _finish(product: bytes, cached: Path, output: Path) -> Path:
    _store(product, cached)
    return _deliver(cached, output)


def _deliver(cached: Path, output: Path) -> Path:
    output = Path(output)
    if output.parent and not output.parent.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, output)
    return output


def unstripped_path(output) -> Path:
    """Where a debug (-g) or stripped build writes the full image beside its output:
    EBOOT.PBP -> EBOOT.elf, prog.elf -> prog.debug.elf, mod.prx -> mod.debug.prx."""
    output = Path(output)
    if output.suffix in (".elf", ".prx"):
        return output.with_suffix(".debug" + output.suffix)
    return output.with_suffix(".elf")


def default_title(sources) -> str:
    first = Path(sources[0]).resolve()
    return first.parent.name if first.stem == "main" else first.stem


def build(sources, output, title=None, heap_kb=None, large_memory=False, opt="-O2",
          include_dirs=(), defines=(), elf=False, prx=False, exports=None, imports=None, debug=False,
          strip=False) -> Path:
    """Compile and link C/assembly sources into a PSP EBOOT.PBP (or a bare ELF with
    elf=True, or a relocatable PRX module with prx=True) at `output`; returns the output
    path. exports: a file declaring the libraries a PRX exports (allegrex.sdk.prx);
    imports: a file declaring functions of other modules' libraries (imports.txt form).
    Raises CompileError with the compiler's message, UnknownImportError for calls
    nothing provides, SdkError for bad options.

    debug=True (`allegrex cc -g`) compiles with DWARF (the code is the same): a bare
    ELF keeps it; an EBOOT.PBP or PRX holds the image without it and the full one is
    written beside the output (unstripped_path). strip=True leaves the symbol table out
    of the output too, as a release build ships, and also writes the full ELF beside it."""
    paths = _check_sources(sources)
    opt_flag = _opt_flag(opt)
    title = title or default_title(paths)
    include_dirs, defines = tuple(map(str, include_dirs)), tuple(map(str, defines))
    if exports and not prx:
        raise SdkError("exports are for PRX modules (prx=True)")
    if prx and strip:
        raise SdkError("--strip is for programs: a PRX module keeps its symbol table (its relocations name symbols)")
    export_text = Path(exports).read_text() if exports else ""
    imports_text = Path(imports).read_text() if imports else ""
    beside = (debug and not elf) or strip or (debug and prx)
    key = _digest("psp", CACHE_FORMAT, sdk_digest(), toolchain.zig_version(), _inputs_digest(paths, include_dirs),
                  title, heap_kb, large_memory, opt_flag, *include_dirs, "|", *defines, elf, prx, export_text,
                  imports_text, debug, strip,
                  *(str(p.resolve()) for p in paths if debug))  # DWARF holds the sources' absolute names
    folder = cache_root() / "builds" / key
    cached = folder / ("module.prx" if prx else "program.elf" if elf else "EBOOT.PBP")
    cached_full = folder / ("unstripped.prx" if prx else "unstripped.elf")
    if not (cached.exists() and (cached_full.exists() or not beside)):
        ws = _Workspace()
        try:
            tables = prx_tables.parse_exports(export_text, str(exports)) if prx else None
            linked, shipped = _link_psp_elf(ws, paths, title, heap_kb, opt_flag, include_dirs, defines, tables,
                                            imports_text, debug, strip)
            if elf and not prx and not strip:
                shipped = linked  # a bare -g ELF keeps its DWARF
            if beside:
                full = linked.read_bytes()
                _store(prx_tables.make_prx(full) if prx else full, cached_full)
            data = shipped.read_bytes()
            _store(prx_tables.make_prx(data) if prx else data if elf else _pack(data, title, large_memory), cached)
        finally:
            ws.close()
    if beside:
        _deliver(cached_full, unstripped_path(output))
    return _deliver(cached, output)


def build_host(sources, output, opt="-O2", include_dirs=(), defines=(), shared=False) -> Path:
    """Build the same C for the host (x86-64 Linux, static musl) with the SDK's libc
    and libm, so math and printf output are bit-identical to the PSP build. The PSP OS
    calls the libc makes are served by psp/sdk/host/host_os.c (ms0:/ is ./ms0 or
    $ALLEGREX_HOST_MS0). shared=True builds a shared object of the sources plus libm
    only (no libc), for loading with ctypes."""
    paths = _check_sources(sources)
    opt_flag = _opt_flag(opt)
    include_dirs, defines = tuple(map(str, include_dirs)), tuple(map(str, defines))
    key = _digest("host", CACHE_FORMAT, sdk_digest(), toolchain.zig_version(), _inputs_digest(paths, include_dirs),
                  opt_flag, *include_dirs, "|", *defines, shared)
    cached = cache_root() / "builds" / key / ("program.so" if shared else "program")
    if cached.exists():
        out = _deliver(cached, output)
        out.chmod(0o755)
        return out
    ws = _Workspace()
    try:
        include = ws.generated_include()
        pic = ["-fPIC"] if shared else []
        base = [*toolchain.HOST_TARGET, opt_flag, *toolchain.HOST_CFLAGS, *pic, "-DALLEGREX_HOST=1",
                "-nostdinc", "-isystem", str(_clang_builtin_include()), "-I", str(SDK_INCLUDE), "-I", str(include)]
        user_objs = [ws.compile_source(p, base + _user_flags(include_dirs, defines), i) for i, p in enumerate(paths)]
        sdk_flags = base + toolchain.SDK_CFLAGS
        if shared:
            libs = [ws.compile_cached(p, sdk_flags, _digest("host-so", sdk_digest(), toolchain.zig_version(), *sdk_flags))
                    for p in sorted((SDK / "libm").glob("*.c"))]
            link_flags = [*toolchain.HOST_TARGET, "-shared", "-nostdlib"]
        else:
            os_flags = [*toolchain.HOST_TARGET, opt_flag, *toolchain.HOST_CFLAGS]
            host_os = ws.compile_cached(HOST_OS, os_flags, _digest("host-os", sdk_digest(), toolchain.zig_version(), *os_flags))
            program = [read_symbols(o) for o in [*user_objs, host_os]]
            pulled, _ = resolve(program, [read_symbols(o) for o in _sdk_objects(ws, sdk_flags, "host")])
            libs = [host_os, *[o.path for o in pulled]]
            link_flags = [*toolchain.HOST_TARGET, "-static"]
        out = ws.tmp / "program"
        toolchain.link([*user_objs, *libs], out, link_flags)
        result = _finish(out.read_bytes(), cached, output)
        result.chmod(0o755)
        return result
    finally:
        ws.close()


def _clang_builtin_include() -> Path:
    """clang's own headers (stdint.h, stdarg.h...) shipped inside the ziglang package."""
    import ziglang
    return Path(ziglang.__file__).parent / "lib" / "include"
