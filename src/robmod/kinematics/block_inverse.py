"""The analytic inverse kinematic model of a block-triangular Jacobian over any context
(Khalil & Dombre §6.3, [6.8], [6.10], Example 6.1): the algorithm, its customized model and
the numeric function; the block structure itself is :class:`~robmod.kinematics.BlockIKM`
(:mod:`robmod.kinematics.ikm_analytic`)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from ..description.arguments import joint_array, keyword_options
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm_algorithm
from ..symbolic.algebra import dot
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .ikm_analytic import X_SYMBOLS, BlockIKM

# -- the algorithm (any context) and the public entry points --------------------------------
@keyword_options()
def ikm_block_algorithm(ctx, robot, xd, *, j=None, i=None, tool=None, method=2,
                        solve="substitution", velocity_frame="i", values=None):
    """qd (NJ context scalars, zero off the chain) from the task velocity ``xd`` (6 scalars).

    The block structure of iJ_j is :meth:`BlockIKM.from_robot` ``(robot, j=, i=, tool=)`` (a
    :class:`BlockIKM` is also taken in place of the robot); ``xd`` is expressed in its frame i
    (``velocity_frame="i"``) or in frame 0 (``velocity_frame=0``).  ``values``: parameter
    values for a numeric context.
    """
    blk = robot if isinstance(robot, BlockIKM) else BlockIKM.from_robot(robot, j=j, i=i, tool=tool)
    robot = blk.robot
    steps, outs = blk.program(method, solve)
    env = {robot.frame(k).q: ctx.joint(k) for k in blk.joints}
    numeric = isinstance(ctx, NumericContext)
    fcache = blk._cache.setdefault("lambdify", {})

    def ev(expr):
        syms = sorted(expr.free_symbols, key=str)
        if not numeric:
            return expr.xreplace({s: env[s] for s in syms})
        if expr not in fcache:
            fcache[expr] = sp.lambdify(syms, expr, "numpy")  # safe: robmod templates
        return fcache[expr](*[env[s] for s in syms])

    for s, f in blk.trig.items():
        if s not in env:
            sn, cs = ctx.sincos(ev(f.args[0]), str(s)[1:].lstrip("_"))
            env[s] = sn if isinstance(f, sp.sin) else cs
    for p in set().union(*[e.free_symbols for _, e in steps]) - set(env) - set(X_SYMBOLS) \
            - {sp.Symbol(n) for n, _ in steps}:
        if values is not None and str(p) not in values:
            raise RobmodError(f"no numeric value for parameter {p} of robot {robot.name!r}")
        env[p] = ctx.param(p) if values is None else values[str(p)]
    if velocity_frame == 0 and blk.i != 0:
        rob = robot
        if values is not None:
            rob = blk._memo("numeric_robot", lambda: robot.numeric(values))
        T = dgm_algorithm(ctx, rob, j=blk.i)  # 0T_i, the rotation part is 0A_i
        for part in (0, 3):
            v = [xd[part + r] for r in range(3)]
            for k in range(3):
                env[X_SYMBOLS[part + k]] = ctx.var(dot([T[0][k], T[1][k], T[2][k]], v),
                                                   f"X{part + k + 1}")
    elif velocity_frame in (0, "i"):
        env.update(zip(X_SYMBOLS, xd))
    else:
        raise RobmodError("velocity_frame must be 'i' (frame of the Jacobian) or 0")
    for name, expr in steps:
        env[sp.Symbol(name)] = ctx.var(ev(expr), name)
    qd = [0] * robot.n_joints
    for k, name in zip(blk.joints, outs):
        qd[k - 1] = env[sp.Symbol(name)]
    return qd


@keyword_options()
def ikm_block_model(robot, *, j=None, i=None, tool=None, method=2, solve="substitution",
                    velocity_frame="i"):
    """Customized model of the analytic IKM (inputs q and X1..X6, or X0_1..X0_6 in frame 0) of
    the block structure :meth:`BlockIKM.from_robot` ``(robot, j=, i=, tool=)``."""
    return _block_model(BlockIKM.from_robot(robot, j=j, i=i, tool=tool), method, solve,
                        velocity_frame)


def _block_model(blk, method, solve, velocity_frame):
    """The customized model of the block structure ``blk``."""
    robot = blk.robot
    q = tuple(robot.frame(k).q for k in robot.joints)
    xs = X_SYMBOLS if velocity_frame == "i" else sp.symbols("X0_1:7")
    names = [f"QP{k}" for k in robot.joints]

    def algorithm(ctx):
        qd = ikm_block_algorithm(ctx, blk, list(xs), method=method, solve=solve,
                                 velocity_frame=velocity_frame)
        return [Output.vector("QP", qd, names)]

    frame = blk.i if velocity_frame == "i" else 0
    how = ("first method [6.8]" if method == 1 else f"second method [6.10] ({solve})")
    return customize(f"{robot.name}_ikm{method}", algorithm, robot, inputs={"q": q, "xd": xs},
                     title=f"Inverse kinematic model of {robot.name}, {blk.i}J{blk.j} "
                           f"block form, {how}; X in frame {frame}")


def _values(robot):
    merged = {sp.Symbol(str(k)): sp.sympify(v) for k, v in robot.values.items()}  # safe: values
    for _ in range(len(merged) + 1):
        merged = {k: v.xreplace(merged) for k, v in merged.items()}
    return {str(k): float(v) for k, v in merged.items() if not v.free_symbols}


@keyword_options()
def ikm_block(robot, q, xd, *, j=None, i=None, tool=None, method=2, velocity_frame="i",
              solve="substitution") -> np.ndarray:
    """Numeric joint velocities (..., NJ) from the analytic block inverse at ``q`` (..., NJ).

    ``xd`` (..., 6): ``[V; w]`` of O_j in frame i of the block structure (see
    :meth:`BlockIKM.from_robot`; ``velocity_frame=0`` for frame 0).  Parameters take the
    robot's numeric values.  At a singular configuration the result is inf/nan.
    """
    q = joint_array(robot, "q", q)
    xd = np.asarray(xd, dtype=float)
    if xd.shape[-1:] != (6,):
        raise ArgumentError(f"xd must have 6 values in its last dimension, got shape "
                            f"{xd.shape}")
    blk = BlockIKM.from_robot(robot, j=j, i=i, tool=tool)
    batch = np.broadcast_shapes(q.shape[:-1], xd.shape[:-1])
    ctx = NumericContext(robot, q=np.broadcast_to(q, batch + q.shape[-1:]))
    with np.errstate(divide="ignore", invalid="ignore"):
        qd = ikm_block_algorithm(ctx, blk, [xd[..., k] for k in range(6)], method=method,
                                 solve=solve, velocity_frame=velocity_frame,
                                 values=_values(robot))
    return np.stack([np.broadcast_to(np.asarray(x, dtype=float), batch) for x in qd], axis=-1)


__all__ = ["ikm_block", "ikm_block_model", "ikm_block_algorithm"]
