"""The JAX, PyTorch and CasADi exports of the customized models agree with the compiled C model
(float64, 1e-12) on random states: a fixed robot, one with a mimic joint, a floating one; the
compiled XLA program of the JAX export has the model's sines and cosines and about its
operation count (no value copied into several fused loops); autograd of the PyTorch IDM is the
IDM's derivative model.  PyTorch is not a test dependency: its tests skip without it."""
import functools
import re
from collections import Counter
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.dynamics import (idm_derivatives, idm_derivatives_model, idm_model,
                             inertia_matrix_model)
from robmod.testing.random import random_inertial, random_robot, with_random_dynamics
from test_export_graphs import jax64  # noqa: F401 - the fixture (float64 JAX)


def _fixed():
    rng = np.random.default_rng(0)
    return with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng, friction=True)


def _mimic():
    """A random 4-joint serial robot whose joint 3 follows joint 1: q3 = -0.7 q1 + 0.2."""
    rng = np.random.default_rng(1)
    base = with_random_dynamics(random_robot(rng, 4, prismatic=False), rng, friction=True)
    return replace(base, mimic=MappingProxyType({3: (1, -0.7, 0.2)}))


def _floating():
    rng = np.random.default_rng(2)
    robot = random_robot(rng, n=3, tree=True).with_base("floating", **random_inertial(rng))
    return replace(robot, gravity=(sp.Float(0.0), sp.Float(0.0), sp.Float(-9.81)))


ROBOTS = {"fixed": _fixed, "mimic": _mimic, "floating": _floating}


@functools.lru_cache(maxsize=None)
def _models(kind):
    robot = ROBOTS[kind]()
    makes = (idm_model, inertia_matrix_model, idm_derivatives_model)
    return robot, tuple(make(robot) for make in makes)


def _states(model, rng, batch):
    """Random inputs of every group (a unit quaternion where the floating base has one)."""
    out = []
    for g in [g for g in model.inputs if model.inputs[g] and g != "params"]:
        names = [str(s) for s in model.inputs[g]]
        x = rng.uniform(-1.2, 1.2, batch + (len(names),))
        quat = [k for k, s in enumerate(names) if re.fullmatch(r"QB[0-3]", s)]
        if len(quat) == 4:
            x[..., quat] /= np.linalg.norm(x[..., quat], axis=-1, keepdims=True)
        out.append(x)
    return out


def _close(got, ref, tol=1e-12):
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    ref if isinstance(ref, tuple) else (ref,)):
        a, b = np.asarray(a, dtype=float), np.asarray(b)
        assert a.shape == b.shape
        assert np.abs(a - b).max() <= tol * (1 + np.abs(b).max()), np.abs(a - b).max()


@pytest.mark.parametrize("kind", ROBOTS)
def test_jax_export_agrees_with_the_compiled_model(kind, jax64):
    from robmod.symbolic import jit_function

    _, models = _models(kind)
    rng = np.random.default_rng(3)
    for model in models:
        ref_fn = model.compile()
        fn = jit_function(model.to_jax())
        x = _states(model, rng, (7,))
        ref = ref_fn(*x)
        _close(fn(*x), ref)                                     # a batch: lax.reduce
        _close(jit_function(jax64.vmap(model.to_jax()))(*x), ref)
        one = fn(*[a[0] for a in x])                            # one configuration
        _close(one, tuple(r[0] for r in ref) if isinstance(ref, tuple) else ref[0])


@pytest.mark.parametrize("kind", ROBOTS)
def test_casadi_export_agrees_with_the_compiled_model(kind):
    pytest.importorskip("casadi")
    _, models = _models(kind)
    rng = np.random.default_rng(4)
    for model in models:
        ref_fn, f = model.compile(), model.to_casadi()
        for x in zip(*_states(model, rng, (3,))):
            ref = ref_fn(*[a[None] for a in x])
            ref = tuple(r[0] for r in ref) if isinstance(ref, tuple) else ref[0]
            got = f(*x)
            got = tuple(got) if isinstance(got, (tuple, list)) else (got,)
            ref = ref if isinstance(ref, tuple) else (ref,)
            for a, b in zip(got, ref):
                a = np.array(a)
                b = b.reshape(a.shape) if b.ndim != 2 or b.shape != a.shape else b
                _close(a, b)


@pytest.mark.parametrize("kind", ROBOTS)
def test_torch_export_agrees_with_the_compiled_model(kind):
    torch = pytest.importorskip("torch")
    _, models = _models(kind)
    rng = np.random.default_rng(5)
    for model in models:
        ref_fn, fn = model.compile(), model.to_torch()
        x = _states(model, rng, (2, 5))
        got = fn(*[torch.tensor(a) for a in x])
        ref = ref_fn(*x)
        _close(tuple(g.numpy() for g in got) if isinstance(got, tuple) else got.numpy(), ref)
        one = fn(*[torch.tensor(a[0, 0]) for a in x])            # one configuration
        one = one if isinstance(one, tuple) else (one,)
        ref = ref if isinstance(ref, tuple) else (ref,)
        for a, b in zip(one, ref):
            _close(a.numpy(), b[0, 0])
        # float32: the same to its precision
        got32 = fn(*[torch.tensor(a, dtype=torch.float32) for a in x])
        got32 = got32 if isinstance(got32, tuple) else (got32,)
        assert all(g.dtype == torch.float32 for g in got32)
        _close(tuple(g.double().numpy() for g in got32), ref, tol=3e-5)


def test_torch_autograd_of_the_idm_is_the_derivative_model():
    torch = pytest.importorskip("torch")
    robot, (m_idm, _, m_d) = _models("fixed")
    rng = np.random.default_rng(6)
    q, qd, qdd = rng.uniform(-1, 1, (3, 4, robot.n_q))
    x = [torch.tensor(a, requires_grad=True) for a in (q, qd, qdd)]
    tau = m_idm.to_torch()(*x)
    D = m_d.to_torch()(*[a.detach() for a in x])                # the analytical derivatives
    ref = idm_derivatives(robot, q, qd, qdd)
    for got, want in zip(D, ref):
        _close(got.numpy(), want)
    for i in range(robot.n_q):                                   # row i of each derivative
        grads = torch.autograd.grad(tau[:, i].sum(), x, retain_graph=True)
        for g, d in zip(grads, D):
            _close(g.numpy(), d[:, i, :].numpy())
    # torch.func: the Jacobian of one configuration, reverse mode
    jac = torch.func.jacrev(m_idm.to_torch(), argnums=(0, 1, 2))(*[a[0].detach() for a in x])
    for g, d in zip(jac, D):
        _close(g.numpy(), d[0].numpy())


ELEMENTWISE = ("add", "subtract", "multiply", "divide", "negate")


def _hlo_counts(text):
    ops = Counter(re.findall(r"= \S+ ([a-z][\w-]*)\(", text))
    return ops["sine"] + ops["cosine"], sum(ops[k] for k in ELEMENTWISE)


def test_xla_compiles_the_jax_export_as_written(jax64):
    """The Panda's inertia matrix (shared values reach every element) and IDM, and a derivative
    model: as many sines and cosines as the model, about its operation count, for one
    configuration (lax.select_n) and a batch (lax.reduce)."""
    from robmod.symbolic import CPU_COMPILER_OPTIONS

    panda = with_random_dynamics(robmod.load_robot("panda", numeric=True),
                                 np.random.default_rng(7))
    models = [inertia_matrix_model(panda), idm_model(panda), _models("fixed")[1][2]]
    for model in models:
        trig = sum(isinstance(rhs, (sp.sin, sp.cos)) for _, rhs in model.statements)
        c = model.count()
        n = len(model.inputs["q"])
        groups = [g for g in model.inputs if model.inputs[g] and g != "params"]
        for batch in ((), (64,)):
            x = [np.zeros(batch + (n,))] * len(groups)
            fn = jax64.jit(model.to_jax(), compiler_options=CPU_COMPILER_OPTIONS)
            n_trig, n_elem = _hlo_counts(fn.lower(*x).compile().as_text())
            assert n_trig == trig <= c.funcs, (model.name, batch, n_trig, trig)
            assert n_elem <= 1.05 * (c.mults + c.adds) + 10, (model.name, batch, n_elem, c)
