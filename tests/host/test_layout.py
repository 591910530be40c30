"""The layout shows the architecture: the host never imports discord.py, and the host's modules import each other
in one direction (the engine's layout is guarded by ``tests/engine/test_layout.py``, the adapter's by
``tests/adapter/test_layout.py``; all three read imports alike, ``tests/layout.py``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.layout import ROOT, assert_no_cycle, imports_of, modules


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
             "bot.host.postgres_store", "bot.host.change", "bot.host.web_store", "bot.host.sql", *sql,
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


def test_no_module_of_the_host_is_longer_than_600_lines() -> None:
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules("bot.host").items()}
    assert {name: n for name, n in lengths.items() if n > 600} == {}
