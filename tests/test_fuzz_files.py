"""Fuzzing the robot-file readers (YAML, .par, URDF, MJCF): every mutated file gives a robot or
a RobmodError, quickly.

Default: a small budget per format.  The long run (10^4 inputs per format):

    ROBMOD_FUZZ_EXAMPLES=10000 python -m pytest -m fuzz tests/test_fuzz_files.py -p no:xdist
"""
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robmod
from robmod.cli import main
from robmod.description.files import dumps_robot
from robmod.errors import RobmodError

EXAMPLES = int(os.environ.get("ROBMOD_FUZZ_EXAMPLES", "60"))
LIBRARY = [n for n in robmod.library_names()]

NASTY = ["!!bool yes", "!!python/object:os.system", "\x00", "\x07", "\x1b[31m", "\ud800"[:0],
         "1e309", "-1e309", "nan", "inf", "9" * 5000, "1" * 20000, "[" * 2000, "{" * 2000,
         "exp(exp(exp(exp(10))))", "(a+b+c+d+e+f)**64", "2**2**2**2**2**2", "q1**99999",
         "(((9**64)**64)**64)**64", "((q1**16)**16)**16", "(9**64*sqrt(2))**64",
         "sin(exp(1e12))", "tan(pi/2)",
         "<!DOCTYPE x [<!ENTITY a \"aaaaaaaaaa\">]>", "&a;&a;&a;", "<joint>", "</robot>",
         "1e308", "-0", "1e-320", "pi/0", "0/0", "\t", "\r\n", ": :", "- - -", "*anchor",
         "&anchor x", "<<: *a", "xyz=\"1e308 0 0\"", "axis=\"1e200 0 0\"", "mass value=\"1e308\"",
         "%", "#", "'", '"', "\\", "\u00e9", "\U0001f600", "__import__('os')", "lambda: 0"]


def texts():
    out = []
    for name in LIBRARY:
        robot = robmod.load_robot(name)
        for fmt in ("yaml", "par", "urdf"):
            try:
                out.append((fmt, dumps_robot(robot.numeric() if fmt == "urdf" else robot, fmt)))
            except RobmodError:
                continue
        try:                    # MJCF (read by read_robot, written by to_mjcf)
            out.append(("xml", robmod.description.to_mjcf(robot.numeric(), coulomb="ignore")))
        except RobmodError:
            continue
    return out


TEXTS = texts()


@st.composite
def mutated(draw):
    fmt, text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5))
        pos = draw(st.integers(0, max(0, len(text))))
        if kind == 0:
            text = text[:pos] + draw(st.sampled_from(NASTY)) + text[pos:]
        elif kind == 1:     # replace a token
            end = min(len(text), pos + draw(st.integers(1, 12)))
            text = text[:pos] + draw(st.sampled_from(NASTY)) + text[end:]
        elif kind == 2:     # truncate
            text = text[:pos]
        elif kind == 3:     # duplicate a line
            lines = text.splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines.insert(k, lines[k])
                text = "".join(lines)
        elif kind == 4:     # random characters
            text = text[:pos] + draw(st.text(max_size=20)) + text[pos:]
        else:               # replace a number by a nasty number
            text = text.replace("0.", draw(st.sampled_from(["1e309", "9" * 400 + ".", "nan"])), 1)
    return fmt, text


def read_text(tmp_path, fmt, text):
    path = tmp_path / f"fuzz.{fmt}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    start = time.process_time()
    try:
        robot = robmod.read_robot(str(path))
    except RobmodError:
        robot = None
    took = time.process_time() - start
    assert took < 2.0, f"{fmt} input took {took:.2f} s"
    return robot


@pytest.mark.fuzz
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutated_files_give_a_robot_or_a_robmod_error(tmp_path_factory, case):
    fmt, text = case
    robot = read_text(tmp_path_factory.mktemp("f"), fmt, text)
    if robot is not None:   # accepted: it must be a usable description
        str(robot)
        robot.numeric()


@pytest.mark.parametrize("fmt, text, match", [
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, alpha: \x07}\n",
     "control character"),
    ("yaml", "robmod: 1\nname: !!bool yes\n", r"x.yaml:2, field name"),
    ("yaml", "robmod: 1\nname: x\nframes: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deep"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, d: 1e309}\n",
     r"x.yaml:4, frame 1, field d: value '1e309' is not finite"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: exp(exp(exp(exp(10))))}\n", "no finite value"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: (a+b+c+d+e+f)**64}\n", "exponent too large"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: 2**2**2**2**2**2}\n", "exponent too large"),
    # 12 s of CPU before an error (an exact integer of 16 million digits)
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: (((9**64)**64)**64)**64}\n", r"x.yaml:4, frame 1, field d: power too large"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: ((q1**16)**16)**16}\n", "exponent too large"),
    ("yaml", "robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
             "d: sin(L*exp(1e12))}\nvalues: {L: 0.3}\n", "no finite value"),     # hung
    ("par", "NL = 1\nNJ = 1\nNF = 1\nType = 0\nant = {0}\nsigma = {0}\nmu = {1}\n"
            "d = {(((9**64)**64)**64)**64}\ntheta = {th1}\n", "power too large"),
])
def test_known_bad_inputs_are_refused_quickly(tmp_path, fmt, text, match):
    path = tmp_path / f"x.{fmt}"
    path.write_text(text)
    start = time.process_time()
    with pytest.raises(RobmodError, match=match):
        robmod.read_robot(str(path))
    assert time.process_time() - start < 2.0


def test_cli_check_on_a_bad_file_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("robmod: 1\nname: x\nframes: [[[[\n")
    assert main(["check", str(path)]) == 2
    assert "internal error" not in capsys.readouterr().err


def test_urdf_numbers_are_linear_and_bounded(tmp_path):
    """A 16k-digit number took 7 s (a backtracking regex); 1e308 offsets, axes and masses were
    accepted and silently became 0, -z or a zero inertia."""
    robot = robmod.load_robot("panda").numeric()
    text = dumps_robot(robot, "urdf")
    cases = [('xyz="0 0 0.333"', 'xyz="0 0 ' + "1" * 16000 + 'x"', "not a finite number"),
             ('xyz="0 0 0.333"', 'xyz="1e308 0 0"', "out of range"),
             ('axis xyz="0 0 1"', 'axis xyz="1e200 0 1"', "out of range")]
    for old, new, match in cases:
        assert old in text
        path = tmp_path / "x.urdf"
        path.write_text(text.replace(old, new, 1))
        start = time.process_time()
        with pytest.raises(RobmodError, match=match):
            robmod.read_robot(str(path))
        assert time.process_time() - start < 2.0


def test_yaml_unused_values_check_is_linear(tmp_path):
    """Checking 8000 unused values took 16 s (quadratic)."""
    body = ("robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, d: A0, theta: q1}\n"
            "values:\n")
    body += "".join(f"  A{k}: {k}\n" for k in range(8000))
    path = tmp_path / "x.yaml"
    path.write_text(body)
    start = time.process_time()
    with pytest.raises(RobmodError, match="does not use"):
        robmod.read_robot(str(path))
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize("old, new", [("NL = 6", "NL = " + "9" * 5000),
                                      ("sigma = {0,0,0,0,0,0}", "sigma = {0,0,0,0,0," + "7" * 4500 + "}")])
def test_par_integers_of_thousands_of_digits(tmp_path, old, new):
    """int() of 5000 digits raised a ValueError (Python's conversion limit)."""
    text = dumps_robot(robmod.load_robot("rx90"), "par")
    path = tmp_path / "x.par"
    path.write_text(text.replace(old, new))
    with pytest.raises(RobmodError, match="too large"):
        robmod.read_robot(str(path))


@pytest.mark.fuzz
@settings(max_examples=max(10, EXAMPLES // 4), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(mutated())
def test_cli_check_never_prints_an_internal_error(tmp_path_factory, capsys, case):
    fmt, text = case
    path = tmp_path_factory.mktemp("c") / f"fuzz.{fmt}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    assert code in (0, 2) and "internal error" not in err, err


def test_huge_octal_integer_in_yaml(tmp_path, capsys):
    """YAML reads 0111... as an octal integer without Python's digit limit; printing it in the
    error message raised ValueError (the CLI said "internal error")."""
    path = tmp_path / "x.yaml"
    path.write_text("robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 0, mu: 1, "
                    "theta: q1, gamma: 0" + "1" * 20000 + "}\n")
    assert main(["check", str(path)]) == 2
    assert "out of range" in capsys.readouterr().err
