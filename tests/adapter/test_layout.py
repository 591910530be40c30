"""The adapter's layout stays readable: its modules import each other in one direction (every import counts, at the
top, inside functions and under ``if TYPE_CHECKING:``), no module is longer than 450 lines and no class has more than
35 methods of its own (the cog is composed of its features, each a class of its own)."""

from __future__ import annotations

import ast

from tests.layout import assert_no_cycle, imports_of, modules, tree_of

MAX_LINES = 450
MAX_METHODS = 35


def test_the_adapter_imports_in_one_direction() -> None:
    adapter = modules("bot.adapter")
    graph = {name: {m for m in imports_of(path) if m in adapter and m != name} for name, path in adapter.items()}
    assert_no_cycle(graph)
    assert "bot.adapter.cog" in graph["bot.adapter.client"]
    for name in ("bot.adapter.ids", "bot.adapter.items", "bot.adapter.views"):  # below every feature and service
        assert not {m for m in graph[name] if m.startswith(("bot.adapter.commands", "bot.adapter.cog"))}, name


def test_no_module_of_the_adapter_is_longer_than_450_lines() -> None:
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines())
               for name, path in modules("bot.adapter").items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_no_class_of_the_adapter_has_more_than_35_methods() -> None:
    counts = {}
    for name, path in modules("bot.adapter").items():
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.ClassDef):
                methods = [f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
                counts[f"{name}.{node.name}"] = len(methods)
    assert counts["bot.adapter.cog.SantaCruzCog"] > 0
    assert {name: n for name, n in counts.items() if n > MAX_METHODS} == {}
