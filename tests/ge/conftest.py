import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # gelists.py
sys.path.insert(0, str(Path(__file__).parent.parent / "hle"))  # helpers.py: a kernel on bare memory
