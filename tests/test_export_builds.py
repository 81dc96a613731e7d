"""How the exports are built: the CasADi graph made level by level with vector operations is
the graph of one scalar SX operation per node (the same serialization); every kind of
expression a model may hold (powers, square roots, atan2, divisions, pi, negative and constant
statements) exports to CasADi, JAX (float64 and float32, a batch, one configuration, vmap,
jvp, grad, inputs of different batch shapes) and agrees with SymPy's own evaluation."""
import numpy as np
import pytest
import sympy as sp
from test_export_graphs import jax64  # noqa: F401 - the fixture (float64 JAX)

from robmod.symbolic.model import CustomModel, Output

q1, q2, p1 = sp.symbols("q1 q2 p1")
X = sp.symbols("X1:12")


def _odd_model():
    """One statement of each kind of expression the printers and builders handle."""
    statements = (
        (X[0], sp.sin(q1) * q2 - 2 * q1 ** 3),
        (X[1], sp.sqrt(X[0] ** 2 + 1) / (q2 ** 2 + 3)),
        (X[2], sp.atan2(X[1], sp.cos(q2) + 2) + sp.pi / 3),
        (X[3], -X[2] * q1),
        (X[4], sp.Rational(3, 7) * X[3] - sp.Float(0.25) * X[1] ** -2),
        (X[5], sp.Float(-1.5)),                               # a constant statement
        (X[6], X[5] * X[4] + sp.E),
        (X[7], (X[6] ** 2 + 1) ** sp.Rational(3, 2)),         # a power that is no integer
        (X[8], sp.tanh(X[7] / 10) + sp.Abs(q1 - q2) * sp.sign(q2)),
        (X[9], sp.exp(-X[8]) * p1),
        (X[10], -X[9] + sp.sin(sp.pi / 7) * q1 - sp.sqrt(2) * q2),   # constant functions
    )
    outputs = (Output.vector("A", [X[10], X[4], sp.Integer(0), X[5]]),
               Output.matrix("B", [[X[2], X[8]], [X[6], -q1]]))
    return CustomModel("odd", {"q": (q1, q2), "params": (p1,)}, statements, outputs)


def _reference(model, q, params):
    """The outputs by SymPy's substitution, in float64."""
    env = {q1: q[0], q2: q[1], p1: params[0]}
    for lhs, rhs in model.statements:
        env[lhs] = sp.Float(rhs.subs(env).evalf(30), 30)
    return [np.array([float(sp.sympify(e).subs(env).evalf(30)) for e in o.exprs]).reshape(o.shape)
            for o in model.outputs]


def _scalar_casadi(ca, program, args):
    """The graph of a _Program built one scalar SX operation per node, in value order."""
    from robmod.symbolic.export_casadi import _Program  # noqa: F401 - the builder checked

    nodes = [args[k] for k in range(program.n_inputs)] + [None] * (len(program.level)
                                                                 - program.n_inputs)
    for v, k in program.numbers.items():
        nodes[k] = ca.SX(v)
    ops = sorted((k, key % program.CODES, a, b)
                 for key, (firsts, seconds, values) in program.ops.items()
                 for a, b, k in zip(firsts, seconds, values))
    for k, c, a, b in ops:
        nodes[k] = (ca.SX.unary(c, nodes[a]) if c in program.unary else
                    ca.SX.binary(c, nodes[a], nodes[b]))
    return [ca.vertcat(*[nodes[k] for k in values]) for values in program.outputs]


def test_casadi_vector_build_is_the_scalar_graph():
    ca = pytest.importorskip("casadi")
    import robmod
    from robmod.dynamics import idm_derivatives_model
    from robmod.symbolic.export_casadi import _groups, _Program

    robot = robmod.load_robot("rx90", numeric=True)
    for model in (_odd_model(), idm_derivatives_model(robot)):
        inputs, args = {}, []
        for g in _groups(model):
            for s in model.inputs[g]:
                inputs[s] = len(inputs)
            args.append(ca.SX.sym(g, len(model.inputs[g])))
        flat = ca.vertcat(*args)
        program = _Program(ca, model, inputs)
        vector = ca.Function("f", args, program.build(args))
        scalar = ca.Function("f", args, _scalar_casadi(ca, program, [flat[k] for k in
                                                                     range(flat.numel())]))
        assert vector.serialize() == scalar.serialize()
        assert vector.n_nodes() == scalar.n_nodes()
        # the levels: each operation after its operands, the inputs and constants at level 0
        level = program.level
        for key, (firsts, seconds, values) in program.ops.items():
            lv = key // program.CODES
            assert all(level[k] == lv for k in values)
            assert all(level[a] < lv for a in firsts)
            assert all(level[b] < lv for b in seconds if b >= 0)


def test_every_kind_of_expression_exports_to_casadi():
    pytest.importorskip("casadi")
    model = _odd_model()
    f = model.to_casadi()
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, params = rng.uniform(-1, 1, 2), rng.uniform(0.5, 1.5, 1)
        got = f(q, params)
        for a, b in zip(got, _reference(model, q, params)):
            a = np.array(a)
            assert np.abs(a.reshape(b.shape) - b).max() < 1e-13


def test_every_kind_of_expression_exports_to_jax(jax64):
    jax = jax64
    import jax.numpy as jnp

    from robmod.symbolic import jit_function

    model = _odd_model()
    g = model.to_jax()
    assert "rm_mul(" not in g.source          # the printed source; the statements run on lax
    rng = np.random.default_rng(1)
    q, params = rng.uniform(-1, 1, (5, 2)), rng.uniform(0.5, 1.5, (5, 1))
    ref = [np.stack(r) for r in zip(*(_reference(model, a, b) for a, b in zip(q, params)))]
    f = jit_function(g)
    for got in (f(q, params), jit_function(jax.vmap(g))(q, params)):
        for a, b in zip(got, ref):
            assert np.abs(np.asarray(a) - b).max() < 1e-13
    one = f(q[0], params[0])                               # one configuration
    assert np.abs(np.asarray(one[1]) - ref[1][0]).max() < 1e-13
    # inputs of different batch shapes broadcast (the parameters of one robot for a batch)
    got = f(q, params[0])
    assert got[0].shape == (5, 4)
    assert np.abs(np.asarray(got[0][0]) - ref[0][0]).max() < 1e-13
    # float32: the arrays' precision is kept (the model's constants are weak Python floats)
    got32 = jit_function(g)(q.astype(np.float32), params.astype(np.float32))
    assert all(a.dtype == jnp.float32 for a in got32)
    assert np.abs(np.asarray(got32[1], dtype=float) - ref[1]).max() < 1e-4
    # forward and reverse differentiation against finite differences
    def out(x):
        return g(x, params[0])[1].sum()

    h = 1e-6
    fd = np.array([(out(q[0] + h * e) - out(q[0] - h * e)) / (2 * h) for e in np.eye(2)])
    assert np.abs(np.asarray(jax.grad(out)(q[0])) - fd).max() < 1e-7
    _, t = jax.jvp(out, (jnp.asarray(q[0]),), (jnp.asarray([1.0, 0.0]),))
    assert abs(float(t) - fd[0]) < 1e-7
    jac = jit_function(jax.jacfwd(lambda x: g(x, params[0])[0]))(q[0])
    assert jac.shape == (4, 2) and np.isfinite(np.asarray(jac)).all()


def test_jax_export_traces_as_one_call_with_the_collector_paused(jax64):
    """Every operation of the traced model has the source location of the model's call (one
    traceback: JAX lowers one location), and Python's garbage collector is back on after a
    call, and after an error inside the model."""
    import gc

    model = _odd_model()
    g = model.to_jax()
    jaxpr = jax64.make_jaxpr(g)(np.zeros(2), np.ones(1))
    eqns = [e for e in jaxpr.jaxpr.eqns]
    inner = eqns[0].params.get("call_jaxpr") if eqns and "call_jaxpr" in eqns[0].params else None
    eqns = inner.jaxpr.eqns if inner is not None else eqns
    tracebacks = {id(e.source_info.traceback) for e in eqns if e.primitive.name == "mul"}
    assert len(tracebacks) == 1
    assert gc.isenabled()
    with pytest.raises(TypeError):
        g(np.zeros(2))                                      # a missing argument
    assert gc.isenabled()
    gc.disable()
    try:
        g(np.zeros(2), np.ones(1))
        assert not gc.isenabled()                          # left as the caller had it
    finally:
        gc.enable()
