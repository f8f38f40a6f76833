"""Host reference builds: the same program and SDK C compiled for x86-64 Linux."""

import os
import subprocess

from allegrex.sdk import build_host
from sdk_paths import APPS


def test_hello_prints_and_writes_to_ms0(tmp_path):
    exe = build_host([APPS / "hello" / "main.c"], tmp_path / "hello")
    ms0 = tmp_path / "card"
    ms0.mkdir()
    env = dict(os.environ, ALLEGREX_HOST_MS0=str(ms0))
    result = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=30)
    assert result.returncode == 0
    assert result.stdout == "Hello, world!\nwrote ms0:/hello.txt\n"
    assert (ms0 / "hello.txt").read_text() == "Hello, file! 42 3.142\n"


def test_exit_status_reaches_the_host(tmp_path):
    src = tmp_path / "status.c"
    src.write_text('#include <stdlib.h>\n#include <stdio.h>\nint main(void) { puts("bye"); exit(3); }\n')
    result = subprocess.run([str(build_host([src], tmp_path / "status"))], capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout) == (3, "bye\n")


def test_time_functions(tmp_path):
    import time

    src = tmp_path / "clock.c"
    src.write_text('#include <stdio.h>\n#include <time.h>\n#include <sys/time.h>\n'
                   'int main(void) { struct timeval tv; struct timespec a, b; gettimeofday(&tv, 0);\n'
                   '  clock_gettime(CLOCK_MONOTONIC, &a); for (volatile int i = 0; i < 1000000; i++); '
                   'clock_gettime(CLOCK_MONOTONIC, &b);\n'
                   '  printf("%ld %ld %d\\n", (long)time(NULL), tv.tv_sec, '
                   '(b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) > 0); return 0; }\n')
    out = subprocess.run([str(build_host([src], tmp_path / "clock"))], capture_output=True, text=True, timeout=30)
    now, tv_sec, advanced = map(int, out.stdout.split())
    assert abs(now - time.time()) < 60 and abs(tv_sec - now) <= 1 and advanced == 1
