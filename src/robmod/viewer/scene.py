"""What the viewer draws, as data: the scene tree of a robot and the poses of its frames.

The scene of a robot is a tree of named nodes (MeshCat's paths)::

    robmod/<robot>                      the base matrix Z (frame 0 in the world)
    robmod/<robot>/frame<j>             0T_j(q) (the DGM, Khalil & Dombre (3.1)-(3.3)), per frame
    robmod/<robot>/tool_<name>          0T_E(q) of each tool
    .../frame<j>/visual<k>              a visual of the URDF, at its constant pose in frame j
    .../frame<i>/link<j>                the capsule from O_i to O_j (no visuals), in frame i
    .../frame<j>/axis                   the joint axis z_j (overlay)
    .../frame<j>/triad                  the axes x_j, y_j, z_j (overlay)
    robmod/<robot>/ellipsoid_<kind>     a manipulability ellipsoid at the end frame (overlay)

Only the frames' transforms change with q: a configuration is one transform per frame, a
motion a sequence of them (batched DGM).  :mod:`.meshcat_view` sends this to MeshCat (or to a
:class:`~robmod.viewer.recording.RecordingVisualizer`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..description.base import BASE_Q, moving_base
from ..geometry.direct import frame_origins
from ..spatial import quaternion_to_matrix

#: colours of the default geometry (RGB)
LINK_COLOUR = 0xE0A030
JOINT_COLOUR = 0x3060C0
ELLIPSOID_COLOURS = {"velocity": 0xD62728, "force": 0x9467BD, "dynamic": 0x8C564B}


@dataclass(frozen=True)
class Shape:
    """A piece of geometry fixed in a frame: ``kind`` 'mesh', 'box', 'cylinder' (along z, as
    URDF), 'sphere', 'capsule' (a cylinder along y of (radius, length) with its two caps) or
    'triad'; ``T`` its pose in the frame; ``size``, ``path`` (mesh file), ``rgba``."""

    name: str
    kind: str
    T: np.ndarray
    size: tuple
    path: str | None = None
    rgba: tuple | None = None


@dataclass
class RobotScene:
    """The nodes of a robot's scene: ``root`` (its path), ``Z`` (the base matrix, frame 0 in
    the world: the root's pose; a mobile or floating robot's moves with its configuration),
    ``frames`` (label -> frame number or tool name), ``shapes`` (label -> [Shape]) and the
    robot's scale."""

    robot: object
    root: str
    Z: np.ndarray
    frames: dict
    shapes: dict = field(default_factory=dict)
    scale: float = 1.0

    def path(self, label: str) -> str:
        return f"{self.root}/{label}"


def _label_of(frame) -> str:
    return f"tool_{frame}" if isinstance(frame, str) else f"frame{frame}"


def frame_poses(robot, q, frames) -> dict:
    """{label: 0T_frame(q)} for each frame (number or tool name) of ``frames``, q (..., n_q)
    (the joints): arrays (..., 4, 4), from the batched DGM of every frame
    (:func:`robmod.geometry.frame_origins`)."""
    origins = frame_origins(robot, q)
    return {label: np.asarray(origins[f], dtype=float) for label, f in frames.items()}


def base_pose(robot, q) -> np.ndarray:
    """The pose of the robot's root node (..., 4, 4) at the configurations q: a floating
    robot's base from its first 7 values (position, unit quaternion), else Z (``robot.Z``:
    frame 0 in the world)."""
    q = np.asarray(q, dtype=float)
    if not moving_base(robot):
        return np.broadcast_to(np.array(robot.Z, dtype=float), q.shape[:-1] + (4, 4))
    T = np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)).copy()
    T[..., :3, :3] = quaternion_to_matrix(q[..., 3:7])
    T[..., :3, 3] = q[..., :3]
    return T


def joints_of(robot, q):
    """The joints' values of configurations q (a floating robot's after its base's 7)."""
    return np.asarray(q, dtype=float)[..., BASE_Q:] if moving_base(robot) else q


#: the vertical field of view of MeshCat's camera (a three.js PerspectiveCamera of 75 degrees)
FIELD_OF_VIEW = np.radians(75.0)


def camera_view(points, *, aspect: float = 4 / 3, fill: float = 0.75):
    """(target, position) of a camera that frames ``points`` (..., 3, world) and looks across
    their plane: the normal of the plane that fits them best (the principal direction of least
    spread; a robot moving in a plane is seen flat, not edge-on), tilted 20 degrees up and 25
    degrees aside for depth (or from above, tilted 35 degrees, for a horizontal plane), at the
    distance where the points fill ``fill`` of the smaller side of the picture."""
    P = np.asarray(points, dtype=float).reshape(-1, 3)
    lo, hi = P.min(axis=0), P.max(axis=0)
    target = 0.5 * (lo + hi)
    X = P - target
    _, s, Vt = np.linalg.svd(X, full_matrices=False) if len(X) > 1 else (None, [0.0],
                                                                           np.eye(3))
    normal = Vt[-1] if len(X) > 2 and s[0] > 1e-9 else np.array([0.0, -1.0, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    if abs(normal[2]) > 0.8:                      # a horizontal plane: from above, tilted
        side = np.array([0.3, -1.0, 0.0]) / np.hypot(0.3, 1.0)
        view = np.cos(np.radians(35)) * up + np.sin(np.radians(35)) * side
    else:
        n = normal - normal[2] * up
        n /= np.linalg.norm(n)
        if n @ np.array([0.5, -1.0, 0.0]) < 0:   # the side of -y (+x for a plane across x)
            n = -n
        aside = np.radians(25)
        n = np.cos(aside) * n + np.sin(aside) * np.cross(up, n)
        view = np.cos(np.radians(20)) * n + np.sin(np.radians(20)) * up
    right = np.cross(view, up)
    right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else \
        np.array([1.0, 0.0, 0.0])
    vertical = np.cross(right, view)
    half = max(np.abs(X @ vertical).max(initial=0.0),
               np.abs(X @ right).max(initial=0.0) / aspect, 1e-3)
    depth = np.abs(X @ view).max(initial=0.0)
    distance = depth + half / (np.tan(FIELD_OF_VIEW / 2) * fill)
    return target, target + distance * view


def _robot_scale(robot) -> float:
    """A length for the drawing: the largest distance of a frame origin from the base at
    q = 0 (1 for a robot of zero size)."""
    poses = frame_poses(robot, np.zeros(robot.n_q), _all_frames(robot))
    reach = max((float(np.linalg.norm(T[:3, 3])) for T in poses.values()), default=0.0)
    return reach if reach > 1e-9 else 1.0


def _all_frames(robot) -> dict:
    frames = {_label_of(0): 0}
    frames.update({_label_of(f.j): f.j for f in robot.frames})
    frames.update({_label_of(t.name): t.name for t in robot.tools})
    return frames


def _segment(p, radius) -> np.ndarray:
    """The pose of a unit capsule (along y, centred) stretched from the origin to p."""
    length = float(np.linalg.norm(p))
    y = p / length
    helper = np.array([1.0, 0.0, 0.0]) if abs(y[0]) < 0.9 else np.array([0.0, 0.0, 1.0])
    x = np.cross(y, helper)
    x /= np.linalg.norm(x)
    z = np.cross(x, y)
    T = np.eye(4)
    T[:3, :3] = np.column_stack([x, y, z])
    T[:3, 3] = p / 2
    return T


def build_scene(robot, visuals=(), *, name=None, q0=None, frames=True, axes=True) -> RobotScene:
    """The :class:`RobotScene` of ``robot``: the URDF ``visuals`` (:class:`Visual` records) where
    given (:class:`robmod.description.Visual`), else capsules along the links (from O_a(j) to O_j at ``q0``); joint axes and frame
    triads as overlays."""
    name = name or robot.name or "robot"
    scene = RobotScene(robot, f"robmod/{name}", np.array(robot.Z, dtype=float), _all_frames(robot))
    scene.scale = _robot_scale(robot)
    radius = 0.03 * scene.scale
    shapes = {label: [] for label in scene.frames}
    for k, v in enumerate(visuals):
        shapes[_label_of(v.frame)].append(Shape(f"visual{k}", v.kind, np.asarray(v.T, float),
                                               tuple(v.size), v.path, v.rgba))
    drawn = {_label_of(v.frame) for v in visuals}
    if not visuals:
        q0 = np.zeros(robot.n_q) if q0 is None else np.asarray(q0, float)
        poses = frame_poses(robot, q0, scene.frames)
        for f in robot.frames:
            parent, child = poses[_label_of(f.ant)], poses[_label_of(f.j)]
            p = (np.linalg.inv(parent) @ child)[:3, 3]      # O_j in frame a(j)
            if np.linalg.norm(p) > 1e-9:
                shapes[_label_of(f.ant)].append(Shape(f"link{f.j}", "capsule", _segment(p, radius),
                                                     (radius, float(np.linalg.norm(p)))))
        drawn = set(shapes)
    for f in robot.frames:
        if f.sigma in (0, 1) and axes:       # the joint axis z_j, through O_j
            T = np.eye(4)
            shapes[_label_of(f.j)].append(Shape("axis", "cylinder", T,
                                               (1.3 * radius, 4.0 * radius),
                                               rgba=(0.19, 0.38, 0.75, 1.0)))
    if frames:
        for label in scene.frames:
            shapes[label].append(Shape("triad", "triad", np.eye(4), (0.12 * scene.scale,)))
    scene.shapes = {k: v for k, v in shapes.items() if v or k in drawn}
    return scene


__all__ = ["RobotScene", "Shape"]
