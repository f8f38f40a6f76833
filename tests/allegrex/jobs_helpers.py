"""Module-level job functions for tests/allegrex/test_jobs.py: workers import them by name."""

import os
import time


def square_after(job: tuple) -> int:
    """job = (n, seconds): n*n after sleeping, so jobs can finish out of their order."""
    n, seconds = job
    time.sleep(seconds)
    return n * n


def square_or_fail(n: int) -> int:
    """-1 raises as an allegrex bug would; -2 kills its worker as a native crash would."""
    if n == -1:
        raise ValueError("no square for -1 here")
    if n == -2:
        os._exit(7)
    return n * n
