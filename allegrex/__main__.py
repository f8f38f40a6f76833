import sys

from allegrex.cli import main

sys.exit(main())
