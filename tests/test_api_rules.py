"""The public API's rules (docs/architecture.md, "One API"): one naming rule, one argument
order, keyword options checked, one name per thing (no deprecated aliases)."""
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import robmod
import robmod.dynamics
import robmod.geometry
import robmod.kinematics
from robmod.errors import ArgumentError

LAYERS = ["spatial", "description", "symbolic", "geometry", "kinematics", "dynamics",
          "identification", "trajectory", "control", "plot"]


def _packages():
    out = [robmod] + [importlib.import_module(f"robmod.{name}") for name in LAYERS]
    try:
        out.append(importlib.import_module("robmod.distributed"))
    except ImportError:   # the dask extra
        pass
    return out


PACKAGES = _packages()
ARCHITECTURE = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()


def _functions():
    out, seen = [], set()
    for pkg in PACKAGES:
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if inspect.isfunction(obj) and id(obj) not in seen:
                seen.add(id(obj))
                out.append((f"{pkg.__name__}.{name}", obj))
    return out


def _classes():
    """The exported classes built with options (keyword-only parameters): controllers,
    estimators, models (result types, built by robmod, take none)."""
    out, seen = [], set()
    for pkg in PACKAGES:
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if inspect.isclass(obj) and id(obj) not in seen:
                seen.add(id(obj))
                try:
                    params = inspect.signature(obj).parameters.values()
                except (TypeError, ValueError):
                    continue
                if any(p.kind is p.KEYWORD_ONLY for p in params):
                    out.append((f"{pkg.__name__}.{name}", obj))
    return out


FUNCTIONS = _functions()
CLASSES = _classes()

# -- naming: X(robot, ...), X_model(robot, ...), X_algorithm(ctx, robot, ...) ---------------

#: ``X_model`` without ``X`` and ``X_algorithm``, and why
MODEL_EXCEPTIONS = {
    "igm_model": "the symbolic solution of Paul's method (equations solved one joint at a "
                 "time, IGMSolution), not a customized model of an algorithm over a context; "
                 "igm(robot, T) is its numeric function",
    "base_idm_model": "the IDM's customized model written on the base parameters (of a "
                      "BaseParameters, not a robot): numerically the IDM of bp.base_robot(), "
                      "idm_algorithm over it",
    "identification_model": "the model object of identification (IdentificationModel: the "
                            "parameter set, the base, the known side), not a customized model",
    "remote_model": "a customized model made ready for Dask workers (RemoteModel), not a "
                    "quantity of its own",
}


def test_every_model_has_its_function_and_algorithm():
    missing = []
    for pkg in PACKAGES:
        names = set(pkg.__all__)
        for name in names:
            for suffix, others in (("_model", ("", "_algorithm")), ("_algorithm", ("", "_model"))):
                if name.endswith(suffix) and name not in MODEL_EXCEPTIONS:
                    stem = name[: -len(suffix)]
                    missing += [f"{pkg.__name__}: {name} without {stem}{o}" for o in others
                                if stem + o not in names]
    assert not missing, "\n".join(missing)


def test_algorithms_take_the_context_then_the_robot():
    for qual, fn in FUNCTIONS:
        if fn.__name__.endswith("_algorithm"):
            params = list(inspect.signature(fn).parameters)
            assert params[:2] == ["ctx", "robot"], (qual, params)


# -- one name per thing: no deprecated aliases before the first release ------------------------

#: names that were deprecated aliases or renamed families: none is reachable any more
REMOVED = {
    "robmod.dynamics": ["ne_algorithm", "inertia_algorithm", "gravity_model", "gravity_algorithm",
                        "coriolis_model", "quadratic_velocity_model", "rotor_model",
                        "rotor_algorithm", "closed_loop_gravity", "floating_idm",
                        "floating_idm_model", "floating_idm_algorithm", "free_floating_idm",
                        "free_floating_idm_model", "free_floating_idm_algorithm",
                        "floating_inertia_matrix", "floating_inertia_matrix_model",
                        "floating_inertia_matrix_algorithm", "floating_ddm",
                        "floating_ddm_model", "floating_ddm_algorithm"],
    "robmod.kinematics": ["block_ikm", "second_order_algorithm", "planar3r", "draw_robot",
                          "frame_origins", "floating_jacobian", "floating_jacobian_model",
                          "floating_jacobian_algorithm"],
    "robmod.geometry": ["floating_dgm", "floating_dgm_model", "floating_dgm_algorithm"],
    "robmod.identification": ["floating_regressor", "floating_regressor_model",
                              "floating_regressor_algorithm"],
    "robmod.plot": ["draw_robot", "manipulability_ellipsoid", "manipulability_index"],
}


def test_no_deprecated_names():
    """One name per thing: the deprecation layer (aliases that warned, positional options)
    is gone, with the docs' rename table."""
    import importlib.util

    assert importlib.util.find_spec("robmod.deprecation") is None
    for package, names in REMOVED.items():
        module = importlib.import_module(package)
        present = [n for n in names if hasattr(module, n)]
        assert not present, f"{package}: {present}"
    assert "Deprecated names" not in ARCHITECTURE and "| old name |" not in ARCHITECTURE
    with pytest.raises(TypeError):          # positional options: Python's own refusal
        robmod.geometry.dgm(robmod.load_robot("rx90", numeric=True), np.zeros(6), 3)
    with pytest.raises(ArgumentError, match="robot must be a robmod Robot"):
        robmod.control.PID(6, 1.0, 1.0)     # PID.for_joints(n, ...) builds one without a model


# -- signatures ----------------------------------------------------------------------------

#: the arrays of the joint space, in their order
ORDER = ["q", "qd", "qdd", "qddd", "qdddd", "tau"]
CLOSED = ["qa", "qda", "qdda", "tau_a"]
FRAMES = {"j", "i", "tool"}
SWITCHES = {"gravity", "rotor", "friction", "wrench", "velocity", "base_motion",
            "acceleration", "method"}
FORBIDDEN = {"gam", "gamma", "gam_a", "gamma0", "q1", "q2", "q3", "q4", "T_target", "n_or_robot",
             "robot_or_J", "n_or_names"}

#: (function, parameter) that may stay positional, and why
POSITIONAL_OK = {
    ("frame_transform", "j"): "the frame whose own transform a(j)T_j it is (as Robot.frame(j)), "
                              "not an end frame chosen among others",
    ("joint_variable", "j"): "the joint whose symbol q_j it is, not a frame chosen among others",
    ("joint_velocity", "j"): "the joint whose symbol QP_j it is",
    ("joint_acceleration", "j"): "the joint whose symbol QDP_j it is",
    ("kk_transform", "gamma"): "the Khalil-Kleinfinger angle gamma of the frame, not a torque",
    ("from_siciliano", "gravity"): "the arm's gravity vector (data, as SicilianoArm.gravity), "
                                   "not the switch of the dynamic models",
    **{(law, "q1"): "the end configuration q^f (Khalil & Dombre (8.1)), beside q0, not a "
                    "derivative" for law in ("point_to_point", "jerk_limited", "quintic", "cubic",
                                             "trapezoidal")},
    ("topp", "robot"): "optional: the path comes first, then the robot whose limits and torques "
                       "constrain it (None: the limits given only)",
    ("customize", "robot"): "the engine's builder: a model is its name and its algorithm, of a "
                            "robot or of none",
    ("SymbolicContext", "robot"): "a context of a robot or of none (the engine's contexts)",
    ("NumericContext", "robot"): "a context of a robot or of none (the engine's contexts)",
}
#: (function, parameter) with a default that may stay positional: data, not options
OPTIONAL_DATA = {
    ("frame_transform", "q"), ("frame_transforms", "q"),            # None: symbolic
    ("euler_zxz_to_matrix", "theta"), ("euler_zxz_to_matrix", "psi"),   # one (..., 3) array
    ("euler_zyz_to_matrix", "theta"), ("euler_zyz_to_matrix", "psi"),   # or three angles
    ("rpy_to_matrix", "theta"), ("rpy_to_matrix", "psi"),
    ("trans", "y"), ("trans", "z"), ("homogeneous", "R"), ("homogeneous", "P"),
    ("omega_matrix", "x"), ("omega_inverse", "x"), ("representation_singular", "x"),
    ("null_space_projector", "Jp"), ("ikm_pinv", "z"), ("ikm_task_priority", "z2"),
    ("igm_numeric", "q0"), ("operational_space", "qd"), ("closed_loop_state", "qdda"),
    ("view", "q"),                  # the viewer at a configuration, as robot_plot(robot, q)
    ("resolved_rate", "solver"),    # the IKM, a strategy object as control.simulate's controller
    ("forward", "frames"),          # the frames the recursion runs over (data)
    ("from_siciliano", "motors"), ("make_robot", "links"),    # the robot's data
    ("manipulability_map", "q"), ("robot_plot", "q"), ("manipulability_plot", "q"),  # the
    # configuration drawn or of the other joints
    # where a text came from, for the messages (as Python's compile(source, filename))
    ("parse_expression", "location"), ("loads_par", "filename"), ("loads_urdf", "filename"),
    ("loads_yaml", "filename"), ("loads_mjcf", "filename"), ("validate", "locations"),
    # the parameters a computation is of (what is computed, not how)
    ("numeric_base", "names"), ("standard_vector", "names"), ("compare", "nb"),
    ("via_points", "times"),        # the via points' times (data), else chosen by the limits
    ("workspace_map", "n_samples"),  # the size of the sampling (or grid=)
    # a controller's gains: data (ki, adaptation default; kp, kd or omega=)
    ("PID", "ki"), ("TaskPID", "ki"), ("ComputedTorque", "kp"), ("ComputedTorque", "kd"),
    ("TaskComputedTorque", "kp"), ("TaskComputedTorque", "kd"),
    ("AdaptivePassivity", "adaptation"),
    ("ClosedLoopDynamics", "what"),     # what the robot is, in the messages ("plant", ...)
}
#: the laws and variants that a function builds, read as data (rot_matrix's axis): the law
#: of a point-to-point motion (Table 8.1)
OPTIONAL_DATA |= {("point_to_point", "law"), ("task_line", "law")}


def _name(obj):
    return obj.__name__


def _signature_problems(qual, obj):
    bad = []
    name = _name(obj)
    params = list(inspect.signature(obj).parameters.values())
    names = [p.name for p in params]
    kinds = {p.name: p.kind for p in params}
    if any(p.kind is p.VAR_KEYWORD for p in params) and name not in VARIADIC:
        bad.append(f"{qual}: free **kwargs in the displayed signature")
    if any(p.kind is p.VAR_POSITIONAL for p in params) and name not in VARIADIC:
        bad.append(f"{qual}: free *args in the displayed signature")
    if "robot" in names and kinds["robot"] is inspect.Parameter.POSITIONAL_OR_KEYWORD:
        first = 1 if names[0] == "ctx" else 0
        if names.index("robot") != first and (name, "robot") not in POSITIONAL_OK:
            bad.append(f"{qual}: robot must come first")
    positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    for order in (ORDER, CLOSED):
        seen = [order.index(p.name) for p in positional if p.name in order]
        if seen != sorted(seen):
            bad.append(f"{qual}: arrays out of the order {order}")
    plot = name.endswith("_plot")
    for p in params:
        key = (name, p.name)
        if p.name in FORBIDDEN and key not in POSITIONAL_OK:
            bad.append(f"{qual}: argument {p.name!r} (torques are tau, derivatives qd, "
                       "qdd, qddd; a robot or n: one typed argument)")
        if p.kind is p.POSITIONAL_OR_KEYWORD and key not in POSITIONAL_OK:
            if p.name in FRAMES | SWITCHES:
                bad.append(f"{qual}: {p.name} must be keyword-only")
            elif p.default is not p.empty and key not in OPTIONAL_DATA \
                    and not (plot and p.name == "path"):   # the plot convention
                bad.append(f"{qual}: option {p.name} must be keyword-only")
    if "frame" in names and kinds["frame"] is not inspect.Parameter.KEYWORD_ONLY:
        bad.append(f"{qual}: frame must be keyword-only")
    return bad


#: functions whose *args is the data itself, and why
VARIADIC = {
    "virtual_joint": "the geometry of the joint's kind (Table 6.2), its own keywords per kind",
    "evaluate": "the model's input groups (q, qd, ...), as many as the model has",
}


def test_signatures():
    bad = []
    for qual, obj in FUNCTIONS + CLASSES:
        bad += _signature_problems(qual, obj)
    assert not bad, "\n".join(bad)


def test_signatures_cover_every_package():
    names = {qual.split(".")[1] for qual, _ in FUNCTIONS if qual.count(".") >= 2}
    assert set(LAYERS) <= names and len(FUNCTIONS) > 250


def test_allow_lists_name_existing_parameters():
    params = {(_name(fn), p) for _, fn in FUNCTIONS + CLASSES
              for p in inspect.signature(fn).parameters}
    dask = any(pkg.__name__ == "robmod.distributed" for pkg in PACKAGES)
    data = {k for k in OPTIONAL_DATA if dask or k[0] != "workspace_map"}
    assert set(POSITIONAL_OK) <= params and data <= params, \
        (set(POSITIONAL_OK) | data) - params


# -- keyword options are checked -----------------------------------------------------------

def _misspelt(name):
    return name[:-1] if len(name) > 3 else name + name[-1]


def _with_options(objs):
    out = []
    for qual, obj in objs:
        params = inspect.signature(obj).parameters.values()
        if any(p.kind is p.KEYWORD_ONLY for p in params):
            out.append((qual, obj))
    return out


@pytest.mark.parametrize("qual, fn", _with_options(FUNCTIONS + CLASSES),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_a_misspelt_keyword_is_an_argument_error_naming_the_option(qual, fn):
    """Every exported function, controller and estimator with keyword options (of every
    package): a misspelt keyword is an ArgumentError naming the closest option."""
    params = inspect.signature(fn).parameters.values()
    args = [None for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    kw = {p.name: None for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    option = next(p.name for p in params if p.kind is p.KEYWORD_ONLY)
    typo = _misspelt(option)
    with pytest.raises(ArgumentError, match=re.escape(repr(typo))) as info:
        fn(*args, **kw, **{typo: True})
    assert "did you mean" in str(info.value) and repr(option) in str(info.value), info.value


def test_the_plain_single_call_functions_are_not_wrapped():
    """Their keyword options are declared, not checked by a wrapper: a call costs what the
    compiled model costs (docs/architecture.md, "Keyword options")."""
    for fn in (robmod.dynamics.idm, robmod.dynamics.ddm, robmod.dynamics.inertia_matrix,
               robmod.geometry.dgm, robmod.kinematics.jacobian, robmod.kinematics.jdot_qdot,
               robmod.dynamics.gravity_torques):
        assert not hasattr(fn, "__wrapped__"), fn.__name__


def test_an_unknown_name_is_an_argument_error_and_a_key_error():
    from robmod.errors import UnknownNameError
    from robmod.identification.parameters import split_name

    assert split_name("XX12") == ("XX", 12)
    with pytest.raises(UnknownNameError, match=r"'XQ3' is not the name of a standard") as info:
        split_name("XQ3")
    assert isinstance(info.value, KeyError) and isinstance(info.value, ArgumentError)
    assert str(info.value).startswith("'XQ3' is not")       # the message, not KeyError's repr
