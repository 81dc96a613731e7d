"""The one simulator of robmod: every robot, every torque law.

:func:`simulate` integrates the robot's direct dynamic model -- its compiled customized model
(Khalil & Dombre §7.6.2 or [7.62]) with its own parameters (rotor inertia, friction (7.26)) --
under a torque law:

* a controller (:class:`~robmod.control.Controller`: robmod's laws of ch. 9 or one of the
  user's), sampled at its period ``dt`` with a zero-order hold between samples, or continuous
  (``dt = 0``: evaluated at every integration stage, its state integrated with the plant's);
  it has its own model of the robot (model mismatch is a different robot given to it);
* a function ``law(t, q, qd) -> tau`` of the state, a continuous law (the same thing as a
  controller without state nor desired motion, :class:`~robmod.control.base.TorqueLaw`).

The state is the robot's: a tree on a fixed base, its joints; a closed-loop robot, its
actuated joints, the passive ones solved from the loops at every evaluation
(:mod:`robmod.control.closed_plant`); a floating robot, its base's pose and twist then its
joints, the base free (:mod:`robmod.control.floating_plant`), integrated on SE(3)
(:mod:`robmod.dynamics.integration`); a robot on a mobile base, the same layout, the base's
entries its given motion's (``base_motion``, :mod:`robmod.control.mobile_plant`).  A joint-space controller acts on the joints; the torques
are the joints'.  One integrator (:func:`~robmod.dynamics.integration.rk4`: RK4, ``substeps``
steps per sample, on SE(3) for a floating base; or a ``solve_ivp`` method).

Realism options: actuator saturation (the robot's ``taumax`` or given), measurement noise and
encoder quantization of the joints' q and qd, a measurement delay of whole samples.  Many runs
at once: a batch of initial states (..., nq + nv) and/or gains with leading dimensions; one
controller on plants whose parameters differ (``parameters=``).  robmod's own controllers on a
tree run as one compiled C loop (:mod:`.compiled_loop`), with the same results.  A singular
inertia matrix or a run that blows up stops with a RobmodError naming the joint and the time.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (finite_array, keyword_options, positive_scalar,
                                     whole_number)
from ..description.scene import Scene
from ..dynamics.integration import METHODS, configuration_space, rk4, solve_interval
from ..dynamics.layout import joint_limit_vector
from ..dynamics.scene import SceneStepper
from ..dynamics.simulation import SimulationResult
from ..dynamics.time_stepping import ContactStepper
from ..errors import ArgumentError, RobmodError
from ..kinematics.motion import Sample
from .base import TorqueLaw
from .compiled_loop import NotCompiled, run_compiled
from .mobile_plant import MobileLaw, start_on_given_motion, refuse_base_motion
from .parameter_sets import one_set, parameter_table, plant_parameters, robot_with
from .plant import Dynamics
from .reference import Reference

#: |qd| beyond this (rad/s or m/s) is taken as a blow-up
_DIVERGENCE = 1e6


def _torque_law(law, n: int):
    """The controller of a torque law: a controller as it is, a function ``(t, q, qd) ->
    tau`` as a :class:`~robmod.control.base.TorqueLaw`."""
    if callable(getattr(law, "output", None)):
        if getattr(law, "n", n) != n:
            raise ArgumentError(f"the controller is for {law.n} joints, the robot has {n}")
        return law
    if callable(law):
        return TorqueLaw(law, n)
    raise ArgumentError(f"simulate: the torque law must be a controller (robmod.control) or a "
                        f"function (t, q, qd) -> tau, got {type(law).__name__}")


def _desired_table(ref: Reference, t: np.ndarray):
    """The reference on the whole grid at once when it is vectorized, else sample by sample."""
    try:
        d = ref(t)
    except (RobmodError, ValueError, TypeError, IndexError):
        d = None
    if d is not None and d.q.ndim >= 2 and d.q.shape[0] == len(t):
        return d.q, d.qd, d.qdd
    if d is not None and d.q.ndim == 1 and not callable(ref.source):  # a set point
        return tuple(np.broadcast_to(x, (len(t),) + x.shape) for x in (d.q, d.qd, d.qdd))
    rows = [ref(float(tt)) for tt in t]
    return (np.stack([r.q for r in rows]), np.stack([r.qd for r in rows]),
            np.stack([r.qdd for r in rows]))


def _diverged(t, q, qd, plant=None, q_before=None):
    if np.abs(qd).max() < _DIVERGENCE:  # False for NaN too
        return
    singular = getattr(plant, "singular_error", None)
    if singular is not None and q_before is not None:   # a singular inertia matrix at the
        err = singular(q_before)                         # state before the blow-up
        if err is not None:
            raise err
    n = qd.shape[-1] if plant is None else plant.n
    bq, bv = q[..., :-n], qd[..., :-n]          # a floating robot's base (else empty)
    q, qd = q[..., q.shape[-1] - n:], qd[..., qd.shape[-1] - n:]
    bad = ~(np.isfinite(q) & np.isfinite(qd) & (np.abs(qd) < _DIVERGENCE))
    if np.any(bad):
        idx = np.argwhere(bad)[0]
        where = f"joint {int(idx[-1]) + 1}"
        values = f"q = {q[tuple(idx)]:.3g}, qd = {qd[tuple(idx)]:.3g}"
    else:                                         # the base's state
        idx = np.argwhere(~np.isfinite(bv) | ~(np.abs(bv) < _DIVERGENCE))[0]
        where = "the base"
        values = f"position {bq[tuple(idx[:-1])][:3]}, twist {bv[tuple(idx[:-1])]}"
    run = f" (run {tuple(int(i) for i in idx[:-1])})" if len(idx) > 1 else ""
    raise RobmodError(f"the simulation diverged at t = {t:.6g} s on {where}{run}: {values}."
                      " Gains too high for the sample period or the integration step "
                      "(reduce them, raise substeps or lower dt), or the model is wrong")


@keyword_options()
def simulate(robot, law, reference, duration: float, *, x0=None, method: str = "rk4",
             step: float | None = None, substeps: int = 1, saturation=True, noise=None,
             quantization=None, delay: int = 0, seed: int = 0, record_every: int = 1,
             parameters=None, contacts=None, environment=None,
             base_motion=None) -> SimulationResult:
    """Simulate ``robot`` under the torque ``law`` following ``reference`` for ``duration``
    seconds: a :class:`~robmod.dynamics.SimulationResult`.

    ``law``: a controller (its ``dt`` sets the samples: zero-order hold, or continuous with
    ``dt = 0``) or a function ``law(t, q, qd) -> tau`` of the state (a continuous law).
    ``reference``: the desired motion of the joints (a trajectory, a function ``t -> (q, qd,
    qdd)`` or a set point), or None for a law that follows none.  The state (q, qd): the
    joints' (a closed loop's actuated joints'); a floating robot's 7 + n and 6 + n values, its
    base first, the law's torques the joints'.

    ``x0``: the initial state [q, qd] (..., nq + nv) (a floating robot's may also be its
    joints' (..., 2 n), the base then at the origin, at rest; a closed loop's every joint's,
    closed, which chooses the assembly mode); default the reference at t = 0.
    ``method``: ``'rk4'`` (``substeps`` steps per sample of a digital law; ``step``, default
    1e-3 s, the step of a continuous one) or a ``scipy.integrate.solve_ivp`` method (one run;
    the samples at the law's period, or every ``step`` s).  ``saturation``: True (the robot's
    taumax when known), False, or n torque limits.  ``noise``: standard deviations (sigma_q,
    sigma_qd) of white measurement noise; ``quantization``: (resolution of q, resolution of
    qd) (encoder counts); ``delay``: samples (digital laws).  ``record_every``: keep every
    k-th sample (t[::k], from t = 0; the law and the plant still run at every sample).
    ``parameters``: {link parameter: B values} (``{"M7": [1.0, 1.5, 2.0]}``): one run per set
    of values of the plant's parameters (the law keeps its own model), the result's batch
    axis (after time) the set.  ``contacts``: unilateral contacts with Coulomb friction
    against the ``environment`` (default the ground z = 0): the plant is then advanced by time
    stepping (:mod:`robmod.dynamics.time_stepping`, the law held over each step), the world's
    forces on the contact points in the result's ``contact_forces``.  ``base_motion``: a
    mobile base's given motion, a function ``t -> (pose (7), twist (6), acceleration (6))`` of
    frame 0 (a :class:`~robmod.control.BaseMotion`; default: the base at the constant twist
    of x0, at rest at the origin without one); the state's base entries are its, the law's
    model takes its acceleration (the Python loop runs it).
    """
    refuse_base_motion(robot, base_motion, parameters, contacts)
    if isinstance(robot, Scene):
        return _simulate_scene(robot, law, reference, duration, contacts, environment,
                               parameters, dict(x0=x0, method=method, step=step,
                                                substeps=substeps, saturation=saturation,
                                                noise=noise, quantization=quantization,
                                                delay=delay, record_every=record_every))
    plant = Dynamics.of(robot, "plant")
    controller = _torque_law(law, plant.n)
    if parameters is not None:
        return _parameter_sets(robot, plant, controller, reference, duration, parameters,
                               dict(x0=x0, method=method, step=step, substeps=substeps,
                                    saturation=saturation, noise=noise,
                                    quantization=quantization, delay=delay, seed=seed,
                                    record_every=record_every))
    run = _Run(plant, controller, reference, duration, x0, method, step, substeps, saturation,
               noise, quantization, delay, record_every, base_motion)
    run.contacts = None if contacts is None else ContactStepper(      # hook: contacts
        robot, contacts, **({} if environment is None else {"environment": environment}))
    return run.result(*(run.contacts is None and run.compiled(seed)) or run.loop(seed))


class _ScenePlant:
    """What the simulation's loop asks of a plant, for a :class:`~robmod.description.Scene`
    (its contacts advance it: :class:`~robmod.dynamics.scene.SceneStepper`)."""

    floating = False
    ddm = None

    def __init__(self, scene):
        self.robot, self.n, self.nq, self.nv = scene, scene.n, scene.nq, scene.nv

    def limits(self, field):
        parts = [joint_limit_vector(r, field) if r.n_q else np.zeros(0)
                 for r in self.robot.robots]
        return None if any(p is None for p in parts) else np.concatenate(parts)

    def initial_state(self, q, qd):
        raise ArgumentError("simulate of a scene: give x0, the scene's initial state [q, qd] "
                            "(its robots' in order)")


def _simulate_scene(scene, law, reference, duration, contacts, environment, parameters,
                    options):
    """simulate() of a scene: the Python loop with its contacts, one torque law for all its
    joints; what a scene does not take is refused by name."""
    for name, value in (("contacts", contacts), ("environment", environment),
                        ("parameters", parameters), ("noise", options["noise"]),
                        ("quantization", options["quantization"])):
        if value is not None:
            raise ArgumentError(f"simulate of a scene takes no {name}= (a scene holds its "
                                "robots' contacts and its environment; parameter sets, noise "
                                "and quantization are for one robot)")
    if options["method"] != "rk4":
        raise ArgumentError("simulate of a scene: method must be 'rk4' (the contacts advance "
                            f"it by time stepping), got {options['method']!r}")
    plant = _ScenePlant(scene)
    run = _Run(plant, _torque_law(law, plant.n), reference, duration, options["x0"], "rk4",
               options["step"], options["substeps"], options["saturation"], None, None,
               options["delay"], options["record_every"])
    run.contacts = SceneStepper(scene)
    return run.result(*run.loop(0))


class _Run:
    """A simulation's settings, checked: the plant, the law, the time grid, the desired
    motion, the initial state and the options."""

    contacts = None        # a ContactStepper: simulate(..., contacts=)
    base = None            # a mobile base's BaseMotion

    def __init__(self, plant, controller, reference, duration, x0, method, step, substeps,
                 saturation, noise, quantization, delay, record_every, base_motion=None):
        self.plant, self.controller = plant, controller
        self.law = controller          # what the loop runs (a mobile base's: at its motion)
        self._check_kind()
        n = plant.n
        if not isinstance(method, str) or method not in METHODS:
            raise ArgumentError(f"simulate: method must be one of {', '.join(METHODS)}, got "
                                f"{method!r}")
        self.method = method
        if reference is None:
            if controller.follows_reference:
                raise ArgumentError(f"{type(controller).__name__} follows a desired motion: "
                                    "give simulate a reference (a trajectory, a function of t "
                                    "or a set point)")
            self.ref = None
        else:
            self.ref = reference if isinstance(reference, Reference) else Reference(reference, n)
        duration = positive_scalar("duration", duration)
        self.substeps = whole_number("substeps", substeps)
        dt = controller.dt
        self.continuous = dt == 0
        if self.continuous:
            dt = 1e-3 if step is None else positive_scalar("step", step)
            if noise is not None or quantization is not None or delay:
                raise ArgumentError("noise, quantization and delay need a digital controller "
                                  "(dt > 0)")
        if not np.isfinite(dt) or dt <= 0:
            raise ArgumentError(f"step must be a positive time, got {dt}")
        self.dt = dt
        self.steps = steps = int(round(duration / dt))
        if steps < 1 or steps > 10 ** 8:
            raise ArgumentError(f"duration / dt = {duration / dt:g} samples: expected 1 to 1e8")
        self.every = whole_number("record_every", record_every, maximum=steps,
                                  what=f"a whole number of samples (the run's {steps})")
        self.t = np.arange(steps + 1) * dt
        self.table = None if self.ref is None else _desired_table(self.ref, self.t)
        self.tau_lim = _saturation(plant, saturation, n)
        self.noise, self.quantization = noise, quantization
        self.delay = whole_number("delay", delay, minimum=0, what="a number of samples")
        q, qd = self._initial(x0)
        if getattr(plant, "mobile", False):         # the base at its given motion
            self.base, q, qd = start_on_given_motion(base_motion, q, qd, x0 is not None and np.shape(
                x0)[-1] == plant.nq + plant.nv)
            self.law = MobileLaw(controller, self.base)
        batch = np.broadcast_shapes(q.shape[:-1], *[np.shape(g)[:-1] for g in
                                                    _gains(controller)])
        self.q = np.array(np.broadcast_to(q, batch + q.shape[-1:]))
        self.qd = np.array(np.broadcast_to(qd, batch + qd.shape[-1:]))
        self.z = controller.initial_state(batch)

    def _check_kind(self):
        """A controller with a model of the robot: the plant's kind of base (its joints'
        values in the same place of the state)."""
        model = getattr(self.controller, "dyn", None)
        kinds = tuple(getattr(getattr(x, "robot", None), "base_kind", "fixed")
                      for x in (self.plant, model))
        if model is not None and kinds[0] != kinds[1]:
            raise ArgumentError(
                f"{type(self.controller).__name__}'s model of the robot has a {kinds[1]} base, "
                f"the simulated robot {self.plant.robot.name!r} a {kinds[0]} one: build the "
                "controller with a model of the same kind of base")

    def _initial(self, x0):
        plant = self.plant
        nq, nv, n = plant.nq, plant.nv, plant.n
        if x0 is None:
            if self.table is None:
                raise ArgumentError("simulate: give x0, the initial state [q, qd] (no "
                                    "reference to start from)")
            return plant.initial_state(self.table[0][0], self.table[1][0])
        every = plant.robot.n_q if getattr(plant.robot, "n_loops", 0) else 0
        sizes = f"{nq + nv} values [q, qd]" + (f" (or {2 * n}, the joints')" if plant.floating
                                               else f" (or {2 * every}, every joint's)"
                                               if every else "")
        x0 = finite_array("x0", x0, shape_text=f"an initial state of {sizes}")
        if x0.ndim and x0.shape[-1] == nq + nv:
            return x0[..., :nq], x0[..., nq:]
        if x0.ndim and plant.floating and x0.shape[-1] == 2 * n:
            return plant.initial_state(x0[..., :n], x0[..., n:])
        if x0.ndim and every and x0.shape[-1] == 2 * every:      # a closed loop's assembly mode
            return plant.closed_state(x0[..., :every], x0[..., every:])
        raise ArgumentError(f"x0 must hold {sizes} in its last dimension, got shape "
                            f"{x0.shape}")

    def compiled(self, seed, plant_parameters=None):
        """(q, qd, tau, z) of the compiled loop, or None."""
        if self.method != "rk4" or self.base is not None:
            if plant_parameters is not None:
                raise NotCompiled()
            return None
        return run_compiled(self.plant, self.controller, self.t, self.table, self.q, self.qd,
                            self.z, self.tau_lim, dt=self.dt, continuous=self.continuous,
                            substeps=self.substeps, noise=self.noise,
                            quantization=self.quantization, delay=self.delay, seed=seed,
                            table=lambda tt: _desired_table(self.ref, tt),
                            record_every=self.every, plant_parameters=plant_parameters)

    def loop(self, seed):
        """(q, qd, tau, z) of the loop in Python."""
        plant, controller, tau_lim = self.plant, self.law, self.tau_lim
        t, steps, every, continuous, dt = self.t, self.steps, self.every, self.continuous, \
            self.dt
        q, qd, z = self.q, self.qd, self.z
        rng = np.random.default_rng(seed)
        rows = (steps // every + 1,)
        Q, QD = np.empty(rows + q.shape), np.empty(rows + qd.shape)
        TAU = np.empty(rows + q.shape[:-1] + (plant.n,))
        Q[0], QD[0] = q, qd
        ddm = self._accelerations()
        space = None if self.contacts is not None else configuration_space(plant.robot, plant.n)
        h = dt if continuous else dt / self.substeps
        past = []
        ref = self.ref
        table = self.table or (None,) * 3
        qt, qdt, qddt = table
        advance = rk4 if self.method == "rk4" else self._interval
        substeps = 1 if self.method != "rk4" else self.substeps
        empty = z[..., :0]
        held_tau = [None]
        forces = None if self.contacts is None else np.zeros(rows + self.contacts.forces.shape)

        def held(tt, a, b, c):         # the torque held over a sample (zero-order hold)
            return ddm(tt, a, b, held_tau[0]), c

        def closed(tt, a, b, c):       # a continuous law, evaluated at every stage
            if self.base is not None:
                a, b = self.base.state(tt, a, b)
            d = None if ref is None else ref(tt)
            tau = _clip(controller.output(tt, a, b, d, c), tau_lim)
            return ddm(tt, a, b, tau), controller.update(tt, a, b, d, c) if c.shape[-1] else c

        for k in range(steps + 1):
            d = None if qt is None else Sample(qt[k], qdt[k], qddt[k])
            if continuous:
                tau = _clip(controller.output(t[k], q, qd, d, z), tau_lim)
            else:
                qm, qdm = _measure(q, qd, self.noise, self.quantization, rng, plant.n)
                if self.delay:
                    past.append((qm, qdm))
                    qm, qdm = past[max(0, len(past) - 1 - self.delay)]
                    if len(past) > self.delay + 1:
                        past.pop(0)
                tau = _clip(controller.output(t[k], qm, qdm, d, z), tau_lim)
                if z.shape[-1]:
                    z = z + dt * controller.update(t[k], qm, qdm, d, z)
            if k % every == 0:
                TAU[k // every] = tau
            if k == steps:
                break
            q_before = q
            if self.contacts is not None:        # hook: time stepping with contacts
                for _ in range(self.substeps):
                    q, qd = self.contacts.step(q, qd, tau, dt / self.substeps)
                if (k + 1) % every == 0:
                    forces[(k + 1) // every] = self.contacts.forces
            elif continuous:
                q, qd, z = advance(space, closed, t[k], h, q, qd, z)
            else:
                held_tau[0] = tau
                for i in range(substeps):
                    q, qd, _ = advance(space, held, t[k] + i * h, h, q, qd, empty)
            if self.base is not None:               # the base where its motion puts it
                q, qd = self.base.state(t[k + 1], q, qd)
            _diverged(t[k + 1], q, qd, plant, q_before)
            if (k + 1) % every == 0:
                Q[(k + 1) // every], QD[(k + 1) // every] = q, qd
        self.forces = forces
        return Q, QD, TAU, z

    def _accelerations(self):
        """(t, q, qd, tau) -> the plant's accelerations: its direct model (a mobile base's at
        its given motion at t: its pose, twist and acceleration)."""
        f, base = self.plant.ddm, self.base
        if base is None:
            return lambda tt, q, qd, tau: f(q, qd, tau)

        def moving(tt, q, qd, tau):
            q, qd = base.state(tt, q, qd)
            return f(q, qd, tau, base(tt)[2])
        return moving

    def _interval(self, space, f, t, h, q, qd, z):
        """The state at the next sample by ``solve_ivp`` (the method= of the run)."""
        return solve_interval(space, f, t, t + self.dt, q, qd, z, self.method)

    def result(self, Q, QD, TAU, z):
        kept = slice(None, None, self.every)
        ref = None if self.table is None else Sample(*(x[kept] for x in self.table))
        return SimulationResult(self.t[kept], Q, QD, TAU, self.plant.robot, reference=ref,
                                controller=self.controller if not isinstance(
                                    self.controller, TorqueLaw) else self.controller.law,
                                controller_state=z, tau_limit=self.tau_lim,
                                contact_forces=getattr(self, "forces", None))


def _parameter_sets(robot, plant, controller, reference, duration, parameters, options):
    """One run per set of the plant's parameters: the compiled loop on the plant's direct
    model with those parameters as inputs when it takes the run, else a run per set."""
    names, table = parameter_table(plant.robot, parameters)
    B = len(table)
    for k in ("kp", "kd", "ki", "lam"):
        g = getattr(controller, k, None)
        if isinstance(g, np.ndarray) and g.shape[:-1] not in ((), (B,)):
            raise ArgumentError(f"the controller's {k} has shape {g.shape}: one gain set, or "
                                f"one per parameter set ({B}, n)")
    seed = options.pop("seed")
    run = _Run(plant, controller, reference, duration, options.pop("x0"), **options)
    if run.q.shape[:-1] not in ((), (B,)):
        raise ArgumentError(f"x0: one initial state, or one per parameter set ({B}, ...), got "
                            f"a batch of shape {run.q.shape[:-1]}")
    run.q = np.ascontiguousarray(np.broadcast_to(run.q, (B,) + run.q.shape[-1:]))
    run.qd = np.ascontiguousarray(np.broadcast_to(run.qd, (B,) + run.qd.shape[-1:]))
    run.z = controller.initial_state((B,))
    sets = plant_parameters(plant, names, table)
    try:
        if sets is not None:
            out = run.compiled(seed, plant_parameters=sets)
            if out is not None:
                return run.result(*out)
    except NotCompiled:
        pass
    runs = []
    for b, row in enumerate(table):
        one = _Run(Dynamics.of(robot_with(plant.robot, dict(zip(names, row))), "plant"),
                   one_set(controller, b, B), reference, duration,
                   np.concatenate([run.q[b], run.qd[b]]), **options)
        runs.append(one.compiled(seed) or one.loop(seed))
    Q, QD, TAU = (np.stack([r[i] for r in runs], axis=1) for i in range(3))
    return run.result(Q, QD, TAU, np.stack([r[3] for r in runs], axis=0))


def _gains(controller):
    return [g for g in (getattr(controller, k, None) for k in ("kp", "kd", "ki", "lam"))
            if isinstance(g, np.ndarray)]


def _saturation(plant, saturation, n):
    if saturation is False or saturation is None:
        return None
    if saturation is True:
        return plant.limits("taumax")
    lim = np.asarray(saturation, dtype=float)
    lim = np.full(n, float(lim)) if lim.ndim == 0 else lim
    if lim.shape != (n,) or np.any(~np.isfinite(lim)) or np.any(lim <= 0):
        raise ArgumentError(f"saturation: expected True, False or {n} positive torque limits")
    return lim


def _clip(tau, lim):
    tau = np.asarray(tau, dtype=float)
    return tau if lim is None else np.minimum(np.maximum(tau, -lim), lim)   # np.clip, faster


def _measure(q, qd, noise, quantization, rng, n):
    """The joints' measured (q, qd): noise and quantization on the joints' values (a floating
    robot's base state passes as it is)."""
    if noise is None and quantization is None:
        return q, qd
    if q.shape[-1] != n:
        b, bd = q.shape[-1] - n, qd.shape[-1] - n
        qm, qdm = _measure(q[..., b:], qd[..., bd:], noise, quantization, rng, n)
        return (np.concatenate([q[..., :b], qm], axis=-1),
                np.concatenate([qd[..., :bd], qdm], axis=-1))
    if noise is not None:
        sq, sqd = noise
        q = q + rng.normal(0.0, sq, q.shape) if sq else q
        qd = qd + rng.normal(0.0, sqd, qd.shape) if sqd else qd
    if quantization is not None:
        rq, rqd = quantization
        q = np.round(q / rq) * rq if rq else q
        qd = np.round(qd / rqd) * rqd if rqd else qd
    return q, qd


__all__ = ["simulate"]
