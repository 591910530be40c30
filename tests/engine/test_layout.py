"""The engine's layout: the rules depend on nothing of the project, import each other in one direction without
imports hidden inside functions, and never import the search code (``engine.ai``), which only the players of the
computer players import (imports read as ``tests/helpers/layout.py`` reads them, as the host's and the adapter's
layout tests do)."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Final

from tests.helpers.layout import ROOT, assert_no_cycle, imports_of, modules, nested_imports_of, type_only_imports_of

PRODUCT: Final = ("engine", "bot", "render", "i18n", "play", "bench", "assets", "scripts")
"""Every package of the product (the tests may import anything they test)."""
AI_PLAYERS: Final = ("play.", "bench.")
"""Whole packages that play the computer players: the terminal game, the arena and the balance reports, benchmarks."""
AI_USERS: Final = {
    "bot.host.computers": "the computer seats play their moves",
    "bot.host.hints": "the coach's advice for a seat",
    "bot.host.workers": "the worker processes the computer players and the coach think in",
    "bot.host.settings": "AI_STRENGTH is one of the offered strengths",
    "i18n.coach": "the coach's advice in words",
}
"""The other modules that may import ``engine.ai``, and why."""


def _is_ai(module: str) -> bool:
    return module == "engine.ai" or module.startswith("engine.ai.")


def test_the_engine_depends_on_nothing_of_the_project() -> None:
    for name, path in modules("engine").items():
        bad = {m for m in imports_of(path)
               if m.split(".")[0] in {"bot", "render", "i18n", "play", "discord", "aiosqlite", "PIL", "argparse"}}
        assert not bad, f"{name} imports {sorted(bad)}"


def test_the_engine_imports_in_one_direction_without_imports_inside_functions() -> None:
    """Every import of the engine's modules is at their top; those for type checking alone are the modules that are
    handed a ``Game`` naming its class (``Game.view`` calls them), and every other one imports in one direction."""
    engine = modules("engine")
    for name, path in engine.items():
        assert nested_imports_of(path) == [], f"{name} imports inside a function"
    type_only = {name: {m for m in type_only_imports_of(path) if m in engine} for name, path in engine.items()}
    assert {name: found for name, found in type_only.items() if found} == {
        "engine.history": {"engine.game"}, "engine.view": {"engine.game"}}
    graph = {name: {m for m in imports_of(path) - type_only_imports_of(path) if m in engine and m != name}
             for name, path in engine.items()}
    assert_no_cycle(graph)


def test_the_rules_never_import_the_search_code() -> None:
    for name, path in modules("engine").items():
        if not _is_ai(name):
            assert not {m for m in imports_of(path) if _is_ai(m)}, f"{name} imports the computer players"


def test_only_the_players_of_the_computer_players_import_them() -> None:
    # Only a module whose text has the word "ai" can import engine.ai ("engine.ai", "from engine import ai"): the
    # others are not parsed.
    users = {name for package in PRODUCT for name, path in modules(package).items()
             if not _is_ai(name) and re.search(r"\bai\b", path.read_text(encoding="utf-8"))
             and any(map(_is_ai, imports_of(path)))}
    others = {name for name in users if not name.startswith(AI_PLAYERS)}
    assert others <= set(AI_USERS), f"{sorted(others - set(AI_USERS))} import engine.ai"
    assert {"bot.host.computers", "bot.host.hints", "play.cli"} <= users, "the layout test reads the imports"


def test_the_rules_load_and_show_a_view_without_the_search_code() -> None:
    code = ("import sys, engine; game = engine.new_game(['A', 'B'], 1); game.apply(game.legal_moves()[0]); "
            "game.view(game.to_move, since=True); print(sorted(m for m in sys.modules if m.startswith('engine.ai')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
