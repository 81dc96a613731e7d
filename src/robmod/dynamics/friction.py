"""Joint friction (Khalil & Dombre [7.26]) over context scalars (symbolic or numeric)."""
from __future__ import annotations

from ..symbolic.algebra import add, mul, numeric_constant


def friction_torque(ctx, link, qd):
    """[7.26]: FC sign(qd) + FV qd + (FST - FC) sign(qd) exp(-|qd| BST) (0 when absent)."""
    def nonzero(x):
        c = numeric_constant(x)
        return c is None or c != 0

    p = ctx.param
    fc, fv = p(link.FC), p(link.FV)
    terms = []
    if nonzero(fc) or nonzero(link.FST):
        sgn = ctx.fn("sign", qd)
        terms.append(mul(fc, sgn))
        fst, bst = p(link.FST), p(link.BST)
        if nonzero(fst):
            decay = ctx.fn("exp", -mul(ctx.fn("abs", qd), bst))
            terms.append(mul(mul(add(fst, -fc), sgn), decay))
    terms.append(mul(fv, qd))
    return add(*terms)


__all__ = []
