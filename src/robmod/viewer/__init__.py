"""The robot in 3D in the browser, still and animated (MeshCat: ``pip install 'robmod[viewer]'``).

* :func:`view` — the robot at a configuration in MeshCat (a server on localhost, opened in the
  browser, or inline in Jupyter): the URDF's visual meshes (STL, DAE, OBJ) when the robot comes
  from a URDF file that has them, else capsules along the links; the KK frames, the joint axes
  and the velocity, force and dynamic manipulability ellipsoids as overlays.
* :func:`animate` (or :meth:`Viewer.animate`) — a trajectory, a simulation result or a measured
  log played as a MeshCat animation, with its time controls.
* :class:`RecordingVisualizer` — records what MeshCat would receive (tests, documentation,
  headless machines).

A layer beside :mod:`robmod.plot` (Matplotlib's still pictures), on top of the others.
"""
from .meshcat_view import Viewer, animate, view
from .recording import RecordingVisualizer
from .scene import RobotScene, Shape

__all__ = [
    # meshcat_view
    "Viewer", "view", "animate",
    # recording
    "RecordingVisualizer",
    # scene
    "RobotScene", "Shape",
]
