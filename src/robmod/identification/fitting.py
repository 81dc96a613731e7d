"""The stages of :meth:`~.estimator.DynamicIdentification.fit`, one function each.

1. :func:`filtering`: the cut-off -- none when the log was low-pass filtered before (its
   torques and accelerations band-limited, :func:`~.processing.prefiltered`), else chosen by
   cross-validation (:mod:`.cutoff`) above the edge of a filter the torques went through;
   a choice at an end of its range is said (a :class:`~robmod.errors.RobmodWarning`);
2. :func:`observation`: the decimated rows of the observation (the transients of the filters
   -- this one's and the recording software's -- trimmed at both ends of each segment by
   :func:`~.processing.process`);
3. :func:`structure`: the classes of parameters the data keep (:mod:`.selection`);
4. :func:`candidates`: the held-out errors of the estimates that could be handed over -- the
   physically consistent one when the description gives a prior (:mod:`.consistency`), the
   essential parameters otherwise (Pham & Gautier 1991), least squares -- and the choice.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import RobmodError, RobmodWarning
from .blocks import motion_blocks
from .cutoff import choose_cutoff
from .parameters import split_name
from .processing import prefiltered, transient
from .selection import EstimateChoice, Folds, choose_estimate, select_structure

#: the classes of parameters that do not describe a rigid body, by their names' field
CLASSES = {"Coulomb friction": "FC", "viscous friction": "FV", "torque offsets": "OFFSET",
           "rotor inertia": "IA"}


def filtering(model, data, *, cutoff, folds, method, use_measured_velocity):
    """(cutoff, band, choice, notes) of the log (see the module's notes)."""
    notes, band, choice = [], None, None
    if isinstance(cutoff, str):
        if cutoff != "auto":
            raise RobmodError(f"cutoff must be 'auto', a frequency in Hz or None, got "
                              f"{cutoff!r}")
        tau_band, acc_band = prefiltered(data, use_measured_velocity)
        if tau_band and acc_band:
            band = max(tau_band, acc_band)
            notes.append(f"the log was low-pass filtered before (nothing above {band:.3g} Hz "
                         "in its torques and accelerations): not filtered again")
            return None, band, None, notes
        choice = choose_cutoff(model, data, folds=folds, method=method,
                               use_measured_velocity=use_measured_velocity, low=tau_band)
        if tau_band:
            notes.append(f"the torques were low-pass filtered before (nothing above "
                         f"{tau_band:.3g} Hz): no cut-off below it tried")
        edge = choice.edge_note()
        if edge:
            warnings.warn(RobmodWarning(edge), stacklevel=4)
        return choice.chosen, None, choice, notes
    return cutoff, None, None, notes


def observation(model, p):
    """(rows, W (M, n, p), y (M, n), index (M,)): the decimated rows of the processed samples
    ``p``, unstacked."""
    rows = np.concatenate([np.arange(a, b, p.decimation) for a, b in p.segments])
    W, y, index = model.observation(p, rows=rows, stacked=False)
    return rows, W, y, index


def folds_of(W, y, index, data, p, folds, method):
    """(:class:`~.selection.Folds` of the rows, note): blocks of the motion
    (:func:`~.blocks.motion_blocks`: by phase for a log that repeats itself, else by time)."""
    block, dist, note = motion_blocks(data.q, data.segments, folds)
    near = dist <= transient(p.rate, p.smoothing)
    return Folds(W, y, block[index], near[index], folds,
                 "none" if method == "ols" else "joint"), note


def _groups_of(model, switches: dict) -> tuple:
    """({class: [columns]} the data may remove, [classes set by the user]): the classes of
    ``CLASSES`` whose switch is 'auto'; IA columns that hold other parameters (IA1 in ZZR1)
    are not the rotor's alone and stay."""
    relations = model.relations()
    groups, fixed = {}, []
    for label, field in CLASSES.items():
        cols = []
        for c, name in enumerate(model.names):
            if field == "OFFSET":
                if name.startswith("OFFSET"):
                    cols.append(c)
                continue
            try:
                f, _ = split_name(name)
            except KeyError:
                continue
            if f == field and str(relations.get(name, name)).strip() == name:
                cols.append(c)
        if not cols:
            continue
        if switches.get(label) == "auto":
            groups[label] = cols
        else:
            fixed.append(label)
    return groups, fixed


def structure(model, folds, switches, ls):
    """(columns kept, :class:`~.selection.StructureChoice` or None) of the model whose
    classes are chosen by the data."""
    groups, fixed = _groups_of(model, switches)
    columns = list(range(len(model.names)))
    if not groups:
        return columns, None
    well = 10 * float(np.min(ls.relative_std)) if np.isfinite(ls.relative_std).any() else None
    kept, choice = select_structure(folds, columns, groups, ls.relative_std, well)
    choice = type(choice)(choice.path, choice.removed, choice.kept, choice.restored,
                          tuple(fixed))
    return kept, choice


def candidates(est, folds, prior, *, tolerance):
    """The estimates to compare, their held-out errors and the choice (an
    :class:`~.selection.EstimateChoice`), for ``estimate='auto'``; the consistent estimate
    and the essential estimator computed on the way (``est.consistent_``, returned)."""
    from .consistency import consistent_fit, fold_errors

    model, columns = est.model_, list(est.columns_)
    errors, essential, notes = {}, None, []
    if prior and model.base is not None:
        try:
            est.consistent_ = consistent_fit(est, tolerance=tolerance)
            errors["consistent"] = fold_errors(est.consistent_, folds, est.names_, tolerance)
        except RobmodError as e:
            notes.append(f"the physically consistent estimate could not be computed ({e})")
    else:
        essential = est.essential()
        if len(essential.columns_) < len(columns):
            errors["essential parameters"] = folds.errors(list(essential.columns_))
        else:
            essential = None
    errors["least squares"] = folds.errors(columns)
    try:
        choice = choose_estimate(errors)
    except RobmodError:        # blocks too short to fit on the others
        choice = EstimateChoice(errors, "least squares", "least squares: the blocks of the log "
                                "are too short to compare the estimates on held-out data")
    if notes:
        choice = type(choice)(choice.errors, choice.chosen, choice.reason, tuple(notes))
    return choice, essential


__all__ = []
