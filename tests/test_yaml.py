"""Native YAML format: reading, writing, and one clear error per kind of bad input."""
import re

import numpy as np
import pytest
import sympy as sp

from robmod.description import symbol
from robmod.description.io_yaml import dumps_yaml, loads_yaml
from robmod.errors import RobmodError

GOOD = """\
robmod: 1
name: demo
frames:
  - {j: 1, ant: 0, sigma: 0, mu: 1, alpha: 0, d: 0, theta: q1, r: 0}
  - {j: 2, ant: 1, sigma: 1, mu: 1, alpha: pi/2, d: L1, theta: pi/2, r: q2 + 0.1}
  - {j: 3, ant: 2, sigma: 0, mu: 1, alpha: -pi/2, d: 0, theta: th3 - pi/4, r: L2/2}
link_defaults: zero
links:
  - {j: 1, ZZ: 0.5, M: 2, MX: 0.2, XX: 0.1, YY: 0.5, IA: 0.01, FC: 0.1, FV: 0.2}
  - {j: 3, M: M3, XX: XX3}
joints:
  - {j: 1, qmin: -pi, qmax: pi, qdmax: 3, taumax: 100}
base:
  gravity: [0, 0, -9.81]
tools:
  - {name: tcp, frame: 3, r: 0.1}
values: {L1: 0.4, L2: 0.3}
"""


def test_reads_good_file():
    r = loads_yaml(GOOD, "good.yaml")
    assert r.name == "demo" and r.n_frames == 3 and r.structure == "serial"
    f2, f3 = r.frame(2), r.frame(3)
    assert f2.sigma == 1 and f2.r == sp.Float(0.1) and f2.theta == sp.pi / 2
    assert f3.theta == -sp.pi / 4 and f3.r == symbol("L2") / 2
    assert r.link(1).M == 2 and r.link(1).IA == sp.Float(0.01)
    assert r.link(2).M == 0 and r.link(3).M == symbol("M3")
    assert r.link(1).limits.qmax == sp.pi
    assert r.gravity[2] == sp.Float(-9.81)
    assert r.tools[0].T[2, 3] == sp.Float(0.1)
    num = r.numeric()
    assert num.frame(2).d == sp.Float(0.4)


def test_yaml_round_trip():
    r = loads_yaml(GOOD, "good.yaml")
    text = dumps_yaml(r)
    r2 = loads_yaml(text, "again.yaml")
    assert r2 == r


BAD = [
    # (what is wrong, file text, expected line or None, words the message must contain)
    ("yaml syntax", "name: x\nframes: [\n", None, "syntax"),
    ("empty file", "", None, "empty"),
    ("top is a list", "- 1\n- 2\n", 1, "mapping"),
    ("unknown top key", GOOD.replace("values:", "valeus:"), 17, "unknown key 'valeus'"),
    ("bad version", "robmod: 2\n" + GOOD.split("\n", 1)[1], 1, "version"),
    ("no name", GOOD.replace("name: demo\n", ""), None, "name"),
    ("no frames", "robmod: 1\nname: x\n", None, "frames"),
    ("frames not list", "robmod: 1\nname: x\nframes: 3\n", 3, "list"),
    ("frame not mapping", "robmod: 1\nname: x\nframes:\n  - 3\n", 4, "mapping"),
    ("frame out of order", GOOD.replace("{j: 2,", "{j: 5,"), 5, "order"),
    ("unknown frame key", GOOD.replace("alpha: pi/2, d: L1", "alfa: pi/2, d: L1"), 5,
     "did you mean"),
    ("missing ant", GOOD.replace("{j: 2, ant: 1, ", "{j: 2, "), 5, "ant"),
    ("ant not int", GOOD.replace("{j: 2, ant: 1,", "{j: 2, ant: one,"), 5, "integer"),
    ("ant forward", GOOD.replace("{j: 2, ant: 1,", "{j: 2, ant: 3,"), 5, "a(j) < j"),
    ("sigma 3", GOOD.replace("{j: 2, ant: 1, sigma: 1", "{j: 2, ant: 1, sigma: 3"), 5,
     "sigma"),
    ("mu 2", GOOD.replace("sigma: 0, mu: 1, alpha: 0,", "sigma: 0, mu: 2, alpha: 0,"), 4,
     "mu"),
    ("fixed actuated", GOOD.replace("{j: 1, ant: 0, sigma: 0, mu: 1, alpha: 0, d: 0, theta: q1",
                                    "{j: 1, ant: 0, sigma: 2, mu: 1, alpha: 0, d: 0, theta: 0"),
     4, "fixed"),
    ("no variable", GOOD.replace("theta: q1", "theta: 0"), 4, "variable"),
    ("variable in wrong column", GOOD.replace("theta: q1, r: 0", "theta: q1, r: q1"), 4,
     "sigma"),
    ("variable of other joint", GOOD.replace("theta: q1,", "theta: q1 + q2,"), 4,
     "joint variable"),
    ("nonlinear variable", GOOD.replace("theta: q1,", "theta: 2*q1,"), 4, "coefficient 1"),
    ("malicious expression", GOOD.replace("d: L1", "d: \"__import__('os').system('id')\""), 5,
     "not allowed"),
    ("unknown function", GOOD.replace("d: L1", "d: foo(L1)"), 5, "not allowed"),
    ("bad expression", GOOD.replace("d: L1", "d: L1 +* 2"), 5, "cannot parse"),
    ("negative mass", GOOD.replace("M: 2,", "M: -2,"), 9, "negative"),
    ("inconsistent inertia", GOOD.replace("XX: 0.1, YY: 0.5", "XX: 0.01, YY: 0.01"), 9,
     "inertia"),
    ("massless with inertia", GOOD.replace("M: 2, MX: 0.2,", "M: 0, MX: 0.2,"), 9,
     "massless"),
    ("unknown link field", GOOD.replace("FV: 0.2", "FW: 0.2"), 9, "unknown key"),
    ("link does not exist", GOOD.replace("{j: 3, M: M3", "{j: 7, M: M3"), 10, "does not exist"),
    ("link twice", GOOD.replace("{j: 3, M: M3", "{j: 1, M: M3"), 10, "twice"),
    ("limits reversed", GOOD.replace("qmin: -pi, qmax: pi", "qmin: pi, qmax: -pi"), 12,
     "less than"),
    ("negative velocity limit", GOOD.replace("qdmax: 3", "qdmax: -3"), 12, "positive"),
    ("gravity with 2 components", GOOD.replace("[0, 0, -9.81]", "[0, -9.81]"), 14,
     "3 components"),
    ("tool on missing frame", GOOD.replace("frame: 3, r: 0.1", "frame: 9, r: 0.1"), None,
     "does not exist"),
    ("tool without frame", GOOD.replace("frame: 3, r: 0.1", "r: 0.1"), 16, "frame"),
    ("bad base matrix", GOOD.replace("  gravity:", "  Z: [[1, 0], [0, 1]]\n  gravity:"), 14,
     "4x4"),
    ("non-rotation base", GOOD.replace("  gravity:",
                                       "  Z: [[2,0,0,0],[0,1,0,0],[0,0,1,0]]\n  gravity:"),
     14, "rotation"),
    ("yaml alias", GOOD.replace("values: {L1: 0.4, L2: 0.3}",
                                "values: &v {L1: 0.4, L2: 0.3}\nextra: *v"), None, "alias"),
    ("python tag", GOOD.replace("d: L1", "d: !!python/object/apply:os.system ['id']"), 5,
     "tag"),
    ("duplicate key", GOOD.replace("name: demo\n", "name: demo\nname: other\n"), 3,
     "duplicate"),
    ("unused value", GOOD.replace("L2: 0.3}", "L2: 0.3, L9: 1}"), 17, "does not use"),
    ("n_links odd loops", GOOD.replace("name: demo\n", "name: demo\nn_links: 2\n").replace(
        "  - {j: 3, M: M3, XX: XX3}\n", ""), None,
     "even"),
    ("nan value", GOOD.replace("d: L1", "d: .nan"), 5, "finite"),
    ("boolean value", GOOD.replace("d: L1", "d: true"), 5, "number"),
    ("timestamp value", GOOD.replace("d: L1", "d: 2001-12-14"), 5, "tag"),
]


@pytest.mark.parametrize("what, text, line, words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_gives_one_clear_error(what, text, line, words):
    with pytest.raises(RobmodError) as info:
        loads_yaml(text, "robot.yaml")
    msg = str(info.value)
    assert msg.startswith("robot.yaml"), msg
    assert words.lower() in msg.lower(), msg
    if line is not None:
        assert re.match(rf"robot\.yaml:{line}\b", msg), msg
    assert "Traceback" not in msg


def test_frame_and_field_named():
    bad = GOOD.replace("M: 2,", "M: -2,")
    with pytest.raises(RobmodError) as info:
        loads_yaml(bad, "robot.yaml")
    assert "frame 1" in str(info.value) and "field M" in str(info.value)


def test_numeric_and_symbolic_same_robot():
    r = loads_yaml(GOOD, "good.yaml")
    assert symbol("L1") in r.symbols
    n = r.numeric()
    assert symbol("L1") not in n.symbols and n.frame(2).d == sp.Float(0.4)
    n2 = r.numeric({"L1": 1})
    assert n2.frame(2).d == 1


def test_robot_is_immutable():
    r = loads_yaml(GOOD, "good.yaml")
    with pytest.raises(Exception):
        r.name = "other"
    with pytest.raises(Exception):
        r.frames[0].alpha = 1
    assert hash(r.frames[0]) is not None and np is not None
