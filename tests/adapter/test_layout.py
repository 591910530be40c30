"""The adapter's modules import each other in one direction (every import counts, at the top, inside functions and
under ``if TYPE_CHECKING:``): the client composes the cog, the cog its command features, and the buttons, menus and
ids sit below every feature and service. How long a module or a class may be is ``tests/host/test_layout.py``'s, for
the whole bot."""

from __future__ import annotations

from tests.helpers.layout import assert_no_cycle, imports_of, modules


def test_the_adapter_imports_in_one_direction() -> None:
    adapter = modules("bot.adapter")
    graph = {name: {m for m in imports_of(path) if m in adapter and m != name} for name, path in adapter.items()}
    assert_no_cycle(graph)
    assert "bot.adapter.cog" in graph["bot.adapter.client"]
    for name in ("bot.adapter.ids", "bot.adapter.items", "bot.adapter.views"):  # below every feature and service
        assert not {m for m in graph[name] if m.startswith(("bot.adapter.commands", "bot.adapter.cog"))}, name
