"""Paths shared by the SDK tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ROOT / "psp" / "apps"
SDK = ROOT / "psp" / "sdk"
HERE = Path(__file__).resolve().parent
