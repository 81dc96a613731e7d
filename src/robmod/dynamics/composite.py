"""The composite links, written once (Khalil & Dombre [7.5], [7.64]; Featherstone's CRBA):
the inertia of the subtree of each link, and the wrenches that give the joints a unit
acceleration, moved up the tree -- the inertia matrix's columns, with a mobile or floating base
also its base rows, the centroidal momentum matrix, the free-floating inverse model.

Backward, j = n..1 (0 with the base): ``IC_j = I_j + sum_k a(k)=j  S_k^T IC_k S_k`` about O_j
in frame j, with the transfer ``MS' = R MS + M P``, ``J' = R J R^T + M (|P|^2 I - P P^T) +
2 (P.s) I - (P s^T + s P^T)``, ``s = R MS`` (R = jR_k, P = jP_k); for each joint j the wrench
``F = IC_j a_j`` gives ``A_jj = a_j^T F + IA_j``, moved to each ancestor i (``F <- iS_k^T F``)
``A_ij = a_i^T F``.  Elements of joints on different branches are 0.
"""
from __future__ import annotations

from ..description.robot import FIXED, PRISMATIC
from ..kinematics.recursion import rot
from ..symbolic.algebra import add, mul
from .bodies import link_inertia, transfer_inertia, wrench_up
from .layout import axis_index, dofs, geometry


def composite_inertias(ctx, robot, geo=None, root=False):
    """``{j: (M, MS, J)}``: inertia of the subtree of link j about O_j, in frame j (``root``:
    also j = 0, the whole robot with link 0, the base ``robot.base_link``)."""
    geo = geo or geometry(ctx, robot)
    n = robot.n_links
    frames = robot.frames[:n]
    comp = {}
    bodies = [(f.j, robot.link(f.j)) for f in reversed(frames)]
    for j, link in bodies + ([(0, robot.base_link)] if root else []):
        M, MS, J = link_inertia(ctx, link)
        terms_m, terms_s = [M], [[x] for x in MS]
        terms_j = [[[J[r][c]] for c in range(3)] for r in range(3)]
        for k in (g.j for g in frames if g.ant == j):
            R, P = geo[k]
            cm, cs, cj = transfer_inertia(ctx, R, P, comp[k], f"JT{k}")
            terms_m.append(cm)
            for r in range(3):
                terms_s[r].append(cs[r])
                for c in range(3):
                    terms_j[r][c].append(cj[r][c])
        if len(terms_m) == 1:
            comp[j] = (M, MS, J)
            continue
        Mc = ctx.var(add(*terms_m), f"MC{j}")
        MSc = [ctx.var(add(*terms_s[r]), f"MSC{r + 1}{j}") for r in range(3)]
        Jc = [[None] * 3 for _ in range(3)]
        for r in range(3):
            for c in range(r, 3):
                Jc[r][c] = Jc[c][r] = ctx.var(add(*terms_j[r][c]), f"JC{r + 1}{c + 1}{j}")
        comp[j] = (Mc, MSc, Jc)
    return comp


def unit_wrench(body, sigma):
    """IC a_j: the wrench giving a unit acceleration of joint j to its subtree (at rest)."""
    M, MS, J = body
    if sigma == PRISMATIC:
        return [0, 0, M, MS[1], -MS[0], 0]
    return [-MS[1], MS[0], 0, J[0][2], J[1][2], J[2][2]]


def composite_columns(ctx, robot, *, rotor=True, root=False):
    """(A, B, comp): the lower triangle of A as :func:`inertia_matrix_algorithm`, and with
    ``root`` (a floating base) ``B[j]``, the wrench IC_j a_j moved to O_0 in frame 0 (the
    column of joint j in the base's rows of the inertia matrix), and the composite inertias
    ``comp`` (:func:`composite_inertias`, link 0 included with ``root``)."""
    geo = geometry(ctx, robot)
    comp = composite_inertias(ctx, robot, geo, root)
    order = dofs(robot)
    A, B = {}, {}
    for j in order:
        f = robot.frame(j)
        F = unit_wrench(comp[j], f.sigma)
        diag = F[axis_index(f.sigma)]
        if rotor:
            diag = add(diag, ctx.param(robot.link(j).IA))
        A[j, j] = ctx.var(diag, f"A{j}{j}")
        k = j
        while robot.frame(k).ant != 0:
            R, P = geo[k]
            if (not root and robot.frame(robot.frame(k).ant).ant == 0
                    and robot.frame(k).ant in order):
                # last step: only the component along the root joint's axis is needed
                a = robot.frame(k).ant
                ia = axis_index(robot.frame(a).sigma)
                if ia == 2:
                    val = rot(R, F[:3])[2]
                else:
                    f_up = rot(R, F[:3])
                    m_up = rot(R, F[3:])
                    val = add(m_up[2], mul(P[0], f_up[1]), -mul(P[1], f_up[0]))
                A[j, a] = ctx.var(val, f"A{j}{a}")
                break
            F = wrench_up(ctx, R, P, F, f"K{j}", robot.frame(k).ant)
            k = robot.frame(k).ant
            if robot.frame(k).sigma != FIXED:
                A[j, k] = ctx.var(F[axis_index(robot.frame(k).sigma)], f"A{j}{k}")
        if root:
            R, P = geo[k]
            B[j] = [ctx.var(x, f"AB{r + 1}{j}")
                    for r, x in enumerate(wrench_up(ctx, R, P, F, f"K{j}", 0))]
    return A, B, comp


__all__ = []
