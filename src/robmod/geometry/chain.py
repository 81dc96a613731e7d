"""The serial chain of a tree (or of a closed loop's equivalent tree) as a serial robot.

The chain from the base to frame j, ``robot.chain(j) = (k_1, ..., k_m)``, is
renumbered 1..m with ``a(i) = i - 1``; each frame keeps its parameters
(gamma, b, alpha, d, theta, r), so ``(i-1)T_i`` of the chain equals
``a(k_i)T_(k_i)`` of the robot and the chain's ``0T_m`` is the robot's
``0T_j`` (Khalil & Dombre ch. 3: a tree's DGM is the DGM of the serial chain from the
base to the frame).  Joint variable ``q_i`` of the chain is ``q_(k_i)`` of the
robot.  Used by the analytic IGM of tree and closed-loop robots.
"""
from __future__ import annotations

import dataclasses

from ..description.build import make_robot
from ..errors import RobmodError
from ..description.arguments import keyword_options


@keyword_options()
def serial_chain(robot, *, j: int):
    """``(chain_robot, joints)``: the serial robot from the base to frame j and, for each of
    its frames, the robot's frame number (``chain_robot`` frame i is robot frame joints[i-1])."""
    robot.frame(j)      # a frame of the robot (a DescriptionError names it otherwise)
    ch = tuple(robot.chain(j))
    frames = [dataclasses.replace(robot.frame(k), j=i + 1, ant=i) for i, k in enumerate(ch)]
    links = []
    for i, k in enumerate(ch):
        if k <= robot.n_links:
            links.append(dataclasses.replace(robot.link(k), j=i + 1))
        else:
            raise RobmodError(f"frame {j} of {robot.name!r} is a closing frame (its chain "
                              "crosses a cut joint); take the chain of a link frame")
    tools = [dataclasses.replace(t, frame=len(ch)) for t in robot.tools if t.frame == j]
    chain = make_robot(f"{robot.name}_chain{j}", frames, links, Z=robot.Z, tools=tools,
                       gravity=robot.gravity, values=dict(robot.values),
                       source=robot.source, description=f"chain 0..{j} of {robot.name}")
    return chain, ch


__all__ = ["serial_chain"]
