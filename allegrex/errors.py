"""The project's error types. The command line turns any of them into one clear line
and a non-zero exit; anything else escaping is a bug in allegrex, not in the input."""


class AllegrexError(Exception):
    """Base of every error allegrex reports to a user (bad input, guest faults...)."""


class GuestMemoryError(AllegrexError):
    """A guest address that is unmapped, misaligned or out of range."""

    def __init__(self, addr: int, size: int, what: str = "access"):
        self.addr = addr & 0xFFFFFFFF
        self.size = size
        super().__init__(f"bad guest {what} of {size} byte(s) at 0x{self.addr:08x}")
