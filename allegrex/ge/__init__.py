"""The graphics engine (GE): display lists drawn by a software renderer (see docs/ge.md)."""
