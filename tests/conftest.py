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


@pytest.fixture(scope="session")
def pspautotests():
    """A checkout of hrydgard/pspautotests named by $PSPAUTOTESTS, or skip."""
    path = os.environ.get("PSPAUTOTESTS")
    if not path or not Path(path, "tests").is_dir():
        pytest.skip("set PSPAUTOTESTS to a pspautotests checkout to run the conformance tests")
    return Path(path)


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a Dask distributed cluster on this machine (2 worker processes, one
    thread each), started for the tests; `pip install -e '.[cluster]'` provides it. Each
    worker holds one task at a time (worker-saturation 1.0), and a task is given up after
    its second dying worker (allowed-failures 1): a crash kills the results its worker had
    not yet reported, and those tasks run again elsewhere, as a user's cluster would."""
    dask = pytest.importorskip("dask", reason="the cluster extra (pip install -e '.[cluster]') is not installed")
    distributed = pytest.importorskip("distributed", reason="the cluster extra is not installed")
    config = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}
    with dask.config.set(config):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster:
            yield cluster.scheduler_address
