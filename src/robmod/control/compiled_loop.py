"""Closed-loop simulation at compiled speed: robmod's controllers and the plant in one C loop.

:func:`robmod.control.simulate` hands a run to :func:`run_compiled` first.  When the plant is a
tree robot -- on a fixed base, or floating (its base free: the free-floating models,
the state integrated on SE(3) by Munthe-Kaas's RK4 as :mod:`robmod.dynamics.integration` does)
-- and the controller one of robmod's own laws (:class:`~robmod.control.PID`,
:class:`~robmod.control.PDGravity`, :class:`~robmod.control.ComputedTorque`,
:class:`~robmod.control.PassivityBased`, :class:`~robmod.control.AdaptivePassivity`, exactly
those classes: a subclass may change the law), the whole run -- the law at each sample, the
zero-order hold, the RK4 substeps of the plant's direct dynamic model (Khalil & Dombre §7.6.2),
saturation, measurement noise, quantization and delay -- is one call of a C function generated
from the customized models (:mod:`.loop_source`, :mod:`.loop_kernel`), compiled once and cached
on disk like the models themselves.  The models are the plants' (:attr:`Dynamics.model
<robmod.control.Dynamics.model>`: one recipe and one generation of each).  Batches of runs
(initial states, gain sets: leading dimensions, as the Python path takes them) advance in
lockstep by blocks of 64 on the vectorized plant kernel, the blocks shared among the
processor's cores.

When: a loop compiled before (by any process: an index on disk names its shared object) is
always taken, without generating anything; a new one is generated and compiled (1-5 s) when
the run is long enough to pay for it -- :data:`WORTH_COMPILING` steps times blocks of 64 runs
(10 s at 1 kHz of one run) --, or always with ``ROBMOD_COMPILED_LOOP=1``; ``=0`` turns the
compiled loop off.

It returns None -- and the Python path runs, with the same results -- for what it does not
handle: a closed-loop robot (its plant solves the loop constraints at each evaluation), a
controller written in Python (any other class), a batched reference, a ``solve_ivp`` method,
``ROBMOD_BACKEND=numpy`` or no C compiler.  A run that blows up (or meets a singular inertia
matrix) is also given back to the Python path, whose error names the joint and the time.  The
measurement noise is drawn beforehand from the same generator, in the order the Python path
draws it, so both paths see the same noise.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..symbolic import fastpath
from ..symbolic.cache import on_clear
from ..description.io_common import write_text_atomic
from ..symbolic.compile import build_from_source, cache_dir, load_extension
from ..symbolic.fastpath import source_stamp
from ..symbolic.vector_trig import BLOCK
from . import loop_source as ls
from .computed_torque import ComputedTorque
from .joint_space import PID, PDGravity
from .passivity import AdaptivePassivity, PassivityBased
from .floating_plant import FloatingDynamics
from .plant import Dynamics

#: the loops bound in this process, by key (their shared objects: the disk cache's index);
#: robmod.symbolic.clear() forgets them with every other derived model
_LOOPS: dict = {}
on_clear(_LOOPS.clear)
_NOISE_LIMIT = 256 * 2 ** 20     # bytes of noise drawn beforehand; beyond, the Python path
#: steps x blocks of runs from which compiling a loop pays (the Python loop takes 0.05-0.2 ms
#: a step, generating and compiling a loop 1-5 s; a loop compiled before is always taken)
WORTH_COMPILING = 10_000


def _policy() -> str:
    """``ROBMOD_COMPILED_LOOP``: '0' (never), '1' (always), else 'auto' (see the module)."""
    return {"0": "never", "1": "always"}.get(os.environ.get("ROBMOD_COMPILED_LOOP", ""), "auto")


def _index(key) -> Path:
    digest = hashlib.sha256(f"{source_stamp()}|loop|{key!r}".encode()).hexdigest()[:32]
    return cache_dir() / "index" / f"loop-{digest}.json"


def _cached(key):
    """(the loop of ``key``, the order of its plant's parameters) compiled by an earlier
    process (its index and shared object on disk), without generating anything; else
    None."""
    try:
        index = json.loads(_index(key).read_text())
        modname, order = index["module"], tuple(index.get("parameters", ()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    module = load_extension(modname)
    return None if module is None else (_bind(module), order)


def _bind(module):
    fn = ctypes.CDLL(module.__file__).rm_run
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_long] * 5 + [ctypes.c_double] * 2 + [ctypes.c_void_p] * 13
    return fn


def _coulomb_mode(ctrl) -> str:
    return "measured" if not ctrl.dyn.has_coulomb else ctrl.coulomb


def _friction_constants(ctrl) -> list:
    d = ctrl.dyn
    return [d.fv, d.fc, d.fst, d.bst, [ctrl.coulomb_width]]


def _supported(controller):
    """(structure key, build, gains, constants, state size, p) of a supported controller, or
    None; ``build()`` generates (models, law lines) -- only when a loop is compiled.  The key
    names the law's structure and the controller's model (the source depends on nothing
    else)."""
    out = _describe(controller)
    if out is None:
        return None
    model = getattr(controller, "dyn", None) or getattr(controller, "model", None)
    model = getattr(model, "robot", model)
    key = (out[0], getattr(model, "content_key", None), tuple(getattr(controller, "names", ())))
    return (key,) + out[1:]


def _describe(controller):
    kind = type(controller)
    n = controller.n
    dyn = getattr(controller, "dyn", None)
    if dyn is not None and type(dyn) not in (Dynamics, FloatingDynamics):
        return None       # a closed-loop controller model
    floating = {"floating": True} if getattr(dyn, "floating", False) else {}
    if kind is PID:
        tmax = controller.tau_max is not None

        def build():
            models = {"grav": dyn.model("grav"), **floating} if controller.gravity else {}
            return models, ls.law_pid(models, controller.gravity, tmax)
        consts = [list(controller.band)] + ([controller.tau_max] if tmax else [])
        return (("pid", controller.gravity, tmax), build,
                [controller.kp, controller.kd, controller.ki], consts, n, 0)
    if kind is PDGravity:
        def build():
            models = {"grav": dyn.model("grav"), **floating}
            return models, ls.law_pd_gravity(models, controller.at_desired)
        return (("pdg", controller.at_desired), build, [controller.kp, controller.kd], [], 0, 0)
    if kind in (ComputedTorque, PassivityBased):
        mode = getattr(controller, "mode", "passivity")
        coulomb = "measured" if mode == "predictive" else _coulomb_mode(controller)
        which = "idm" if coulomb == "measured" else "idm_nc"
        consts = [] if coulomb == "measured" else _friction_constants(controller)

        def build():
            models = {"n": n, which: dyn.model(which), **floating}
            if kind is PassivityBased:
                models["vel"] = dyn.model("vel")
                return models, ls.law_passivity(models, coulomb)
            return models, ls.law_computed_torque(models, mode, coulomb)
        if kind is PassivityBased:
            return (("pbc", coulomb), build, [controller.lam, controller.kd], consts, 0, 0)
        return (("ct", mode, coulomb), build, [controller.kp, controller.kd], consts, 0, 0)
    if kind is AdaptivePassivity:
        p = len(controller.names)
        if np.ndim(controller.gamma) != 1 or controller.phi.model.outputs[0].shape != (n, p):
            return None

        def build():
            models = {"phi": controller.phi.model}
            return models, ls.law_adaptive(models, controller.coulomb,
                                           controller.friction_columns,
                                           controller.coulomb_columns)
        return (("adaptive", controller.coulomb), build,
                [controller.lam, controller.kd, controller.gamma],
                [[controller.coulomb_width]], p, p)
    return None


def _loop_function(key, plant_model, build, n, nz, ng, p, base):
    models, law = build()
    controller_models = {k: m for k, m in models.items() if k not in ("n", "floating")}
    if any(m.parameters for m in controller_models.values()):
        return None
    draft = ls.loop_source("RM_LOOPNAME", n, nz, ng, 0, p, plant_model, controller_models, law,
                           base=base)
    modname = "rm_loop_" + hashlib.sha256(draft.encode()).hexdigest()[:24]
    module = build_from_source(modname, draft.replace("RM_LOOPNAME", modname))
    if module is None:
        return None
    order = tuple(map(str, plant_model.parameters))
    try:
        path = _index(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps({"module": modname, "parameters": list(order)}))
    except OSError:
        pass
    return _bind(module), order


class NotCompiled(Exception):
    """Raised instead of returning None for a run of parameter sets: the Python loop would
    run the nominal plant, not the sets (the caller runs a simulation per set instead)."""


def _flat(parts, batch, nrun):
    """The per-run rows [g1 | g2 | ...] of gains given as (..., k) arrays."""
    cols = [np.broadcast_to(np.asarray(g, float), batch + (np.shape(g)[-1],)).reshape(nrun, -1)
            for g in parts]
    return np.ascontiguousarray(np.concatenate(cols, axis=1) if cols else np.zeros((nrun, 0)))


def _noise(noise, seed, steps, nrun, n):
    """The noise the Python path draws, in its order: per sample, q's then qd's."""
    if noise is None:
        return (0.0, 0.0), 0, np.zeros(1)
    sq, sqd = noise
    kinds = int(bool(sq)) + int(bool(sqd))
    if kinds * (steps + 1) * nrun * n * 8 > _NOISE_LIMIT:
        return None
    draws = np.random.default_rng(seed).standard_normal((steps + 1, kinds, nrun * n)) \
        if kinds else np.zeros(1)
    return (float(sq or 0.0), float(sqd or 0.0)), kinds, draws


def run_compiled(plant, controller, t, tables, q, qd, z, tau_lim, *, plant_parameters=None,
                 **options):
    """The run of :func:`robmod.control.simulate` in C: (Q, QD, TAU, z) with the shapes of the
    Python path, or None when this path does not take it (see the module); with
    ``plant_parameters`` (the sets of :mod:`.parameter_sets`, one run per
    set), NotCompiled instead of None."""
    out = _run(plant, controller, t, tables, q, qd, z, tau_lim, plant_parameters, **options)
    if out is None and plant_parameters is not None:
        raise NotCompiled()
    return out


def _run(plant, controller, t, tables, q, qd, z, tau_lim, sets, *, dt, continuous, substeps,
         noise, quantization, delay, seed, table=None, record_every=1):
    if fastpath.backend() == "numpy" or type(plant) not in (Dynamics, FloatingDynamics):
        return None
    if tables is None or tables[0].ndim != 2 or getattr(controller, "n", None) != plant.n:
        return None
    desc = _supported(controller)
    if desc is None:
        return None
    structure, build, gains, consts, nz, p = desc
    n, steps = plant.n, len(t) - 1
    nq, nv = plant.nq, plant.nv
    base = (nq - n, nv - n)
    batch = q.shape[:-1]
    nrun = int(math.prod(batch))
    policy = _policy()
    if policy == "never":
        return None
    drawn = _noise(noise, seed, steps, nrun, n)
    if drawn is None or z.shape[-1] != nz:
        return None
    G = _flat(gains, batch, nrun)
    if sets is not None and sets.table.shape[0] != nrun:
        return None
    plant_key = plant.robot.content_key if sets is None else sets.key
    key = (plant_key, structure, nz, G.shape[1], base)
    hit = _LOOPS.get(key) or _cached(key)
    if hit is None:
        work = steps * (nrun if sets is not None else -(-nrun // BLOCK))
        if policy == "auto" and work < WORTH_COMPILING and sets is None:
            return None      # (parameter sets: the other way compiles a plant per set)
        plant_model = plant.model("ddm") if sets is None else sets.model()
        if plant_model.parameters and sets is None:
            return None
        hit = _loop_function(key, plant_model, build, n, nz, G.shape[1], p, base)
        if hit is None:
            return None
    _LOOPS[key] = hit
    fn, order = hit
    PP = np.zeros(1) if sets is None else sets.values(order)
    (sq, sqd), kinds, NS = drawn
    rq, rqd = quantization if quantization is not None else (0.0, 0.0)
    lim = np.zeros(n) if tau_lim is None else np.asarray(tau_lim, float)
    cfg = np.concatenate([[float(continuous), sq, sqd, float(rq or 0.0), float(rqd or 0.0),
                           float(delay), float(kinds), float(tau_lim is not None),
                           float(len(batch) > 0 and sets is None), float(record_every)], lim])
    K = np.concatenate([np.ravel(np.asarray(c, float)) for c in consts]) if consts \
        else np.zeros(1)
    R = np.ascontiguousarray(np.stack(tables, axis=1), dtype=float)
    h = dt if continuous else dt / substeps
    RS = np.zeros(1)
    if continuous:
        halves = table(t[:-1] + h / 2)
        ends = table(t[:-1] + h)
        RS = np.ascontiguousarray(np.concatenate([np.stack(halves, axis=1),
                                                  np.stack(ends, axis=1)], axis=1), float)
    X0 = np.ascontiguousarray(np.concatenate([q, qd], axis=-1).reshape(nrun, nq + nv))
    Z0 = np.ascontiguousarray(z.reshape(nrun, nz)) if nz else np.zeros(1)
    rows = steps // record_every + 1                     # the samples kept
    Q, QD, TAU = np.empty((rows, nrun, nq)), np.empty((rows, nrun, nv)), \
        np.empty((rows, nrun, n))
    Z = np.empty((nrun, max(nz, 1)))
    ptr = [a.ctypes.data for a in (cfg, K, R, RS, X0, G, Z0, NS, PP, Q, QD, TAU, Z)]

    def go(r0, r1):
        return fn(r0, r1, nrun, steps, substeps, dt, h, *ptr)

    ranges = _ranges(nrun, 1 if sets is not None else BLOCK)
    if len(ranges) == 1:
        status = [go(*ranges[0])]
    else:
        with ThreadPoolExecutor(len(ranges)) as pool:
            status = list(pool.map(lambda r: go(*r), ranges))
    if any(status):
        return None
    zf = Z[:, :nz].reshape(batch + (nz,)) if nz else z
    return (Q.reshape((rows,) + batch + (nq,)), QD.reshape((rows,) + batch + (nv,)),
            TAU.reshape((rows,) + batch + (n,)), zf)


def _ranges(nrun, block):
    """Runs cut for the cores: whole blocks (64 runs, or 1 when each has its own plant), or
    halves of a smaller batch (multiples of 4, the width of the vector sines and cosines)."""
    cores = max(1, min(os.cpu_count() or 1, 8))
    if nrun < 2 or (nrun < 8 and block > 1) or cores == 1:
        return [(0, nrun)]
    blocks = -(-nrun // block)
    if blocks < cores:
        mid = ((nrun // 2 + 3) // 4) * 4
        return [(0, mid), (mid, nrun)]
    per = -(-blocks // cores) * block
    return [(a, min(a + per, nrun)) for a in range(0, nrun, per)]


__all__ = []
