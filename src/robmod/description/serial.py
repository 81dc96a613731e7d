"""Serial robots with extra fixed frames: what a robot file's structure means to the models.

A URDF arm carries fixed frames besides its joints -- a ``base`` under the first link, a
``flange`` and a ``tool0`` after the last --, each a frame with sigma = 2 (Khalil & Dombre
§3.2) that hangs off the chain of joints.  Numbered as the file gives them, such a robot
is a tree of frames (a fixed frame whose antecedent is not the frame before it), yet its
joints form one chain from the base: it is a serial robot with extra frames, and the
models of serial robots apply to the chain of its joints (the IGM to the chain's end frame,
:func:`end_frame`).
"""
from __future__ import annotations

from ..arguments import keyword_options
from .robot import FIXED


@keyword_options()
def joint_chain(robot) -> tuple[int, ...] | None:
    """The frames of the joints (sigma 0 or 1, mimic joints included) in order from the base
    when they form one chain -- each joint's nearest joint antecedent is the joint before it,
    fixed frames anywhere --; None for a tree of joints or a closed loop."""
    if robot.n_loops:
        return None
    joints = tuple(f.j for f in robot.frames[:robot.n_links] if f.sigma != FIXED)
    previous = 0
    for j in joints:
        a = robot.frame(j).ant
        while a != 0 and robot.frame(a).sigma == FIXED:
            a = robot.frame(a).ant
        if a != previous:
            return None
        previous = j
    return joints


@keyword_options()
def end_frame(robot) -> int | None:
    """The end frame of a serial robot (:func:`joint_chain`): its last joint's frame, or the
    fixed frame that continues it alone (a flange, then a tool frame: each the only frame on
    the one before), the leaf of the chain; None for a tree of joints or a closed loop."""
    chain = joint_chain(robot)
    if not chain:
        return None
    j = chain[-1]
    while True:
        children = [f.j for f in robot.frames[:robot.n_links] if f.ant == j]
        if len(children) != 1 or robot.frame(children[0]).sigma != FIXED:
            return j
        j = children[0]


def frame_label(robot, j: int) -> str:
    """``"6 (wrist_3_link)"``: a frame's number and its first name (a URDF link), if any."""
    name = next((n for n, k in robot.frame_names.items() if k == j), None)
    return f"{j} ({name})" if name else str(j)


def extra_frames_text(robot) -> str | None:
    """For a serial robot with extra fixed frames, a line naming its end frame and the
    others, which ``--frame`` and ``--tool`` reach; None otherwise."""
    end = end_frame(robot)
    if end is None or robot.structure == "serial":
        return None
    others = [f.j for f in robot.frames[:robot.n_links] if f.sigma == FIXED and f.j != end]
    return (f"end frame {frame_label(robot, end)}; fixed frames "
            + ", ".join(frame_label(robot, j) for j in others))


@keyword_options()
def structure_text(robot) -> str:
    """"serial, 6 joints, 3 fixed frames", "tree, 32 joints (12 mimic), 27 fixed frames",
    "closed, 6 joints, 1 loop", "rigid, 0 joints, 5 fixed frames": the structure as the
    joints see it."""
    joints = sum(1 for f in robot.frames[:robot.n_joints] if f.sigma != FIXED)
    fixed = sum(1 for f in robot.frames[:robot.n_links] if f.sigma == FIXED)
    if robot.n_loops:
        kind = "closed"
    elif not joints:
        kind = "rigid"          # fixed frames only (a URDF without movable joints)
    else:
        kind = "serial" if joint_chain(robot) is not None else "tree"
    text = f"{kind}, {joints} joint{'s' * (joints != 1)}"
    if robot.mimic:
        text += f" ({len(robot.mimic)} mimic)"
    if fixed:
        text += f", {fixed} fixed frame{'s' * (fixed != 1)}"
    if robot.n_loops:
        text += f", {robot.n_loops} loop{'s' * (robot.n_loops != 1)}"
    return text


__all__ = ["joint_chain", "end_frame", "structure_text"]
