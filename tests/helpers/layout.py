"""How the layout tests read the code: the modules of a package, what each imports, and import cycles.

One reading for every layer's layout test (``tests/engine``, ``tests/host``, ``tests/adapter``): a module's imports
are read from its source with :mod:`ast`, so that an import counts wherever it is written (at the top, inside a
function, under ``if TYPE_CHECKING:``) unless a test asks for a narrower set.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository."""


@cache
def tree_of(path: Path) -> ast.Module:
    """The parsed source of ``path``, once per run (the layout tests only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imported(node: ast.AST) -> set[str]:
    """The absolute module names an import statement names (``from a import b``: ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return set()


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, at run time or for type checking alone (absolute names)."""
    found: set[str] = set()
    for node in ast.walk(tree_of(path)):
        found |= _imported(node)
    return found


def _type_checking(node: ast.stmt) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def type_only_imports_of(path: Path) -> set[str]:
    """The modules ``path`` imports under a top-level ``if TYPE_CHECKING:`` only: never loaded at run time."""
    found: set[str] = set()
    for node in tree_of(path).body:
        if _type_checking(node):
            for inner in ast.walk(node):
                found |= _imported(inner)
    return found


def nested_imports_of(path: Path) -> list[str]:
    """The imports written inside a function or a class of ``path`` (run when it is called, not when the module
    loads), each as ``line: module``."""
    found: list[str] = []
    for node in ast.walk(tree_of(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for inner in ast.walk(node):
                found += [f"{inner.lineno}: {name}" for name in sorted(_imported(inner))
                          if isinstance(inner, (ast.Import, ast.ImportFrom))]
    return sorted(set(found))


def modules(package: str) -> dict[str, Path]:
    """Every module of ``package`` (a folder under the project's root) by its dotted name."""
    folder = ROOT.joinpath(*package.split("."))
    return {f"{package}.{p.relative_to(folder).with_suffix('').as_posix().replace('/', '.')}".removesuffix(
        ".__init__"): p for p in folder.rglob("*.py")}


def assert_no_cycle(graph: dict[str, set[str]]) -> None:
    """Fail with the cycle's path if any module of ``graph`` (module -> the modules it imports) imports itself
    through others."""
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for other in sorted(graph[name]):
            visit(other, (*path, name))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())
