"""python -m robmod.cli: the command line."""
import sys

from . import main

__all__ = []

sys.exit(main())
