"""A binary tree of Dask tasks combining small partial results (log2 of the blocks deep)."""
from __future__ import annotations

from ..errors import ArgumentError


def tree_reduce(parts, combine):
    """One delayed value: ``combine`` applied pairwise over the delayed ``parts``."""
    from dask import delayed

    parts = list(parts)
    if not parts:
        raise ArgumentError("tree_reduce needs at least one part (an empty input: no block)")
    merge = delayed(combine, pure=True)
    while len(parts) > 1:
        parts = [merge(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


__all__ = []
