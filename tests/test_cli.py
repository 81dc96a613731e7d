"""The command line: each command, and one clear error line for bad input."""
import re
import subprocess
import sys

import pytest

import robmod
from robmod.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0 and "rx90" in out and "scara" in out


def test_show(capsys):
    code, out, _ = run(capsys, "show", "rx90")
    assert code == 0 and "Geometric parameters" in out and "RL4" in out


def test_check_and_convert(capsys, tmp_path):
    target = tmp_path / "rx90.par"
    code, out, _ = run(capsys, "convert", "src/robmod/robots/rx90.yaml", str(target))
    assert code == 0 and target.exists()
    code, out, _ = run(capsys, "check", str(target))
    assert code == 0 and "OK" in out


def test_models_writes_files(capsys, tmp_path):
    """The main job: a folder of files and one table on the terminal (Example 3.4: the DGM
    of the RX-90 in 44 multiplications and 18 additions; Table 7.6 with friction 306/289)."""
    code, out, err = run(capsys, "models", "rx90", "--out", str(tmp_path))
    assert code == 0
    assert re.search(r"DGM 0Tn +44 +18 +12 +[\d.]+ +rx90_dgm.txt", out)
    assert re.search(r"IDM \(Newton-Euler\) +306 +289 ", out)
    assert len(out.splitlines()) < 20 and "[8/8] DDM" in err          # no flood
    names = {p.name for p in tmp_path.iterdir()}
    assert {"rx90_dgm.txt", "rx90_dgm.py", "rx90_dgm.c", "rx90_dgm.h", "rx90_dgm.m",
            "rx90_dgm.tex", "summary.txt"} <= names
    assert "Number of operations: 44 '*' or '/', 18 '+' or '-'" in \
        (tmp_path / "rx90_dgm.txt").read_text()
    assert "DGM 0Tn" in (tmp_path / "summary.txt").read_text()
    code, out, err = run(capsys, "models", "rx90", "--out", str(tmp_path), "--print", "--quiet")
    assert "Number of operations: 44 '*' or '/', 18 '+' or '-'" in out and err == ""


def test_models_progress_bar_on_a_terminal(monkeypatch):
    """On a terminal the progress is a Rich bar on stderr, gone when done (transient)."""
    import io

    from robmod.cli.models import _generate

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    robot = robmod.load_robot("scara")
    results = _generate(robot, quiet=False)
    assert [r[0] for r in results][:2] == ["DGM 0Tn", "IGM (Paul)"]
    assert "DDM (recursive)" in err.getvalue() and "[1/" not in err.getvalue()


@pytest.mark.parametrize("argv, words", [
    (["show", "no_such_robot"], "no robot"),
    (["check", "missing.yaml"], "not found"),
    (["convert", "src/robmod/robots/rx90.yaml", "out.xyz"], "unknown file type"),
    (["models", "rx90", "--out", "/tmp/x", "--formats", "docx"], "unknown export format"),
])
def test_errors_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert words in err and err.startswith("robmod: error:") and err.count("\n") == 1
    assert "Traceback" not in err


def test_bad_file_error_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("robmod: 1\nname: x\nframes:\n  - {j: 1, ant: 0, sigma: 5, theta: q1}\n")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 2 and f"{bad}:4" in err and "sigma" in err


def test_console_script_entry_point():
    res = subprocess.run([sys.executable, "-m", "robmod.cli", "list"], capture_output=True,
                         text=True)
    assert res.returncode == 0 and "rx90" in res.stdout


def test_models_writes_the_dynamic_models(capsys, tmp_path):
    code, out, _ = run(capsys, "models", "scara", "--out", str(tmp_path), "--formats", "txt")
    assert code == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {f"scara_{m}.txt" for m in ("dgm", "igm", "igm_solution", "jacobian",
                                                   "jdot_qdot", "idm", "inertia", "ccg",
                                                   "ddm_recursive")} | {"summary.txt"}


def test_short_reprs_and_html_tables():
    """Jupyter: a one-line repr, HTML tables for the robot and its base parameters."""
    import robmod
    from robmod.identification import base_parameters

    rx90 = robmod.load_robot("rx90")
    assert repr(rx90).startswith("<Robot 'rx90': serial, 6 joint variables") and \
        "\n" not in repr(rx90)
    html = rx90._repr_html_()
    assert html.count("<tr>") >= 7 and "RL4" in html and "<caption>Geometric" in html
    bp = base_parameters(robmod.load_robot("planar2"))
    assert "\n" not in repr(bp) and "base parameters" in repr(bp)
    assert bp._repr_html_().count("<tr>") == len(bp.base) + 1


def test_help_has_no_markup(capsys):
    """The CLI help showed reStructuredText backticks (``robmod``)."""
    for cmd in ([], ["models"], ["traj"], ["draw"], ["warmup"], ["igm"]):
        with pytest.raises(SystemExit):
            main(cmd + ["--help"])
        out = capsys.readouterr().out
        assert "``" not in out and "usage: robmod" in out


def test_version_from_both_entry_points():
    """`python -m robmod --version` and the installed `robmod` script print robmod's version
    (robmod.version.__version__, which pyproject.toml reads too), then the C compiler of the
    compiled path."""
    from pathlib import Path

    from robmod import __version__

    script = Path(sys.executable).with_name("robmod")
    commands = [[sys.executable, "-m", "robmod", "--version"]]
    if script.exists():          # installed (make run / make test); absent when run from src only
        commands.append([str(script), "--version"])
    for cmd in commands:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        lines = res.stdout.splitlines()
        assert res.returncode == 0 and lines[0] == f"robmod {__version__}", (cmd, res)
        assert lines[1].startswith("C compiler: "), (cmd, res)
