"""Errors the SDK reports to a user: each carries the message to print, nothing else."""

from allegrex.errors import AllegrexError


class SdkError(AllegrexError):
    """A program that cannot be built (bad options, missing file, broken SDK list)."""


class CompileError(SdkError):
    """The C compiler or assembler rejected a source: the message is the compiler's own."""


class UnknownImportError(SdkError):
    """The program calls a function that is neither defined nor declared in imports.txt."""


class LinkError(SdkError):
    """The linker failed: the message is the linker's own."""
