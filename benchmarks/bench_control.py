"""Closed-loop simulation speed: robmod's compiled plant and controllers, and MuJoCo's mj_step
on the same robot in the same run.

    python benchmarks/bench_control.py
"""
import dataclasses

import numpy as np
import sympy as sp

import robmod
from robmod.control import ComputedTorque, simulate
from robmod.testing.random import with_random_dynamics


def robot_without_coulomb():
    r = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(1),
                             friction=True)
    return dataclasses.replace(r, links=tuple(dataclasses.replace(l, FC=sp.Integer(0))
                                              for l in r.links))


class Sines:
    """A vectorized reference: q^d(t) = 0.5 sin(w t), sampled on arrays of times."""

    w = np.linspace(0.5, 1.5, 6)

    def sample(self, t):
        t = np.asarray(t, float)[..., None]
        return (0.5 * np.sin(self.w * t), 0.5 * self.w * np.cos(self.w * t),
                -0.5 * self.w ** 2 * np.sin(self.w * t))


from run import best as best_of  # noqa: E402  (benchmarks/run.py; the script's folder is on sys.path)


def best(fn, repeat=3):
    return best_of(fn, repeat)[0]


def main():
    robot = robot_without_coulomb()
    ct = ComputedTorque(robot, omega=20.0)
    ref = Sines()
    simulate(robot, ct, ref, 0.01)  # generate and compile once
    wall = best(lambda: simulate(robot, ct, ref, 10.0))
    print(f"RX-90 computed torque, 1 kHz, 10 s of motion, RK4: {wall:.3f} s wall "
          f"({wall / 1e4 * 1e6:.1f} us per control step)")
    x0 = np.zeros((1000, 12))
    x0[:, :6] = np.random.default_rng(0).uniform(-0.05, 0.05, (1000, 6))
    walls = best(lambda: simulate(robot, ct, ref, 2.0, x0=x0), repeat=1)
    print(f"1000 runs of 2 s batched: {walls:.2f} s wall")
    # plant step alone vs MuJoCo
    from robmod.control.plant import Dynamics
    from robmod.dynamics.integration import configuration_space, rk4
    ddm = Dynamics.of(robot).ddm
    q, qd, tau, z = np.zeros(6), np.zeros(6), np.ones(6), np.zeros(0)
    space = configuration_space(robot, 6)

    def held(t, a, b, c):
        return ddm(a, b, tau), c
    n = 20000
    t_rm = best(lambda: [rk4(space, held, 0.0, 1e-4, q, qd, z) for _ in range(n)]) / n
    try:
        import mujoco

        from robmod.description.io_mjcf import to_mjcf
        m = mujoco.MjModel.from_xml_string(to_mjcf(robot, timestep=1e-4))
        d = mujoco.MjData(m)
        d.qfrc_applied[:] = 1.0
        t_mj = best(lambda: [mujoco.mj_step(m, d) for _ in range(n)]) / n
        print(f"one RK4 step of the plant: robmod {t_rm * 1e6:.2f} us, MuJoCo mj_step (RK4) "
              f"{t_mj * 1e6:.2f} us: ratio {t_mj / t_rm:.2f}x")
    except ImportError:
        print(f"one RK4 step of the plant: robmod {t_rm * 1e6:.2f} us (MuJoCo not installed)")


if __name__ == "__main__":
    main()
