"""The archive of finished games through the host, on real SQLite files (and the store on PostgreSQL too):
history, one past game, the seed-free export, the game-over link, the replay delivery; nothing of an
unfinished game leaves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiosqlite

from bot.host.deliveries import MOVE_POST, REPLAY_POST
from bot.host.host import RECORD_FORMAT, Host
from bot.host.pictures import record_views
from bot.host.store import Store
from engine import Game, from_record
from tests.helpers.clock import Clock
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, SEED, as_left_by_version, finish, make_host, refused

OTHER_GUILD = 8


async def stored_game(store: Store, game_id: int) -> Game:
    """The game's final state as the database holds it."""
    row = await store.get_game(game_id)
    assert row is not None and row.state is not None
    return Game.from_json(row.state)


async def test_the_export_replays_to_the_stored_final_view_without_the_seed(host: Host, sqlite: Store) -> None:
    game_id = await finish(host, computers=2)
    record = json.loads(json.dumps(await host.archive.game_record(GUILD, CH, game_id)))
    assert record["format"] == RECORD_FORMAT and record["names"] == ["Ada", "Computer 1", "Computer 2"]
    assert record["options"] == {"draft": False, "locale": "en", "replay": True}
    assert "seed" not in record and "seed" not in record["setup"]
    stored = await stored_game(sqlite, game_id)
    copy = from_record(record["setup"], [m["move"] for m in record["moves"]])
    assert copy.view(None) == stored.view(None)
    assert record_views(record)[-1] == stored.view(None)
    assert record["ranking"] == stored.ranking()
    assert record["scores"] == [p["score"] for p in stored.view(None)["players"]]
    # without an id: the channel's last game
    assert (await host.archive.game_record(GUILD, CH))["game_id"] == game_id


async def test_a_game_that_is_not_over_cannot_be_exported(host: Host) -> None:
    await refused("bot.export.nothing", host.archive.game_record(GUILD, CH))
    lobby = await host.lobby.open(CH, GUILD, ADA, "Ada", computers=1)
    await refused("bot.export.not_finished", host.archive.game_record(GUILD, CH))
    await host.lobby.start(CH, ADA)
    error = await refused("bot.export.not_finished", host.archive.game_record(GUILD, CH, lobby.game_id))
    assert error.params == {"id": lobby.game_id}
    await refused("bot.export.not_finished", host.archive.replay_record(lobby.game_id))
    await host.lobby.abandon(CH, ADA)
    await refused("bot.export.not_finished", host.archive.game_record(GUILD, CH, lobby.game_id))
    await refused("bot.history.no_such_game", host.archive.past_game(GUILD, lobby.game_id))
    assert await host.archive.history(GUILD) == []


async def test_history_lists_this_servers_finished_games_newest_first(host: Host, sqlite: Store) -> None:
    first = await finish(host)
    second = await finish(host, CH2, opener=BO, name="Bo", computers=3)
    elsewhere = await finish(host, 300, OTHER_GUILD, opener=CY, name="Cy")
    games = await host.archive.history(GUILD)
    assert [g.game_id for g in games] == [second, first]
    newest = games[0]
    assert newest.names == ("Bo", "Computer 1", "Computer 2", "Computer 3")
    assert newest.computers == (False, True, True, True) and newest.channel_id == CH2
    stored = await stored_game(sqlite, second)
    assert list(newest.ranking) == stored.ranking() and newest.winner == newest.names[stored.ranking()[0]]
    assert list(newest.scores) == [p["score"] for p in stored.view(None)["players"]]
    assert newest.view is None and newest.over_message_id is None
    assert [g.game_id for g in await host.archive.history(OTHER_GUILD)] == [elsewhere]
    assert [g.game_id for g in await host.archive.history(GUILD, limit=1)] == [second]
    # another server's game is not this server's
    await refused("bot.history.no_such_game", host.archive.past_game(GUILD, elsewhere))
    await refused("bot.history.no_such_game", host.archive.game_record(GUILD, CH, elsewhere))
    await refused("bot.history.no_such_game", host.archive.past_game(GUILD, 999))
    # after a restart, the same
    again = make_host(sqlite, Clock())
    await again.load()
    assert await again.archive.history(GUILD) == games
    past = await again.archive.past_game(GUILD, first)
    assert past.view == (await stored_game(sqlite, first)).view(None)


async def test_the_game_over_post_is_linked_once_delivered(host: Host) -> None:
    game_id = await finish(host)
    pending = await host.outbox.pending_deliveries(CH)
    over = next(d for d in pending if d.kind == MOVE_POST and d.payload["game_over"])
    earlier = next(d for d in pending if d.kind == MOVE_POST and not d.payload["game_over"])
    await host.outbox.delivered(earlier, message_id=111)
    assert (await host.archive.history(GUILD))[0].over_message_id is None
    await host.outbox.delivered(over, message_id=222)
    assert (await host.archive.history(GUILD))[0].over_message_id == 222
    assert (await host.archive.past_game(GUILD, game_id)).over_message_id == 222


async def test_the_game_over_post_carries_the_replay_unless_turned_off(host: Host) -> None:
    await finish(host, locale="fr")
    pending = [d for d in await host.outbox.pending_deliveries(CH) if d.is_post]
    assert pending[-1].kind == MOVE_POST and REPLAY_POST not in [d.kind for d in pending]
    over = pending[-1].move()
    assert over.game_over and over.replay and over.locale == "fr"
    assert not any(d.move().replay for d in pending[:-1] if d.kind == MOVE_POST)
    await finish(host, CH2, replay=False)
    pending = [d for d in await host.outbox.pending_deliveries(CH2) if d.is_post]
    assert pending[-1].move().game_over and not pending[-1].move().replay
    # a rematch keeps the choice
    rematch = await host.lobby.rematch(CH2, ADA)
    row = await host.store.get_game(rematch.game_id)
    assert row is not None and row.options["replay"] is False


async def test_the_record_reveals_nothing_of_the_seed(host: Host) -> None:
    game_id = await finish(host)
    text = json.dumps(await host.archive.game_record(GUILD, CH, game_id))
    assert f"{SEED}" not in text and "seed" not in text


async def test_finished_games_of_a_server_in_both_stores(store: Any) -> None:
    ids = []
    for channel, guild, status in ((1, GUILD, "over"), (2, GUILD, "abandoned"), (3, GUILD, "over"),
                                   (4, OTHER_GUILD, "over"), (5, None, "over"), (6, GUILD, "running")):
        ids.append(await store.insert_game(channel_id=channel, guild_id=guild, opener_id=ADA, seats=[],
                                               options={}, seed=1, status=status, locale="en", now=1.0))
    assert [r.id for r in await store.finished_games(GUILD)] == [ids[2], ids[0]]
    assert [r.id for r in await store.finished_games(GUILD, limit=1)] == [ids[2]]
    assert [r.id for r in await store.finished_games(None)] == [ids[4]]
    assert await store.over_message_ids(ids) == {}
    assert await store.over_message_ids([]) == {}


async def test_a_version_5_database_gets_the_archive_and_its_query_uses_the_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = await Store.open(path)
    game_id = await store.insert_game(channel_id=1, guild_id=GUILD, opener_id=ADA, seats=[], options={}, seed=1,
                                      status="over", locale="en", now=1.0)
    await store.close()
    await as_left_by_version(path, 5)
    store = await Store.open(path)
    try:
        assert [r.id for r in await store.finished_games(GUILD)] == [game_id]
        async with aiosqlite.connect(path) as conn, conn.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM games WHERE guild_id IS ? AND status = 'over'"
                " ORDER BY id DESC LIMIT 10", (GUILD,)) as cur:
            plan = " ".join(str(row[-1]) for row in await cur.fetchall())
        assert "games_finished_by_guild" in plan and "TEMP B-TREE" not in plan
    finally:
        await store.close()
