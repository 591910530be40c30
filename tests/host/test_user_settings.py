"""A person's own settings and games without Discord: quiet hours on the local clock (across midnight, daylight
saving time), the ``user_settings`` table and held DMs on both stores, the host's refusals in words, reminders
that follow the person's settings, and the open games a person sits in, read from the database."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiosqlite
import pytest

from bot.host.deliveries import TURN_DM
from bot.host.errors import HostError
from bot.host.host import Host
from bot.host.model import NewDelivery
from bot.host.store import Store
from bot.host.user_settings import HELD, UserSettings, open_game, quiet_until
from tests.helpers.clock import HOUR, Clock, at
from tests.helpers.host import ADA, BO, CH, CH2, CY, GUILD, make_host, play_first, start_two, user_to_move

pytestmark = pytest.mark.clock_at("2026-11-24 12:00")
"""The host's clock (``clock``, which ``host`` reads) starts on Tuesday 24 November 2026 at noon in Berlin."""

NIGHT = UserSettings(time_zone="Europe/Berlin", quiet_from=22, quiet_to=7)


# ---------------------------------------------------------------------- quiet hours on the local clock


def test_quiet_hours_across_midnight_end_at_the_next_end_hour() -> None:
    assert quiet_until(NIGHT, at("2026-11-24 23:30")) == at("2026-11-25 07:00")  # before midnight: tomorrow
    assert quiet_until(NIGHT, at("2026-11-25 03:00")) == at("2026-11-25 07:00")  # after midnight: today
    assert quiet_until(NIGHT, at("2026-11-24 22:00")) == at("2026-11-25 07:00")  # the first quiet minute
    assert quiet_until(NIGHT, at("2026-11-25 07:00")) is None  # the end hour is no longer quiet
    assert quiet_until(NIGHT, at("2026-11-24 21:59")) is None
    assert quiet_until(NIGHT, at("2026-11-24 12:00")) is None


def test_quiet_hours_within_a_day_and_none_without_them() -> None:
    nap = UserSettings(time_zone="Europe/Berlin", quiet_from=13, quiet_to=15)
    assert quiet_until(nap, at("2026-11-24 14:10")) == at("2026-11-24 15:00")
    assert quiet_until(nap, at("2026-11-24 15:10")) is None and quiet_until(nap, at("2026-11-24 12:59")) is None
    assert quiet_until(UserSettings(), at("2026-11-24 03:00")) is None


def test_quiet_hours_follow_daylight_saving_time() -> None:
    # Berlin springs forward in the night of 28/29 March 2026: 7:00 is then 05:00 UTC, not 06:00
    end = quiet_until(NIGHT, at("2026-03-28 23:00"))
    assert end == at("2026-03-29 07:00") == datetime(2026, 3, 29, 5, 0, tzinfo=ZoneInfo("UTC")).timestamp()
    # and in autumn (25 October 2026) the night is an hour longer: 7:00 is 06:00 UTC
    assert quiet_until(NIGHT, at("2026-10-24 23:00")) == datetime(2026, 10, 25, 6, tzinfo=ZoneInfo("UTC")).timestamp()


def test_the_window_is_read_in_the_persons_zone() -> None:
    now = at("2026-11-24 23:30")  # 22:30 UTC, 17:30 in New York
    assert quiet_until(NIGHT, now) is not None
    assert quiet_until(UserSettings(time_zone="America/New_York", quiet_from=22, quiet_to=7), now) is None
    utc = UserSettings(time_zone="UTC", quiet_from=22, quiet_to=7)
    assert quiet_until(utc, now) == at("2026-11-25 07:00", ZoneInfo("UTC"))


# ---------------------------------------------------------------------- the store (both)


async def new_game(store: Any, channel: int, seats: list[dict[str, Any]], now: float = 1000.0) -> int:
    return int(await store.insert_game(channel_id=channel, guild_id=GUILD, opener_id=seats[0]["user_id"],
                                       seats=seats, options={}, seed=1, status="lobby", locale="en", now=now))


def seat(user_id: int | None, name: str) -> dict[str, Any]:
    return {"user_id": user_id, "name": name, "strength": None, "away": False, "reminded_at": None}


async def test_settings_are_stored_and_read_back(store: Any) -> None:
    assert await store.user_settings() == {}
    await store.set_user_settings(ADA, NIGHT, now=1.0, held_due_at=1.0)
    off = UserSettings(time_zone="America/New_York", reminders=False, reminder_hours=3.0, turn_dms=False)
    await store.set_user_settings(BO, off, now=1.0, held_due_at=1.0)
    await store.set_user_settings(ADA, NIGHT, now=2.0, held_due_at=2.0)  # the same again: one row per person
    assert await store.user_settings() == {ADA: NIGHT, BO: off}


async def test_held_dms_are_marked_and_re_timed_with_the_settings(store: Any) -> None:
    game = await new_game(store, CH, [seat(ADA, "Ada"), seat(BO, "Bo")])
    await store.update_game(game, now=10.0, deliveries=[NewDelivery(TURN_DM, 0, ADA, {"start": True}),
                                                        NewDelivery(TURN_DM, 0, BO, {"start": True})])
    ada_dm, bo_dm = await store.pending_deliveries(CH)
    await store.hold_deliveries([(ada_dm.id, ada_dm.payload)], due_at=500.0)
    (held,) = await store.held_deliveries(ADA)
    assert held.id == ada_dm.id and held.due_at == 500.0 and held.payload == {"start": True, HELD: True}
    assert await store.held_deliveries(BO) == []
    moved = await store.set_user_settings(ADA, NIGHT, now=20.0, held_due_at=300.0)  # e.g. a new time zone
    assert moved == 1
    assert [(d.id, d.due_at) for d in await store.pending_deliveries(CH)] == [(ada_dm.id, 300.0), (bo_dm.id, 10.0)]


async def test_open_games_of_a_person_are_found_by_their_exact_id(store: Any) -> None:
    one = await new_game(store, CH, [seat(1, "One"), seat(None, "Computer 1")])
    eleven = await new_game(store, CH2, [seat(11, "Eleven"), seat(111, "Other")])
    over = await new_game(store, 300, [seat(1, "One")])
    await store.update_game(over, now=2.0, status="abandoned")
    rows = await store.open_games_of(1)
    assert [r.id for r in rows] == [one]  # not 11's or 111's game, nor the game no longer open
    assert [g.game_id for r in rows if (g := open_game(r, 1)) is not None] == [one]
    assert [r.id for r in await store.open_games_of(111) if open_game(r, 111)] == [eleven]
    # a seat taken over by another person: the game is theirs now, no longer the one who left
    await store.update_game(eleven, now=3.0, seats=[seat(11, "Eleven"), seat(12, "Twelve")])
    assert await store.open_games_of(111) == []
    assert [r.id for r in await store.open_games_of(12)] == [eleven]
    await store.update_game(eleven, now=4.0, status="over")
    assert await store.open_games_of(11) == [] and await store.open_games_of(12) == []


# ---------------------------------------------------------------------- the host




async def test_an_unknown_time_zone_is_refused_in_words(host: Host) -> None:
    with pytest.raises(HostError) as refused:
        await host.people.change_settings(ADA, time_zone="Mars/Olympus_Mons")
    assert refused.value.key == "host.error.bad_time_zone"
    assert "“Mars/Olympus_Mons” is not a time zone I know" in refused.value.text("en")
    assert "Mars/Olympus_Mons" in refused.value.text("de") and "Mars/Olympus_Mons" in refused.value.text("fr")
    assert host.people.settings_of(ADA) == UserSettings()
    for bad in ({"quiet": (22, 22)}, {"quiet": (24, 7)}):
        with pytest.raises(HostError, match="bad_quiet_hours"):
            await host.people.change_settings(ADA, **bad)
    with pytest.raises(HostError, match="bad_reminder_hours"):
        await host.people.change_settings(ADA, reminder_hours=500)
    assert host.people.settings_of(ADA) == UserSettings() and await host.store.user_settings() == {}


async def test_settings_survive_a_restart(host: Host, sqlite: Store) -> None:
    changed = await host.people.change_settings(ADA, time_zone="Europe/Berlin", quiet=(22, 7), reminder_hours=3,
                                                turn_dms=False)
    assert changed == UserSettings("Europe/Berlin", 22, 7, True, 3.0, False)
    assert (await host.people.change_settings(ADA, quiet_off=True)).has_quiet_hours is False
    await host.people.change_settings(ADA, quiet=(23, 6))
    again = make_host(sqlite, Clock(at("2026-11-24 12:00")))
    await again.load()
    assert again.people.settings_of(ADA) == UserSettings("Europe/Berlin", 23, 6, True, 3.0, False)
    assert again.people.settings_of(BO) == UserSettings()


@pytest.mark.busy_timeout(0.1)
async def test_a_refused_write_changes_no_setting(host: Host, sqlite_path: Path) -> None:
    async with aiosqlite.connect(sqlite_path) as other:  # another connection holds the write lock
        await other.execute("BEGIN IMMEDIATE")
        with pytest.raises(HostError, match=r"host\.error\.storage"):
            await host.people.change_settings(ADA, time_zone="Europe/Berlin")
        await other.execute("ROLLBACK")
    assert host.people.settings_of(ADA) == UserSettings()
    assert (await host.people.change_settings(ADA, time_zone="Europe/Berlin")).time_zone == "Europe/Berlin"


async def until_the_turn_of(host: Host, user_id: int) -> None:
    """Play first legal moves until it is ``user_id``'s turn again (after at least one move)."""
    await play_first(host)
    for _ in range(8):
        if user_to_move(host) == user_id:
            return
        await play_first(host)
    raise AssertionError("the turn never came back")


async def test_reminders_follow_the_persons_hours_and_switch(host: Host) -> None:
    clock: Any = host.clock
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    # a longer delay chosen during the turn (the game's: 12)
    await host.people.change_settings(mover, reminder_hours=20)
    clock.now += 13 * HOUR
    assert await host.reminders.due() == []
    clock.now += 7 * HOUR + 1
    (reminder,) = await host.reminders.due()
    assert reminder.user_id == mover
    await host.reminders.mark(reminder)
    await host.people.change_settings(mover, reminder_hours=2)
    clock.now += 24 * HOUR  # (at most one reminder a day)
    await until_the_turn_of(host, mover)  # a new turn: its reminder is stored with the person's 2 hours
    clock.now += 1 * HOUR
    assert await host.reminders.due() == []
    clock.now += 1 * HOUR + 1
    (reminder,) = await host.reminders.due()
    assert reminder.user_id == mover and reminder.seq == host.games.info(CH).seq
    await host.people.change_settings(mover, reminders=False)  # off: nothing, however long they wait
    clock.now += 48 * HOUR
    assert await host.reminders.due() == []
    await until_the_turn_of(host, mover)
    assert host.games.tables[CH].next_reminder_at is None  # and no reminder is stored for their new turns


async def test_a_reminder_in_quiet_hours_waits_for_their_end(host: Host) -> None:
    clock: Any = host.clock
    clock.now = at("2026-11-24 12:00")
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    await host.people.change_settings(mover, time_zone="Europe/Berlin", quiet=(22, 7))
    clock.now = at("2026-11-25 01:00")  # due since midnight, but quiet
    assert await host.reminders.due() == []
    clock.now = at("2026-11-25 07:00")
    (reminder,) = await host.reminders.due()
    assert reminder.user_id == mover


async def test_open_games_list_yours_to_move_first(host: Host) -> None:
    clock: Any = host.clock
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    other = BO if mover == ADA else ADA
    clock.now += HOUR
    await host.lobby.open(CH2, GUILD, CY, "Cy")  # a lobby the mover is not in
    await host.lobby.join(CH2, other, "Other")
    games = await host.people.open_games_for(other)
    assert [(g.channel_id, g.yours, g.status) for g in games] == [(CH, False, "running"), (CH2, False, "lobby")]
    assert games[0].to_move_user_id == mover and games[0].since == at("2026-11-24 12:00")
    (game,) = await host.people.open_games_for(mover)
    assert game.yours and game.channel_id == CH
    assert await host.people.games_waiting(mover) == 1
    assert await host.people.games_waiting(mover, besides=game.game_id) == 0
    await host.lobby.start(CH2, CY)
    second = user_to_move(host, CH2)
    first = (await host.people.open_games_for(second))[0]
    assert first.channel_id == CH2 and first.yours  # the newer game comes first: it is theirs to move
    if second == other:  # the older game, where the mover is to move, comes after it
        assert [g.channel_id for g in await host.people.open_games_for(other)] == [CH2, CH]


async def test_whose_turn_an_open_game_waits_for_follows_each_move_whichever_process_made_it(
        host: Host, sqlite: Store) -> None:
    """A person's open games say whose turn it is as the database has it now: read once per version of a game (its
    state is read whole for that), read again after a move, also one another process made."""
    mover = await start_two(host, CH, ((ADA, "Ada"), (BO, "Bo")))
    other = BO if mover == ADA else ADA
    (game,) = await host.people.open_games_for(mover)
    assert game.yours and game.to_move_user_id == mover
    assert (await host.people.open_games_for(other))[0].to_move_user_id == mover
    elsewhere = make_host(sqlite, Clock(at("2026-11-24 12:00")))  # another process's host on the same database
    await elsewhere.load()
    await elsewhere.play.move(CH, mover, host.play.legal_moves(CH, mover)[0])
    assert user_to_move(elsewhere, CH) == other
    (game,) = await host.people.open_games_for(mover)
    assert not game.yours and game.to_move_user_id == other
    assert (await host.people.open_games_for(other))[0].yours


async def test_open_games_come_from_the_database_not_from_the_hosts_memory(host: Host, sqlite: Store) -> None:
    other = make_host(sqlite, Clock(at("2026-11-24 12:00")))  # another process's host on the same database
    await other.load()
    await other.lobby.open(CH2, GUILD, CY, "Cy")
    await other.lobby.join(CH2, ADA, "Ada")
    assert host.games.info(CH2) is None  # this host never loaded that game
    (game,) = await host.people.open_games_for(ADA)
    assert (game.channel_id, game.status, game.yours) == (CH2, "lobby", False)
