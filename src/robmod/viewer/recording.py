"""A visualizer that records what MeshCat would be sent: headless tests, documentation, CI,
and self-contained pages written without a server.

:class:`RecordingVisualizer` has the part of ``meshcat.Visualizer``'s interface the viewer
uses (``vis[path]``, ``set_object``, ``set_transform``, ``set_property``, ``delete``,
``set_animation``) and keeps every command in order; :meth:`RecordingVisualizer.transforms`
and :meth:`~RecordingVisualizer.objects` give the resulting scene tree, and
:meth:`~RecordingVisualizer.animation_poses` the poses of an animation frame by frame, so a
test checks them against the DGM without a browser.  :meth:`~RecordingVisualizer.static_html`
is the page MeshCat's server would give for that scene (its viewer's JavaScript and the
commands, replayed in order when the page loads): no server started, no address.
"""
from __future__ import annotations

import base64
from pathlib import Path as _FilePath

import numpy as np

from ..spatial import quaternion_to_matrix

_PAGE = """<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>{title}</title>
<style>body {{ margin: 0; }} #meshcat-pane {{ width: 100vw; height: 100vh; overflow: hidden; }}
</style></head>
<body>
<div id="meshcat-pane"></div>
<script>
{viewer}
</script>
<script>
var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
function rm_bytes(text) {{
    var raw = atob(text), out = new Uint8Array(raw.length);
    for (var k = 0; k < raw.length; k++) out[k] = raw.charCodeAt(k);
    return out;
}}
{commands}
</script>
</body>
</html>
"""


def _command(entry):
    """The MeshCat command object of a recorded ``(command, path, *data)``."""
    from meshcat import commands
    from meshcat.path import Path

    kind, key, *data = entry
    path = Path(tuple(x for x in key.split("/") if x))
    if kind == "set_object":
        return commands.SetObject(data[0], data[1], path)
    if kind == "set_transform":
        return commands.SetTransform(data[0], path)
    if kind == "set_property":
        return commands.SetProperty(data[0], data[1], path)
    if kind == "delete":
        return commands.Delete(path)
    return commands.SetAnimation(data[0], play=data[1], repetitions=data[2])


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

    def static_html(self, title: str = "robmod") -> str:
        """A self-contained HTML page of the recorded scene (and its animation): MeshCat's
        viewer and the commands, replayed in their order (no server)."""
        import meshcat
        import umsgpack

        viewer = (_FilePath(meshcat.__file__).parent / "viewer" / "dist" /
                  "main.min.js").read_text(encoding="utf-8")
        lines = []
        for entry in self.log:
            data = base64.b64encode(umsgpack.packb(_command(entry).lower())).decode("ascii")
            lines.append(f'viewer.handle_command_bytearray(rm_bytes("{data}"));')
        return _PAGE.format(title=title, viewer=viewer, commands="\n".join(lines))

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
            x, y, z, w = q                               # three.js order
            out[k, :3, :3] = quaternion_to_matrix([w, x, y, z])
            out[k, :3, 3] = p
        return out


__all__ = ["RecordingVisualizer"]
