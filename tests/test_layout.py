"""The tests' own layout stays as easy to find one's way in as the code's: a test module imports what it shares from
``tests/helpers/`` (never from another test module or a ``conftest.py``), a fixture of a ``conftest.py`` is not
declared again in a test module (but ``host_store``, the one meant to be overridden), a button id is built with
``bot/adapter/ids.py`` (spelled out only where its wire format is the subject), and the fake Discord is a package of
modules of one topic each, none over 500 lines, each saying what it is for."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.layout import ROOT

TESTS = ROOT / "tests"
OVERRIDABLE = {"host_store"}
"""Fixtures a test module may declare again: the store the ``host`` fixture is on."""
SPELLED_IDS = {
    "tests/adapter/test_ids.py": "the wire format of every id, the one place it is written out",
    "tests/adapter/test_hostile_clicks.py": "damaged ids that no builder makes",
    "tests/adapter/test_operations.py": "a metric's label, the id of Start without its numbers",
    "tests/test_layout.py": "this check",
}
"""Where a string may start with the bot's ``sc:`` prefix, and why."""


def python_files(folder: Path = TESTS) -> Iterator[Path]:
    yield from (p for p in sorted(folder.rglob("*.py")) if "discord-api-spec" not in p.parts)


def modules_of_tests(folder: Path = TESTS) -> Iterator[Path]:
    yield from (p for p in python_files(folder) if p.name.startswith("test_"))


@dataclass(frozen=True)
class Read:
    """What the checks need of one module, read from its source in one walk."""

    imports: frozenset[str]
    fixtures: frozenset[str]
    """The fixtures it declares."""
    spelled: tuple[int, ...]
    """The lines of its strings that begin with the bot's id prefix."""
    docstring: str
    lines: int


def is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and target.attr == "fixture"


@functools.cache
def read(path: Path) -> Read:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    imports: set[str] = set()
    spelled: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module)
        elif isinstance(node, ast.Import):
            imports.update(alias.name for alias in node.names)
        first = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("sc:"):
            spelled.append(getattr(node, "lineno", 0))
    fixtures = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and any(map(is_fixture, node.decorator_list))}
    return Read(frozenset(imports), frozenset(fixtures), tuple(spelled), ast.get_docstring(tree) or "",
                len(text.splitlines()))


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    bad = {str(path.relative_to(ROOT)): sorted(m for m in read(path).imports
                                               if m.rsplit(".", 1)[-1].startswith("test_") or m.endswith("conftest"))
           for path in python_files()}
    assert {where: names for where, names in bad.items() if names} == {}


def test_the_fixtures_of_a_conftest_are_not_declared_again() -> None:
    shared = {name for path in TESTS.rglob("conftest.py") for name in read(path).fixtures}
    plugin = read(TESTS / "fakediscord" / "fixtures.py").fixtures
    assert {"store", "sqlite", "postgres", "clock", "host", "driver", "fake_discord"} <= shared | plugin
    again = {str(path.relative_to(ROOT)): sorted((read(path).fixtures & (shared | plugin)) - OVERRIDABLE)
             for path in modules_of_tests()}
    assert {where: names for where, names in again.items() if names} == {}


def test_button_ids_are_built_not_spelled_out() -> None:
    spelled = {str(path.relative_to(ROOT)): read(path).spelled for path in python_files() if read(path).spelled}
    assert set(spelled) == set(SPELLED_IDS), {where: lines for where, lines in spelled.items()
                                              if where not in SPELLED_IDS}


def test_the_fake_discord_is_modules_of_one_topic_each_none_over_500_lines() -> None:
    package = TESTS / "fakediscord"
    modules = [p for p in python_files(package) if not p.name.startswith("test_")]
    assert len(modules) >= 15
    for path in modules + list(python_files(TESTS / "helpers")):
        assert read(path).docstring, f"{path.relative_to(ROOT)} says what it is for"
        assert read(path).lines <= 500, f"{path.relative_to(ROOT)}: {read(path).lines} lines"
    described = read(package / "__init__.py").docstring
    missing = [p.name for p in modules if p.name != "__init__.py" and f"``{p.name}``" not in described]
    assert missing == [], "the package's docstring says where each module's topic lives"
