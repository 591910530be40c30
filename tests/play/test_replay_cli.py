"""``santacruz replay FILE --out DIR``: an exported game record (from the host, on a real SQLite file) turned
into a picture per position, the game-over picture and the animated replay, ending on the stored final view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from bot.host.host import Host
from bot.host.settings import Settings
from bot.host.store import Store
from engine import Game
from play.cli import main, read_record
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, CH, GUILD

pytestmark = pytest.mark.asyncio


async def exported_game(tmp_path: Path) -> tuple[Path, Game]:
    """A finished 3-player game on the default island, exported to a file, and its stored final state."""
    store = await Store.open(tmp_path / "santacruz.db")
    try:
        host = Host(store, Settings(ai_seconds=0.05), clock=Clock(), new_seed=lambda: 31)
        await host.lobby.open(CH, GUILD, ADA, "Ada", computers=2, strength="random")
        await host.lobby.start(CH, ADA)
        await host.play.away(CH, ADA)
        results = [r async for r in host.computers.run_computers(CH)]
        record = await host.archive.game_record(GUILD, CH, results[-1].game_id)
        row = await store.get_game(results[-1].game_id)
        assert row is not None and row.state is not None
        final = Game.from_json(row.state)
    finally:
        await store.close()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return path, final


async def test_export_then_replay_gives_the_stored_final_view(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """At the narrowest width the bot draws (``--width 800``): what is checked is the positions replayed and every
    picture written, not what a picture shows at full size."""
    path, final = await exported_game(tmp_path)
    out = tmp_path / "out"
    assert main(["replay", str(path), "--out", str(out), "--locale", "fr", "--width", "800"]) == 0
    _record, views = read_record(path)
    assert views[-1] == final.view(None)
    pictures = sorted(out.glob("move-*.png"))
    assert len(pictures) == len(final.moves) + 1
    with Image.open(pictures[-1]) as last:
        assert last.format == "PNG" and last.width == 800
    with Image.open(out / "replay.gif") as gif:
        assert gif.is_animated and gif.n_frames == len(views)
    with Image.open(out / "game-over.png") as over:
        assert over.format == "PNG" and over.width == 800
    assert "replay.gif" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["not json", '{"format": "something else"}', '{"format": "santacruz-game"}'])
async def test_a_file_that_is_not_a_record_is_refused_kindly(tmp_path: Path, text: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "Cannot replay this file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
