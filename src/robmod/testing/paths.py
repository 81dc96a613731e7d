"""The NumPy path and the compiled path of the plain numeric functions, chosen for a test."""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def numpy_path():
    """Run the plain functions on their NumPy path inside the block: a test that compares a
    compiled model with a plain function's result then compares two implementations, even
    when an earlier run left that function's compiled model in the disk cache."""
    from ..symbolic.fastpath import set_backend

    old = set_backend("numpy")
    try:
        yield
    finally:
        set_backend(old)


__all__ = ["numpy_path"]
