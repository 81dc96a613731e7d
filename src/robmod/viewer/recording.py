"""A visualizer that records what MeshCat would be sent: headless tests, documentation, CI.

:class:`RecordingVisualizer` has the part of ``meshcat.Visualizer``'s interface the viewer
uses (``vis[path]``, ``set_object``, ``set_transform``, ``set_property``, ``delete``,
``set_animation``) and keeps every command in order; :meth:`RecordingVisualizer.transforms`
and :meth:`~RecordingVisualizer.objects` give the resulting scene tree, and
:meth:`~RecordingVisualizer.animation_poses` the poses of an animation frame by frame, so a
test checks them against the DGM without a browser.
"""
from __future__ import annotations

import numpy as np


def _quaternion_matrix(q) -> np.ndarray:
    """The rotation of a quaternion in three.js order (x, y, z, w)."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


class RecordingVisualizer:
    """Records the commands a MeshCat visualizer would receive.  ``log``: a list of
    ``(command, path, *data)`` tuples, shared by every node of the tree."""

    def __init__(self, path=(), log=None):
        from meshcat.path import Path  # the viewer's extra (animations need MeshCat's Path)

        self.path = path if isinstance(path, Path) else Path(("meshcat",) + tuple(path))
        self.log = [] if log is None else log

    def __getitem__(self, name):
        return RecordingVisualizer(self.path.append(name), self.log)

    def _key(self) -> str:
        return self.path.lower()

    def set_object(self, geometry, material=None):
        self.log.append(("set_object", self._key(), geometry, material))

    def set_transform(self, matrix=np.eye(4)):
        self.log.append(("set_transform", self._key(), np.array(matrix, dtype=float)))

    def set_property(self, key, value):
        self.log.append(("set_property", self._key(), key, value))

    def delete(self):
        self.log.append(("delete", self._key()))

    def set_animation(self, animation, play=True, repetitions=1):
        self.log.append(("set_animation", self._key(), animation, play, repetitions))

    def static_html(self) -> str:
        return f"<!-- {len(self.log)} MeshCat commands recorded -->"

    def url(self):
        return None

    # -- the recorded scene ---------------------------------------------------------------
    def _latest(self, command, value) -> dict:
        """{path: value(cmd)} of the last ``command`` on each path, deletions applied."""
        out = {}
        for cmd in self.log:
            if cmd[0] == "delete":
                out = {k: v for k, v in out.items() if not k.startswith(cmd[1])}
            elif cmd[0] == command:
                out[cmd[1]] = value(cmd)
        return out

    def transforms(self) -> dict:
        """{path: the last transform set} (paths as MeshCat writes them: /meshcat/...)."""
        return self._latest("set_transform", lambda cmd: cmd[2])

    def objects(self) -> dict:
        """{path: (geometry, material)} of the objects set (and not deleted since)."""
        return self._latest("set_object", lambda cmd: (cmd[2], cmd[3]))

    def animation(self):
        """The last animation set (a ``meshcat.animation.Animation``), or None."""
        anims = [c[2] for c in self.log if c[0] == "set_animation"]
        return anims[-1] if anims else None

    def animation_poses(self, path) -> np.ndarray:
        """The poses (frames, 4, 4) of node ``path`` in the last animation (from its position
        and quaternion tracks)."""
        anim = self.animation()
        clip = next(c for p, c in anim.clips.items() if p.lower() == path)
        pos, quat = clip.tracks["position"], clip.tracks["quaternion"]
        out = np.tile(np.eye(4), (len(pos.frames), 1, 1))
        for k, (p, q) in enumerate(zip(pos.values, quat.values)):
            out[k, :3, :3] = _quaternion_matrix(q)
            out[k, :3, 3] = p
        return out


__all__ = ["RecordingVisualizer"]
