"""Fixtures for the SDK tests: programs are built once per session (and cached across
sessions under $ALLEGREX_CACHE, so a repeated run does not recompile)."""

import pytest

from allegrex.sdk import build, build_host
from sdk_paths import APPS, HERE


@pytest.fixture(scope="session")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sdk")


@pytest.fixture(scope="session")
def hello_elf(out_dir):
    return build([APPS / "hello" / "main.c"], out_dir / "hello.elf", elf=True)


@pytest.fixture(scope="session")
def hello_eboot(out_dir):
    return build([APPS / "hello" / "main.c"], out_dir / "EBOOT.PBP", title="Hello SDK", large_memory=True)


@pytest.fixture(scope="session")
def libm_so(out_dir):
    return build_host([HERE / "libm_sweep.c"], out_dir / "libm_sweep.so", shared=True)
