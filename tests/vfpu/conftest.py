"""Fixtures for the VFPU tests: a fresh sandbox, and the reference checkouts when present."""

import os
from pathlib import Path

import pytest

from vfpu.sandbox import Sandbox

REF = Path("/work/ref")


@pytest.fixture
def vf():
    return Sandbox()


def autotests_dir():
    """tests/cpu/vfpu of a pspautotests checkout ($PSPAUTOTESTS or /work/ref), or None."""
    for root in (os.environ.get("PSPAUTOTESTS"), REF / "pspautotests"):
        if root and Path(root, "tests/cpu/vfpu").is_dir():
            return Path(root, "tests/cpu/vfpu")
    return None


def vfpu_docs_dir():
    """A pspdev/vfpu-docs checkout ($VFPU_DOCS or /work/ref/vfpu-docs), or None."""
    for root in (os.environ.get("VFPU_DOCS"), REF / "vfpu-docs"):
        if root and Path(root, "inst-vfpu-desc.yaml").is_file():
            return Path(root)
    return None


@pytest.fixture(scope="session")
def autotests():
    d = autotests_dir()
    if d is None:
        pytest.skip("pspautotests checkout absent (set PSPAUTOTESTS): real-hardware outputs unavailable")
    return d


@pytest.fixture(scope="session")
def vfpu_docs():
    d = vfpu_docs_dir()
    if d is None:
        pytest.skip("vfpu-docs checkout absent (set VFPU_DOCS): reference table unavailable")
    return d
