"""Shared fixtures. Tests mirror the package layout: tests/loader for loader/, and so on."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; $ALLEGREX_SHARED overrides it (worktrees live one level deeper).
SHARED = Path(os.environ.get("ALLEGREX_SHARED", ROOT.parent / "shared"))


@pytest.fixture
def shared_models():
    """../shared/models, or skip: the project must work without the shared folder."""
    path = SHARED / "models"
    if not (path / "stories260K.bin").exists():
        pytest.skip("../shared/models is absent")
    return path


@pytest.fixture
def pspautotests():
    """A checkout of hrydgard/pspautotests named by $PSPAUTOTESTS, or skip."""
    path = os.environ.get("PSPAUTOTESTS")
    if not path or not Path(path, "tests").is_dir():
        pytest.skip("set PSPAUTOTESTS to a pspautotests checkout to run the conformance tests")
    return Path(path)
