"""The elementary transform of the Khalil-Kleinfinger notation, for any scalar type.

a(j)T_j = Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d) Rot(z, theta) Trans(z, r)
(Khalil & Dombre (3.2) and its tree form): the description layer needs it to state what a
frame is; :mod:`robmod.geometry.transforms` builds every geometric model on it.
"""
from __future__ import annotations

import numpy as np
import sympy as sp


def sincos(x):
    """(sin x, cos x) for a SymPy expression or a NumPy array/number."""
    if isinstance(x, sp.Basic):
        return sp.sin(x), sp.cos(x)
    return np.sin(x), np.cos(x)


def kk_transform_sc(sg, cg, b, sa, ca, d, st, ct, r):
    """Rot(z,g) Trans(z,b) Rot(x,a) Trans(x,d) Rot(z,t) Trans(z,r) from sines and cosines.

    Returns the 4x4 matrix as nested lists of scalars.
    """
    ca_st = ca * st
    ca_ct = ca * ct
    sa_r = sa * r
    return [
        [cg * ct - sg * ca_st, -cg * st - sg * ca_ct, sg * sa, cg * d + sg * sa_r],
        [sg * ct + cg * ca_st, -sg * st + cg * ca_ct, -cg * sa, sg * d - cg * sa_r],
        [sa * st, sa * ct, ca, ca * r + b],
        [0, 0, 0, 1],
    ]


def kk_transform(gamma, b, alpha, d, theta, r):
    """a(j)T_j = Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d) Rot(z,theta) Trans(z,r)."""
    sg, cg = sincos(gamma)
    sa, ca = sincos(alpha)
    st, ct = sincos(theta)
    return kk_transform_sc(sg, cg, b, sa, ca, d, st, ct, r)


__all__ = []
