"""The public API's rules (docs/architecture.md, "One API"): one naming rule, one argument
order, keyword options checked, deprecated names that warn and name their replacement."""
import inspect
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import robmod
import robmod.dynamics
import robmod.geometry
import robmod.kinematics
from robmod.deprecation import ALIASES
from robmod.errors import ArgumentError

PACKAGES = [robmod, robmod.geometry, robmod.kinematics, robmod.dynamics]
ARCHITECTURE = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text()


def _functions():
    out = []
    for pkg in PACKAGES:
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if inspect.isfunction(obj):
                out.append((f"{pkg.__name__}.{name}", obj))
    return out


FUNCTIONS = _functions()

# -- naming: X(robot, ...), X_model(robot, ...), X_algorithm(ctx, robot, ...) ---------------

#: ``X_model`` without ``X`` and ``X_algorithm``, and why
MODEL_EXCEPTIONS = {
    "igm_model": "the symbolic solution of Paul's method (equations solved one joint at a "
                 "time, IGMSolution), not a customized model of an algorithm over a context; "
                 "igm(robot, T) is its numeric function",
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


# -- deprecated names ---------------------------------------------------------------------

def test_deprecated_names_warn_and_name_their_replacement():
    assert len(ALIASES) >= 11
    public = {n for pkg in PACKAGES for n in pkg.__all__}
    for path, new in ALIASES.items():
        module, old = path.rsplit(".", 1)
        assert old not in public, old
        alias = getattr(__import__(module, fromlist=[old]), old)
        layer = ".".join(module.split(".")[:2])
        assert getattr(__import__(layer, fromlist=[old]), old) is alias, f"{layer}.{old}"
        assert alias.replacement == new
        assert f"`{old}`" in ARCHITECTURE, f"docs/architecture.md must list {old}"
        with pytest.warns(DeprecationWarning, match=re.escape(new.split("(")[0])):
            try:
                alias(None, None)
            except Exception:   # the warning comes first; the arguments are not valid
                pass


def test_renamed_functions_give_the_same_results():
    from robmod.testing.random import with_random_dynamics

    robot = with_random_dynamics(robmod.load_robot("rx90", numeric=True),
                                 np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from robmod.dynamics import gravity_model, rotor_model
        from robmod.kinematics import block_ikm

        assert gravity_model(robot).outputs == robmod.dynamics.gravity_torques_model(
            robot).outputs
        assert rotor_model(robot, []).name == robmod.dynamics.rotor_torques_model(
            robot, []).name
        assert block_ikm(robmod.load_robot("rx90")) is robmod.kinematics.BlockIKM.from_robot(
            robmod.load_robot("rx90"))


# -- signatures ----------------------------------------------------------------------------

#: the arrays of the joint space, in their order
ORDER = ["q", "qd", "qdd", "qddd", "qdddd", "tau"]
CLOSED = ["qa", "qda", "qdda", "tau_a"]
FRAMES = {"j", "i", "tool"}
SWITCHES = {"gravity", "rotor", "friction", "wrench", "velocity", "base_motion",
            "acceleration", "method"}
FORBIDDEN = {"gam", "gamma", "gam_a", "gamma0", "q1", "q2", "q3", "q4", "T_target", "n_or_robot"}

#: (function, parameter) that may stay positional, and why
POSITIONAL_OK = {
    ("frame_transform", "j"): "the frame whose own transform a(j)T_j it is (as Robot.frame(j)), "
                              "not an end frame chosen among others",
    ("kk_transform", "gamma"): "the Khalil-Kleinfinger angle gamma of the frame, not a torque",
    ("from_siciliano", "gravity"): "the arm's gravity vector (data, as SicilianoArm.gravity), "
                                   "not the switch of the dynamic models",
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
    ("draw_robot", "q"), ("draw_robot", "path"),        # the plot convention (plot(obj, path))
    ("view", "q"),                  # the viewer at a configuration, as robot_plot(robot, q)
    ("resolved_rate", "solver"),    # the IKM, a strategy object as control.simulate's controller
    ("forward", "frames"),          # the frames the recursion runs over (data)
    ("from_siciliano", "motors"), ("make_robot", "links"),    # the robot's data
    ("planar3r", "l1"), ("planar3r", "l2"), ("planar3r", "l3"), ("planar3r", "qmin"),
    ("planar3r", "qmax"), ("planar3r", "numeric"),  # a robot factory's data (robot library)
}


def test_signatures():
    bad = []
    for qual, fn in FUNCTIONS:
        name = fn.__name__
        params = list(inspect.signature(fn).parameters.values())
        names = [p.name for p in params]
        kinds = {p.name: p.kind for p in params}
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) and \
                not (name == "virtual_joint"):
            bad.append(f"{qual}: free *args/**kwargs in the displayed signature")
        if "robot" in names:
            first = 1 if names[0] == "ctx" else 0
            if names.index("robot") != first:
                bad.append(f"{qual}: robot must come first")
        positional = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        for order in (ORDER, CLOSED):
            seen = [order.index(p.name) for p in positional if p.name in order]
            if seen != sorted(seen):
                bad.append(f"{qual}: arrays out of the order {order}")
        for p in params:
            key = (name, p.name)
            if p.name in FORBIDDEN and key not in POSITIONAL_OK:
                bad.append(f"{qual}: argument {p.name!r} (torques are tau, derivatives qd, "
                           "qdd, qddd)")
            if p.kind is p.POSITIONAL_OR_KEYWORD and key not in POSITIONAL_OK:
                if p.name in FRAMES | SWITCHES:
                    bad.append(f"{qual}: {p.name} must be keyword-only")
                elif p.default is not p.empty and key not in OPTIONAL_DATA:
                    bad.append(f"{qual}: option {p.name} must be keyword-only")
        if "frame" in names and kinds["frame"] is not inspect.Parameter.KEYWORD_ONLY:
            bad.append(f"{qual}: frame must be keyword-only")
    assert not bad, "\n".join(bad)


def test_allow_lists_name_existing_parameters():
    params = {(fn.__name__, p) for _, fn in FUNCTIONS for p in inspect.signature(fn).parameters}
    assert set(POSITIONAL_OK) <= params and OPTIONAL_DATA <= params


# -- keyword options are checked -----------------------------------------------------------

#: functions whose misspelt keyword is still Python's TypeError, and why
TYPO_EXCEPTIONS = {
    "make_robot": "description/build.py is restructured in parallel (issue 27, the description "
                  "package's imports); @keyword_options() goes on in the lead's sweep",
}


def _misspelt(name):
    return name[:-1] if len(name) > 3 else name + name[-1]


@pytest.mark.parametrize("qual, fn", [(q, f) for q, f in FUNCTIONS
                                      if f.__name__ not in TYPO_EXCEPTIONS
                                      and any(p.kind is p.KEYWORD_ONLY for p in
                                              inspect.signature(f).parameters.values())],
                         ids=lambda x: x if isinstance(x, str) else "")
def test_a_misspelt_keyword_is_an_argument_error_naming_the_option(qual, fn):
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


def test_positional_frames_still_work_for_one_release():
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.full(6, 0.3)
    with pytest.warns(DeprecationWarning, match="give j, i by keyword"):
        T = robmod.geometry.dgm(robot, q, 6, 2)
    assert np.array_equal(T, robmod.geometry.dgm(robot, q, j=6, i=2))
    with pytest.warns(DeprecationWarning):
        model = robmod.kinematics.jacobian_model(robot, 4)
    assert model.title == robmod.kinematics.jacobian_model(robot, j=4).title
    with pytest.raises(ArgumentError, match="by keyword"):
        robmod.geometry.dgm(robot, q, 6, j=6)
