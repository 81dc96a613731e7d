"""The contact scene in MuJoCo (through to_mjcf): Solo-12 standing under the same joint law
carries the same forces on its feet as in robmod's simulation, within MuJoCo's softness."""
import numpy as np
import pytest

import robmod
from robmod.control import simulate
from robmod.description import ContactPoint, ground, to_mjcf
from robmod.dynamics import contact_idm
from robmod.geometry import neutral
from robmod.testing import example_robot_data

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("proxsuite")

FEET = tuple(ContactPoint(f"{leg}_FOOT", friction=0.8) for leg in ("FL", "FR", "HL", "HR"))


def test_solo_standing_has_the_same_foot_forces_in_mujoco():
    solo = robmod.read_robot(example_robot_data("solo_description/robots/solo12.urdf"),
                             base="floating").numeric()
    q0 = neutral(solo)
    q0[7:] = np.tile([0.0, 0.8, -1.6], 4)
    q0[2] = 0.22294615
    ff = contact_idm(solo, q0, np.zeros(18), np.zeros(18), FEET).tau

    def law(t, q, qd):           # the standing torques and a joint PD: the same in both
        return ff + 20.0 * (q0[7:] - q[7:]) - 0.5 * qd[6:]

    run = simulate(solo, law, None, 1.0, x0=np.r_[q0, np.zeros(18)], contacts=FEET)
    ours = run.contact_forces[-1]
    xml = to_mjcf(solo, timestep=1e-3, integrator="Euler", contacts=FEET, environment=ground())
    assert 'type="plane"' in xml and xml.count('type="sphere"') == 4
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    joints = [model.joint(f"q{j}") for j in solo.joints]
    data.qpos[:7] = q0[:7]
    for jt, x in zip(joints, q0[7:]):
        data.qpos[jt.qposadr[0]] = x
    for _ in range(1000):
        q = np.r_[data.qpos[:7], [data.qpos[jt.qposadr[0]] for jt in joints]]
        qd = np.r_[np.zeros(6), [data.qvel[jt.dofadr[0]] for jt in joints]]
        tau = law(0.0, q, qd)
        for jt, u in zip(joints, tau):
            data.qfrc_applied[jt.dofadr[0]] = u
        mujoco.mj_step(model, data)
    theirs = np.zeros((4, 3))
    names = [model.geom(f"contact_{p.name}_0").id for p in FEET]
    f6 = np.zeros(6)
    for i in range(data.ncon):
        c = data.contact[i]
        mujoco.mj_contactForce(model, data, i, f6)
        k = names.index(c.geom1) if c.geom1 in names else names.index(c.geom2)
        theirs[k] += c.frame.reshape(3, 3).T @ f6[:3]     # contact frame -> world
    weight = 9.81 * float(solo.base_link.M + sum(link.M for link in solo.links))
    assert np.isclose(ours[:, 2].sum(), weight, rtol=1e-6)
    assert np.isclose(abs(theirs[:, 2]).sum(), weight, rtol=1e-3)
    # the same split between the feet, within MuJoCo's soft contacts
    print("robmod", ours[:, 2], "mujoco", theirs[:, 2])
    assert np.allclose(abs(theirs[:, 2]), ours[:, 2], rtol=2e-2), (theirs, ours)
