"""python -m robmod: the command line."""
import sys

from .cli import main

__all__ = []

sys.exit(main())
