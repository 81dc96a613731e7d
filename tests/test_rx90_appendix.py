"""Seed 000 Appendix: SYMORO+'s customized base-parameter IDM of the RX-90 equals robmod's IDM."""
from dataclasses import replace
from pathlib import Path

import numpy as np
import sympy as sp

import robmod
from robmod.description.expr import parse_expression
from robmod.dynamics import idm

FIXTURE = Path(__file__).parent / "data" / "rx90_appendix_idm.txt"


def _statements():
    text = FIXTURE.read_text()
    body = text[text.index("*)") + 2:]
    out = []
    for line in body.split("\n"):
        line = line.strip()
        if not line:
            continue
        name, rhs = line.lstrip("*").split("=", 1)
        out.append((name, parse_expression(rhs)))
    return out


def _symmetric_rx90(rng):
    """RX-90 with symmetric links (the appendix's assumptions) and random standard parameters."""
    robot = robmod.load_robot("rx90", numeric=True)
    keep = {1: (), 2: ("MX", "MY"), 3: ("MY",), 4: ("MZ",), 5: ("MY",), 6: ("MZ",)}
    links = []
    for link in robot.links:
        kw = {k: 0 for k in ("XY", "XZ", "YZ", "MX", "MY", "MZ", "FC", "FV", "FST", "BST")}
        M = rng.uniform(1, 5)
        for k in keep[link.j]:
            kw[k] = rng.uniform(-0.3, 0.3) * M
        kw.update(M=M, IA=rng.uniform(0, 0.5))
        # diagonal inertia about O_j, large enough to be consistent with the first moments
        for k in ("XX", "YY", "ZZ"):
            kw[k] = rng.uniform(0.5, 1.0)
        if link.j == 6:
            kw.update({k: rng.uniform(-2, 2) for k in ("FX", "FY", "FZ", "CX", "CY", "CZ")})
        links.append(replace(link, **kw))
    return replace(robot, links=tuple(links), gravity=(0, 0, sp.Float(-9.81)))


def _base_parameters(robot):
    """The RX-90 base parameters of SEEDS.md (general revolute rule in cascade, with IA)."""
    L = {l.j: {k: float(getattr(l, k)) for k in ("XX", "YY", "ZZ", "MX", "MY", "MZ", "M", "IA")}
         for l in robot.links}
    D3, RL4 = 0.45, 0.45
    M36 = sum(L[j]["M"] for j in (3, 4, 5, 6))
    M46 = sum(L[j]["M"] for j in (4, 5, 6))
    return {
        "ZZR1": L[1]["IA"] + L[1]["ZZ"] + L[2]["YY"] + L[3]["YY"] + D3**2 * M36,
        "XXR2": L[2]["XX"] - L[2]["YY"] - D3**2 * M36,
        "ZZR2": L[2]["IA"] + L[2]["ZZ"] + D3**2 * M36,
        "MXR2": L[2]["MX"] + D3 * M36, "MY2": L[2]["MY"],
        "XXR3": L[3]["XX"] - L[3]["YY"] + L[4]["YY"] + 2 * RL4 * L[4]["MZ"] + RL4**2 * M46,
        "ZZR3": L[3]["ZZ"] + L[4]["YY"] + 2 * RL4 * L[4]["MZ"] + RL4**2 * M46,
        "MYR3": L[3]["MY"] + L[4]["MZ"] + RL4 * M46,
        "XXR4": L[4]["XX"] - L[4]["YY"] + L[5]["YY"], "ZZR4": L[4]["ZZ"] + L[5]["YY"],
        "XXR5": L[5]["XX"] - L[5]["YY"] + L[6]["YY"], "ZZR5": L[5]["ZZ"] + L[6]["YY"],
        "MYR5": L[5]["MY"] + L[6]["MZ"],
        "XXR6": L[6]["XX"] - L[6]["YY"], "ZZ6": L[6]["ZZ"],
        "IA3": L[3]["IA"], "IA4": L[4]["IA"], "IA5": L[5]["IA"], "IA6": L[6]["IA"],
        "d3": D3, "RL4": RL4,
    }


def test_appendix_model_equals_robmod_idm():
    rng = np.random.default_rng(2024)
    stmts = _statements()
    for _ in range(5):
        robot = _symmetric_rx90(rng)
        q, qd, qdd = rng.uniform(-2, 2, (3, 6))
        env = {sp.Symbol(k): v for k, v in _base_parameters(robot).items()}
        env[sp.Symbol("G3")] = -9.81
        for k in ("FX", "FY", "FZ", "CX", "CY", "CZ"):
            env[sp.Symbol(f"{k}6")] = float(getattr(robot.link(6), k))
        for j in range(6):
            env[sp.Symbol(f"S{j + 1}")] = np.sin(q[j])
            env[sp.Symbol(f"C{j + 1}")] = np.cos(q[j])
            env[sp.Symbol(f"QP{j + 1}")] = qd[j]
            env[sp.Symbol(f"QDP{j + 1}")] = qdd[j]
        for name, rhs in stmts:
            env[sp.Symbol(name)] = float(rhs.xreplace(env))
        ours = idm(robot, q, qd, qdd)
        seed = [env[sp.Symbol(f"GAM{j}")] for j in range(1, 6)]
        assert np.abs(ours[:5] - seed).max() < 1e-12, (ours[:5], seed)


def test_appendix_operation_count_is_160_113():
    from robmod.symbolic.count import count_ops

    stmts = _statements()
    text = FIXTURE.read_text()
    constant = {line.split("=")[0].lstrip("*") for line in text.splitlines()
                if line.startswith("*")}
    constant.add("PIS22")  # SEEDS.md erratum: PIS22 = XXR2 - ZZR2 is a constant too
    m = a = 0
    for name, rhs in stmts:
        if name not in constant:
            c = count_ops(rhs)
            m, a = m + c.mults, a + c.adds
    # the printed model stops at GAM5: GAM6 = N36 + IA6*QDP6 would add 1 and 1
    assert (m + 1, a + 1) == (160, 113)
