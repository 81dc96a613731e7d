"""Symbolic base (minimum) inertial parameters by the direct method of Gautier and Khalil.

Gautier & Khalil (1990), with the errata noted below.  Standard parameters: per link j the ten
inertial parameters ``XXj XYj XZj YYj YZj ZZj MXj MYj MZj Mj`` (Gautier & Khalil (1990) (3)) and
the joint parameters ``IAj`` (rotor inertia), ``FCj``, ``FVj`` (friction).  A
parameter whose value in the description is 0 is absent.

Steps (Gautier & Khalil (1990) §8):

1. Cascade from link n to link 1 (trees: from the highest index down, into the
   antecedent a(j)):

   * revolute joint j (Theorem 5): the part of link j invariant under a rotation
     about z_j -- inertia ``YY_j diag(1, 1, 0)``, first moment ``(0, 0, MZ_j)``,
     mass ``M_j`` -- moves with link a(j): it is added to link a(j) through
     a(j)T_j (rotation and parallel-axis terms: relation (20) in matrix form),
     and YY_j, MZ_j, M_j are eliminated (``XXR_j = XX_j - YY_j``);
   * prismatic joint j (Theorem 6): the whole inertia tensor moves with link a(j):
     ``JR_a = J_a + aA_j jJ_j jA_a`` (the matrix form; relation (21) is wrong);
   * fixed frame (sigma = 2): the whole link is rigidly attached to a(j).

   What reaches the fixed base has no effect.
2. The first links (step a and c, Theorems 3, 4): from the base, each link
   whose antecedents all fail the condition of Theorem 1 (every parameter of
   the link has DE != 0 or DU not constant) is analysed with the energy
   functions of :mod:`.energy`: each remaining parameter (and each rotor
   inertia IA of these joints), taken from the base outwards, is kept if its
   function (DE, DU - constant) is independent of those kept, eliminated if it
   is zero (condition (13)), and regrouped (condition (14), (15)) with constant
   coefficients otherwise.  Functions are polynomials in S_k, C_k (reduced by
   C_k^2 = 1 - S_k^2), prismatic q_k and the velocities; the coefficients keep
   the symbolic geometry; dependencies are found at a random numeric point of
   the geometry and solved exactly.
3. Rotor of a revolute joint j beyond: if the z_j component of the angular
   velocity of a(j) is identically zero, ``ZZR_j = ZZ_j + IA_j``.

Friction parameters are always base parameters.  Base parameters are named as
in the books: ``XXR2``, ``MYR3`` (a standard parameter that received others),
``XY2``, ``IA3`` (unchanged).  The fixed base is assumed (W0 = WP0 = V0 = 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import sympy as sp

from ..description.arguments import keyword_options
from ..description.expr import symbol
from ..description.robot import FIXED, INERTIAL, PRISMATIC, REVOLUTE
from ..arguments import did_you_mean
from ..errors import RobmodError, UnknownNameError
from ..geometry.transforms import frame_transform
from .first_links import first_links_analysis, rotor_rule
from .parameters import FIELDS, split_name

_J_INDEX = {"XX": (0, 0), "XY": (0, 1), "XZ": (0, 2), "YY": (1, 1), "YZ": (1, 2), "ZZ": (2, 2)}
_FIELD_AT = {rc: k for k, rc in _J_INDEX.items()}


@dataclass(frozen=True)
class BaseParameter:
    """One base parameter: its name (``XXR2``), the standard parameter whose regressor
    column it takes (``XX2``), and its expression in the standard parameters."""

    name: str
    standard: str
    expr: sp.Expr
    link: int
    field: str

    @property
    def symbol(self) -> sp.Symbol:
        return symbol(self.name)

    @property
    def regrouped(self) -> bool:
        return self.expr != symbol(self.standard)


@dataclass(frozen=True)
class EliminatedParameter:
    name: str
    reason: str            # 'no effect' or 'regrouped'
    into: tuple = ()       # base parameters it enters


@dataclass
class BaseParameters:
    """Result of :func:`base_parameters`."""

    robot: object
    standard: tuple                      # names of the standard parameters present
    values: dict                         # standard name -> value in the description
    base: tuple                          # BaseParameter
    eliminated: tuple                    # EliminatedParameter
    analysed_links: tuple = ()
    notes: list = field(default_factory=list)

    # -- access --------------------------------------------------------------------------
    def __len__(self):
        return len(self.base)

    @property
    def names(self) -> tuple:
        return tuple(b.name for b in self.base)

    @property
    def standard_names(self) -> tuple:
        """For each base parameter, the standard parameter whose column it takes."""
        return tuple(b.standard for b in self.base)

    def __getitem__(self, name) -> sp.Expr:
        for b in self.base:
            if b.name == name:
                return b.expr
        raise UnknownNameError(f"no base parameter {name!r}{did_you_mean(name, self.names)}; "
                               f"the base parameters: {', '.join(self.names)}")

    @property
    def relations(self) -> dict:
        return {b.name: b.expr for b in self.base}

    @property
    def count(self) -> int:
        return len(self.base)

    def inertial_count(self) -> int:
        return sum(1 for b in self.base if b.field in INERTIAL)

    def matrix(self) -> sp.Matrix:
        """K with beta = K chi (b x p, chi in the order of ``standard``)."""
        syms = [symbol(s) for s in self.standard]
        return sp.Matrix([[sp.diff(b.expr, s) for s in syms] for b in self.base])

    def numeric_matrix(self, geometry=None) -> np.ndarray:
        """K as floats (symbolic geometry replaced by ``geometry`` values or the robot's)."""
        K = self.matrix()
        vals = dict(self.robot.values)
        vals.update(geometry or {})
        K = K.xreplace({symbol(k): sp.sympify(v) for k, v in vals.items()})  # safe: numbers
        return np.array(K.evalf(), dtype=float)

    # -- values and the base robot ---------------------------------------------------------
    def standard_values(self, robot=None) -> dict:
        """{standard symbol: value} of ``robot`` (default: the analysed robot's fields)."""
        robot = robot or self.robot
        out = {}
        for name in self.standard:
            fieldname, j = split_name(name)
            out[symbol(name)] = getattr(robot.link(j), fieldname)
        return out

    def values_of(self, robot=None) -> dict:
        """{base name: value} for the standard parameters of ``robot``."""
        sv = self.standard_values(robot)
        geo = {symbol(k): sp.sympify(v) for k, v in (robot or self.robot).values.items()}  # safe: parsed values
        return {b.name: sp.sympify(b.expr.xreplace(sv)).xreplace(geo)  # safe: robmod exprs
                for b in self.base}

    def substitution(self) -> dict:
        """{standard symbol: base symbol or 0}: the customization of a model on base parameters."""
        out = {symbol(s): sp.Integer(0) for s in self.standard}
        for b in self.base:
            out[symbol(b.standard)] = b.symbol
        return out

    def base_robot(self, values=None):
        """The robot whose link fields are the base parameters (eliminated ones 0).

        ``values``: {base name: value} to put numbers instead of the base symbols (e.g.
        :meth:`values_of` of a numeric robot); the robot is not validated (base parameters
        need not be physically consistent).
        """
        links = []
        kept = {b.standard: b for b in self.base}
        for link in self.robot.links:
            kw = {}
            for f in FIELDS:
                name = f"{f}{link.j}"
                if name in kept:
                    b = kept[name]
                    kw[f] = sp.sympify(values[b.name]) if values else b.symbol  # safe: values come from the Robot (already SymPy expressions)
                elif name in self.values:
                    kw[f] = sp.Integer(0)
            links.append(replace(link, **kw))
        return replace(self.robot, links=tuple(links))

    def relations_model(self):
        """The relations beta = f(chi) as a customized model (inputs ``chi``, output ``BETA``):
        exports (text, Python, C, Octave, LaTeX) and compiles like any model."""
        from ..symbolic.model import CustomModel, Output

        chi = tuple(symbol(s) for s in self.standard)
        geo = sorted({s for b in self.base for s in b.expr.free_symbols} - set(chi), key=str)
        inputs = {"chi": chi}
        if geo:
            inputs["params"] = tuple(geo)
        return CustomModel(name=f"{self.robot.name}_base_parameters", inputs=inputs,
                           statements=(), outputs=(Output.vector(
                               "BETA", [b.expr for b in self.base], self.names),),
                           title=f"Base parameters of {self.robot.name} (Gautier-Khalil)",
                           robot=self.robot.name)

    # -- printing ----------------------------------------------------------------------------
    def table(self) -> str:
        geo = sorted(self.robot.symbols - {symbol(s) for s in self.standard}, key=str)
        lines = [f"Base parameters of {self.robot.name}: {len(self.base)} "
                 f"({self.inertial_count()} inertial) of {len(self.standard)} standard "
                 "parameters", ""]
        w = max([len(b.name) for b in self.base] + [4])
        for b in self.base:
            e = sp.collect(sp.expand(b.expr), geo) if geo else b.expr
            lines.append(f"  {b.name:<{w}} = {_text(e)}")
        lines.append("")
        noeff = [e.name for e in self.eliminated if e.reason == "no effect"]
        reg = [e for e in self.eliminated if e.reason == "regrouped"]
        if reg:
            lines.append("Regrouped (eliminated): " + ", ".join(
                f"{e.name} -> {'/'.join(e.into)}" for e in reg))
        if noeff:
            lines.append("No effect: " + ", ".join(noeff))
        if self.analysed_links:
            lines.append("Links analysed with the energy functions (steps a, c): "
                         + ", ".join(map(str, self.analysed_links)))
        lines.extend(self.notes)
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return (f"<BaseParameters of {getattr(self.robot, 'name', '?')}: {len(self.base)} base "
                f"parameters of {len(self.standard)} standard; print() for the table>")

    def _repr_html_(self):
        from ..description.table import html_table

        rows = [(b.name, _text(b.expr)) for b in self.base]
        return html_table(["base parameter", "= standard parameters"], rows,
                          caption=f"Base inertial parameters of "
                                  f"{getattr(self.robot, 'name', '')} ({len(self.base)})")


def _text(e) -> str:
    from ..description.expr import to_text

    return to_text(e)


# ---------------------------------------------------------------------------------------------
# The cascade works on linear forms {standard parameter symbol: coefficient}: what link j hands
# to a(j) is linear in link j's ten quantities, and a form grows by merging dictionaries, where
# SymPy sums would be rebuilt and expanded at every link (quadratic in the size of the tree).

class _Num:
    """A coefficient of the cascade: a number held exactly (int or Fraction; ``inexact`` when a
    float entered it: it is written back as a Float, rounded once, whatever the order of the
    sums) or a SymPy expression (symbolic geometry)."""

    __slots__ = ("v", "inexact")

    def __init__(self, v, inexact=False):
        self.v, self.inexact = v, inexact

    @classmethod
    def of(cls, x):
        x = sp.sympify(x)  # safe: entries of a frame transform or numbers built here
        if x.is_Integer:
            return cls(int(x))
        if x.is_Rational:
            return cls(Fraction(int(x.p), int(x.q)))
        if x.is_Float:
            return cls(Fraction(float(x)), True)
        return cls(x)

    def sympy(self):
        v = self.v
        if isinstance(v, sp.Basic):
            return v
        if self.inexact:
            return sp.Float(float(v))
        return sp.Rational(v.numerator, v.denominator)

    def _with(self, other, op):
        if isinstance(self.v, sp.Basic) or isinstance(other.v, sp.Basic):
            return _Num(op(self.sympy(), other.sympy()))
        return _Num(op(self.v, other.v), self.inexact or other.inexact)

    def __add__(self, other):
        return self._with(other, lambda a, b: a + b)

    def __sub__(self, other):
        return self._with(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._with(other, lambda a, b: a * b)

    def __neg__(self):
        return _Num(-self.v, self.inexact)

    def __bool__(self):
        return self.v != 0

    def simplified(self):
        if isinstance(self.v, sp.Basic):
            return _Num.of(sp.expand(self.v))
        return self


_ONE, _TWO = _Num(1), _Num(2)


def _lin(terms):
    """sum c * form over ``terms`` [(c, form)], coefficients simplified, zeros dropped."""
    out = {}
    for c, form in terms:
        if not c:
            continue
        for sym, v in form.items():
            out[sym] = out[sym] + c * v if sym in out else c * v
    out = {sym: v.simplified() for sym, v in out.items()}
    return {sym: v for sym, v in out.items() if v}


def _transfer_rigid(R, P, J, ms, m):
    """Inertia (about O_a, frame a), first moment and mass of a body given in frame j, as linear
    forms: J = R Jj R^T + m (P.P I - P P^T) + 2 (P.c) I - P c^T - c P^T, MS = c + m P, c = R MSj
    (the parallel-axis relations of Gautier & Khalil (1990) (20) in matrix form)."""
    c = [_lin([(R[r][u], ms[u]) for u in range(3)]) for r in range(3)]
    pp = P[0] * P[0] + P[1] * P[1] + P[2] * P[2]
    Ja = {}
    for r in range(3):
        for k in range(r, 3):
            terms = [(R[r][u] * R[k][v], J[u][v]) for u in range(3) for v in range(3)]
            terms += [(-P[r], c[k]), (-P[k], c[r])]
            if r == k:
                terms.append((pp - P[r] * P[r], m))
                terms += [(_TWO * P[u], c[u]) for u in range(3)]
            else:
                terms.append((-P[r] * P[k], m))
            Ja[r, k] = _lin(terms)
    return Ja, [_lin([(_ONE, c[r]), (P[r], m)]) for r in range(3)], m


def _cascade(robot, X, mod):
    n = robot.n_links
    F = {j: {k: ({e: _ONE} if e != 0 else {}) for k, e in X[j].items()} for j in X}
    for f in reversed(robot.frames[:n]):
        j, a = f.j, f.ant
        Xj = F[j]

        def tensor():
            return [[Xj[_field_at(r, c)] for c in range(3)] for r in range(3)]

        if f.sigma == REVOLUTE:
            J = [[Xj["YY"], {}, {}], [{}, Xj["YY"], {}], [{}, {}, {}]]
            ms, m = [{}, {}, Xj["MZ"]], Xj["M"]
            if Xj["YY"]:
                Xj["XX"] = _lin([(_ONE, Xj["XX"]), (-_ONE, Xj["YY"])])
                mod[j]["XX"] = True
            Xj["YY"] = Xj["MZ"] = Xj["M"] = {}
        elif f.sigma == PRISMATIC:
            J, ms, m = tensor(), [{}, {}, {}], {}
            for k in _J_INDEX:
                Xj[k] = {}
        else:  # fixed: the whole link
            J, ms, m = tensor(), [Xj["MX"], Xj["MY"], Xj["MZ"]], Xj["M"]
            for k in INERTIAL:
                Xj[k] = {}
        if a == 0 or not (any(x for row in J for x in row) or any(ms) or m):
            continue
        T = frame_transform(robot, j, q=sp.Integer(0))
        R = [[_Num.of(T[r, c]) for c in range(3)] for r in range(3)]
        P = [_Num.of(T[r, 3]) for r in range(3)]
        Ja, msa, ma = _transfer_rigid(R, P, J, ms, m)
        add = {k: Ja[rc] for k, rc in _J_INDEX.items()}
        add.update(MX=msa[0], MY=msa[1], MZ=msa[2], M=ma)
        for k, v in add.items():
            if v:
                F[a][k] = _lin([(_ONE, F[a][k]), (_ONE, v)])
                mod[a][k] = True
    for j, fields in F.items():
        for k, form in fields.items():
            e = sp.Add(*[_term(c.sympy(), sym) for sym, c in form.items()])
            X[j][k] = sp.expand(e) if any(isinstance(c.v, sp.Basic) for c in form.values()) \
                else e


def _term(c, sym):
    """c * sym; a number times a symbol built in its canonical form directly (SymPy's product
    would look for the same result through its assumptions, the bulk of the time on big trees)."""
    if c == 1:
        return sym
    if c.is_Number:
        return sp.Mul(c, sym, evaluate=False)
    return c * sym


def _field_at(r, c):
    """The inertia field (XX..ZZ) of the element (r, c) of a symmetric 3x3 (r, c in 0..2)."""
    return _FIELD_AT[min(r, c), max(r, c)]


@keyword_options()
def base_parameters(robot, *, rotor=True, friction=True, regroup_first_links=True,
                    seed=0, numeric_finish=True) -> BaseParameters:
    """Symbolic base parameters of a serial or tree robot (closed loops: the equivalent tree).

    ``rotor`` / ``friction``: include IA / FC, FV (when present in the description).
    ``regroup_first_links=False``: the closed-form rules of Gautier & Khalil (1990) only --
    cascade, Theorems 3/4 and condition (13) on the first links, rotor rule -- without the
    search for further regroupings among the first links (step c); the result may then exceed
    the minimum (prismatic joints near the base), which :func:`~.base_numeric.compare` reports.
    ``numeric_finish`` (default): where the closed-form rules stop short of the minimum, the
    remaining regroupings are found from the rank of the regressor
    (:mod:`.base_finish`), so that the set is always minimal.
    """
    if any(x != 0 for x in tuple(robot.W0) + tuple(robot.WP0) + tuple(robot.V0)):
        raise RobmodError("base parameters: a fixed base is assumed (W0 = WP0 = V0 = 0)")
    rng = np.random.default_rng(seed)
    n = robot.n_links
    X, mod, IA, FR = {}, {}, {}, {}
    values, standard = {}, []
    for link in robot.links:
        j = link.j
        X[j], mod[j] = {}, {}
        for k in INERTIAL:
            v = getattr(link, k)
            present = v is not None and v != 0
            X[j][k] = symbol(f"{k}{j}") if present else sp.Integer(0)
            mod[j][k] = False
            if present:
                standard.append(f"{k}{j}")
                values[f"{k}{j}"] = v
        joint = robot.frame(j).sigma != FIXED
        for k, on in (("IA", rotor), ("FC", friction), ("FV", friction)):
            v = getattr(link, k)
            present = joint and on and v is not None and v != 0
            if present:
                standard.append(f"{k}{j}")
                values[f"{k}{j}"] = v
            if k == "IA":
                IA[j] = symbol(f"IA{j}") if present else sp.Integer(0)
            else:
                FR[(j, k)] = symbol(f"{k}{j}") if present else sp.Integer(0)
    notes = []
    _cascade(robot, X, mod)
    analysed, _ = first_links_analysis(robot, X, mod, IA, notes, rng, regroup_first_links)
    rotor_rule(robot, X, mod, IA, set(analysed) if regroup_first_links else set(), rng)
    base = []
    for j in range(1, n + 1):
        for k in INERTIAL:
            e = X[j][k]
            if e != 0:
                name = f"{k}R{j}" if (mod[j][k] or e != symbol(f"{k}{j}")) else f"{k}{j}"
                base.append(BaseParameter(name, f"{k}{j}", e, j, k))
        if IA[j] != 0:
            base.append(BaseParameter(f"IA{j}", f"IA{j}", IA[j], j, "IA"))
        for k in ("FC", "FV"):
            if FR[(j, k)] != 0:
                base.append(BaseParameter(f"{k}{j}", f"{k}{j}", FR[(j, k)], j, k))
    if numeric_finish and regroup_first_links:
        from .base_finish import finish_numerically

        base, more = finish_numerically(robot, base, seed=seed)
        notes.extend(more)
    kept = {b.standard for b in base}
    entered = {}            # standard symbol -> the base parameters it enters
    for b in base:
        for sym in b.expr.free_symbols:
            entered.setdefault(sym, []).append(b.name)
    elim = []
    for s in standard:
        if s in kept:
            continue
        into = tuple(entered.get(symbol(s), ()))
        elim.append(EliminatedParameter(s, "regrouped" if into else "no effect", into))
    return BaseParameters(robot=robot, standard=tuple(standard), values=values, base=tuple(base),
                          eliminated=tuple(elim), analysed_links=analysed, notes=notes)


__all__ = ["base_parameters", "BaseParameters", "BaseParameter", "EliminatedParameter"]
