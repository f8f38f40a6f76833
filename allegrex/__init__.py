"""allegrex: a simulator of the Sony PSP's Allegrex CPU and its VFPU."""

__version__ = "0.1.0"
