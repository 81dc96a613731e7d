"""SYMORO .par files: OpenSYMORO and SYMORO+ styles, exact writer layout, round trips, errors."""
import random
import re
from pathlib import Path

import pytest
import sympy as sp

import robmod
from robmod.description import Frame, JointLimits, Link, Tool, make_robot, symbol
from robmod.description.io_par import dumps_par, loads_par, read_par, write_par
from robmod.description.io_yaml import dumps_yaml, loads_yaml
from robmod.description.library import library_names
from robmod.description.robot import transform_matrix
from robmod.errors import RobmodError

DATA = Path(__file__).parent / "data"
RX90_PAR = DATA / "rx90_opensymoro.par"
SR400_PAR = DATA / "sr400.par"
SYMOROPLUS_PAR = DATA / "rx90_symoroplus.par"
RX90_TEXT = RX90_PAR.read_text(encoding="utf-8")
SR400_TEXT = SR400_PAR.read_text(encoding="utf-8")


def symoro_default_links(nl):
    """OpenSYMORO's constructor defaults: symbolic parameters, wrench on the last link only."""
    links = []
    for j in range(1, nl + 1):
        extra = {k: symbol(f"{k}{j}") for k in ("FX", "FY", "FZ", "CX", "CY", "CZ")} \
            if j == nl else {}
        links.append(Link.symbolic(j, FC=symbol(f"FS{j}"), **extra))
    return tuple(links)


# ------------------------------------------------------------------ (1) OpenSYMORO fixture
def test_opensymoro_rx90_reads_as_library_rx90():
    r = read_par(RX90_PAR)
    lib = robmod.load_robot("rx90")
    assert r.frames == lib.frames
    assert r.name == "RX90" and r.n_links == 6 and r.structure == "serial"
    assert r.links == symoro_default_links(6)
    assert r.link(2).FC == symbol("FS2") and r.link(2).FV == symbol("FV2")  # FS -> FC
    assert r.gravity == (0, 0, symbol("GZ"))
    assert r.Z == sp.eye(4) and r.tools == () and not r.values


def test_opensymoro_rx90_written_back_byte_for_byte():
    assert dumps_par(read_par(RX90_PAR)) == RX90_TEXT
    assert RX90_TEXT.encode().count(b"\r") == 0 and len(RX90_TEXT.encode()) == 1320


def test_write_par_file(tmp_path):
    out = tmp_path / "rx90.par"
    write_par(read_par(RX90_PAR), out)
    assert out.read_bytes() == RX90_PAR.read_bytes()
    assert robmod.load_robot(out) == read_par(RX90_PAR)
    assert robmod.read_robot(out).frames == robmod.load_robot("rx90").frames


# ------------------------------------------------------------------ (2) closed loop
def test_sr400_closed_loop():
    r = read_par(SR400_PAR)
    assert (r.n_links, r.n_joints, r.n_frames) == (8, 9, 10)
    assert r.loop_pairs == ((9, 10),)
    assert r.structure == "closed"
    assert r.actuated == (1, 2, 4, 5, 6, 7)
    f10 = r.frame(10)
    assert f10.sigma == 2 and f10.ant == 3 and f10.gamma == sp.pi / 2
    assert f10.d == -symbol("D8") and f10.mu == 0
    assert r.frame(9).ant == 8 and r.frame(9).theta == 0
    assert len(r.links) == 8
    assert dumps_par(r) == SR400_TEXT


# ------------------------------------------------------------------ (3) SYMORO+ style
def test_symoroplus_file():
    r = read_par(SYMOROPLUS_PAR)
    assert r.frames == robmod.load_robot("rx90").frames  # t1..t6, Pi, wrapped lists
    assert r.name == "RX-90_L"  # sanitized from 'RX-90 L'
    assert r.gravity == (0, 0, sp.Float(-9.81))
    assert r.links == symoro_default_links(6)
    # once written by robmod, the file is in OpenSYMORO style and reads back equal
    assert loads_par(dumps_par(r), "again.par") == r


def test_symoroplus_latin1_file(tmp_path):
    p = tmp_path / "old.par"
    p.write_bytes(SYMOROPLUS_PAR.read_text(encoding="utf-8").encode("latin-1"))
    assert read_par(p).frames == robmod.load_robot("rx90").frames


def test_old_opensymoro_layout():
    old = (RX90_TEXT.replace("is_floating = False\n", "").replace("is_mobile = False",
                                                                  "is_mobile = 0")
           .replace("eta = {0,0,0,0,0,0}\nk = {0,0,0,0,0,0}\n", "")
           .replace("Velocity and acceleration", "Speed and acceleration")
           .replace("G = {0,0,GZ}", "G = {0,0,G3}"))
    r = loads_par(old, "RX90.par")
    assert r.frames == robmod.load_robot("rx90").frames and r.gravity[2] == symbol("G3")


def test_lenient_lexical_forms():
    text = RX90_TEXT.replace("alpha = {0,pi/2,0,-pi/2,pi/2,-pi/2}",
                             "ALPHA   =   { 0 , PI/2 ,0,\n  -pi/2,Pi/2,-pi/2 }  (* trailing *)")
    text = text.replace("d = {0,0,D3,0,0,0}", "d = {0,0,atan2(D3, RL4),0,0,0}")
    text = text.replace("NL = 6", "nl = 6 (* moving links *)")
    text = text.replace("theta = {th1,th2,th3,th4,th5,th6}",
                        "theta = {th1,th2 + pi/2,th3,th4,th5,t6 - Pi/4}")
    r = loads_par(text, "x.par")
    assert r.frame(2).alpha == sp.pi / 2
    assert r.frame(3).d == sp.atan2(symbol("D3"), symbol("RL4"))
    assert r.frame(2).theta == sp.pi / 2 and r.frame(6).theta == -sp.pi / 4
    again = dumps_par(r)
    assert "theta = {th1,th2 + pi/2,th3,th4,th5,th6 - pi/4}" in again
    assert "d = {0,0,atan2(D3, RL4),0,0,0}" in again
    assert loads_par(again, "y.par") == r


def test_wrong_nf_is_accepted_when_lists_agree():
    text = SR400_TEXT.replace("NF = 10", "NF = 6")
    assert loads_par(text, "sr400.par").n_frames == 10
    assert loads_par(RX90_TEXT.replace("NF = 6", "NF = 7"), "rx90.par").n_frames == 6


def test_name_from_file_and_prismatic():
    text = (RX90_TEXT.replace("(* Robotname = 'RX90' *)\n", "")
            .replace("sigma = {0,0,0,0,0,0}", "sigma = {0,0,1,0,0,0}")
            .replace("r = {0,0,0,RL4,0,0}", "r = {0,RL2,r3,0,0,0}")
            .replace("theta = {th1,th2,th3,", "theta = {th1,th2,0,"))
    r = loads_par(text, "/some/where/stanford arm.par")
    assert r.name == "stanford_arm"
    assert r.frame(3).sigma == 1 and r.frame(3).r == 0 and r.frame(2).r == symbol("RL2")
    out = dumps_par(r)
    assert "r = {0,RL2,r3,0,0,0}" in out and "theta = {th1,th2,0,th4,th5,th6}" in out


def test_elastic_joints_and_extensions():
    text = RX90_TEXT.replace("eta = {0,0,0,0,0,0}", "eta = {0,1,0,0,0,0}").replace(
        "k = {0,0,0,0,0,0}", "k = {0,k2,0,0,0,0}")
    r = loads_par(text, "x.par")
    assert r.link(2).K == symbol("k2") and r.link(1).K is None
    out = dumps_par(r)
    assert "eta = {0,1,0,0,0,0}\nk = {0,k2,0,0,0,0}\n" in out
    assert loads_par(out, "x.par") == r


# ------------------------------------------------------------------ (4) round trips
@pytest.mark.parametrize("name", library_names())
def test_library_round_trip(name):
    robot = robmod.load_robot(name)
    text = dumps_par(robot)
    assert text.endswith("(* End of definition *)\n")
    back = loads_par(text, f"{name}.par")
    assert back == robot
    assert loads_yaml(dumps_yaml(back), "x.yaml") == robot


def _expr(rng, syms):
    kind = rng.randrange(7)
    if kind == 0:
        return sp.Integer(0)
    if kind == 1:
        return symbol(rng.choice(syms))
    if kind == 2:
        return sp.Float(round(rng.uniform(-2, 2), rng.randrange(1, 17)) + 1e-3)
    if kind == 3:
        return rng.choice([sp.pi / 2, -sp.pi / 2, sp.pi, 2 * sp.pi / 3, sp.pi / 4])
    if kind == 4:
        return symbol(rng.choice(syms)) * sp.cos(symbol(rng.choice(syms)))
    if kind == 5:
        return sp.atan2(symbol(rng.choice(syms)), symbol(rng.choice(syms)))
    return -symbol(rng.choice(syms)) + sp.Rational(1, 3)


def _transform(rng, syms):
    return transform_matrix(*[_expr(rng, syms) for _ in range(6)])


def random_robot(seed):
    rng = random.Random(seed)
    syms = ["L1", "L2", "D3", "RL4", "g1", "H", "Lx_2"]
    nl = rng.randint(1, 6)
    b = rng.randint(0, 2)
    nj, nf = nl + b, nl + 2 * b
    frames = []
    for j in range(1, nf + 1):
        if j <= nl:
            ant = j - 1 if rng.random() < 0.6 else rng.randrange(j)
            sigma = rng.choice([0, 0, 1, 2])
            mu = 0 if sigma == 2 else rng.randint(0, 1)
        elif j <= nj:
            ant, sigma, mu = rng.randrange(nl + 1), rng.randint(0, 1), 0
        else:
            other = frames[j - b - 1].ant
            ant = rng.choice([a for a in range(nl + 1) if a != other])
            sigma, mu = 2, 0
        vals = {k: _expr(rng, syms) for k in ("gamma", "b", "alpha", "d", "theta", "r")}
        frames.append(Frame(j=j, ant=ant, sigma=sigma, mu=mu, **vals))
    links = []
    for j in range(1, nl + 1):
        if rng.random() < 0.4:
            link = Link.symbolic(j, FST=symbol(f"FST{j}") if rng.random() < 0.5 else sp.S.Zero)
        else:
            m, i = rng.uniform(0.1, 5), rng.uniform(0.01, 1)
            link = Link(j=j, XX=sp.Float(i), YY=sp.Float(i), ZZ=sp.Float(i), M=sp.Float(m),
                        IA=sp.Float(rng.uniform(0, 1)), FC=sp.Float(rng.uniform(0, 1)),
                        FV=symbol(f"FV{j}"), FST=sp.Float(rng.uniform(0, 2)),
                        BST=sp.Float(rng.uniform(0, 9)), FX=_expr(rng, syms),
                        CZ=_expr(rng, syms))
        lim = {}
        if rng.random() < 0.5:
            lim = {"qmin": -sp.pi, "qmax": sp.Float(rng.uniform(0.5, 3))}
        if rng.random() < 0.5:
            lim["taumax"] = symbol("TAU")
        K = rng.choice([None, None, symbol(f"K{j}"), sp.Float(rng.uniform(10, 1e4))])
        links.append(Link(**{**link.__dict__, "K": K, "limits": JointLimits(**lim)}))
    tools = [Tool(name=n, frame=rng.randint(0, nf), T=_transform(rng, syms))
             for n in rng.sample(["tcp", "tool *) = (* odd", "gripper 2", "a.b-c"],
                                 rng.randint(0, 2))]
    values = {s: sp.Float(rng.uniform(0.01, 1)) for s in rng.sample(syms, rng.randint(0, 4))}
    return make_robot(
        rng.choice(["rand", "r.2-x", "with space", "a'b"]), frames, links, n_links=nl,
        Z=_transform(rng, syms) if rng.random() < 0.5 else None, tools=tools,
        gravity=[_expr(rng, syms) for _ in range(3)], W0=[0, _expr(rng, syms), 0],
        VP0=[_expr(rng, syms), 0, 0], values=values,
        source=rng.choice(["", "made up", 'quote " and (* comment *) = and \\ and\nnewline']),
        description=rng.choice(["", "é ü unicode *) text"]))


@pytest.mark.parametrize("seed", range(40))
def test_random_round_trip(seed):
    robot = random_robot(seed)
    text = dumps_par(robot)
    back = loads_par(text, "random.par")
    assert back == robot
    assert dumps_par(back) == text


def test_random_robots_cover_loops_trees_and_extensions():
    robots = [random_robot(s) for s in range(40)]
    assert {r.structure for r in robots} == {"serial", "tree", "closed"}
    texts = "".join(dumps_par(r) for r in robots)
    for piece in ("(* robmod: name = ", "(* robmod: tool tcp frame ", '(* robmod: tool "tool ',
                  "(* robmod: FST = ", "(* robmod: BST = ", "(* robmod: qmin = ",
                  "(* robmod: value ", "(* robmod: source = ", "eta = {1", "atan2("):
        assert piece in texts, piece


# ------------------------------------------------------------------ (5) errors
def _sub(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


R, S = RX90_TEXT, SR400_TEXT
BAD = [
    # (what, text, line, words (all must appear), frame/field words or None)
    ("unknown key", _sub(R, "alpha = ", "alfa = "), 16, "unknown key 'alfa'", None),
    ("list too short", _sub(R, "d = {0,0,D3,0,0,0}", "d = {0,0,D3,0,0}"), 13,
     "expected 6", "field d"),
    ("list too long", _sub(R, "XX = {XX1,", "XX = {0,XX1,"), 21, "expected 6", "field XX"),
    ("missing NL", _sub(R, "NL = 6\n", ""), 1, "no NL", None),
    ("missing NJ", _sub(R, "NJ = 6\n", ""), 1, "no NJ", None),
    ("non-integer NL", _sub(R, "NL = 6", "NL = six"), 2, "integer", None),
    ("non-integer ant", _sub(R, "ant = {0,1,2,", "ant = {0,1,x,"), 10, "integer",
     "frame 3, field ant"),
    ("non-integer sigma", _sub(R, "sigma = {0,0,0,", "sigma = {0,0,0.5,"), 11, "integer",
     "frame 3, field sigma"),
    ("sigma 3", _sub(R, "sigma = {0,0,0,0,", "sigma = {0,0,0,3,"), 11, "sigma",
     "frame 4, field sigma"),
    ("non-integer mu", _sub(R, "mu = {1,1,", "mu = {1,yes,"), 17, "integer",
     "frame 2, field mu"),
    ("duplicate key", _sub(R, "r = {0,0,0,RL4,0,0}\n", "r = {0,0,0,RL4,0,0}\nD = {0,0,0,0,0,0}\n"),
     15, "duplicate", None),
    ("unterminated list", _sub(R, "theta = {th1,th2,th3,th4,th5,th6}",
                               "theta = {th1,th2,th3,th4,th5,th6"), 18, "not closed", None),
    ("unterminated list at end", R + "G = {0,0,\n", 61, "not closed", None),
    ("unterminated comment", _sub(R, "(* Geometric parameters *)", "(* Geometric parameters"), 9,
     "never closed", None),
    ("stray comment end", _sub(R, "(* Geometric parameters *)", "Geometric parameters *)"), 9,
     "closes no comment", None),
    ("malicious expression", _sub(R, "d = {0,0,D3,0,0,0}",
                                  "d = {0,__import__('os').system('id'),0,0,0,0}"), 13,
     "not allowed", "frame 2, field d"),
    ("malicious name", _sub(R, "d = {0,0,D3,0,0,0}", "d = {0,0,__class__,0,0,0}"), 13,
     "not allowed", "frame 3, field d"),
    ("bad expression", _sub(R, "D3", "D3 +* 2"), 13, "cannot parse", "frame 3, field d"),
    ("unbalanced parenthesis", _sub(R, "D3", "(D3"), 13, "unbalanced", None),
    ("empty value", _sub(R, "d = {0,0,D3,", "d = {0,,D3,"), 13, "empty value", None),
    ("text after list", _sub(R, "b = {0,0,0,0,0,0}", "b = {0,0,0,0,0,0} x"), 12,
     "unexpected text", None),
    ("no equal sign", _sub(R, "(* Joint parameters *)", "Joint parameters"), 41,
     "expected 'key = value'", None),
    ("scalar for a list", _sub(R, "b = {0,0,0,0,0,0}", "b = 0"), 12, "must be a list", None),
    ("list for a header", _sub(R, "NJ = 6", "NJ = {6}"), 3, "single value", None),
    ("wrong NF and lists", _sub(_sub(R, "NF = 6", "NF = 7"), "d = {0,0,D3,0,0,0}",
                                "d = {0,0,D3,0,0,0,0}"), 4, "2*NJ - NL", None),
    ("NJ huge", _sub(R, "NJ = 6", "NJ = 1000000000"), 3, "too large", None),
    ("NJ below NL", _sub(R, "NJ = 6", "NJ = 5"), 3, "at least NL", None),
    ("bad Type", _sub(R, "Type = 0", "Type = 5"), 5, "Type", None),
    ("bad boolean", _sub(R, "is_mobile = False", "is_mobile = maybe"), 7, "True or False", None),
    ("th in a fixed frame", _sub(S, "theta = {th1,th2,th3,th4,th5,th6,th7,th8,th9,0}",
                                 "theta = {th1,th2,th3,th4,th5,th6,th7,th8,th9,th10}"), 18,
     "fixed", "frame 10, field theta"),
    ("th in a prismatic frame", _sub(R, "sigma = {0,0,0,0,0,0}", "sigma = {0,0,1,0,0,0}"),
     18, "prismatic", "frame 3, field theta"),
    ("revolute without variable", _sub(R, "theta = {th1,th2,", "theta = {th1,0,"), 18,
     "variable", "frame 2, field theta"),
    ("variable twice", _sub(R, "theta = {th1,th2,", "theta = {th1,2*th2,"), 18,
     "coefficient 1", "frame 2, field theta"),
    ("negative mass", _sub(R, "M = {M1,", "M = {-2,"), 30, "negative", "frame 1, field M"),
    ("negative Coulomb friction", _sub(R, "FS = {FS1,", "FS = {-0.5,"), 33, "negative",
     "frame 1, field FS"),
    ("rigid joint with stiffness", _sub(R, "k = {0,0,", "k = {0,k2,"), 43, "eta",
     "frame 2, field k"),
    ("eta 2", _sub(R, "eta = {0,0,", "eta = {0,2,"), 42, "eta", "frame 2, field eta"),
    ("elastic cut joint", _sub(S, "eta = {0,0,0,0,0,0,0,0,0}", "eta = {0,0,0,0,0,0,0,0,1}"),
     42, "cut joint", "frame 9, field eta"),
    ("fixed frame actuated", _sub(S, "mu = {1,1,0,1,1,1,1,0,0,0}", "mu = {1,1,0,1,1,1,1,0,0,1}"),
     17, "actuated", "frame 10, field mu"),
    ("gravity with 2 components", _sub(R, "G = {0,0,GZ}", "G = {0,GZ}"), 55, "expected 3",
     "field G"),
    ("Z with 15 entries", _sub(R, "Z = {1,0,0,0,", "Z = {1,0,0,"), 58, "expected 16", "field Z"),
    ("Z not a rotation", _sub(R, "Z = {1,0,0,0,", "Z = {2,0,0,0,"), 58, "rotation", "field Z"),
    ("QP bad expression", _sub(R, "QP = {QP1,", "QP = {QP1+,"), 44, "cannot parse", None),
    ("unknown extension", _sub(R, "(* End", "(* robmod: colour = red *)\n(* End"), 60,
     "unknown robmod extension", None),
    ("extension wrong length", _sub(R, "(* End", "(* robmod: qmax = {1,2} *)\n(* End"), 60,
     "expected 6", None),
    ("extension limit reversed", _sub(R, "(* End", "(* robmod: qmin = {1,null,null,null,null,"
                                                   "null} *)\n(* robmod: qmax = {0,null,null,"
                                                   "null,null,null} *)\n(* End"), 60,
     "less than", "frame 1, field qmin"),
    ("extension malicious value", _sub(R, "(* End", "(* robmod: value D3 = ().__class__ *)\n"
                                                    "(* End"), 60, "not allowed", None),
    ("extension bad text", _sub(R, "(* End", "(* robmod: source = unquoted *)\n(* End"), 60,
     "quoted", None),
    ("extension tool on missing frame", _sub(R, "(* End", "(* robmod: tool t frame 9 T = "
                                                          "{1,0,0,0,0,1,0,0,0,0,1,0} *)\n(* End"),
     60, "does not exist", None),
    ("extension twice", _sub(R, "(* End", "(* robmod: value D3 = 1 *)\n"
                                          "(* robmod: value D3 = 2 *)\n(* End"), 61, "twice", None),
]


@pytest.mark.parametrize("what, text, line, words, where", BAD, ids=[b[0] for b in BAD])
def test_bad_input_gives_one_clear_error(what, text, line, words, where):
    with pytest.raises(RobmodError) as info:
        loads_par(text, "bad.par")
    msg = str(info.value)
    assert msg.startswith(f"bad.par:{line}") and re.match(rf"bad\.par:{line}\b", msg), msg
    assert words.lower() in msg.lower(), msg
    if where is not None:
        assert where in msg, msg


def test_error_from_file_names_the_path(tmp_path):
    p = tmp_path / "broken.par"
    p.write_text(_sub(R, "alpha = ", "alfa = "), encoding="utf-8")
    with pytest.raises(RobmodError) as info:
        read_par(p)
    assert str(info.value).startswith(f"{p}:16")
    with pytest.raises(RobmodError, match="cannot read"):
        read_par(tmp_path / "missing.par")


# ------------------------------------------------------------------ (6) floating base
FLOATING = """\
(* Robotname = 'float2' *)
NL = 2
NJ = 2
NF = 2
Type = 0
is_floating = True
is_mobile = False

(* Geometric parameters *)
ant = {0,1}
sigma = {0,0}
b = {0,0}
d = {0,D2}
r = {0,0}
gamma = {0,0}
alpha = {0,0}
mu = {1,1}
theta = {th1,th2}

(* Dynamic parameters and external forces *)
XX = {XX0,XX1,XX2}
M = {M0,M1,M2}

(* Velocity and acceleration of the base *)
W0 = {WXb,WYb,WZb}

(* Acceleration of gravity *)
G = {GX,GY,GZ}

(* Transformation of 0 frame position fT0 *)
Z = {Zr11,Zr12,Zr13,Zt1,Zr21,Zr22,Zr23,Zt2,Zr31,Zr32,Zr33,Zt3,0,0,0,1}

(* End of definition *)
"""


@pytest.mark.parametrize("text, kind", [
    (FLOATING, "floating"),
    (FLOATING.replace("is_floating = True\nis_mobile = False",
                      "is_floating = False\nis_mobile = 1 (* mobile robot *)"), "mobile"),
])
def test_floating_or_mobile_base(text, kind):
    """SYMORO's is_floating / is_mobile: the dynamic lists start with link 0, the base; the
    symbolic Z of a mobile or floating base (its pose) is the configuration of robmod's."""
    robot = loads_par(text, "float2.par")
    assert robot.base_kind == kind
    assert str(robot.base_link.XX) == "XX0" and str(robot.base_link.M) == "M0"
    assert str(robot.link(1).XX) == "XX1" and str(robot.link(2).M) == "M2"
    assert robot.Z.free_symbols == set()
    again = loads_par(dumps_par(robot), "again.par")
    assert again.base_kind == kind and again.base_link == robot.base_link


def test_floating_base_lists_need_link_0():
    text = FLOATING.replace("XX = {XX0,XX1,XX2}", "XX = {XX1,XX2}")
    with pytest.raises(RobmodError, match="float2.par:.*expected 3 .*link 0 first"):
        loads_par(text, "float2.par")
