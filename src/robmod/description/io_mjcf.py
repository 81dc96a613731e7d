"""Export of a numeric robot to MuJoCo's MJCF (for simulation and cross-checks).

Each link j becomes a body nested in the body of its antecedent a(j), placed by
a(j)T_j at q_j = 0 (Khalil-Kleinfinger: Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d)
Rot(z, theta) Trans(z, r)); since Rot(z) and Trans(z) commute, the joint then turns about
(revolute) or slides along (prismatic) the body's own z axis, as an MJCF ``hinge``/``slide``
joint with ``axis="0 0 1"``; fixed frames are bodies without a joint.  Inertial parameters:
mass M, centre of mass MS / M, inertia about the centre of mass
J_G = J_O - M (|c|^2 I - c c^T) as its principal moments and axes (``diaginertia``, ``quat``:
MuJoCo's own form, not decomposed again); the rotor inertia IA is the joint's ``armature`` and the
viscous friction FV its ``damping`` (Coulomb friction has no exact MJCF counterpart: refused
unless ``coulomb='ignore'``).  Gravity is the robot's (the world's) expressed in the base frame
0, 0R_f g (Z = fT0), frame 0 being MuJoCo's world frame; contacts are disabled (no geometry is exported).  A floating base
(:mod:`robmod.description.base`) is a body ``link0`` with a ``freejoint`` named ``base`` and
link 0's inertia, the tree in it; MuJoCo's world frame is then robmod's world frame, and its
``qpos`` of the free joint (position, quaternion w x y z) robmod's base configuration.

MuJoCo refuses a moving body whose principal moments of inertia are not above its ``mjMINVAL``
(1e-15) or violate the triangle inequality even by rounding, and a massless body with no mass
below it.  Point masses, slender rods (an inertia about the centre of mass with a zero principal
moment) and massless links are real descriptions, so their bodies get the bound
:data:`INERTIA_BOUND` instead (a principal moment raised to it, the mass of a massless link set
to it): a comment in the file and the ``warnings`` of the returned text say which.  A massless
link with mass fixed to it (a fixed frame's link) stays massless: MuJoCo accepts the group.

Closed loops: the tree's bodies, and for each loop a site on the cut joint's frame k (on link
a(k)) and one on its closing frame k + B, held together by a ``connect`` equality constraint
(a second one a unit length along the cut joint's axis when the loop is not planar, so that only
the rotation about that axis is free).  MuJoCo's equality constraints are soft: they are
written as stiff as MuJoCo allows, time constant twice the time step (``solref``, its stability
limit) and impedance 0.9999 (``solimp``), with which a loop closes to about 1e-9 and MuJoCo's
motion agrees with robmod's closed-loop simulation to about 1e-9 rad after 1 s.
"""
from __future__ import annotations

import math

import numpy as np

from ..arguments import keyword_options
from ..errors import RobmodError
from .robot import FIXED, PRISMATIC, REVOLUTE

#: the comment that marks robmod's own MJCF: its bodies are the Khalil-Kleinfinger frames, which
#: the reader keeps (read_mjcf's mdh=None)
ROBMOD_MARK = "<!-- robmod-frames: khalil-kleinfinger -->"
#: the smallest principal moment of inertia (kg m^2) and mass (kg) written for a body MuJoCo
#: would refuse: 1000 times MuJoCo's mjMINVAL = 1e-15, a margin over the rounding of its own
#: eigen-decomposition of the inertia
INERTIA_BOUND = 1e-12


class MJCF(str):
    """The MJCF text (a ``str``) with :attr:`warnings`: what the export had to change for
    MuJoCo to load the file (bounded inertias and masses, dropped Coulomb friction)."""

    warnings: tuple[str, ...] = ()


def _f(x, what):
    try:
        v = float(x)
    except TypeError:
        raise RobmodError(f"MJCF export needs a numeric robot: {what} = {x} is symbolic "
                          "(use robot.numeric())") from None
    if not math.isfinite(v):
        raise RobmodError(f"MJCF export: {what} is not finite")
    return v


def _transform(frame):
    g, b, al, d, th, r = (_f(getattr(frame, k), f"{k}{frame.j}")
                          for k in ("gamma", "b", "alpha", "d", "theta", "r"))

    def rz(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])

    def rx(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])

    def tr(x, z):
        T = np.eye(4)
        T[0, 3], T[2, 3] = x, z
        return T

    return rz(g) @ tr(0, b) @ rx(al) @ tr(d, 0) @ rz(th) @ tr(0, r)


def _quat(R):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    w = math.sqrt(max(0.0, 1 + R[0, 0] + R[1, 1] + R[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    q = np.array([w, x, y, z])
    return q / np.linalg.norm(q)


def _nums(v):
    return " ".join(repr(float(x)) for x in v)


def _principal(JG):
    """(principal moments, rotation V with det +1, bounded) of J_G as MuJoCo takes them: each
    moment at least :data:`INERTIA_BOUND` and the smallest raised where the triangle
    inequality fails, by rounding (by one ulp, not reported) or by more (reported)."""
    e, V = np.linalg.eigh(0.5 * (JG + JG.T))
    if np.linalg.det(V) < 0:
        V[:, 0] = -V[:, 0]
    new = np.maximum(e, INERTIA_BOUND)
    bounded = bool(np.any(e < INERTIA_BOUND))
    if new[0] + new[1] < new[2]:                       # sorted: the only inequality at risk
        bounded |= new[2] - new[1] - new[0] > 1e-12 * new[2]
        new[0] = new[2] - new[1]
        while new[0] + new[1] < new[2]:
            new[0] = np.nextafter(new[0], np.inf)
    return new, V, bounded


def _inertial(robot, link, massive_below):
    """(mass, centre of mass, J_G, note or None) of link j as MuJoCo takes them."""
    j = link.j
    m = _f(link.M, f"M{j}")
    ms = np.array([_f(link.MX, f"MX{j}"), _f(link.MY, f"MY{j}"), _f(link.MZ, f"MZ{j}")])
    J = np.array([[_f(x, f"inertia of link {j}") for x in row]
                  for row in link.inertia_matrix().tolist()])
    if m <= 0:
        if massive_below:
            return 0.0, np.zeros(3), None, None
        return (INERTIA_BOUND, np.zeros(3), (np.full(3, INERTIA_BOUND), np.eye(3)),
                f"link {j} is massless (and no mass is fixed to it): mass and inertia set to "
                f"{INERTIA_BOUND:g} (MuJoCo refuses a massless moving body)")
    c = ms / m
    JG = J - m * (c @ c * np.eye(3) - np.outer(c, c))
    moments, V, bounded = _principal(JG)
    note = None
    if bounded:
        old = np.linalg.eigvalsh(0.5 * (JG + JG.T))
        note = (f"link {j}: principal moments of inertia about the centre of mass "
                f"{_nums(np.round(old, 15))} raised to {_nums(moments)} kg m^2 (a point mass "
                f"or a slender rod: MuJoCo needs them above 1e-15 and satisfying the triangle "
                f"inequality; bound {INERTIA_BOUND:g})")
    return m, c, (moments, V), note


def _world_frames(robot):
    """Transform 0T_j of every frame at q = 0."""
    T = {0: np.eye(4)}
    for f in robot.frames:
        T[f.j] = T[f.ant] @ _transform(f)
    return T


def _loop_joints(robot, k, kb):
    """The frames on the loop closed by cut joint k and closing frame kb (both branches up to
    their common ancestor), the cut joint included."""
    def chain(j):
        out = []
        while j:
            out.append(j)
            j = robot.frame(j).ant
        return out
    a, b = chain(k), chain(kb)
    common = set(a) & set(b)
    return [j for j in a + b if j not in common]


def _planar(robot, T, k, kb):
    """True when every joint of the loop is revolute about parallel axes (a planar loop:
    one point constraint closes it)."""
    frames = [robot.frame(j) for j in _loop_joints(robot, k, kb)]
    axes = [T[f.j][:3, 2] for f in frames if f.sigma != FIXED]
    if any(f.sigma == PRISMATIC for f in frames) or not axes:
        return False
    return all(np.linalg.norm(np.cross(axes[0], z)) < 1e-9 for z in axes[1:])


@keyword_options()
def to_mjcf(robot, *, timestep: float = 1e-4, integrator: str = "RK4",
            coulomb: str = "refuse", contacts=None, environment=None) -> MJCF:
    """The MJCF text of ``robot`` (serial, tree or closed loops; numeric), an :class:`MJCF`
    string whose ``warnings`` list what was bounded or dropped for MuJoCo.  ``contacts``
    (:mod:`robmod.description.contacts`) and ``environment`` (obstacles, default the ground):
    the contact scene (module doc), else contacts are disabled."""
    if coulomb not in ("refuse", "ignore"):
        raise RobmodError(f"coulomb must be 'refuse' or 'ignore', got {coulomb!r}")
    nl = robot.n_links
    frames = robot.frames[:nl]
    children = {0: []}
    for f in frames:
        children.setdefault(f.ant, []).append(f.j)
    mass = {f.j: _f(robot.link(f.j).M, f"M{f.j}") for f in frames}

    def massive_below(j):      # mass welded to j (through fixed frames): MuJoCo's rigid group
        return any((mass[k] > 0 or massive_below(k)) and robot.frame(k).sigma == FIXED
                   for k in children.get(j, []))

    notes, lines = [], {}
    for f in frames:
        j = f.j
        link = robot.link(j)
        T = _transform(f)
        m, c, JG, note = _inertial(robot, link, massive_below(j))
        if note:
            notes.append(note)
        fc = _f(link.FC, f"FC{j}")
        fst = _f(link.FST, f"FST{j}")
        if (fc or fst) and coulomb == "refuse":
            raise RobmodError(f"link {j}: Coulomb friction FC{j} = {fc} has no exact MJCF "
                              "counterpart; pass coulomb='ignore' to drop it")
        if fc or fst:
            notes.append(f"link {j}: Coulomb (and Stribeck) friction FC{j} = {fc:g} dropped "
                         "(coulomb='ignore')")
        body = [f'<body name="link{j}" pos="{_nums(T[:3, 3])}" quat="{_nums(_quat(T[:3, :3]))}">']
        if f.sigma != FIXED:
            kind = "slide" if f.sigma == PRISMATIC else "hinge"
            body.append(f'  <joint name="q{j}" type="{kind}" axis="0 0 1" '
                        f'armature="{_f(link.IA, f"IA{j}")!r}" damping="{_f(link.FV, f"FV{j}")!r}"/>')
        if m > 0:
            moments, V = JG
            body.append(f'  <inertial pos="{_nums(c)}" quat="{_nums(_quat(V))}" mass="{m!r}" '
                        f'diaginertia="{_nums(moments)}"/>')
        lines[j] = body
    scene = None if contacts is None else _contact_scene(robot, contacts, environment)
    if scene is not None:
        for j, geoms in scene[0].items():
            lines[j] += geoms
    equality, world_sites = _loops(robot, lines, notes, timestep)

    def emit(j, indent):
        out = ["  " * indent + s for s in lines[j]]
        for k in children.get(j, []):
            out += emit(k, indent + 1)
        out.append("  " * indent + "</body>")
        return out

    roots = children[0]
    if robot.base_kind == "floating":    # link 0 is a free body: MuJoCo's freejoint
        m, c, JG, note = _inertial(robot, robot.base_link, massive_below(0))
        if note:
            notes.append(note.replace("link 0 is", "link 0 (the floating base) is"))
        body = ['<body name="link0">', '  <freejoint name="base"/>']
        if m > 0:
            moments, V = JG
            body.append(f'  <inertial pos="{_nums(c)}" quat="{_nums(_quat(V))}" mass="{m!r}" '
                        f'diaginertia="{_nums(moments)}"/>')
        lines[0], roots = body + (scene[0].get(0, []) if scene else []), [0]
    # MuJoCo's world is frame 0 (a floating base: Z is the identity): 0R_f g, the world's gravity
    g = np.array([[_f(robot.Z[c, r], "Z") for c in range(3)] for r in range(3)]) @ \
        [_f(x, "gravity") for x in robot.gravity]
    text = [f'<mujoco model="{robot.name}">', "  " + ROBMOD_MARK]
    text += [f"  <!-- robmod: {n.replace('--', '- -')} -->" for n in notes]
    text += ['  <compiler angle="radian" autolimits="true"/>',
             f'  <option gravity="{_nums(g)}" timestep="{timestep!r}" integrator="{integrator}"'
             + (' cone="elliptic">' if scene else '>')]
    text += [] if scene else ['    <flag contact="disable"/>']
    text += ['  </option>', '  <worldbody>'] + ["    " + s.strip() for s in world_sites]
    text += ["    " + g for g in scene[1]] if scene else []
    for j in roots:
        text += emit(j, 2)
    text += ['  </worldbody>'] + equality + ['</mujoco>']
    out = MJCF("\n".join(text) + "\n")
    out.warnings = tuple(notes)
    return out


def _loops(robot, lines, notes, timestep):
    """Sites on the cut and closing frames and the ``connect`` constraints of the loops."""
    if not robot.n_loops:
        return [], []
    T = _world_frames(robot)
    eq, world = [], []
    for k, kb in robot.loop_pairs:
        fk, fb = robot.frame(k), robot.frame(kb)
        if fk.sigma != REVOLUTE:
            raise RobmodError(f"MJCF export: cut joint {k} is prismatic; only revolute cut "
                              "joints are exported (a connect constraint per point)")
        points = [0.0] if _planar(robot, T, k, kb) else [0.0, 1.0]
        for f in (fk, fb):
            A = _transform(f)
            for p, s in enumerate(points):
                pos = A[:3, 3] + s * A[:3, 2]
                site = f'  <site name="loop{k}_{f.j}_{p}" pos="{_nums(pos)}"/>'
                (lines[f.ant].insert(1, site) if f.ant else world.append(site))
        for p in range(len(points)):
            eq.append(f'    <connect site1="loop{k}_{k}_{p}" site2="loop{k}_{kb}_{p}" '
                      f'solref="{2 * timestep!r} 1" solimp="0.9999 0.9999 0.0001"/>')
        notes.append(f"loop of cut joint {k}: {len(points)} connect constraint(s) between "
                     f"frames {k} and {kb} (soft in MuJoCo: time constant 2 x timestep)")
    return ["  <equality>"] + eq + ["  </equality>"], world


__all__ = ["to_mjcf", "MJCF", "INERTIA_BOUND"]


#: the radius of the spheres that stand for contact points in MuJoCo (the obstacles are moved
#: out by as much: a point on a surface in robmod is a sphere resting on it in MuJoCo)
CONTACT_RADIUS = 1e-3


def _contact_scene(robot, contacts, environment=None):
    """({frame: geom lines}, world geom lines): a sphere of :data:`CONTACT_RADIUS` at every
    contact point (a sole's vertices) on its frame's body, with its friction, colliding only
    with the obstacles (``contype``/``conaffinity``), and the obstacles: a plane, a box."""
    from .contacts import Box, Plane, contact_list

    env = (Plane(),) if environment is None else (
        (environment,) if hasattr(environment, "distance") else tuple(environment))
    bodies = {}
    for c in contact_list(contacts):
        for k, p in enumerate(c.points()):
            j = robot.frame_number(p.frame)
            bodies.setdefault(j, []).append(
                f'  <geom name="contact_{_name(p.name)}_{k}" type="sphere" '
                f'size="{CONTACT_RADIUS!r}" pos="{_nums(p.point)}" condim="3" '
                f'friction="{p.friction!r} 0 0" contype="1" conaffinity="0" mass="0" '
                f'group="3"/>')
    world = []
    r = CONTACT_RADIUS
    for k, o in enumerate(env):
        if isinstance(o, Plane):
            n = np.array(o.normal)
            world.append(f'<geom name="plane{k}" type="plane" size="0 0 1" '
                         f'pos="{_nums(np.array(o.point) - r * n)}" zaxis="{_nums(n)}" '
                         'friction="0 0 0" contype="0" conaffinity="1"/>')
        elif isinstance(o, Box):
            R = np.array(o.rotation)
            world.append(f'<geom name="box{k}" type="box" size="{_nums(np.array(o.size) / 2 - r)}" '
                         f'pos="{_nums(o.center)}" quat="{_nums(_quat(R))}" '
                         'friction="0 0 0" contype="0" conaffinity="1"/>')
        else:
            raise RobmodError(f"to_mjcf: environment[{k}] must be a Plane or a Box, got "
                              f"{type(o).__name__}")
    return bodies, world


def _name(text):
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in str(text))
