"""The package's import graph runs one way: no circles, and no module imports from a layer above its own.

Read from the source (every import statement, at any depth, except those under ``if TYPE_CHECKING:``,
which exist for type names only), so a module that starts importing upward fails here, whatever the
import's place in the file.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

import mcv_pipelines

PACKAGE = Path(mcv_pipelines.__file__).parent
# The service's layers, top to bottom; a module may import its own layer and those below it.
SERVICE_LAYERS = ("http", "work", "files", "state", "engines")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, module: str, modules: set[str]) -> set[str]:
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in modules and name != module}


@functools.cache
def _graph() -> nx.DiGraph[str]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    graph: nx.DiGraph[str] = nx.DiGraph()
    for module, path in paths.items():
        graph.add_node(module)
        for target in _imports(path, module, modules):
            # A package's __init__ importing its own children is how a package is built, not an arrow.
            if not target.startswith(module + "."):
                graph.add_edge(module, target)
    return graph


def _service_layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[1:2] != ["service"] or len(parts) < 3 or parts[2] not in SERVICE_LAYERS:
        return None
    return SERVICE_LAYERS.index(parts[2])


def test_the_module_graph_has_no_circle() -> None:
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == [], f"import circles: {cycles[:5]}"


def test_no_service_module_imports_a_layer_above_its_own() -> None:
    upward = []
    for source, target in _graph().edges:
        here, there = _service_layer(source), _service_layer(target)
        if here is not None and there is not None and there < here:
            upward.append(f"{source} -> {target}")
    assert upward == []


def test_the_service_composition_root_is_imported_only_from_above_the_service() -> None:
    # server.py wires every layer together; nothing inside the layers may reach it.
    offenders = [
        f"{source} -> {target}"
        for source, target in _graph().edges
        if target == "mcv_pipelines.service.server" and _service_layer(source) is not None
    ]
    assert offenders == []


def test_the_parts_of_the_package_import_each_other_one_way() -> None:
    # Collapse modules to their top-level part (and the service to its layers): still no circle.
    def part(module: str) -> str:
        parts = module.split(".")
        if len(parts) > 2 and parts[1] == "service" and parts[2] in SERVICE_LAYERS:
            return ".".join(parts[1:3])
        return parts[1] if len(parts) > 1 else parts[0]

    collapsed: nx.DiGraph[str] = nx.DiGraph()
    for source, target in _graph().edges:
        if part(source) != part(target):
            collapsed.add_edge(part(source), part(target))
    assert list(nx.simple_cycles(collapsed)) == []
    # The CLI is over everything: nothing imports it but the package's __main__.
    assert {s for s, t in _graph().edges if t.startswith("mcv_pipelines.cli")} <= {
        "mcv_pipelines.__main__",
        *(m for m in _graph().nodes if m.startswith("mcv_pipelines.cli")),
    }
    # The catalog sits below the pipeline package and the service.
    above_catalog = ("pipeline", "run", "batch", "lsp", "service")
    upward = [(s, t) for s, t in _graph().edges if part(s) == "catalog" and part(t).startswith(above_catalog)]
    assert upward == []


def test_no_folder_is_crowded_and_no_module_is_long() -> None:
    # DESIGN: no folder holds more than about 25 modules, no module more than about 450 lines.
    crowded = {
        str(folder.relative_to(PACKAGE)): count
        for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]
        if (count := len(list(folder.glob("*.py")))) > 25
    }
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 450
    }
    assert (crowded, long) == ({}, {})
