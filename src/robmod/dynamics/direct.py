"""Direct dynamic model (Khalil & Dombre §7.6): joint accelerations from torques, two ways.

(a) ``qdd = A^-1 (Gamma - H)`` ([7.62]-[7.64]): H is the NE inverse model at
    qdd = 0, A the composite-link inertia matrix; numerically solved with a
    batched Cholesky factorization, symbolically (customized model) with the
    ``A = L^T D L`` factorization taken from the last joint back to the first
    (no fill-in for trees: L has the sparsity of A).

(b) The recursive O(n) algorithm of §7.6.2 ([7.67]-[7.79], with the sign of
    [7.88] corrected), over a context:

    forward, j = 1..n:   w_j, gamma_j [7.68], beta_j [7.70], I*_j = I_j, beta*_j = beta_j
    backward, j = n..1:  H_j = a^T I* a + IA_j [7.71];  h = I* a;  u = h / H_j
                         K_j = I* - u h^T [7.72]
                         nu_j = tau_j + a^T beta* - h^T gamma_j
                         alpha_j = I* gamma_j - beta* + u nu_j   (= [7.73])
                         beta*_a(j) -= S^T alpha_j [7.74];  I*_a(j) += S^T K_j S [7.75]
    forward, j = 1..n:   Vd_a,j = jS_a(j) Vd_a(j) [7.76]
                         qdd_j = nu_j / H_j - u^T Vd_a,j  (= [7.77])
                         Vd_j = Vd_a,j + a qdd_j + gamma_j [7.78]

    with tau_j = Gamma_j - friction [7.82], Vd_0 = [VP0 - g; WP0].

Both take Gamma of shape (..., NJ) like :func:`~robmod.dynamics.idm` returns it.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (check_arrays, checked_options, finite_array,
                                     keyword_options, switched_off, switches_set)
from ..description.robot import FIXED, PRISMATIC, REVOLUTE
from ..errors import ArgumentError, RobmodError
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, mul
from ..symbolic.model import Output, customize
from .inertia import inertia_matrix
from ..kinematics.recursion import forward, gravity_in_frame0, named, rot_t
from .newton_euler import SWITCHES, idm
from .bodies import inertia_up, link_inertia, spatial_matrix, sym6, twist_down, wrench_up
from .factorization import cholesky_solve, ltdl_solve
from .friction import friction_torque
from .layout import (axis_index, coordinates, dofs, geometry, model_inputs, numeric_context,
                     plain_layout)
from .ltdl import ddm_inverse_algorithm


# -- (b) recursive O(n) algorithm ---------------------------------------------------------

def _dv(ctx, w, j):
    """hat(w)^2 as a symmetric 3x3 (products DV, Khalil's notation)."""
    d = {}
    for i in range(3):
        for k in range(i, 3):
            d[i, k] = ctx.var(mul(w[i], w[k]), f"DV{i + 1}{k + 1}{j}")
    m = [[None] * 3 for _ in range(3)]
    for r in range(3):
        a, b = (r + 1) % 3, (r + 2) % 3
        m[r][r] = ctx.var(-add(d[a, a], d[b, b]), f"DD{r + 1}{j}")
        for c in range(r + 1, 3):
            m[r][c] = m[c][r] = d[r, c]
    return m


def _matvec(M, v):
    return [add(*[mul(M[r][c], v[c]) for c in range(3)]) for r in range(3)]


#: the switches of the direct model (those of the IDM but ``acceleration``, its output)
DDM_SWITCHES = {k: v for k, v in SWITCHES.items() if k != "acceleration"}
METHODS = ("recursive", "inverse", "compiled")


@keyword_options()
def ddm_algorithm(ctx, robot, tau, *, gravity=True, rotor=True, friction=True, wrench=True,
                  velocity=True, base_motion=True):
    """Joint accelerations ``{j: qdd_j}`` of the recursive algorithm; ``tau[j]`` = Gamma_j
    (switches: those of :func:`~robmod.dynamics.idm_algorithm` but ``acceleration``)."""
    return articulated(ctx, robot, tau, gravity=gravity, rotor=rotor, friction=friction,
                       wrench=wrench, velocity=velocity, base_motion=base_motion)[0]


def articulated(ctx, robot, tau, *, gravity=True, rotor=True, friction=True, wrench=True,
                velocity=True, base_motion=True, base=None):
    """The recursions of :func:`ddm_algorithm`: (``{j: qdd_j}``, Vd_0 = [VP0 - g; WP0]).

    ``base``: a mobile or floating base, ``(W0, Vd0)`` in frame 0: its angular velocity and,
    mobile, its acceleration [VP0 - g; WP0] (context scalars); ``Vd0`` None: a floating
    base, whose acceleration is solved from link 0's articulated inertia (Featherstone 2008,
    §9.3; SYMORO's floating direct model) -- the wrench on link 0 is its external one only.
    """
    p = ctx.param
    n = robot.n_links
    frames = robot.frames[:n]
    geo = geometry(ctx, robot)
    zero3 = [0, 0, 0]
    kin = forward(ctx, robot, frames, velocity=velocity, acceleration=False,
                  base_motion=base_motion, gravity=False, linear=False,
                  angular_acceleration=False,
                  base=None if base is None else (base[0], zero3, zero3))   # w_j: (7.51)-(7.52)
    W = kin.W
    DV = {0: _dv(ctx, W[0], 0)}
    gam, Ist, bst = {}, {}, {}
    root = base is not None and base[1] is None
    if root:       # link 0, the floating base: its inertia and its velocity terms
        Ist[0], bst[0] = _body(ctx, robot.base_link, W[0], DV[0], 0, wrench)
    # first forward recursion: w_j, gamma_j, beta_j
    for f in frames:
        j, a = f.j, f.ant
        R, P = geo[j]
        qd = ctx.joint(j, "qd") if (velocity and f.sigma != FIXED) else 0
        WI = kin.WI[j]
        lin = rot_t(R, _matvec(DV[a], P))
        wxa = [mul(WI[1], qd), -mul(WI[0], qd), 0]  # WI x qd a_j
        if f.sigma == PRISMATIC:
            lin = [add(lin[r], mul(2, wxa[r])) for r in range(3)]
            ang = zero3
        elif f.sigma == REVOLUTE:
            ang = wxa
        else:
            ang = zero3
        gam[j] = named(ctx, lin + ang, "GA", j)
        DV[j] = _dv(ctx, W[j], j)
        Ist[j], bst[j] = _body(ctx, robot.link(j), W[j], DV[j], j, wrench)
    # backward recursion
    Hinv, U, NU = {}, {}, {}
    for f in reversed(frames):
        j, a = f.j, f.ant
        I, b, g = Ist[j], bst[j], gam[j]
        Ig = [add(*[mul(I[r][c], g[c]) for c in range(6)]) for r in range(6)]
        if f.sigma == FIXED:
            K = I
            alpha = [add(Ig[r], -b[r]) for r in range(6)]
        else:
            ia = axis_index(f.sigma)
            h = [I[r][ia] for r in range(6)]
            H = h[ia]
            if rotor:
                H = add(H, p(robot.link(j).IA))
            if _is_num(H) and float(H) == 0:    # zero at every configuration
                raise singular_inertia_error(robot, None, joint=j)
            Hinv[j] = ctx.var(1 / ctx.var(H, f"H{j}") if not _is_num(H) else 1 / H, f"HI{j}")
            U[j] = [ctx.var(mul(h[r], Hinv[j]), f"UA{r + 1}{j}") for r in range(6)]
            t = tau[j]
            if friction and velocity:
                fr = friction_torque(ctx, robot.link(j), ctx.joint(j, "qd"))
                t = add(t, -fr)
            NU[j] = ctx.var(add(t, b[ia], -add(*[mul(h[r], g[r]) for r in range(6)])),
                            f"NU{j}")
            K = [[add(I[r][c], -mul(U[j][r], h[c])) for c in range(6)] for r in range(6)]
            alpha = [add(Ig[r], -b[r], mul(U[j][r], NU[j])) for r in range(6)]
        if a == 0 and not root:
            continue
        K = sym6(ctx, K, f"KK{j}_")
        alpha = named(ctx, alpha, "AL", j)
        R, P = geo[j]
        up = wrench_up(ctx, R, P, alpha, "AU", j)
        bst[a] = named(ctx, [add(bst[a][r], -up[r]) for r in range(6)], "BE", a)
        KS = inertia_up(ctx, R, P, K, f"KS{j}_")
        Ist[a] = sym6(ctx, [[add(Ist[a][r][c], KS[r][c]) for c in range(6)] for r in range(6)],
                      f"IS{a}_")
    # second forward recursion
    if root:       # I*_0 Vd_0 = beta*_0: no wrench on the base but its external one
        order = [f"0{k + 1}" for k in range(6)]
        Vd0 = ltdl_solve(ctx, {(order[r], order[c]): Ist[0][r][c] for r in range(6)
                               for c in range(r + 1)}, dict(zip(order, bst[0])), order,
                         names=("DB", "LB", "IB", "YB", "VD"))
        Vd = {0: [Vd0[k] for k in order]}
    elif base is not None:
        Vd = {0: list(base[1])}
    else:
        vp0 = [p(x) for x in robot.VP0] if base_motion else zero3
        if gravity:
            vp0 = [add(v, -gv) for v, gv in zip(vp0, gravity_in_frame0(ctx, robot))]
        wp0 = [p(x) for x in robot.WP0] if base_motion else zero3
        Vd = {0: vp0 + wp0}
    qdd = {}
    for f in frames:
        j, a = f.j, f.ant
        R, P = geo[j]
        Vaj = twist_down(ctx, R, P, Vd[a], "VA", j)
        if f.sigma == FIXED:
            Vd[j] = named(ctx, [add(Vaj[r], gam[j][r]) for r in range(6)], "VD", j)
            continue
        ia = axis_index(f.sigma)
        qdd[j] = ctx.var(add(mul(NU[j], Hinv[j]), -add(*[mul(U[j][r], Vaj[r]) for r in range(6)])),
                         f"QDP{j}")
        v = [add(Vaj[r], gam[j][r]) for r in range(6)]
        v[ia] = add(v[ia], qdd[j])
        Vd[j] = named(ctx, v, "VD", j)
    return qdd, Vd[0]


def _body(ctx, link, w, dv, j, wrench):
    """(jI_j, beta_j): the spatial inertia of a link and its velocity and external terms
    -(FE + [hat(w)^2 MS; w x (J w)]) ([7.70])."""
    body = link_inertia(ctx, link)
    M, MS, J = body
    ww = _matvec(dv, MS)
    jw = named(ctx, _matvec(J, w), "JW", j)
    wjw = cross(w, jw)
    fe = [ctx.param(x) for x in link.wrench()] if wrench else [0] * 6
    beta = named(ctx, [add(-fe[r], -ww[r]) for r in range(3)]
                 + [add(-fe[r + 3], -wjw[r]) for r in range(3)], "BE", j)
    return spatial_matrix(body), beta


def _is_num(x):
    from ..symbolic.algebra import numeric_constant

    return numeric_constant(x) is not None


def _tau_dict(ctx_tau, robot):
    return {j: ctx_tau(j) for j in dofs(robot)}


_DDM = ("ddm",)


@keyword_options(method="recursive", **DDM_SWITCHES)
def ddm(robot, q, qd, tau, **options) -> np.ndarray:
    """Numeric direct dynamics: qdd (..., n_q) from q, qd, Gamma (..., n_q) (batched).

    ``method``: ``'recursive'`` (O(n), Khalil & Dombre, section 9.6), ``'inverse'``
    (A^-1 (Gamma - H), Cholesky) or ``'compiled'`` (the customized recursive model, compiled
    once and cached; default switches only); the switches are those of
    :func:`~robmod.dynamics.idm` but ``acceleration``.  A singular inertia matrix (a joint that
    only moves massless links and has no rotor inertia, IA = 0) raises a RobmodError naming
    the joint.
    """
    if not options and not getattr(robot, "mimic", None):   # (a non-robot: evaluate says so)
        return fastpath.evaluate(robot, _DDM, _DDM_SPEC, None, q, qd, tau)
    opts = checked_options(ddm, options)
    method = opts.pop("method")
    if method not in METHODS:
        raise ArgumentError(f"ddm: unknown method {method!r}; expected 'recursive', "
                            "'inverse' or 'compiled'")
    switches = switches_set(ddm, opts)
    if method == "compiled" and switches:
        raise ArgumentError("ddm: method='compiled' takes no switches (the compiled model has "
                            "every term); use method='recursive' or 'inverse'")
    if robot.mimic:
        return _ddm_mimic(robot, q, qd, tau, switches)
    if method == "recursive" and not switches:
        return fastpath.evaluate(robot, _DDM, _DDM_SPEC, None, q, qd, tau)
    return _ddm_numpy(robot, q, qd, tau, method, switches)


def _ddm_mimic(robot, q, qd, tau, switches):
    """Dependent (mimic) joints: (E^T A E) qdd = Gamma - E^T H, by Cholesky."""
    shape, (q, qd, tau) = check_arrays(robot, q, qd, tau, names=("q", "qd", "tau"))
    A = inertia_matrix(robot, q, rotor=switches.get("rotor", True))
    H = idm(robot, q, qd, np.zeros(shape), **switches)
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = cholesky_solve(A, tau - H)
    except np.linalg.LinAlgError:
        out = None
    if out is None or not np.all(np.isfinite(out)):
        raise RobmodError("ddm: the inertia matrix (with the mimic joints) is singular at q")
    return out


_DDM_SPEC = fastpath.Spec(
    lambda robot, _: ddm_model(robot) if plain_layout(robot) else None,
    lambda robot, *x: check_arrays(robot, *x, names=("q", "qd", "tau"))[1],
    lambda robot, _, q, qd, tau: _ddm_numpy(robot, q, qd, tau, "recursive", {}))


def _ddm_numpy(robot, q, qd, tau, method, switches):
    shape, (q, qd, tau) = check_arrays(robot, q, qd, tau, names=("q", "qd", "tau"))
    out = np.zeros(shape)
    idx = [robot.joint_index[j] for j in dofs(robot)]
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if method == "compiled":
                f = _compiled_ddm(robot)
                out[..., idx] = f(*[np.ascontiguousarray(a[..., idx]) for a in (q, qd, tau)])
            elif method == "inverse":
                A = inertia_matrix(robot, q, rotor=switches.get("rotor", True))
                H = idm(robot, q, qd, np.zeros(shape), **switches)
                out[..., idx] = cholesky_solve(A, (tau - H)[..., idx])
            else:
                ctx = numeric_context(robot, q=q, qd=qd)
                res = ddm_algorithm(ctx, robot, {j: tau[..., idx_j] for j, idx_j
                                                 in zip(dofs(robot), idx)}, **switches)
                for j, v in res.items():
                    out[..., robot.joint_index[j]] = v
    except (ZeroDivisionError, np.linalg.LinAlgError):
        raise singular_inertia_error(robot, q, switches.get("rotor", True)) from None
    if not np.all(np.isfinite(out)):
        raise singular_inertia_error(robot, q, switches.get("rotor", True))
    return out


def _singular_joint(robot, A, rtol: float = 1e-12):
    """Frame of the first joint (from the end of the chain) where A = L^T D L has a pivot
    D_j <= rtol * max(diag A) (Khalil & Dombre, eq. (9.44)), or None if A is regular."""
    order = dofs(robot)
    A = np.array(A, dtype=float)
    scale = max(float(np.max(np.abs(np.diagonal(A)))), 1.0)
    for k in reversed(range(len(order))):
        if not A[k, k] > rtol * scale:
            return order[k]
        A[:k, k] /= A[k, k]
        A[:k, :k] -= np.outer(A[:k, k], A[k, :k])
        A[k, :k] = A[:k, k]
    return None


def singular_inertia_error(robot, q, rotor: bool = True, *, joint=None):
    """The RobmodError for a direct model that could not be solved at q (..., n_q) (or whose
    pivot of ``joint`` is zero at every configuration, ``q`` None)."""
    def error(j, at=""):
        return RobmodError(
            f"ddm: the inertia matrix of {robot.name!r} is singular at joint {j}{at}: the links "
            f"joint {j} moves have no inertia about its axis (massless links, or point masses "
            f"on the axis) and it has no rotor inertia (IA{j} = 0), so its acceleration is "
            f"undetermined; give those links an inertia about the axis or set IA{j} > 0")

    if joint is not None:
        return error(joint)
    A = inertia_matrix(robot, q, rotor=rotor).reshape((-1, len(dofs(robot)), len(dofs(robot))))
    for k, Ak in enumerate(A):
        j = _singular_joint(robot, Ak)
        if j is not None:
            return error(j, "" if A.shape[0] == 1 else f" (sample {k} of the batch)")
    return RobmodError("ddm: the direct model gave non-finite accelerations: the inputs are "
                       "too large (overflow) or the inertia matrix is ill-conditioned at q")


_CACHE: dict = {}


def _compiled_ddm(robot):
    """The compiled recursive direct model of ``robot`` (cached by the robot's content)."""
    key = robot.content_key
    f = _CACHE.get(key)
    if f is None:
        f = ddm_model(robot).compile()
        if len(_CACHE) > 32:
            _CACHE.clear()
        _CACHE[key] = f
    return f


def _inverse(ctx, robot, tau, **switches):
    """The symbolic A^-1 (Gamma - H) (:mod:`.ltdl`), a zero pivot refused by name."""
    return ddm_inverse_algorithm(ctx, robot, tau,
                                 singular=lambda j: singular_inertia_error(robot, None, joint=j),
                                 **switches)


@keyword_options()
def ddm_model(robot, *, method: str | None = None, gravity=True, rotor=True, friction=True,
              wrench=True, velocity=True, base_motion=True):
    """Customized direct dynamic model: inputs q, qd, GAM; outputs QDP1..QDPn.

    ``method``: ``'recursive'`` (:func:`ddm_algorithm`, the default), ``'inverse'`` (A^-1
    (Gamma - H), the L^T D L factorization) or ``'fewest'`` (of the two customized models,
    the one with fewer operations: for the six- and seven-axis arms of the library the
    inverse one, about 25 % fewer -- Khalil & Dombre §9.6 compare the two --; the plant of
    :mod:`robmod.control`'s simulations); a robot with mimic joints takes ``'inverse'`` (the
    recursive algorithm has no place for the coupling of its joints).  The switches of
    :func:`ddm`.
    """
    if method is None:
        method = "inverse" if robot.mimic else "recursive"
    if method == "fewest":
        options = dict(gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
                       velocity=velocity, base_motion=base_motion)
        chosen, model = _fewest(robot, options)
        return model if model is not None else ddm_model(robot, method=chosen, **options)
    if method == "recursive" and robot.mimic:
        raise ArgumentError(f"ddm_model: robot {robot.name!r} has mimic joints, which the "
                            "recursive algorithm does not take: use method='inverse' (the "
                            "default for such robots)")
    switches = switched_off(ddm_model, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion)
    inputs = model_inputs(robot, ("q", "qd", "tau"))
    alg = {"recursive": ddm_algorithm, "inverse": _inverse}.get(method)
    if alg is None:
        raise ArgumentError(f"ddm_model: method must be 'recursive', 'inverse' or 'fewest', "
                            f"got {method!r}")

    def algorithm(ctx):
        import sympy as sp

        order = coordinates(robot)
        qdd = alg(ctx, robot, {j: sp.Symbol(f"GAM{j}") for j in order}, **switches)
        return [Output.vector("QDP", [qdd[j] for j in order], [f"QDP{j}" for j in order])]

    title = ("recursive Newton-Euler" if method == "recursive" else "A^-1 (Gamma - H), LTDL")
    return customize(f"{robot.name}_ddm_{method}", algorithm, robot, inputs=inputs,
                     title=f"Direct dynamic model of {robot.name} ({title})")


_FEWEST: dict = {}     # (robot content, switches) -> the method with fewer operations


def _fewest(robot, options):
    """(method, its model or None): 'recursive' or 'inverse', whichever customized direct
    model of ``robot`` has fewer operations ('inverse' with mimic joints).  Both are generated
    once per robot and switches (the chosen one returned); later calls only get the name."""
    if robot.mimic:
        return "inverse", None
    key = (robot.content_key, tuple(sorted(options.items())))
    method = _FEWEST.get(key)
    if method is not None:
        return method, None
    models = {m: ddm_model(robot, method=m, **options) for m in ("recursive", "inverse")}
    ops = {m: x.count() for m, x in models.items()}
    method = min(ops, key=lambda m: (ops[m].mults + ops[m].adds, m != "recursive"))
    if len(_FEWEST) > 256:
        _FEWEST.clear()
    _FEWEST[key] = method
    return method, models[method]


# -- state space ---------------------------------------------------------------------------

@keyword_options()
def state_derivative(robot, x, tau, *, method: str = "recursive", gravity=True, rotor=True,
                     friction=True, wrench=True, velocity=True, base_motion=True) -> np.ndarray:
    """Khalil & Dombre, eq. (9.65): x = [q, qd] (..., 2 n_q) -> xdot = [qd, qdd] (``method``
    and switches: those of :func:`ddm`)."""
    switches = switched_off(state_derivative, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion)
    nj = robot.n_q
    x = finite_array("x", x, shape_text=f"a state [q, qd] of shape (..., {2 * nj})")
    if x.ndim == 0 or x.shape[-1] != 2 * nj:
        raise RobmodError(f"argument x must be a state [q, qd] of shape (..., {2 * nj}) "
                          f"({nj} joint values and {nj} velocities), got shape {x.shape}")
    q, qd = x[..., :nj], x[..., nj:]
    qdd = ddm(robot, q, qd, tau, method=method, **switches)
    return np.concatenate([np.broadcast_to(qd, qdd.shape), qdd], axis=-1)


__all__ = ["ddm", "ddm_model", "ddm_algorithm", "state_derivative"]
