"""The order in which compiled code computes a model's statements.

A customized model lists its statements in the order the recursion produced them: the forward
pass of every link, then the backward pass.  Printed in that order, a large model (the
derivatives: thousands of statements) keeps most of its values alive from the forward pass to
the end, more than the processor's registers hold; the compiler keeps them on the stack, and
the vectorized kernel, whose values are four times wider, spills them out of the first-level
cache.  :func:`schedule` orders the same statements as the outputs need them: each output is
written as soon as its values are known, each value is computed just before its first use (a
depth-first walk from the outputs, in their order, dependencies in the recursion's order),
unless the recursion's own order keeps fewer values alive at its peak (the direct model, whose
outputs are all known only at the end).  Each statement keeps its own arithmetic, so the
results are the same bits; only the lifetimes of the values get shorter (Panda, derivatives of
the inverse model: 200 values alive at the peak instead of 707; batched about 20 % faster).
"""
from __future__ import annotations


def schedule(model, skip=frozenset()):
    """[("statement", lhs, rhs) | ("output", position, expr)]: every statement of ``model``
    but those in ``skip`` (computed elsewhere) and every output value, in the order of the
    depth-first walk (:func:`_as_needed`) or the recursion's, whichever has fewer values alive
    at its peak (:func:`_peak_alive`)."""
    walk = _as_needed(model, skip)
    own = [("statement", lhs, rhs) for lhs, rhs in model.statements if lhs not in skip]
    own += [("output", k, e) for k, e in enumerate(e for o in model.outputs for e in o.exprs)]
    return walk if _peak_alive(walk) < _peak_alive(own) else own


def _peak_alive(items) -> int:
    """The largest number of statement values computed and still to be read, along
    ``items`` (a :func:`schedule`)."""
    computed = {lhs for kind, lhs, _ in items if kind == "statement"}
    last = {}
    for k, (_, _, rhs) in enumerate(items):
        for s in rhs.free_symbols & computed:
            last[s] = k
    ends: dict = {}
    for k in last.values():
        ends[k] = ends.get(k, 0) + 1
    alive = peak = 0
    for k, (kind, lhs, _) in enumerate(items):
        if kind == "statement" and lhs in last:
            alive += 1
            peak = max(peak, alive)
        alive -= ends.get(k, 0)
    return peak


def _as_needed(model, skip=frozenset()):
    """The statements each just before its first use and every output value once its
    statements are computed; statements no output reads come last, in their order."""
    rank = {lhs: k for k, (lhs, _) in enumerate(model.statements)}
    rhs_of = dict(model.statements)
    deps: dict = {}

    def needs(s):
        d = deps.get(s)
        if d is None:
            d = deps[s] = sorted((x for x in rhs_of[s].free_symbols
                                  if x in rank and x not in skip), key=rank.__getitem__)
        return d

    done, out = set(skip), []

    def emit(symbol):
        stack = [(symbol, False)]
        while stack:
            s, ready = stack.pop()
            if s in done:
                continue
            if ready:
                done.add(s)
                out.append(("statement", s, rhs_of[s]))
                continue
            stack.append((s, True))
            stack.extend((d, False) for d in reversed(needs(s)) if d not in done)

    pos = 0
    for o in model.outputs:
        for e in o.exprs:
            for s in sorted((x for x in e.free_symbols if x in rank), key=rank.__getitem__):
                emit(s)
            out.append(("output", pos, e))
            pos += 1
    for lhs, _ in model.statements:
        emit(lhs)
    return out


__all__ = []
