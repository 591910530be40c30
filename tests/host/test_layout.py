"""The layout shows the architecture: the host never imports discord.py, and the host's modules import each other
in one direction (the engine's layout is guarded by ``tests/engine/test_layout.py``, the adapter's by
``tests/adapter/test_layout.py``; all three read imports alike, ``tests/helpers/layout.py``). Sizes are kept by limits
that reflowing cannot meet: no class of ``bot/`` with more than 35 methods of its own, no module of ``bot/`` (or
``render/``) over 500 lines, and no line of any Python file longer than ruff's limit (``pyproject.toml``), so that a
module that grows is split by topic instead of squeezed."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Final

from tests.helpers.layout import ROOT, assert_no_cycle, imports_of, modules, tree_of

MAX_LINES: Final = 500
"""No module of ``bot/`` (host and adapter) or ``render/`` is longer: past it, a module is split by topic."""
MAX_METHODS: Final = 35
"""No class of ``bot/`` has more methods of its own: past it, a class is split by what it decides."""


def test_nothing_under_the_host_imports_discord() -> None:
    for name, path in modules("bot.host").items():
        bad = {m for m in imports_of(path) if m == "discord" or m.startswith(("discord.", "bot.adapter"))}
        assert not bad, f"{name} imports {sorted(bad)}"


def test_loading_the_host_loads_no_discord() -> None:
    code = ("import sys, bot.host, bot.host.store, bot.host.settings, bot.host.pictures, bot.host.table; "
            "print(sorted(m for m in sys.modules if m == 'discord' or m.startswith('discord.')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def host_graph(imports: Callable[[Path], set[str]]) -> dict[str, set[str]]:
    host = modules("bot.host")
    return {name: {m for m in imports(path) if m in host and m not in (name, "bot.host")}
            for name, path in host.items()}


def test_the_host_values_and_errors_import_nothing_else_of_the_host() -> None:
    graph = host_graph(imports_of)
    assert graph["bot.host.model"] == set()
    assert graph["bot.host.errors"] == {"bot.host.model", "bot.host.metrics"}
    assert graph["bot.host.metrics"] == set(), "the metrics are defined apart from everything they count"
    assert graph["bot.host.change"] == {"bot.host.model", "bot.host.ratings"}
    assert graph["bot.host.timers"] == {"bot.host.errors", "bot.host.model", "bot.host.stores"}, "kinds name no part"


def test_the_stores_import_neither_the_host_nor_its_parts() -> None:
    graph = host_graph(imports_of)
    sql = {name for name in graph if name.startswith("bot.host.sql.")}
    below = {"bot.host.errors", "bot.host.model", "bot.host.schema", "bot.host.history_store",
             "bot.host.user_settings", "bot.host.ratings", "bot.host.settings", "bot.host.store",
             "bot.host.postgres_store", "bot.host.change", "bot.host.sql", *sql,
             "bot.host.metrics"}  # metrics imports no module of the bot
    for name in ("bot.host.sql", *sql, "bot.host.schema", "bot.host.store", "bot.host.postgres_store",
                 "bot.host.stores"):
        assert graph[name] <= below, f"{name} imports {sorted(graph[name] - below)}"


def test_the_host_imports_in_one_direction() -> None:
    """Every import counts: at the top, inside functions and under ``if TYPE_CHECKING:``."""
    graph = host_graph(imports_of)
    assert_no_cycle(graph)
    users = sorted(name for name, imported in graph.items() if "bot.host.host" in imported and name != "bot.host")
    assert users == [], f"the host's parts take Games and the schedule, never the Host: {users}"


def lengths(package: str) -> dict[str, int]:
    """Module -> its number of lines, for every module of ``package``."""
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules(package).items()}


def test_no_module_of_the_bot_is_longer_than_500_lines() -> None:
    assert {name: n for name, n in lengths("bot").items() if n > MAX_LINES} == {}


def test_no_module_of_the_pictures_is_longer_than_500_lines() -> None:
    assert {name: n for name, n in lengths("render").items() if n > MAX_LINES} == {}


def test_no_class_of_the_bot_has_more_than_35_methods() -> None:
    counts = {}
    for name, path in modules("bot").items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.ClassDef):
                methods = [f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
                counts[f"{name}.{node.name}"] = len(methods)
    assert counts["bot.adapter.cog.SantaCruzCog"] > 0 and counts["bot.host.games.Games"] > 0
    assert {name: n for name, n in counts.items() if n > MAX_METHODS} == {}


def width(line: str) -> int:
    """A line's width as ruff measures it: a wide East Asian character or emoji counts twice."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_no_line_of_any_python_file_is_longer_than_ruffs_limit() -> None:
    """Every Python file of the project, pragma comments included (ruff leaves those out of its count)."""
    limit = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["line-length"]
    files = [p for p in ROOT.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)]
    assert len(files) > 100
    long = [f"{path.relative_to(ROOT)}:{number}" for path in files
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if width(line) > limit]
    assert long == []
