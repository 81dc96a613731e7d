"""Siciliano-style descriptions (Siciliano et al. §7.1) and their conversion to Khalil-Kleinfinger.

Conventions of Siciliano et al. (Siciliano, Sciavicco, Villani, Oriolo), which differ from Khalil's:

* standard Denavit-Hartenberg: ``(i-1)A_i = Rot(z, theta_i) Trans(z, d_i) Trans(x, a_i)
  Rot(x, alpha_i)``; frame i sits at the *distal* end of link i and joint i
  moves about (along) z_(i-1).  ``theta_i = q_i + theta`` (revolute) and
  ``d_i = q_i + d`` (prismatic): the table holds the offsets, as robmod does;
* link i: mass ``m`` (m_li), centre of mass ``r_c`` (r^i_(i,Ci) in frame i) and
  the inertia tensor about the centre of mass in frame i, I^i_li of (7.11)-(7.12)::

      [[ Ixx, -Ixy, -Ixz],        Ixx = int (ry^2 + rz^2) dm,  Ixy = int rx ry dm, ...
       [-Ixy,  Iyy, -Iyz],
       [-Ixz, -Iyz,  Izz]]

  so the products of inertia have the sign opposite to Khalil's ``XY``
  (the matrix entry, ``XY = -Ixy``);
* motor i sits on link i-1 (Fig. 7.2): rotor mass ``m_m`` at ``p`` and spin
  axis ``z`` (both in frame i-1; the book's examples take p_mi = p_(i-1),
  z_mi = z_(i-1), the defaults), inertia ``I_m`` about the axis and ``I_mt``
  about a transverse axis through its centre (7.66), gear ratio ``k_r`` (7.22),
  viscous friction ``F_m`` on the motor side (reported to the joint as
  ``k_r^2 F_m``, Example 7.1).

Conversion (the frames): Khalil's frame j is Siciliano's frame j-1 moved by
``Rot(z, theta_j) Trans(z, d_j)``; then ``alpha^K_j = alpha_(j-1)``,
``d^K_j = a_(j-1)``, ``theta^K_j = theta_j``, ``r^K_j = d_j`` (``alpha^K_1 = d^K_1 = 0``),
and Siciliano's frame j is Khalil's frame j times ``Trans(x, a_j) Rot(x, alpha_j)``
(the last one is the tool ``tip``).  Inertial parameters are moved to O_j in
Khalil's frame j: ``c = [a_j, 0, 0] + Rx(alpha_j) r_c``, ``J = R I R^T + m (|c|^2 1 - c c^T)``,
``MS = m c``.

Rotor models (``rotor_model``):

* ``"khalil"``: ``IA_j = k_r^2 I_m`` on the joint (Khalil's model, Khalil & Dombre [7.29]);
  the rotor's mass and transverse inertia are lumped into link j-1; the terms
  in ``I_m w_(j-1)`` (the axial inertia moving with link j-1 and the gyroscopic
  coupling ``k_r I_m qd_j z . w_(j-1)``) are neglected (k_r and k_r^2 times smaller);
* ``"siciliano"``: the complete (7.30): same lumping, ``IA_j = 0``, and the
  returned :class:`~robmod.dynamics.rotors.Rotor` list carries
  ``1/2 I_m (z . w_(j-1) + k_r qd_j)^2``; add
  :func:`~robmod.dynamics.rotors.rotor_torques` to the robot's IDM.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import sympy as sp

from ..errors import ArgumentError, RobmodError
from ..description.expr import as_expr
from ..description.build import make_robot
from ..description.robot import FIXED, PRISMATIC, REVOLUTE, Link, Tool, transform_matrix
from ..description.arguments import keyword_options, records

_JOINTS = {"r": REVOLUTE, "revolute": REVOLUTE, "p": PRISMATIC, "prismatic": PRISMATIC}
_ROTOR_MODELS = ("khalil", "siciliano")


def _vec(v, what) -> tuple:
    v = tuple(v)
    if len(v) != 3:
        raise RobmodError(f"{what} needs 3 components, got {len(v)}")
    return tuple(as_expr(x) for x in v)


def _joint_type(x) -> int:
    if isinstance(x, int) and not isinstance(x, bool) and x in (REVOLUTE, PRISMATIC):
        return x
    key = str(x).strip().lower()
    if key not in _JOINTS:
        raise RobmodError(f"joint type must be 'R' (revolute) or 'P' (prismatic), not {x!r}")
    return _JOINTS[key]


@dataclass(frozen=True)
class SicilianoLink:
    """Link i of Siciliano et al.: standard DH row and inertial parameters in frame i (distal).

    ``theta`` / ``d`` are offsets of the joint variable (``theta_i = q_i + theta``
    for ``joint='R'``, ``d_i = q_i + d`` for ``joint='P'``).  ``Ixx..Iyz`` follow
    (7.11) (about the centre of mass, products with the book's sign).  ``F_v``,
    ``F_s``: viscous and Coulomb friction of joint i (7.42).
    """

    a: sp.Expr = 0
    alpha: sp.Expr = 0
    d: sp.Expr = 0
    theta: sp.Expr = 0
    joint: str = "R"
    m: sp.Expr = 0
    r_c: tuple = (0, 0, 0)
    Ixx: sp.Expr = 0
    Iyy: sp.Expr = 0
    Izz: sp.Expr = 0
    Ixy: sp.Expr = 0
    Ixz: sp.Expr = 0
    Iyz: sp.Expr = 0
    F_v: sp.Expr = 0
    F_s: sp.Expr = 0

    def __post_init__(self):
        for k in ("a", "alpha", "d", "theta", "m", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz",
                  "F_v", "F_s"):
            object.__setattr__(self, k, as_expr(getattr(self, k)))
        object.__setattr__(self, "r_c", _vec(self.r_c, "r_c"))
        _joint_type(self.joint)

    @property
    def sigma(self) -> int:
        return _joint_type(self.joint)

    def inertia_tensor(self) -> sp.ImmutableMatrix:
        """I^i_li about the centre of mass, in frame i (7.11)."""
        return sp.ImmutableMatrix([[self.Ixx, -self.Ixy, -self.Ixz],
                                   [-self.Ixy, self.Iyy, -self.Iyz],
                                   [-self.Ixz, -self.Iyz, self.Izz]])

    @classmethod
    def with_tensor(cls, tensor, **kw) -> "SicilianoLink":
        """A link from a 3x3 inertia tensor about the centre of mass (the matrix of (7.11))."""
        return cls(**kw, **tensor_parameters(tensor))


def tensor_parameters(tensor) -> dict:
    """``{Ixx, Iyy, Izz, Ixy, Ixz, Iyz}`` of Siciliano et al. (7.11) from a 3x3 tensor."""
    try:
        T = sp.Matrix(tensor)
    except (TypeError, ValueError, sp.SympifyError) as e:
        raise ArgumentError(f"an inertia tensor is a 3x3 matrix, got {type(tensor).__name__}: "
                          f"{e}") from None
    if T.shape != (3, 3):
        raise RobmodError(f"an inertia tensor is 3x3, got shape {T.shape}")
    return dict(Ixx=T[0, 0], Iyy=T[1, 1], Izz=T[2, 2], Ixy=-T[0, 1], Ixz=-T[0, 2],
                Iyz=-T[1, 2])


@dataclass(frozen=True)
class SicilianoMotor:
    """Motor i of Siciliano et al., carried by link i-1 (Fig. 7.2); ``p`` and ``z`` in frame i-1."""

    k_r: sp.Expr = 1
    I_m: sp.Expr = 0
    m_m: sp.Expr = 0
    p: tuple = (0, 0, 0)
    z: tuple = (0, 0, 1)
    I_mt: sp.Expr = 0
    F_m: sp.Expr = 0

    def __post_init__(self):
        for k in ("k_r", "I_m", "m_m", "I_mt", "F_m"):
            object.__setattr__(self, k, as_expr(getattr(self, k)))
        object.__setattr__(self, "p", _vec(self.p, "motor position p"))
        object.__setattr__(self, "z", _vec(self.z, "motor axis z"))


@dataclass(frozen=True)
class SicilianoArm:
    """A serial arm in Siciliano et al. conventions (what :func:`to_siciliano` returns).

    ``gravity`` is g_0 in frame 0 (Siciliano et al.'s); ``Z`` the pose of frame 0 in the world
    (robmod's Z; a robmod robot's ``gravity`` is the world's, fR_0 g_0).
    """

    name: str
    links: tuple
    motors: tuple | None = None
    gravity: tuple = (0, 0, -9.81)
    Z: sp.ImmutableMatrix = field(default_factory=lambda: sp.ImmutableMatrix(sp.eye(4)))
    values: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def to_robot(self, rotor_model: str = "khalil", **kw):
        """:func:`from_siciliano` of this arm: ``(Robot, rotors)``."""
        return from_siciliano(self.name, self.links, self.motors, self.gravity,
                              rotor_model=rotor_model, Z=self.Z, values=self.values, **kw)


def _rx(alpha):
    c, s = sp.cos(alpha), sp.sin(alpha)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(gamma):
    c, s = sp.cos(gamma), sp.sin(gamma)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _steiner(m, c):
    """m (|c|^2 1 - c c^T) for a column c (the parallel-axis term of (7.71))."""
    return m * ((c.T * c)[0, 0] * sp.eye(3) - c * c.T)


def _tidy(x):
    """Expanded when symbolic (readable parameters), unchanged when a number."""
    x = sp.sympify(x)  # safe: SymPy expressions built here from the description
    return sp.expand(x) if x.free_symbols else x


def _unit_check(z, what):
    if all(x.is_number for x in z):
        norm = float(sp.sqrt(sum(x**2 for x in z)))
        if abs(norm - 1) > 1e-9:
            raise RobmodError(f"{what} must be a unit vector (norm {norm:g})")


def _fields(value, what: str) -> dict:
    """A Siciliano link's or motor's fields given as a mapping."""
    if not isinstance(value, Mapping):
        raise ArgumentError(f"a Siciliano {what} is a Siciliano{what.title()} or a mapping of its "
                          f"fields, got {type(value).__name__}")
    return dict(value)


@keyword_options()
def from_siciliano(name: str, links, motors=None, gravity=(0, 0, -9.81), *,
                   rotor_model: str = "khalil", Z=None, values=None, tool: str | None = "tip",
                   source: str = "", description: str = ""):
    """A robmod :class:`~robmod.description.robot.Robot` from a Siciliano et al. description.

    ``links``: :class:`SicilianoLink` (or dicts of its fields) for links 1..n;
    ``motors``: None or n :class:`SicilianoMotor` (or dicts, or None entries);
    ``gravity``: g_0 in frame 0 (Siciliano et al. writes ``[0, 0, -g]``); ``Z``: the pose
    of frame 0 in the world (the robot's gravity is then the world's, fR_0 g_0); ``values``:
    numeric values of the symbols used;
    ``tool``: name of the tool frame placed at Siciliano's frame n (None: no tool).

    Returns ``(robot, rotors)``: ``rotors`` is empty for ``rotor_model='khalil'``
    (everything is in the robot) and holds one
    :class:`~robmod.dynamics.rotors.Rotor` per motor with ``I_m != 0`` for
    ``'siciliano'``.
    """
    from .rotors import Rotor

    if rotor_model not in _ROTOR_MODELS:
        raise RobmodError(f"rotor_model must be one of {_ROTOR_MODELS}, not {rotor_model!r}")
    links = [l if isinstance(l, SicilianoLink) else SicilianoLink(**_fields(l, "link"))
             for l in records(links, "links")]
    n = len(links)
    if n == 0:
        raise RobmodError("a Siciliano arm needs at least one link")
    if motors is None:
        motors = [None] * n
    motors = [m if (m is None or isinstance(m, SicilianoMotor))
              else SicilianoMotor(**_fields(m, "motor")) for m in records(motors, "motors")]
    if len(motors) != n:
        raise RobmodError(f"{len(motors)} motors given for {n} links (use None for no motor)")
    frames, bodies = [], []
    for j, L in enumerate(links, start=1):
        prev = links[j - 2] if j > 1 else None
        frames.append(dict(j=j, ant=j - 1, sigma=L.sigma, mu=1,
                           alpha=prev.alpha if prev else 0, d=prev.a if prev else 0,
                           theta=L.theta, r=L.d))
        R, P = _rx(L.alpha), sp.Matrix([L.a, 0, 0])
        c = P + R * sp.Matrix(L.r_c)
        J = R * sp.Matrix(L.inertia_tensor()) * R.T + _steiner(L.m, c)
        bodies.append([L.m, L.m * c, J])
    rotors, joint_dyn = [], []
    for j, (L, mot) in enumerate(zip(links, motors), start=1):
        FV, FC, IA = L.F_v, L.F_s, sp.Integer(0)
        if mot is not None:
            FV = FV + mot.k_r**2 * mot.F_m
            if j > 1:  # frame j-1 of Siciliano in Khalil's frame j-1: Trans(x,a) Rot(x,alpha)
                R, P = _rx(links[j - 2].alpha), sp.Matrix([links[j - 2].a, 0, 0])
            else:
                R, P = sp.eye(3), sp.zeros(3, 1)
            z = R * sp.Matrix(mot.z)
            _unit_check(list(mot.z), f"axis z of motor {j}")
            if j > 1:
                pm = P + R * sp.Matrix(mot.p)
                body = bodies[j - 2]
                body[0] = body[0] + mot.m_m
                body[1] = body[1] + mot.m_m * pm
                body[2] = body[2] + _steiner(mot.m_m, pm) + mot.I_mt * (sp.eye(3) - z * z.T)
            if rotor_model == "khalil":
                IA = mot.k_r**2 * mot.I_m
            elif mot.I_m != 0:
                rotors.append(Rotor(j, mot.I_m, mot.k_r, tuple(z)))
        joint_dyn.append(dict(IA=IA, FV=FV, FC=FC))
    robot_links = []
    for j, ((M, MS, J), jd) in enumerate(zip(bodies, joint_dyn), start=1):
        vals = dict(XX=J[0, 0], XY=J[0, 1], XZ=J[0, 2], YY=J[1, 1], YZ=J[1, 2], ZZ=J[2, 2],
                    MX=MS[0], MY=MS[1], MZ=MS[2], M=M, **jd)
        robot_links.append(Link(j=j, **{k: _tidy(v) for k, v in vals.items()}))
    tools = ()
    if tool:
        last = links[-1]
        tools = (Tool(tool, n, transform_matrix(alpha=last.alpha, d=last.a)),)
    robot = make_robot(name, frames, robot_links, Z=Z, tools=tools,
                       gravity=_turned(Z, gravity),
                       values=values, source=source or "Siciliano et al. conventions (from_siciliano)",
                       description=description)
    return robot, tuple(rotors)


def _turned(base, g, back: bool = False) -> tuple:
    """g_0 in frame 0 turned into the world (robmod's ``gravity``: the world's) by the rotation
    of ``base`` (fT0), or back (``back``): fR_0 g_0, 0R_f g; unchanged for an identity
    rotation (no product by 1.0 in a symbolic gravity)."""
    g = sp.Matrix([as_expr(x) for x in g])
    if base is None:
        return tuple(g)
    R = sp.Matrix(base)[:3, :3]
    if R == sp.eye(3):
        return tuple(g)
    return tuple(_tidy(x) for x in ((R.T if back else R) * g))


# -- the reverse conversion -------------------------------------------------------------------

def _pre_transform(gamma, b, alpha, d):
    """(R, P) of Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d)."""
    Rz = _rz(gamma)
    return Rz * _rx(alpha), Rz * sp.Matrix([d, 0, b])


def _tool_parameters(robot, tool):
    """(gamma, b, alpha, d) with jT_E = Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d)."""
    from ..geometry.direct import resolve_tool

    t, _ = resolve_tool(robot, None, tool)
    if t.frame != robot.n_links:
        raise RobmodError(f"tool {t.name!r} must be on the last frame {robot.n_links}")
    T = sp.Matrix(t.T)
    gamma = sp.atan2(T[1, 0], T[0, 0])
    alpha = sp.atan2(T[2, 1], T[2, 2])
    b = T[2, 3]
    d = sp.cos(gamma) * T[0, 3] + sp.sin(gamma) * T[1, 3]
    back = sp.Matrix(transform_matrix(gamma=gamma, b=b, alpha=alpha, d=d))
    diff = (back - T).applyfunc(sp.simplify)
    if any(x != 0 and not (x.is_number and abs(complex(x)) < 1e-12) for x in diff):
        raise RobmodError(f"tool {t.name!r} is not Rot(z) Trans(z) Rot(x) Trans(x): Siciliano's "
                          "frame n cannot be placed there")
    return tuple(sp.simplify(x) for x in (gamma, b, alpha, d))


@keyword_options()
def to_siciliano(robot, *, tool: str | None = None) -> SicilianoArm:
    """The serial robot in Siciliano et al. conventions (inverse of :func:`from_siciliano`).

    Khalil's frame j and ``Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d)`` of
    frame j+1 give Siciliano's frame j (``theta_j = theta^K_j + gamma_(j+1)``,
    ``d_j = r^K_j + b_(j+1)``, ``a_j = d^K_(j+1)``, ``alpha_j = alpha^K_(j+1)``);
    frame 1's part goes into the base (frame 0 becomes Siciliano's frame 0, with
    ``Z`` and ``gravity`` changed accordingly), and frame n is Khalil's frame n
    or the tool ``tool`` when it has that form.  Rotors become motors with
    ``k_r = 1, I_m = IA``, so ``to_robot('khalil')`` gives back the same dynamics.
    """
    if robot.structure != "serial" or any(f.sigma == FIXED for f in robot.frames):
        raise RobmodError(f"robot {robot.name!r}: only serial chains of revolute and prismatic "
                          "joints have a standard DH description")
    n = robot.n_links
    pre = [(f.gamma, f.b, f.alpha, f.d) for f in robot.frames]
    pre.append(_tool_parameters(robot, tool) if tool else (0, 0, 0, 0))
    R0, P0 = _pre_transform(*pre[0])
    T0 = sp.eye(4)
    T0[:3, :3], T0[:3, 3] = R0, P0
    base = sp.Matrix(robot.Z) * T0
    gravity = tuple(R0.T * sp.Matrix(_turned(robot.Z, robot.gravity, back=True)))
    links, motors = [], []
    for j in range(1, n + 1):
        f, L = robot.frame(j), robot.link(j)
        for k in ("FST", "FX", "FY", "FZ", "CX", "CY", "CZ"):
            if getattr(L, k) != 0:
                raise RobmodError(f"link {j}: {k} has no counterpart in the Siciliano description")
        if L.K is not None:
            raise RobmodError(f"link {j}: elastic joints have no counterpart here")
        gamma, b, alpha, d = pre[j]
        R, P = _pre_transform(gamma, b, alpha, d)
        M = L.M
        MS = sp.Matrix(L.first_moments())
        J = sp.Matrix(L.inertia_matrix())
        if M == 0:
            if any(x != 0 for x in list(MS) + list(J)):
                raise RobmodError(f"link {j}: massless link with inertia")
            c, IC = sp.zeros(3, 1), sp.zeros(3, 3)
        else:
            c = MS / M
            IC = J - _steiner(M, c)
        rc = R.T * (c - P)
        IS = R.T * IC * R
        links.append(SicilianoLink.with_tensor(
            IS.applyfunc(_tidy), a=d, alpha=alpha, d=f.r + b, theta=f.theta + gamma,
            joint="P" if f.sigma == PRISMATIC else "R", m=M, r_c=tuple(_tidy(x) for x in rc),
            F_v=L.FV, F_s=L.FC))
        motors.append(SicilianoMotor(k_r=1, I_m=L.IA))
    return SicilianoArm(robot.name, tuple(links), tuple(motors), gravity,
                        sp.ImmutableMatrix(base), MappingProxyType(dict(robot.values)))


__all__ = ["SicilianoArm", "SicilianoLink", "SicilianoMotor", "from_siciliano", "to_siciliano",
           "tensor_parameters"]
