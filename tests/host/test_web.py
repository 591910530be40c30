"""The web pages' part of the host (``bot/host/web.py``) on both stores: a game's page token is random, made once
and the same in every process; whether a game is on the web (the settings, ``new web:false``, its server's choice);
a seat's signed link and what refuses it; the public view of every position, an undone move no position; the
database's notice of every change to a game (PostgreSQL), seen by another process."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from bot.host.host import Host
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from bot.host.web import TOKEN, Forbidden, NotShown

CH, GUILD = 7, 3
ADA, BO = 1, 2
WEB = Settings(public_url="https://santacruz.example/games", web_secret="s" * 40)


async def started(store: Any, settings: Settings = WEB) -> Host:
    host = Host(store, settings)
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    return host


async def moves(host: Host, count: int, rng: random.Random) -> None:
    for _ in range(count):
        info = host.games.info(CH)
        assert info is not None and info.to_move is not None
        user = info.seats[info.to_move].user_id
        assert user is not None
        await host.play.move(CH, user, rng.choice(host.play.legal_moves(CH, user)))


async def test_a_page_token_is_random_made_once_and_names_no_number(store: Any) -> None:
    host = await started(store)
    game = host.games.info(CH).game_id  # type: ignore[union-attr]
    link = await host.web.link(game)
    assert link is not None and link.startswith("https://santacruz.example/games/g/")
    token = link.rsplit("/", 1)[1]
    assert TOKEN.fullmatch(token)  # 24 random characters (144 bits), the game's number nowhere
    assert await host.web.link(game) == link
    again = Host(store, WEB)  # another process: reads the stored token, makes none
    assert await again.web.link(game) == link
    assert (await again.web.page(token)).game_id == game
    await host.lobby.open(CH + 1, GUILD, ADA, "Ada")
    second = await host.web.link(host.games.info(CH + 1).game_id)  # type: ignore[union-attr]
    assert second is not None and second != link
    for wrong in ("", "short", token[:-1] + ("A" if token[-1] != "A" else "B"), token + "A", "../" + token[3:]):
        with pytest.raises(NotShown):
            await host.web.page(wrong)


async def test_whether_a_game_is_on_the_web(store: Any) -> None:
    host = await started(store, Settings())
    game = host.games.info(CH).game_id  # type: ignore[union-attr]
    assert not host.web.enabled and await host.web.link(game) is None  # no PUBLIC_URL, no WEB_PORT: no page
    host = Host(store, WEB)
    await host.load()
    link = await host.web.link(game)
    assert link is not None
    await host.web.set_shown(GUILD, False)
    assert not await host.web.shown(GUILD) and await host.web.link(game) is None
    with pytest.raises(NotShown):
        await host.web.page(link.rsplit("/", 1)[1])
    await host.web.set_shown(GUILD, True)
    assert await host.web.link(game) == link
    off = await host.lobby.open(CH + 1, GUILD, ADA, "Ada", web=False)
    assert await host.web.link(off.game_id) is None
    assert await Host(store, Settings(public_url="https://x.example")).web.seat_link(game, ADA) is None  # no secret


async def test_a_seat_link_holds_for_its_person_until_it_ends_or_is_revoked(store: Any) -> None:
    now = [1_800_000_000.0]
    host = Host(store, WEB, clock=lambda: now[0])
    await host.lobby.open(CH, GUILD, ADA, "Ada")
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    game = host.games.info(CH).game_id  # type: ignore[union-attr]
    link = await host.web.seat_link(game, BO)
    assert link is not None
    token, claim = re.fullmatch(r".*/g/([^/]+)/s/([^/]+)", link).groups()  # type: ignore[union-attr]
    seat = await host.web.seat_page(token, claim)
    assert (seat.seat, seat.user_id, seat.claim) == (host.games.seat_of(CH, BO), BO, claim)
    assert seat.expires == int(now[0] + 7 * 86400)
    view = await host.web.seat_view(seat)
    assert view is not None and view["you"]["seat"] == seat.seat
    assert await host.web.seat_link(game, 999) is None  # no seat
    other = Host(store, Settings(public_url=WEB.public_url, web_secret="t" * 40), clock=lambda: now[0])
    with pytest.raises(Forbidden):  # signed with another key
        await other.web.seat_page(token, claim)
    now[0] += 7 * 86400 + 1
    with pytest.raises(Forbidden):
        await host.web.seat_page(token, claim)
    now[0] -= 7 * 86400 + 1
    await host.people.forget_me(BO)
    with pytest.raises(Forbidden):
        await host.web.seat_page(token, claim)
    fresh = await host.web.seat_link(game, BO)
    assert fresh is not None and fresh != link
    assert (await host.web.seat_page(token, fresh.rsplit("/", 1)[1])).user_id == BO


async def test_every_position_and_an_undone_move_is_none(store: Any) -> None:
    host = Host(store, WEB)
    await host.lobby.open(CH, GUILD, ADA, "Ada", draft=True)  # choosing a set reveals nothing: it may be taken back
    await host.lobby.join(CH, BO, "Bo")
    await host.lobby.start(CH, ADA)
    game = host.games.info(CH).game_id  # type: ignore[union-attr]
    token = (await host.web.link(game)).rsplit("/", 1)[1]  # type: ignore[union-attr]
    start = await host.web.page(token)
    mover = host.games.info(CH).seats[host.games.info(CH).to_move].user_id  # type: ignore[union-attr,index]
    assert mover is not None
    await host.play.move(CH, mover, host.play.legal_moves(CH, mover)[0])
    played = await host.web.page(token)
    await host.play.undo(CH, mover)
    undone = await host.web.page(token)
    assert (start.positions, played.positions, undone.positions) == (0, 1, 0) and undone.version > played.version
    assert await host.web.view_at(played, 1) is None  # that position is gone
    await moves(host, 5, random.Random(3))
    page = await host.web.page(token)
    assert page.positions == 5 and page.status == "running" and [s.name for s in page.seats] == ["Ada", "Bo"]
    assert page.key(1) != played.key(1), "the same number, another position: its pictures are not the old ones"
    views = [await host.web.view_at(page, at) for at in range(6)]
    assert [len(v["log"]) for v in views if v is not None] == [0, 1, 2, 3, 4, 5]
    assert all(v is not None and v["seat"] is None and "you" not in v for v in views)
    assert views[5] == host.play.public_view(CH)
    assert await host.web.view_at(page, 6) is None


async def test_another_process_s_change_is_told_at_once_on_postgresql(stores: tuple[PostgresStore, PostgresStore]
                                                                     ) -> None:
    first, second = stores
    host = await started(first)
    heard: asyncio.Queue[int] = asyncio.Queue()
    watcher = Host(second, WEB)
    assert await watcher.web.listen(heard.put_nowait)
    game = host.games.info(CH).game_id  # type: ignore[union-attr]
    await moves(host, 1, random.Random(1))
    assert await asyncio.wait_for(heard.get(), 5) == game
    versions = await watcher.web.versions([game, 12345])
    assert list(versions) == [game] and versions[game] == host.games.tables[CH].version


async def test_sqlite_tells_nothing_and_is_polled(store: Any) -> None:
    host = await started(store)
    told = await host.web.listen(lambda game: None)
    assert told == isinstance(store, PostgresStore)
