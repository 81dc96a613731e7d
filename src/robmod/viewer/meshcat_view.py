"""The robot in the browser: MeshCat (three.js), still or animated.

``view(robot, q)`` sends the scene of :mod:`.scene` to a MeshCat visualizer -- a server it
starts on localhost (``meshcat.Visualizer()``), opened in the browser, or shown inline in
Jupyter -- and sets each frame's transform 0T_j(q) from the DGM.  ``animate`` plays a
trajectory, a :class:`~robmod.control.SimulationResult` or a measured log as a MeshCat
animation (play, pause, speed and time slider in the viewer's controls), resampled at ``fps``
frames per second of motion time.  Overlays: the KK frames (triads), the joint axes and the
velocity, force and dynamic manipulability ellipsoids of :func:`robmod.plot.robot_plot`
(Khalil & Dombre §5.9, §7.9), updated with q.

Any object with MeshCat's interface serves as ``visualizer=``: a
:class:`~robmod.viewer.recording.RecordingVisualizer` records what would be sent (tests,
documentation, headless machines).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..description.arguments import keyword_options
from ..description.base import BASE_Q, configuration_size, moving_base
from ..description.urdf_visuals import attach_visuals
from ..errors import ArgumentError, RobmodError
from ..geometry.direct import dgm
from ..geometry.floating import neutral
from ..dynamics.operational import manipulability_ellipsoid
from ..kinematics.ellipsoids import ellipsoid_kinds, end_frame
from .scene import (ELLIPSOID_COLOURS, JOINT_COLOUR, LINK_COLOUR, base_pose, build_scene,
                    camera_view, frame_poses, joints_of)

#: MeshCat's camera, a child of a frame turned by +90 degrees about x (three.js's y up): a
#: point (x, y, z) of the world is (x, z, -y) there
_CAMERA = "/Cameras/default/rotated/<object>"
#: the nodes moved so that the orbit's centre (the world's origin for MeshCat's controls) is
#: the robot's centre: robmod's scene, the grid and the axes
_SHIFTED = ("/meshcat", "/Grid", "/Axes")

_MISSING = ("the 3D viewer needs MeshCat: pip install 'robmod[viewer]' "
            "(meshcat, and trimesh for STL/OBJ meshes)")


def _meshcat_modules():
    """(meshcat, meshcat.geometry, meshcat.animation), or a RobmodError naming the extra."""
    try:
        import meshcat
        import meshcat.animation
        import meshcat.geometry
    except ImportError:
        raise RobmodError(_MISSING) from None
    return meshcat, meshcat.geometry, meshcat.animation


def _rx90() -> np.ndarray:
    """Turns MeshCat's cylinder (along y) onto z, URDF's convention."""
    T = np.eye(4)
    T[1:3, 1:3] = [[0.0, -1.0], [1.0, 0.0]]
    return T


def _material(g, rgba, colour):
    if rgba is None:
        return g.MeshLambertMaterial(color=colour)
    r, gr, b, a = rgba
    hexa = (int(255 * r) << 16) + (int(255 * gr) << 8) + int(255 * b)
    return g.MeshLambertMaterial(color=hexa, opacity=float(a), transparent=a < 1)


def _mesh(g, shape):
    """(geometry, extra transform) of a mesh file: STL/OBJ by trimesh (scale applied to the
    vertices), DAE by MeshCat's own loader (scale in the transform)."""
    path = Path(shape.path)
    scale = np.diag(list(shape.size) + [1.0])
    if path.suffix.lower() == ".dae":
        return g.DaeMeshGeometry.from_file(str(path)), scale
    try:
        import trimesh
    except ImportError:
        loader = g.StlMeshGeometry if path.suffix.lower() == ".stl" else g.ObjMeshGeometry
        return loader.from_file(str(path)), scale
    mesh = trimesh.load(str(path), force="mesh")
    return g.TriangularMeshGeometry(np.asarray(mesh.vertices) * shape.size,
                                    np.asarray(mesh.faces)), np.eye(4)


def _shape_objects(g, shape):
    """[(sub-path or '', geometry or object, material or None, transform)] of a Shape."""
    colour = JOINT_COLOUR if shape.name == "axis" else LINK_COLOUR
    mat = _material(g, shape.rgba, colour)
    if shape.kind == "mesh":
        geom, extra = _mesh(g, shape)
        return [("", geom, mat, shape.T @ extra)]
    if shape.kind == "box":
        return [("", g.Box(list(shape.size)), mat, shape.T)]
    if shape.kind == "cylinder":
        radius, length = shape.size
        return [("", g.Cylinder(length, radius), mat, shape.T @ _rx90())]
    if shape.kind == "sphere":
        return [("", g.Sphere(shape.size[0]), mat, shape.T)]
    if shape.kind == "capsule":
        radius, length = shape.size
        ends = []
        for k, y in (("cap0", -length / 2), ("cap1", length / 2)):
            T = np.eye(4)
            T[1, 3] = y
            ends.append((k, g.Sphere(radius), mat, shape.T @ T))
        return [("body", g.Cylinder(length, radius), mat, shape.T)] + ends
    if shape.kind == "triad":
        return [("", g.triad(shape.size[0]), None, shape.T)]
    raise RobmodError(f"unknown shape kind {shape.kind!r}")


def _proper(U) -> np.ndarray:
    U = np.array(U, dtype=float)
    if np.linalg.det(U) < 0:
        U[:, -1] = -U[:, -1]
    return U


class Viewer:
    """A robot in a MeshCat visualizer: :meth:`show` a configuration, :meth:`animate` a
    motion.  Built by :func:`view`."""

    def __init__(self, robot, *, visualizer=None, urdf=None, frames=True, axes=True,
                 ellipsoid=None, ellipsoid_scale=None, j=None, tool=None, q0=None):
        self.robot = robot
        self.kinds = ellipsoid_kinds(ellipsoid)
        if any(not isinstance(k, str) for k in self.kinds):
            raise ArgumentError("ellipsoid: give names (velocity, force, dynamic) to the viewer")
        # the arm on its base: the frames' poses in frame 0 from the joints (a mobile or
        # floating robot's base pose moves the root node)
        self.arm = robot.with_base("fixed") if moving_base(robot) else robot
        self.end = end_frame(self.arm, j, tool)
        self._server = None
        if visualizer is None:
            meshcat, _, _ = _meshcat_modules()
            visualizer = meshcat.Visualizer()
            self._server = getattr(visualizer.window, "server_proc", None)
        self.vis = visualizer
        visuals = ()
        if urdf is not None:
            zero = np.zeros(robot.n_q)
            visuals = attach_visuals(urdf, robot,
                                     lambda f: frame_poses(self.arm, zero, {"x": f})["x"])
        self.visuals = visuals
        self.nq = configuration_size(robot)
        self.scene = build_scene(self.arm, visuals, q0=None if q0 is None else
                                 joints_of(robot, self._configuration(q0)), frames=frames,
                                 axes=axes)
        self.ellipsoid_scale = ellipsoid_scale
        self._send_scene()
        self.q = None
        self.camera = None

    # -- the scene ----------------------------------------------------------------------------
    def _send_scene(self):
        _, g, _ = _meshcat_modules()
        sc = self.scene
        self.vis[sc.root].delete()
        self.vis[sc.root].set_transform(sc.Z)
        for label, shapes in sc.shapes.items():
            for shape in shapes:
                for sub, geom, mat, T in _shape_objects(g, shape):
                    node = self.vis[sc.path(label)][shape.name]
                    node = node[sub] if sub else node
                    if mat is None:
                        node.set_object(geom)
                    else:
                        node.set_object(geom, mat)
                    node.set_transform(T)
        for kind in self.kinds:
            node = self.vis[sc.path(f"ellipsoid_{kind}")]["shape"]
            node.set_object(g.Sphere(1.0), g.MeshLambertMaterial(
                color=ELLIPSOID_COLOURS[kind], opacity=0.35, transparent=True))

    def _ellipsoid_poses(self, q):
        """{kind: (4x4 pose of the axes, 3 semi-axes drawn)} of the overlays at the joints'
        q, in frame 0."""
        tool, j = self.end
        name = tool.name if tool is not None else None
        T = dgm(self.arm, q, j=j, tool=name)
        out = {}
        for kind in self.kinds:
            e = manipulability_ellipsoid(self.arm, q, kind=kind, j=j, tool=name)
            lengths = np.asarray(e.lengths, dtype=float)
            finite = lengths[np.isfinite(lengths)]
            scale = self.ellipsoid_scale
            if scale is None:
                top = float(finite.max()) if finite.size else 0.0
                scale = 0.25 * self.scene.scale / top if top > 0 else 1.0
            drawn = np.minimum(np.where(np.isfinite(lengths), lengths, np.inf) * scale,
                               0.75 * self.scene.scale)
            P = np.eye(4)
            P[:3, :3] = _proper(e.axes)
            P[:3, 3] = T[:3, 3]
            out[kind] = (P, np.maximum(drawn, 1e-4 * self.scene.scale))
        return out

    def _configuration(self, q):
        """q checked: the robot's configuration (a floating robot's 7 + n values; its n joint
        values alone put the base at the origin), default the neutral one."""
        n, nq = self.robot.n_q, self.nq
        if q is None:
            return neutral(self.robot)
        q = np.asarray(q, dtype=float)
        if nq != n and q.shape == (n,):
            q = np.concatenate([neutral(self.robot)[:BASE_Q], q])
        if q.shape != (nq,) or not np.all(np.isfinite(q)):
            what = f"{nq} values (the base's 7 then {n} joint values)" if nq != n else \
                f"{n} joint values"
            raise ArgumentError(f"q: expected {what}, got shape {q.shape}")
        return q

    def show(self, q=None) -> "Viewer":
        """Put the robot at q (default zeros; a floating robot's 7 + n values, its base's
        pose first): each frame's node gets 0T_j(q), the root the base's pose.  The first
        time, the camera frames the robot."""
        q = self._configuration(q)
        joints = joints_of(self.robot, q)
        root = base_pose(self.robot, q)
        self.vis[self.scene.root].set_transform(root)
        poses = frame_poses(self.arm, joints, self.scene.frames)
        for label, T in poses.items():
            self.vis[self.scene.path(label)].set_transform(T)
        for kind, (P, axes) in self._ellipsoid_poses(joints).items():
            self.vis[self.scene.path(f"ellipsoid_{kind}")].set_transform(P)
            self.vis[self.scene.path(f"ellipsoid_{kind}")]["shape"].set_transform(
                np.diag(list(axes) + [1.0]))
        if self.camera is None:
            self.look_at(_world_points(root, poses))
        self.q = q
        return self

    def look_at(self, points) -> "Viewer":
        """Point the camera at ``points`` (..., 3, world coordinates) and frame them, looking
        across their plane (:func:`robmod.viewer.scene.camera_view`): MeshCat's controls orbit
        about the world's origin, so the scene, its grid and axes are moved to put the points'
        centre there."""
        target, position = camera_view(points)
        shift = np.eye(4)
        shift[:3, 3] = -target
        for node in _SHIFTED:
            self.vis[node].set_transform(shift)
        x, y, z = position - target
        self.vis[_CAMERA].set_property("position", [float(x), float(z), float(-y)])
        self.camera = (target, position)
        return self

    @keyword_options()
    def animate(self, motion, *, fps=30.0, play=True, repetitions=1) -> "Viewer":
        """Play ``motion`` -- a trajectory (``sample(t)``, ``duration``), a simulation result
        or a measured log (``t`` and ``q``, one run), a pair (t, q) or an array q (T, n_q) of
        frames at ``fps`` -- as a MeshCat animation at ``fps`` frames per second of motion
        time (the viewer's controls play, pause, scrub and change the speed)."""
        _, _, animation = _meshcat_modules()
        t, Q = _motion_samples(self.robot, motion, fps, self._configuration(self.q))
        anim = animation.Animation(default_framerate=float(fps))
        joints = joints_of(self.robot, Q)
        poses = frame_poses(self.arm, joints, self.scene.frames)
        roots = base_pose(self.robot, Q)
        self.look_at(_world_points(roots, poses))
        for k in range(len(t)):
            with anim.at_frame(self.vis, k) as frame:
                if self.nq != self.robot.n_q:          # a floating base moves
                    frame[self.scene.root].set_transform(roots[k])
                for label, T in poses.items():
                    frame[self.scene.path(label)].set_transform(T[k])
                for kind, (P, axes) in self._ellipsoid_poses(joints[k]).items():
                    frame[self.scene.path(f"ellipsoid_{kind}")].set_transform(P)
                    frame[self.scene.path(f"ellipsoid_{kind}")]["shape"].set_property(
                        "scale", "vector3", [float(a) for a in axes])
        self.show(Q[0])
        self.vis.set_animation(anim, play=play, repetitions=int(repetitions))
        self.times, self.frames = t, Q
        return self

    # -- where it is shown ----------------------------------------------------------------------
    def url(self) -> str | None:
        """The viewer's address (None for a recording visualizer)."""
        fn = getattr(self.vis, "url", None)
        return fn() if callable(fn) else None

    def static_html(self) -> str:
        """A self-contained HTML page of the scene (and its animation): no server needed."""
        return self.vis.static_html()

    def _repr_html_(self):           # inline in Jupyter
        cell = getattr(self.vis, "jupyter_cell", None)
        if cell is None:
            return f"<pre>{self!r}</pre>"
        return cell()._repr_html_()

    def close(self) -> None:
        """Stop the MeshCat server this viewer started (if any)."""
        if self._server is not None:
            self._server.kill()
            self._server.wait()
            self._server = None

    def __repr__(self):
        where = self.url() or type(self.vis).__name__
        return f"Viewer({self.robot.name!r}, {len(self.scene.frames)} frames, {where})"


def _world_points(roots, poses):
    """The world positions (..., 3) of every frame origin: root @ 0T_j."""
    return np.stack([(roots @ T)[..., :3, 3] for T in poses.values()], axis=-2)


def _motion_samples(robot, motion, fps, q_now):
    """(t, q (T, nq)) of a motion resampled at ``fps`` (see :meth:`Viewer.animate`); a
    floating robot's motion of its joints only keeps its base where ``q_now`` has it."""
    fps = float(fps)
    if not np.isfinite(fps) or fps <= 0:
        raise ArgumentError(f"fps must be a positive number of frames per second, got {fps}")
    n = configuration_size(robot)
    joints = robot.n_q
    if callable(getattr(motion, "sample", None)) and getattr(motion, "duration", None) is not None:
        t = np.arange(0.0, float(motion.duration) + 0.5 / fps, 1.0 / fps)
        s = motion.sample(t)
        Q = np.asarray(s.q if hasattr(s, "q") else s[0], dtype=float)
    else:
        if hasattr(motion, "t") and hasattr(motion, "q"):
            t, Q = np.asarray(motion.t, float), np.asarray(motion.q, float)
        elif isinstance(motion, tuple) and len(motion) == 2:
            t, Q = (np.asarray(x, float) for x in motion)
        else:
            Q = np.asarray(motion, dtype=float)
            t = np.arange(len(Q)) / fps
        if n != joints and Q.ndim == 2 and Q.shape[1] == joints:
            Q = _with_base(Q, q_now)
        if Q.ndim != 2 or Q.shape[1] != n or len(t) != len(Q) or len(t) < 1:
            raise ArgumentError(f"motion: expected one run of {n} configuration values per "
                                f"time, got q of shape {Q.shape} and {len(t)} times (index a "
                                "batch first)")
        if not (np.all(np.isfinite(Q)) and np.all(np.isfinite(t)) and np.all(np.diff(t) > 0)):
            raise ArgumentError("motion: the times must increase and every value be finite")
        grid = np.arange(t[0], t[-1] + 0.5 / fps, 1.0 / fps)
        Q = np.column_stack([np.interp(grid, t, Q[:, k]) for k in range(n)]) if len(t) > 1 \
            else Q
        t = grid if len(t) > 1 else t
    if n != joints and Q.ndim == 2 and Q.shape[1] == joints:
        Q = _with_base(Q, q_now)
    if Q.shape != (len(t), n) or not np.all(np.isfinite(Q)):
        raise ArgumentError(f"motion: expected {n} finite configuration values per sample")
    if n != joints:                 # interpolated quaternions back to unit norm
        Q[:, 3:7] /= np.linalg.norm(Q[:, 3:7], axis=-1, keepdims=True)
    return t, Q


def _with_base(Q, q_now):
    """The joints' values Q (T, n) with the base's 7 values of q_now."""
    return np.concatenate([np.broadcast_to(q_now[:BASE_Q], (len(Q), BASE_Q)), Q], axis=1)


def _robot_and_urdf(robot, urdf):
    """A robot given as a Robot, a library name or a file (a URDF file also gives its
    visuals)."""
    if isinstance(robot, (str, Path)):
        from ..description import load_robot

        if urdf is None and str(robot).lower().endswith(".urdf"):
            urdf = robot
        robot = load_robot(str(robot), numeric=True)
    if robot.n_loops:
        raise ArgumentError(f"the viewer draws trees: {robot.name!r} has closed loops")
    return robot, urdf


def _in_jupyter() -> bool:
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None and hasattr(shell, "get_ipython") else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


@keyword_options()
def view(robot, q=None, *, visualizer=None, urdf=None, open=None, frames=True, axes=True,
         ellipsoid=None, ellipsoid_scale=None, j=None, tool=None) -> Viewer:
    """Show ``robot`` (a Robot, a library name or a file; a URDF's visual meshes are drawn)
    at ``q`` in MeshCat and return the :class:`Viewer`.  ``visualizer``: a MeshCat
    visualizer to draw in (default: a new one, its server on localhost) or a
    :class:`~robmod.viewer.RecordingVisualizer`; ``open``: open the browser (default: yes
    outside Jupyter, where the viewer shows inline); ``frames``, ``axes``: the KK frames and
    joint axes; ``ellipsoid``: "velocity", "force", "dynamic" or a list, at frame ``j`` /
    ``tool`` (as :func:`robmod.plot.robot_plot`)."""
    robot, urdf = _robot_and_urdf(robot, urdf)
    v = Viewer(robot, visualizer=visualizer, urdf=urdf, frames=frames, axes=axes,
               ellipsoid=ellipsoid, ellipsoid_scale=ellipsoid_scale, j=j, tool=tool, q0=q)
    v.show(q)
    if open is None:
        open = visualizer is None and not _in_jupyter()
    if open and hasattr(v.vis, "open"):
        v.vis.open()
    return v


@keyword_options()
def animate(robot, motion, *, viewer=None, fps=30.0, play=True, repetitions=1, **view_options):
    """Animate ``motion`` (a trajectory, a simulation result, a log, (t, q) or frames) on
    ``robot`` in ``viewer`` (default: a new :func:`view` with ``view_options``); returns the
    :class:`Viewer`."""
    if viewer is None:
        viewer = view(robot, **view_options)
    return viewer.animate(motion, fps=fps, play=play, repetitions=repetitions)


__all__ = ["Viewer", "view", "animate"]
