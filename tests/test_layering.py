"""The layering of the package (issue 28, item 5): no import cycle between its subpackages (and top-level
modules), and nothing from the core (errors, friction, hybrid) up into a model package, the engine or
anything else above it. Every import counts: at module level, inside a function (a lazy import is an
import all the same) or under a condition. Read from the sources with ast, nothing is imported. And the
scripts outside the package import names the package has (those imports are resolved)."""

import ast
import textwrap
from pathlib import Path

import friction_joints

PACKAGE = Path(friction_joints.__file__).resolve().parent
CORE = ("errors", "friction", "hybrid")


def import_edges(package_dir: Path) -> list:
    """[(unit, imported unit, 'file:line')] of every import from one module of the package in package_dir to
    another: a unit is a subpackage or a top-level module (``planar``, ``engine``), ``__init__`` the
    package's own; imports within one unit are left out."""
    root = package_dir.name
    files = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [root, *path.relative_to(package_dir).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    modules = set(files)

    def unit(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else "__init__"

    edges = []
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module
                # from X import y: the module X.y where it is one, else X
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                           for alias in node.names]
            else:
                continue
            for target in dict.fromkeys(targets):
                if target == root or target.startswith(root + "."):
                    if unit(target) != unit(module):
                        where = f"{path.relative_to(package_dir.parent)}:{node.lineno}"
                        edges.append((unit(module), unit(target), where))
    return edges


def cycles(edges) -> list:
    """The sets of units that import one another, each with the imports that close it ('a -> b (file:line)')."""
    graph = {}
    for a, b, _ in edges:
        graph.setdefault(a, set()).add(b)

    def reachable(start):
        seen, todo = set(), [start]
        while todo:
            for b in graph.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    reach = {a: reachable(a) for a in graph}
    groups = {frozenset({a} | {b for b in reach[a] if a in reach.get(b, ())}) for a in graph if a in reach[a]}
    return sorted(([f"{a} -> {b} ({where})" for a, b, where in edges if {a, b} <= group] for group in groups),
                  key=str)


def upward_from_core(edges) -> list:
    """The imports from a core unit (CORE) to a unit outside it."""
    return [f"{a} -> {b} ({where})" for a, b, where in edges if a in CORE and b not in CORE]


def test_no_import_cycle_between_the_subpackages():
    edges = import_edges(PACKAGE)
    assert any(edge[:2] == ("engine", "native") for edge in edges)  # imported inside functions only
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n\n".join("\n".join(cycle) for cycle in found)


def test_the_core_imports_nothing_above_it():
    found = upward_from_core(import_edges(PACKAGE))
    assert not found, "imports from the core (errors, friction, hybrid) up:\n" + "\n".join(found)


def test_the_checks_fail_on_a_cycle_and_on_an_import_up_from_the_core(tmp_path):
    """A package as this one was before issue 28: hybrid runs its systems on the engine, which imports
    hybrid's integrator; a model's packer and the model import each other lazily."""
    sources = {
        "__init__.py": "",
        "errors.py": "class Error(Exception):\n    pass\n",
        "engine.py": "from .hybrid.integrator import Integrator\n",
        "hybrid/__init__.py": "def run():\n    from ..engine import make_integrator\n",
        "hybrid/integrator.py": "from ..errors import Error\n\n\nclass Integrator:\n    pass\n",
        "compiled/__init__.py": "",
        "compiled/spatial.py": "def pack():\n    from ..spatial.system import SpeedLoad\n",
        "spatial/__init__.py": "",
        "spatial/system.py": "def compiled():\n    from ..compiled import spatial\n",
    }
    package = tmp_path / "pkg"
    for name, text in sources.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(textwrap.dedent(text))
    edges = import_edges(package)
    assert [sorted({a for line in cycle for a in line.split(" (")[0].split(" -> ")}) for cycle in cycles(edges)] \
        == [["compiled", "spatial"], ["engine", "hybrid"]]
    assert upward_from_core(edges) == ["hybrid -> engine (pkg/hybrid/__init__.py:2)"]


def test_scripts_import_what_the_package_has():
    """Every ``from friction_joints... import name`` in the scripts outside the package (examples,
    benchmarks, fmu_src, the docs' figure script, build_fmu.py), lazy ones included, names a module
    and an attribute (or submodule) that exist."""
    import ast
    import importlib

    root = Path(__file__).resolve().parents[1]
    scripts = [*root.glob("examples/*.py"), *root.glob("benchmarks/*.py"), *root.glob("fmu_src/*.py"),
               root / "docs" / "make_figures.py", root / "build_fmu.py"]
    missing = []
    for script in scripts:
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("friction_joints"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        try:
                            importlib.import_module(f"{node.module}.{alias.name}")
                        except ImportError:
                            missing.append(f"{script.relative_to(root)}:{node.lineno} {node.module}.{alias.name}")
    assert not missing, missing
