"""``santacruz-bot migrate``: a SQLite database copied to PostgreSQL, checked by replay, safe to run twice; a
damaged game (every kind of damage the host quarantines) is named in the report, copied as it is with all the
rest, and quarantined by the bot on PostgreSQL as on SQLite."""

from __future__ import annotations

import random
from pathlib import Path

import aiosqlite
import pytest

from bot.host.errors import StoreError
from bot.host.host import Host
from bot.host.migrate import copy_database
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.store import Store
from bot.host.user_settings import UserSettings
from tests.helpers.damage import DAMAGES, Damager, Database

NOW = 1_700_000_000.0


async def a_database(path: Path) -> dict[int, list[str]]:
    """Three games played through the host (one finished, one running with an undo, one lobby), a user's
    language, the finished game's web page, a server keeping its games off the web and a person's links revoked;
    returns each game's stored moves."""
    store = await Store.open(path)
    host = Host(store, Settings(public_url="https://santacruz.example"), clock=lambda: NOW,
                new_seed=iter([11, 22, 33]).__next__)
    rng = random.Random(5)
    for channel in (1, 2):
        await host.lobby.open(channel, 9, 100, "Ada")
        await host.lobby.join(channel, 200, "Bo")
        await host.lobby.start(channel, 100)
        limit = 1000 if channel == 1 else 12
        for _ in range(limit):
            info = host.games.info(channel)
            if info is None or info.to_move is None or info.status != "running":
                break
            user = info.seats[info.to_move].user_id
            assert user is not None
            await host.play.move(channel, user, rng.choice(host.play.legal_moves(channel, user)))
    user = host.games.info(2).seats[host.games.info(2).to_move].user_id  # type: ignore[union-attr]  # running
    await host.play.move(2, user, host.play.legal_moves(2, user)[0])
    await host.play.undo(2, user)
    await host.lobby.open(3, 9, 100, "Ada")
    await host.people.remember_locale(200, "de")
    await host.people.remember_dm_channel(200, 9200)
    await host.people.change_settings(200, time_zone="Europe/Berlin", quiet=(22, 7))
    assert await host.web.link(host.games.info(1).game_id) is not None  # type: ignore[union-attr]  # the finished game
    await host.web.set_shown(8, False)
    await host.people.forget_me(300)
    logs = {g.id: [m.move for m in await store.moves(g.id)] for g in [await store.latest_game(c) for c in (1, 2, 3)]
            if g is not None}
    await store.close()
    return logs


async def test_every_game_move_and_user_is_copied_checked_and_a_second_run_copies_nothing(
        tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "old.db"
    logs = await a_database(path)
    async with aiosqlite.connect(path) as conn:
        counts = {}
        for table in ("deliveries", "timers", "turn_times", "web_pages", "web_servers", "web_revocations",
                      "dm_channels", "seat_people"):
            async with conn.execute(f"SELECT count(*) FROM {table}") as cur:
                counts[table] = (await cur.fetchone())[0]
        async with conn.execute("SELECT token, game_id FROM web_pages") as cur:
            (token, page_of), = [tuple(r) for r in await cur.fetchall()]
        async with conn.execute("SELECT game_id, kind, due_at FROM timers WHERE done_at IS NULL ORDER BY id") as cur:
            pending_timers = [tuple(r) for r in await cur.fetchall()]
    assert counts["deliveries"] > 0 and pending_timers  # posts owed and timers pending come along
    assert counts["turn_times"] > 0  # and how long each turn took
    assert counts["web_pages"] == counts["web_servers"] == counts["web_revocations"] == counts["dm_channels"] == 1
    assert counts["seat_people"] > 0  # who sits in the open games
    report = await copy_database(f"sqlite:{path}", pg_url)
    assert report.problems == []
    # the finished game of two people: a result, a rating, a rating history row and a standing each
    history = dict.fromkeys(("results", "ratings", "rating_history", "standings"), 2)
    assert report.copied == {"games": 3, "moves": sum(map(len, logs.values())), "users": 1, **history,
                             "user_settings": 1, **counts}
    assert report.checked == 3
    again = await copy_database(f"sqlite:{path}", pg_url)
    assert again.problems == [] and sum(again.copied.values()) == 0
    assert again.present == report.copied

    store = await PostgresStore.open(pg_url)
    try:
        assert {g.id: [m.move for m in await store.moves(g.id)] for g in await store.all_games()} == logs
        assert await store.user_locales() == {200: "de"}
        assert await store.user_settings() == {200: UserSettings("Europe/Berlin", 22, 7)}
        assert await store.web_game(token) == page_of  # the links already posted keep working
        assert await store.dm_channel(200) == 9200  # a DM after the move needs no request to find the channel
        assert not await store.web_shown(8) and await store.link_generation(300) == 1
        results, ratings, _ = await store.player_history(9, 100)
        assert len(results) == 1 and ratings["humans"].games == 1
        statuses = sorted(g.status for g in await store.all_games())
        assert statuses == ["lobby", "over", "running"]
        host = Host(store, Settings(), clock=lambda: NOW)
        await host.load()  # the running game and the lobby carry on from PostgreSQL (loaded when touched)
        touched = [await host.refresh.channel(channel) for channel in (2, 3)]
        assert [info.status if info is not None else None for info in touched] == ["running", "lobby"]
        copied_timers = [(t.game_id, t.kind, t.due_at) for g in (2, 3) for t in await store.timers(
            (await store.latest_game(g)).id)]  # type: ignore[union-attr]  # both are there
        assert sorted(copied_timers) == sorted(pending_timers)
        new_id = (await host.lobby.open(4, 9, 100, "Ada")).game_id
        assert new_id > max(logs)  # ids go on after the copied ones
        assert len(await store.timers(new_id)) == 1  # the new lobby's expiry: timer ids go on too
        await host.lobby.abandon(4, 100)  # owes a post: its delivery's id goes on after the copied ones
        copied_ids = [d.id for game_id in logs for d in await store.deliveries(game_id)]
        assert len(copied_ids) == counts["deliveries"]
        assert [d.id for d in await store.deliveries(new_id)] > [max(copied_ids)]
    finally:
        await store.close()


async def test_a_game_whose_log_does_not_replay_is_reported(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "old.db"
    await a_database(path)
    store = await Store.open(path)
    running = await store.latest_game(2)
    assert running is not None
    await store.update_game(running.id, now=NOW, state=None)
    await store.close()
    async with aiosqlite.connect(path) as conn:  # a damaged log, as a bad disk or a bad hand-edit leaves it
        await conn.execute("UPDATE moves SET move = 'land 999' WHERE game_id = ? AND seq = 1", (running.id,))
        await conn.commit()
    report = await copy_database(f"sqlite:{path}", pg_url)
    assert [p.split(":")[0] for p in report.problems] == [f"game {running.id}"]
    assert "does not replay" in report.problems[0]


@pytest.mark.parametrize(("damage", "reason"), DAMAGES, ids=[d.__name__ for d, _ in DAMAGES])
async def test_a_damaged_game_is_named_the_rest_copied_and_the_bot_on_postgresql_quarantines_it(
        tmp_path: Path, pg_url: str, damage: Damager, reason: str) -> None:
    path = tmp_path / "old.db"
    logs = await a_database(path)
    store = await Store.open(path)
    running = await store.latest_game(2)
    await store.close()
    assert running is not None
    await damage(Database("sqlite", path, None), running.id)

    report = await copy_database(f"sqlite:{path}", pg_url)
    (problem,) = report.problems
    assert problem.startswith(f"game {running.id}: ") and (reason if reason != "log" else "replay") in problem
    assert report.copied["games"] == 3 and report.copied["moves"] == sum(map(len, logs.values()))
    assert report.checked == 3

    target = await PostgresStore.open(pg_url)
    try:
        host = Host(target, Settings(), clock=lambda: NOW)
        await host.load()
        assert await host.refresh.channel(2) is None  # quarantined, at start-up or when touched
        assert (await host.refresh.channel(3)).status == "lobby"  # type: ignore[union-attr]  # the finished game: over
        (damaged,) = host.restore.damaged_untold()
        assert (damaged.game_id, damaged.channel_id, damaged.reason) == (running.id, 2, reason)
        assert await target.open_game_version(2) is None  # quarantined: the channel is free for a new game
    finally:
        await target.close()


async def test_a_missing_file_is_a_clear_refusal(tmp_path: Path, pg_url: str) -> None:
    with pytest.raises(StoreError, match="no SQLite database"):
        await copy_database(f"sqlite:{tmp_path / 'nothing.db'}", pg_url)


def test_the_console_script_copies_and_reports(tmp_path: Path, pg_url: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from bot.adapter.main import main

    path = tmp_path / "old.db"
    asyncio.run(a_database(path))
    assert main(["migrate", "--from", f"sqlite:{path}", "--to", pg_url]) == 0
    assert "games: 3 copied, 0 already there" in capsys.readouterr().out
    assert main(["migrate", "--from", f"sqlite:{path}", "--to", pg_url]) == 0  # twice: nothing copied twice
    assert "games: 0 copied, 3 already there" in capsys.readouterr().out
    assert main(["migrate", "--from", f"sqlite:{tmp_path / 'none.db'}", "--to", pg_url]) == 3
    assert "no SQLite database" in capsys.readouterr().err


def test_the_console_script_names_a_damaged_game_instead_of_a_traceback(tmp_path: Path, pg_url: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from bot.adapter.main import main
    from tests.helpers.damage import cut_seats

    path = tmp_path / "old.db"
    asyncio.run(a_database(path))
    asyncio.run(cut_seats(Database("sqlite", path, None), 2))  # the running game (ids follow the channels)
    assert main(["migrate", "--from", f"sqlite:{path}", "--to", pg_url]) == 1
    out = capsys.readouterr().out
    assert "games: 3 copied, 0 already there" in out
    assert "problem: game 2: its seats cannot be read (unreadable JSON" in out
