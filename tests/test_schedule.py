"""The order of the statements in compiled code (robmod.symbolic.schedule): every statement
once, after what it reads; every output once, after its statements; fewer values alive at the
peak on the large models, never more than the recursion's own order; the compiled results do
not depend on the order."""
import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm_model, idm_model
from robmod.dynamics.derivatives import idm_derivatives_model
from robmod.symbolic.schedule import _as_needed, _peak_alive, schedule
from robmod.testing.random import random_robot


def _own(model):
    items = [("statement", lhs, rhs) for lhs, rhs in model.statements]
    return items + [("output", k, e)
                    for k, e in enumerate(e for o in model.outputs for e in o.exprs)]


def _check_order(model, items, skip=frozenset()):
    statements = {lhs for lhs, _ in model.statements}
    seen = set(skip)
    emitted, outputs = [], []
    for kind, lhs, rhs in items:
        assert (rhs.free_symbols & statements) <= seen, f"{lhs} read before it is computed"
        if kind == "statement":
            assert lhs not in seen
            seen.add(lhs)
            emitted.append(lhs)
        else:
            outputs.append(lhs)
    assert set(emitted) == statements - set(skip)
    assert sorted(outputs) == list(range(sum(len(o.exprs) for o in model.outputs)))


@pytest.fixture(scope="module")
def panda():
    return robmod.load_robot("panda")


@pytest.mark.parametrize("make", [idm_model, ddm_model, idm_derivatives_model])
def test_every_statement_once_after_what_it_reads(panda, make):
    model = make(panda)
    for items in (schedule(model), _as_needed(model)):
        _check_order(model, items)
    skip = {lhs for lhs, _ in model.statements[:5]}
    _check_order(model, schedule(model, skip), skip)


def test_fewer_values_alive_on_the_derivatives(panda):
    model = idm_derivatives_model(panda)
    own, walk = _peak_alive(_own(model)), _peak_alive(schedule(model))
    assert walk < own / 3          # 200 instead of 707 on the Panda
    ddm = ddm_model(panda)         # the direct model keeps the recursion's order (112 < 204)
    assert _peak_alive(schedule(ddm)) == _peak_alive(_own(ddm)) <= _peak_alive(_as_needed(ddm))


def test_peak_alive_counts_statements_only():
    import sympy as sp
    a, b, c, q = sp.symbols("a b c q")
    items = [("statement", a, q + 1), ("statement", b, a * q), ("statement", c, a + b),
             ("output", 0, c)]
    assert _peak_alive(items) == 3      # a, b and c as c is computed; q is an input


def test_compiled_results_do_not_depend_on_the_order(monkeypatch, tmp_path):
    """The same model compiled in the recursion's order and in the scheduled one: the same
    bits, one configuration and a vectorized batch."""
    from robmod.symbolic import export, schedule as sched_mod

    robot = random_robot(np.random.default_rng(3), 5)
    model = idm_derivatives_model(robot)
    rng = np.random.default_rng(1)
    x = [rng.uniform(-1, 1, (70, robot.n_q)) for _ in range(3)]
    out, sources = [], []
    for order in ("scheduled", "recursion"):
        monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path / order))
        if order == "recursion":
            monkeypatch.setattr(export, "schedule", lambda m, skip=frozenset(): [
                it for it in _own(m) if not (it[0] == "statement" and it[1] in skip)])
        sources.append(export.to_c(model, "m")[0])
        f = model.compile()
        out.append((f(*(a[0] for a in x)), f(*x)))
    assert sources[0] != sources[1]
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])
