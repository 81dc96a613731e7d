"""Simulated measurement logs of a robot, for tests and examples of identification.

* :func:`simulated_log`: a log of a robot following a trajectory, as its controller records
  it: jittered time stamps, quantized encoders, torque (current) noise, optionally measured
  velocities, torque offsets and a position loop of known bandwidth (the robot tracks the
  reference through the loop and a disturbance shakes it at the loop's bandwidth); and the
  harder cases of real logs: torques measured on the link side (joint torque sensors: no
  rotor inertia, no gear friction in them), logs low-pass filtered by the recording software,
  a logger's clock that stamps regular samples irregularly;
* :func:`sine_motion`: the motions of those logs, one or two frequencies per joint;
* :func:`arm_urdf` / :func:`realistic_arm`: a 6-axis arm described as a URDF would describe
  it (geometry, masses, diagonal inertias about offset centres of mass, no friction, no rotor
  inertia) and the "real" robot behind it (other masses and centres, products of inertia,
  rotor inertias, Coulomb and viscous friction).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp

from ..dynamics.newton_euler import idm
from ..errors import ArgumentError
from ..identification.data import MeasuredData, clean


def _tracked(trajectory, t, loop_bandwidth, disturbance, rng):
    """(q, qd, qdd) at times t of a robot tracking ``trajectory`` through a position loop
    q'' = w^2 (q_ref - q) - 2 zeta w q' + d (zeta = 0.7, w = 2 pi loop_bandwidth), d a
    disturbance of RMS ``disturbance`` (rad/s^2) in the loop's band; the loop's transfer
    functions discretized (Tustin) on a grid of 1 ms or finer, interpolated at t."""
    from scipy.interpolate import CubicSpline
    from scipy.signal import butter, cont2discrete, lfilter, lfilter_zi, sosfiltfilt

    w, z = 2 * np.pi * loop_bandwidth, 0.7
    h = min(1.0 / (20 * loop_bandwidth), 1e-3)
    grid = np.arange(t[0] - 3.0, t[-1] + 2 * h, h)
    qr = trajectory.sample(grid).q
    d = np.zeros_like(qr)
    if disturbance:
        sos = butter(2, min(2 * loop_bandwidth, 0.4 / h), fs=1 / h, output="sos")
        d = sosfiltfilt(sos, rng.normal(size=qr.shape), axis=0)
        d *= disturbance / np.sqrt(np.mean(d ** 2, axis=0))
    den = [1.0, 2 * z * w, w * w]

    def response(num, u):
        b, a, _ = cont2discrete((num, den), h, method="bilinear")
        b = np.ravel(b)
        return lfilter(b, a, u, axis=0, zi=lfilter_zi(b, a)[:, None] * u[:1])[0]

    q = response([w * w], qr) + response([1.0], d)
    qd = response([w * w, 0.0], qr) + response([1.0, 0.0], d)
    qdd = w * w * (qr - q) - 2 * z * w * qd + d
    return tuple(CubicSpline(grid, x, axis=0)(t) for x in (q, qd, qdd))


def simulated_log(robot, trajectory, *, duration=None, rate: float = 1000.0,
                  jitter: float = 0.0, encoder_bits: int | None = 18,
                  torque_noise: float = 0.02, rated=None, velocity_noise: float | None = None,
                  loop_bandwidth: float | None = None, disturbance: float = 0.0,
                  offsets=None, torque: str = "motor", prefilter: float | None = None,
                  stamp_jitter: float = 0.0, seed: int = 0) -> MeasuredData:
    """A log of ``robot`` (numeric, the truth) following ``trajectory`` (``sample(t)``).

    Time stamps at ``rate`` Hz with a random jitter (fraction of the step); positions
    quantized by encoders of ``encoder_bits`` bits per turn; torques from the IDM (rotor,
    friction included), plus ``offsets`` (per joint), plus white noise of ``torque_noise``
    times the rated torque (``rated`` per joint, default the largest |torque| of each joint
    along the motion); measured velocities with noise ``velocity_noise`` (rad/s) when given.
    ``loop_bandwidth`` (Hz): the robot tracks the trajectory through a position loop of this
    bandwidth shaken by a disturbance of RMS ``disturbance`` (rad/s^2); default: the robot
    follows the trajectory exactly.

    The harder cases: ``torque='link'``: joint torque sensors after the gear measure the
    rigid bodies' torques only (no rotor inertia, no friction of the drive; the log says so,
    ``MeasuredData.torque``); ``prefilter`` (Hz): the recording software low-passes q, qd and
    the torques (zero-phase Butterworth, order 5) before writing them; ``stamp_jitter``
    (fraction of the step): the samples are regular but the logger stamps them with a
    jittering clock.
    """
    rng = np.random.default_rng(seed)
    duration = trajectory.duration if duration is None else duration
    N = int(round(duration * rate)) + 1
    t = np.arange(N) / rate
    if jitter:
        t = t + rng.uniform(-jitter, jitter, N) / rate
        t.sort()
    if loop_bandwidth:
        q, qd, qdd = _tracked(trajectory, t, loop_bandwidth, disturbance, rng)
    else:
        s = trajectory.sample(t)
        q, qd, qdd = s.q, s.qd, s.qdd
    if torque not in ("motor", "link"):
        raise ArgumentError(f"simulated_log: torque must be 'motor' or 'link', got {torque!r}")
    tau = idm(robot, q, qd, qdd, rotor=False, friction=False) if torque == "link" else \
        idm(robot, q, qd, qdd)
    if offsets is not None:
        tau = tau + np.broadcast_to(np.asarray(offsets, float), tau.shape[1:])
    rated = np.abs(tau).max(0) if rated is None else np.broadcast_to(rated, tau.shape[1:])
    tau = tau + rng.normal(size=tau.shape) * torque_noise * rated
    if encoder_bits:
        res = 2 * np.pi / 2 ** encoder_bits
        q = np.round(q / res) * res
    meas_qd = None
    if velocity_noise is not None:
        meas_qd = qd + rng.normal(size=qd.shape) * velocity_noise
    if prefilter:
        from scipy.signal import butter, sosfiltfilt

        sos = butter(5, prefilter, fs=rate, output="sos")
        q, tau = sosfiltfilt(sos, q, axis=0), sosfiltfilt(sos, tau, axis=0)
        meas_qd = sosfiltfilt(sos, qd if meas_qd is None else meas_qd, axis=0)
    if stamp_jitter:
        t = np.sort(t + rng.uniform(-stamp_jitter, stamp_jitter, N) / rate)
    return clean(MeasuredData(t, q, meas_qd, tau, source="simulated log",
                              torque=torque if torque == "link" else None))


def sine_motion(n: int, *, frequencies: int = 1, frequency: float = 0.1, amplitude=0.6,
                seed: int = 0):
    """A motion of ``n`` joints with ``frequencies`` (1 or 2) sinusoids each, at ``frequency``
    Hz and its double, random amplitudes up to ``amplitude`` (rad/s) and phases: the poorly
    exciting motions real logs often hold (a :class:`~robmod.identification.
    FourierTrajectory`)."""
    from ..identification.excitation import FourierTrajectory

    rng = np.random.default_rng(seed)
    amp = np.broadcast_to(np.asarray(amplitude, float), (n,))[:, None]
    phase = rng.uniform(0, 2 * np.pi, (n, frequencies))
    size = amp * rng.uniform(0.5, 1.0, (n, frequencies))
    return FourierTrajectory(np.zeros(n), size * np.cos(phase), size * np.sin(phase), frequency)


# -- a 6-axis arm as a URDF describes it ---------------------------------------------------------
#: joints of a UR5-like arm: (name, parent->joint origin xyz, rpy, axis); links: (mass, centre
#: of mass in the link frame, diagonal inertia about it)
_JOINTS = (("shoulder_pan", (0, 0, 0.089159), (0, 0, 0), (0, 0, 1)),
           ("shoulder_lift", (0, 0.13585, 0), (0, 1.5707963267948966, 0), (0, 1, 0)),
           ("elbow", (0, -0.1197, 0.425), (0, 0, 0), (0, 1, 0)),
           ("wrist_1", (0, 0, 0.39225), (0, 1.5707963267948966, 0), (0, 1, 0)),
           ("wrist_2", (0, 0.093, 0), (0, 0, 0), (0, 0, 1)),
           ("wrist_3", (0, 0, 0.09465), (0, 0, 0), (0, 1, 0)))
_LINKS = ((3.7, (0, 0, 0), (0.0102675, 0.0102675, 0.00666)),
          (8.393, (0, 0, 0.28), (0.2268907, 0.2268907, 0.0151074)),
          (2.275, (0, 0, 0.25), (0.0494433, 0.0494433, 0.004095)),
          (1.219, (0, 0.01, 0), (0.0025, 0.0022, 0.0025)),
          (1.219, (0, 0, 0.01), (0.0025, 0.0025, 0.0022)),
          (0.1879, (0, 0.01, 0), (0.0001, 0.00013, 0.0001)))


def arm_urdf(name: str = "arm6") -> str:
    """The URDF of a 6-axis arm (UR5-like geometry and inertias): inertias diagonal about
    the centres of mass, no friction, no damping, no rotor inertia, a fixed tool flange."""
    def inertial(m, c, d):
        return (f'<inertial><mass value="{m}"/><origin xyz="{c[0]} {c[1]} {c[2]}" '
                f'rpy="0 0 0"/><inertia ixx="{d[0]}" ixy="0" ixz="0" iyy="{d[1]}" iyz="0" '
                f'izz="{d[2]}"/></inertial>')

    parts = [f'<robot name="{name}">', '<link name="base_link"/>']
    parent = "base_link"
    for (jn, xyz, rpy, axis), (m, c, d) in zip(_JOINTS, _LINKS):
        child = f"{jn}_link"
        parts.append(f'<link name="{child}">{inertial(m, c, d)}</link>')
        parts.append(f'<joint name="{jn}_joint" type="revolute"><parent link="{parent}"/>'
                     f'<child link="{child}"/><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" '
                     f'rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/><axis xyz="{axis[0]} {axis[1]} '
                     f'{axis[2]}"/><limit lower="-6.28" upper="6.28" effort="150" '
                     f'velocity="3.15"/></joint>')
        parent = child
    parts.append('<link name="tool0"/>')
    parts.append(f'<joint name="tool0_fixed" type="fixed"><parent link="{parent}"/>'
                 '<child link="tool0"/><origin xyz="0 0.0823 0" rpy="0 0 1.5707963267948966"/>'
                 '</joint>')
    parts.append("</robot>")
    return "\n".join(parts)


def _perturbed_body(link, rng):
    """Khalil's XX..M of ``link`` made another rigid body: mass scaled by 0.8-1.25, centre
    moved by up to 2 cm, principal inertias scaled and axes turned (products of inertia)."""
    v = {k: float(getattr(link, k) or 0.0) for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ",
                                                    "MX", "MY", "MZ", "M")}
    m = v["M"]
    c = np.array([v["MX"], v["MY"], v["MZ"]]) / m
    J = np.array([[v["XX"], v["XY"], v["XZ"]], [v["XY"], v["YY"], v["YZ"]],
                  [v["XZ"], v["YZ"], v["ZZ"]]])
    JG = J - m * (c @ c * np.eye(3) - np.outer(c, c))
    ev, V = np.linalg.eigh(JG)
    m2 = m * rng.uniform(0.8, 1.25)
    c2 = c + rng.uniform(-0.02, 0.02, 3)
    axis = rng.normal(size=3)
    angle = rng.uniform(0.1, 0.4)
    K = np.cross(np.eye(3), axis / np.linalg.norm(axis))
    R = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
    JG2 = (R @ V) @ np.diag(ev * rng.uniform(0.8, 1.25)) @ (R @ V).T * (m2 / m)
    J2 = JG2 + m2 * (c2 @ c2 * np.eye(3) - np.outer(c2, c2))
    out = dict(XX=J2[0, 0], XY=J2[0, 1], XZ=J2[0, 2], YY=J2[1, 1], YZ=J2[1, 2], ZZ=J2[2, 2],
               MX=m2 * c2[0], MY=m2 * c2[1], MZ=m2 * c2[2], M=m2)
    return {k: sp.Float(float(x)) for k, x in out.items()}


def realistic_arm(seed: int = 0, *, stribeck: bool = False):
    """(description, truth): the arm of :func:`arm_urdf` as read from its URDF, and the
    robot whose logs we pretend to record: its links other rigid bodies (masses within
    0.8-1.25 of the file's, products of inertia), rotor inertias IA 0.05-0.5 kg m^2, Coulomb
    friction FC 1-6 N m, viscous FV 0.5-4 N m s/rad; ``stribeck``: and a static friction
    1.3-2 times FC decaying with the velocity (Khalil & Dombre [7.26], BST 5-20 s/rad), which
    the identification model (Coulomb and viscous) does not have."""
    from ..description.io_urdf import loads_urdf

    rng = np.random.default_rng(seed)
    description = loads_urdf(arm_urdf(), "arm6.urdf").numeric()
    links = []
    for link in description.links:
        if description.frame(link.j).sigma == 2:
            links.append(link)
            continue
        kw = _perturbed_body(link, rng)
        kw.update(IA=sp.Float(float(rng.uniform(0.05, 0.5))),
                  FC=sp.Float(float(rng.uniform(1.0, 6.0))),
                  FV=sp.Float(float(rng.uniform(0.5, 4.0))))
        if stribeck:
            kw.update(FST=kw["FC"] * sp.Float(float(rng.uniform(1.3, 2.0))),
                      BST=sp.Float(float(rng.uniform(5.0, 20.0))))
        links.append(replace(link, **kw))
    return description, replace(description, links=tuple(links))


__all__ = ["simulated_log", "sine_motion", "arm_urdf", "realistic_arm"]
