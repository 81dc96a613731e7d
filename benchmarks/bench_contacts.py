"""Contacts: constrained forward dynamics against Pinocchio's ``constraintDynamics`` (one call,
and a batch against a Pinocchio loop), and 10 s of Solo-12's trot at 1 kHz with the
whole-body controller, measured in the same run.

    python benchmarks/bench_contacts.py [--robots solo12,talos_reduced] [--trot 10] [--repeat 3]

Goals (issue 39): constrained forward dynamics faster than Pinocchio's, single and batched;
10 s of trot at 1 kHz in under 1 s.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.description import ContactPoint, ContactSurface  # noqa: E402
from robmod.testing import example_robot_data  # noqa: E402
from robmod.testing.peers import PinocchioRobot  # noqa: E402

FILES = {"solo12": "solo_description/robots/solo12.urdf",
         "talos_reduced": "talos_data/robots/talos_reduced.urdf"}


def contacts_of(name):
    if name == "solo12":
        return tuple(ContactPoint(f"{leg}_FOOT", friction=0.8) for leg in ("FL", "FR", "HL", "HR"))
    return tuple(ContactSurface.rectangle(f"{s}_sole_link", 0.2, 0.1) for s in ("left", "right"))


def frictionless(robot):
    from dataclasses import replace

    return replace(robot, links=tuple(replace(link, FV=0, FC=0) for link in robot.links))


def states(robot, n, rng):
    Q = rng.normal(size=(n, 4))
    q = np.column_stack([rng.normal(size=(n, 3)), Q / np.linalg.norm(Q, axis=1)[:, None],
                         rng.uniform(-0.5, 0.5, (n, robot.n_q))])
    return q, rng.normal(size=(n, 6 + robot.n_q)), rng.normal(size=(n, robot.n_q))


def constrained(name, n_batch=20_000, reps=2000):
    import pinocchio as pin
    from robmod.dynamics import constrained_ddm

    robot = frictionless(robmod.read_robot(example_robot_data(FILES[name]),
                                           base="floating").numeric())
    contacts = contacts_of(name)
    robmod.set_backend("compiled")
    rng = np.random.default_rng(0)
    q, v, tau = states(robot, n_batch, rng)
    P = PinocchioRobot(robot, floating=True)
    m, d = P.model, P.data
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for c in contacts:
        fid = P.frame_id[robot.frame_number(c.frame)]
        f = m.frames[fid]
        p = c.point if c.size == 3 else c.center
        kind = pin.ContactType.CONTACT_3D if c.size == 3 else pin.ContactType.CONTACT_6D
        cm = pin.RigidConstraintModel(kind, m, f.parentJoint,
                                      f.placement * pin.SE3(np.eye(3), np.array(p)),
                                      pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        models.append(cm)
        datas.append(cm.createData())
    pin.initConstraintDynamics(m, d, models, datas)
    settings = pin.ProximalSettings(1e-12, 1e-12, 0, 1)
    n_peer = 500
    pq = [P.pin_q(q[k]) for k in range(n_peer)]
    pv = [P.pin_v(v[k]) for k in range(n_peer)]
    pt = [P.pin_v(np.r_[np.zeros(6), tau[k]]) for k in range(n_peer)]
    a = pin.constraintDynamics(m, d, pq[0], pv[0], pt[0], models, datas, settings)
    ours = constrained_ddm(robot, q[0], v[0], tau[0], contacts)
    err = np.abs(P.robmod_v(a) - ours.qdd).max() / max(1, np.abs(a).max())
    t0 = time.perf_counter()
    for k in range(reps):
        constrained_ddm(robot, q[k % n_peer], v[k % n_peer], tau[k % n_peer], contacts)
    single = (time.perf_counter() - t0) / reps * 1e6
    t0 = time.perf_counter()
    for k in range(reps):
        i = k % n_peer
        pin.constraintDynamics(m, d, pq[i], pv[i], pt[i], models, datas, settings)
    peer = (time.perf_counter() - t0) / reps * 1e6
    constrained_ddm(robot, q, v, tau, contacts)
    t0 = time.perf_counter()
    constrained_ddm(robot, q, v, tau, contacts)
    batched = (time.perf_counter() - t0) / n_batch * 1e6
    return single, peer, batched, err


def trot(duration, repeat=1):
    from robmod.control import Trot, WholeBodyController, simulate
    from robmod.geometry import neutral

    solo = robmod.read_robot(example_robot_data(FILES["solo12"]), base="floating").numeric()
    feet = contacts_of("solo12")
    q = neutral(solo)
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)
    q[2] = 0.22294615
    robmod.set_backend("compiled")
    warm = WholeBodyController(solo, feet, gait=Trot(), velocity=(0.2, 0, 0), tau_max=2.7)
    simulate(solo, warm, None, 0.3, x0=np.r_[q, np.zeros(18)], contacts=feet)   # compiles
    walls, cpus = [], []
    for _ in range(repeat):          # the best of a few: the machine is shared
        wbc = WholeBodyController(solo, feet, gait=Trot(), velocity=(0.2, 0, 0), tau_max=2.7)
        t0, c0 = time.perf_counter(), time.process_time()
        run = simulate(solo, wbc, None, duration, x0=np.r_[q, np.zeros(18)], contacts=feet)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus), run.q[-1, :3], np.abs(run.tau).max()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--robots", default="solo12,talos_reduced")
    ap.add_argument("--trot", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the trot (the best kept)")
    args = ap.parse_args(argv)
    print("constrained forward dynamics (us per configuration)")
    for name in args.robots.split(","):
        single, peer, batched, err = constrained(name)
        print(f"  {name:14s} robmod {single:7.2f} us, Pinocchio {peer:7.2f} us "
              f"({peer / single:.2f}x); batched {batched:.3f} us ({peer / batched:.1f}x a "
              f"Pinocchio loop); agreement {err:.1e}")
    if args.trot > 0:
        wall, cpu, base, tau = trot(args.trot, args.repeat)
        print(f"trot of Solo-12, {args.trot:g} s at 1 kHz with the whole-body controller (best "
              f"of {args.repeat}): {wall:.2f} s, CPU {cpu:.2f} s "
              f"({wall / args.trot * 1e3:.0f} us per step; goal 1 s: "
              f"{'met' if wall <= 1.0 else 'MISSED'}); base at {np.round(base, 3)}, "
              f"|tau| <= {tau:.2f} N m")


if __name__ == "__main__":
    main()
