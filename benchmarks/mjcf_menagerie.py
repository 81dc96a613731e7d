"""Every model of MuJoCo Menagerie through robmod's MJCF reader and MuJoCo.

    python benchmarks/mjcf_menagerie.py PATH_TO_MUJOCO_MENAGERIE [--markdown] [--samples 3]

For each MJCF file at the top of a model's folder that MuJoCo loads and that has joints: robmod
reads it and its inverse dynamics and inertia matrix are compared with MuJoCo's
(``robmod.testing.MujocoOracle``: ``mj_inverse``, ``mj_fullM``, passive forces and constraints
off, armature on, gravity on) on random states, or robmod refuses it and the table says why.
A file with several articulated top-level bodies (a robot and a free object, two robots) is
refused by name; the table then reads its first one with ``root=`` and says so.  The table:
model, joints (MuJoCo's degrees of freedom of the tree read), result.
"""
from __future__ import annotations

import argparse
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np  # noqa: E402

#: agreement asked of robmod and MuJoCo (relative to the largest entry)
TOLERANCE = 1e-9


def model_files(menagerie: Path) -> list[Path]:
    """The MJCF files at the top of each model folder, in order."""
    return sorted(p for d in sorted(menagerie.iterdir()) if d.is_dir()
                  for p in d.glob("*.xml"))


def _feature(message: str) -> str:
    """The refusal's reason without the file's path (for the table)."""
    text = re.sub(r"^\S+:\d+(, field \S+)?: ", "", message.splitlines()[0])
    return text.replace("|", "/")


def check_file(path: Path, samples: int = 3, seed: int = 0) -> dict:
    """One row: {'model', 'joints', 'status' ('agrees', 'differs', 'refused', 'mujoco',
    'error'), 'result'} for the MJCF file ``path``."""
    import mujoco

    from robmod.description import read_mjcf
    from robmod.errors import RobmodError
    from robmod.testing import MujocoOracle

    row = {"model": f"{path.parent.name}/{path.name}", "joints": "", "status": "", "result": ""}
    try:
        model = mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:           # MuJoCo's own refusal (a missing asset, a fragment)
        row.update(status="mujoco", result=f"MuJoCo does not load it: {str(e).splitlines()[0]}")
        return row
    row["joints"] = str(model.nv)
    if model.njnt == 0:
        row.update(status="mujoco", result="no joint (an asset or scene fragment)")
        return row
    note = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            try:
                robot = read_mjcf(path)
            except RobmodError as e:
                first = re.search(r"articulated top-level bodies: '([^']+)'", str(e))
                if not first:
                    raise
                robot = read_mjcf(path, root=first.group(1))
                note = f" (several articulated bodies: root='{first.group(1)}')"
            robot = robot.numeric()
            oracle = MujocoOracle(path, robot)
            row["joints"] = str(robot.n_q + (6 if robot.base_kind == "floating" else 0))
            err = oracle.agreement(np.random.default_rng(seed), samples)
        except RobmodError as e:
            row.update(status="refused", result="refused: " + _feature(str(e)))
            return row
        except Exception as e:       # a bug of robmod's: shown as such
            row.update(status="error", result=f"ERROR {type(e).__name__}: {e}")
            return row
    status = "agrees" if err <= TOLERANCE else "differs"
    row.update(status=status, result=f"{status} to {err:.0e}{note}")
    return row


def run(menagerie: Path, samples: int = 3) -> list[dict]:
    return [check_file(p, samples) for p in model_files(menagerie)]


def summary(rows: list[dict]) -> str:
    counted = [r for r in rows if r["status"] != "mujoco"]
    by = {s: sum(r["status"] == s for r in counted) for s in ("agrees", "differs", "refused",
                                                              "error")}
    return (f"{len(counted)} models MuJoCo loads: {by['agrees']} read and agree to "
            f"{TOLERANCE:g}, {by['differs']} differ, {by['refused']} refused by name, "
            f"{by['error']} errors; {len(rows) - len(counted)} files MuJoCo does not load or "
            "that have no joint")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("menagerie", type=Path, help="a checkout of mujoco_menagerie")
    p.add_argument("--samples", type=int, default=3, help="random states per model")
    p.add_argument("--all", action="store_true", help="list the files MuJoCo does not load")
    args = p.parse_args(argv)
    rows = run(args.menagerie, args.samples)
    print("| model | joints | result |\n|---|---|---|")
    for r in rows:
        if r["status"] != "mujoco" or args.all:
            print(f"| {r['model']} | {r['joints']} | {r['result']} |")
    print("\n" + summary(rows))
    return 0 if not any(r["status"] in ("differs", "error") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
