"""The architecture rules: layers without upward imports, small modules, no private imports."""
import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "robmod"
MODULES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


#: the modules outside the layers (below them all but testing: they import no layer)
OUTSIDE = {"errors", "arguments", "version", "testing", "__init__", "__main__",
           "robots"}


def test_layers_contract():
    """spatial < description < symbolic < geometry < kinematics < dynamics < identification
    < trajectory < control < plot | viewer (side by side, independent) < cli, checked by
    import-linter (contract in pyproject.toml)."""
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed")
    res = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]


def test_every_package_is_a_layer_and_spatial_is_the_bottom_one():
    """The contract names every package of robmod (a new one must take its place in the
    layers), the leaf package robmod.spatial (SO(3), SE(3) on floats) at the bottom."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"]
    layers = [name.strip("()") for entry in contracts[0]["layers"]
              for name in entry.split(" | ")]     # side by side: plot | viewer
    assert layers[-1] == "robmod.spatial" and layers[0] == "robmod.cli"
    found = {p.stem if p.is_file() else p.name for p in SRC.iterdir()
             if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert {f"robmod.{name}" for name in found - OUTSIDE} == set(layers), \
        "add the package to the layers of pyproject.toml (or to OUTSIDE, importing no layer)"
    below = set(contracts[1]["source_modules"])
    assert below == {f"robmod.{m}" for m in ("errors", "arguments", "version")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_modules_are_small(path):
    assert len(path.read_text().splitlines()) <= 520, "split the module by responsibility"


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {alias.name}")
    assert not offenders, "make them public in a small module:\n" + "\n".join(offenders)


# ---- the public API: __all__ of every module, every public name reachable from its package ----

def _module_name(path):
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(path):
    return path.name == "__init__.py"


def _packages(name, path):
    """The packages a module's public names must be reachable from: its parent package and
    its layer (``robmod.geometry`` for ``robmod.geometry.inverse.paul``); a layer package
    (``robmod.geometry``) is its own."""
    parts = name.split(".")[:-1]
    if _is_package(path) and len(parts) <= 1:
        return [name]
    return sorted({".".join(parts), ".".join(parts[:2])})


def _static_all(tree):
    names, found = [], False
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            found = True
            names += ast.literal_eval(node.value)
    return names if found else None


def _import(name):
    import importlib

    if name.startswith("robmod.distributed"):
        pytest.importorskip("dask")
        pytest.importorskip("distributed")
    return importlib.import_module(name)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_every_module_has_all_reachable_from_its_package(path):
    """``__all__`` is the public API: every module has one, its names exist, none is private,
    and each is an attribute of the module's package(s) and listed in their ``__all__``."""
    names = _static_all(ast.parse(path.read_text()))
    assert names is not None, "define __all__ (the module's public API; [] if none)"
    assert not [n for n in names if n.startswith("_")], "__all__ lists a private name"
    assert len(names) == len(set(names)), "__all__ has duplicates"
    if not names:
        return  # nothing to reach (and __main__ modules must not be imported)
    name = _module_name(path)
    module = _import(name)
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ lists undefined names {missing}"
    for pkg_name in _packages(name, path):
        pkg = _import(pkg_name)
        absent = [n for n in names if getattr(pkg, n, None) is not getattr(module, n)]
        unlisted = [n for n in names if n not in pkg.__all__]
        assert not absent and not unlisted, \
            f"{pkg_name} must import and list in __all__ {sorted(set(absent + unlisted))}"


def _imported_names():
    """(module, name) pairs that some other module of robmod imports or reads as attribute."""
    names = {_module_name(p): p for p in MODULES}
    used = set()
    for path in MODULES:
        me = _module_name(path)
        base = me.split(".") if _is_package(path) else me.split(".")[:-1]
        aliases = {}
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                if node.level:
                    mod = ".".join(base[:len(base) - node.level + 1] + ([mod] if mod else []))
                for alias in node.names:
                    if f"{mod}.{alias.name}" in names:
                        aliases[alias.asname or alias.name] = f"{mod}.{alias.name}"
                    elif mod != me:
                        used.add((mod, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in names:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in aliases and aliases[node.value.id] != me:
                used.add((aliases[node.value.id], node.attr))
    return used


def test_names_used_only_in_their_module_are_private():
    """A top-level function or class neither in ``__all__`` nor used by another module is
    private (leading underscore); un-underscored names outside ``__all__`` are the internal
    helpers shared between modules (docs/architecture.md)."""
    used = _imported_names()
    offenders = []
    for path in MODULES:
        tree = ast.parse(path.read_text())
        public = set(_static_all(tree) or ())
        name = _module_name(path)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and not node.name.startswith("_") and node.name not in public \
                    and (name, node.name) not in used:
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert not offenders, "make them private (or public in __all__):\n" + "\n".join(offenders)


#: the packages whose __all__ is the public API (tests/test_api_rules.py's), and their names
#: counted together: 545 before issue 36 (the floating_* families, BaseState), 524 after (a
#: merge that adds or removes public names updates the count, deliberately)
PUBLIC_PACKAGES = ["", ".spatial", ".description", ".symbolic", ".geometry", ".kinematics",
                   ".dynamics", ".identification", ".trajectory", ".control", ".plot",
                   ".distributed"]
#: the public names (robmod and its layers' __all__): 553 with the floating_* families, the
#: six simulators and the deprecated aliases (main before issue 36), 528 without
PUBLIC_NAMES = 528
#: the names contacts added (issue 39: description, kinematics, dynamics, control; Scene,
#: Solid, SceneStepper: scenes of several robots)
CONTACTS = 38
#: the names a mobile base's simulation added (issue 36's follow-up: control.MobileDynamics,
#: control.BaseMotion)
MOBILE = 2


def _public_names():
    import importlib

    out = []
    for name in PUBLIC_PACKAGES:
        try:
            pkg = importlib.import_module("robmod" + name)
        except ImportError:       # the dask extra
            pytest.skip("robmod.distributed needs the dask extra")
        out += [(pkg.__name__, n) for n in pkg.__all__]
    return out


def test_the_public_api_counts_its_names():
    """One robot, one API: fewer public names than with the parallel families (the floating_*
    functions, models and algorithms are the plain ones now); a new name updates the count."""
    assert len(_public_names()) == PUBLIC_NAMES + CONTACTS + MOBILE and PUBLIC_NAMES < 547


def test_no_public_name_of_a_parallel_family():
    """A mobile or floating robot runs every feature under the plain names: no public name
    starts with floating_ or free_floating_."""
    parallel = sorted(f"{p}.{n}" for p, n in _public_names()
                      if n.startswith(("floating_", "free_floating_")))
    assert not parallel, parallel


def test_package_all_has_no_duplicates():
    for path in MODULES:
        if _is_package(path):
            names = _static_all(ast.parse(path.read_text())) or []
            dup = sorted({n for n in names if names.count(n) > 1})
            assert not dup, f"{path.relative_to(SRC)}: {dup}"


@pytest.mark.parametrize("path", [p for p in MODULES if _is_package(p)],
                         ids=lambda p: str(p.parent.relative_to(SRC.parent)))
def test_no_module_is_named_like_a_name_its_package_exports(path):
    """``robmod.trajectory.topp`` must be the function, never a module hidden by it."""
    exported = set(_static_all(ast.parse(path.read_text())) or [])
    modules = {p.stem for p in path.parent.glob("*.py")} | \
        {p.name for p in path.parent.iterdir() if (p / "__init__.py").exists()}
    assert not exported & modules, f"rename the modules {sorted(exported & modules)}"


# ---- no import circles inside a package ---------------------------------------------------------
#: circles known and left for their own fix; each entry names its circles, so that a new one
#: still fails (and test_the_known_circles_are_still_there asks to remove a fixed one): a
#: method calling a module above its class through an import inside the method.  (Gone:
#: control's plant.py <-> closed_plant.py, the plants of the other kinds handing themselves
#: over to plant.PLANT_KINDS; kinematics' BlockIKM.model, which called
#: block_inverse.block_model, the one way being ikm_block_model(robot, j=...).)
KNOWN_CIRCLES: dict = {
}


def _declared_delegations() -> set:
    """(module, imported module) pairs of the layers contract's ``ignore_imports``: the plot()
    methods that delegate to robmod.plot at call time, declared with their reason."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"]
    return {tuple(x.strip() for x in rule.split("->")) for c in contracts
            for rule in c.get("ignore_imports", [])}


DECLARED = _declared_delegations()


def _imports_of(path):
    """Modules a module imports, at its top or inside functions (a lazy import is still a
    dependency), as dotted names resolved against robmod's modules; the delegations the
    layers contract declares (:data:`DECLARED`) left out."""
    names = {_module_name(p) for p in MODULES}
    me = _module_name(path)
    base = me.split(".") if _is_package(path) else me.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = ".".join(base[:len(base) - node.level + 1] + ([mod] if mod else []))
            for alias in node.names:
                full = f"{mod}.{alias.name}"
                out.add(full if full in names else mod)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if (me, m) not in DECLARED}


def _circles(package):
    """The import circles between the parts (modules and sub-packages) of ``package``: the
    strongly connected components of more than one part (Tarjan's algorithm)."""
    parts = {}
    for path in MODULES:
        name = _module_name(path)
        if name.startswith(package + "."):
            parts.setdefault(name[len(package) + 1:].split(".")[0], []).append(path)
    graph = {p: set() for p in parts}
    for part, paths in parts.items():
        for path in paths:
            for imp in _imports_of(path):
                if imp.startswith(package + "."):
                    other = imp[len(package) + 1:].split(".")[0]
                    if other != part and other in graph:
                        graph[part].add(other)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


PACKAGES = sorted(_module_name(p) for p in MODULES if _is_package(p))


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circles_in_a_package(package):
    """Inside a package the modules form layers too: the data types at the bottom, what builds,
    checks, reads and prints them above (robmod.description: robot.py imported build,
    validation and table, which import it; files.py and the io_* modules imported each
    other; robmod.identification had two circles)."""
    circles = [c for c in _circles(package) if c not in KNOWN_CIRCLES.get(package, [])]
    assert not circles, "import circles: " + "; ".join(
        " <-> ".join(sorted(c)) for c in circles)


def test_the_known_circles_are_still_there():
    """When a known circle is removed, take it out of KNOWN_CIRCLES (the test then guards it)."""
    for package, known in KNOWN_CIRCLES.items():
        found = _circles(package)
        for c in known:
            assert c in found, f"{package}: the circle {sorted(c)} is gone: remove it from " \
                               "KNOWN_CIRCLES"
