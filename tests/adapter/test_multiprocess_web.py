"""The web pages with two bot processes (shards 0 and 1 of 2) over one PostgreSQL, each serving the pages on its own
``WEB_PORT`` behind one ``PUBLIC_URL`` (the shard-0 process's address here, as a reverse proxy would give).

A game in a server on shard 1: a move typed in its channel is stored by the shard-1 process and shows within two
seconds (from the move's time stamp to the event's arrival) on a page's live stream from the shard-0 process (the
database's notice of the change, not the process that made it); a move made with a turn DM's controls is stored by
the shard-0 process and shows on the shard-1 process's stream. Both serve the same page from the same token, and a
player's signed link (signed by whichever process sent the DM, with the shared ``WEB_SECRET``) works on both.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import aiohttp

from bot.host.postgres_store import PostgresStore
from tests.adapter.conftest import board_posts
from tests.adapter.test_multiprocess import wait_deliveries_done
from tests.adapter.two_shards import TIMEOUT, two_shard_bots
from tests.fakediscord import FakeDiscord
from tests.fakediscord.remote import RemoteTable
from tests.web.conftest import SECRET, fetch, free_port, next_event


async def test_a_move_stored_by_one_process_shows_on_the_other_s_page(store: PostgresStore, pg_url: str,
                                                                     tmp_path: Path) -> None:
    ports = (free_port(), free_port())
    web = [{"WEB_PORT": str(port), "WEB_SECRET": SECRET, "PUBLIC_URL": f"http://127.0.0.1:{ports[0]}"}
           for port in ports]
    async with FakeDiscord(shard_count=2, populate=False) as fake:
        for name in ("alice", "bob"):
            fake.add_user(name)
        guild = fake.add_guild("One", owner="alice", shard=(1, 2), channels=("games",))
        fake.add_member(guild, "bob")
        channel = next(c for c in fake.channels.values() if c.guild_id == guild.id)
        async with two_shard_bots(fake, pg_url, tmp_path, each=web), aiohttp.ClientSession() as http:
            table = RemoteTable(fake, store, channel, ["alice", "bob"], seed=5, timeout=TIMEOUT)
            await table.open(computers=0)
            await wait_deliveries_done(store)
            [start] = board_posts(fake, channel)
            [page] = [str(b["url"]) for b in start.buttons if b.get("style") == 5]
            token = page.rsplit("/", 1)[1]
            assert page == f"http://127.0.0.1:{ports[0]}/g/{token}"
            pages = [f"http://127.0.0.1:{port}/g/{token}" for port in ports]
            for url in pages:
                status, _, body = await fetch(http, url + "/state.json")
                assert status == 200 and json.loads(body)["positions"] == 0
            delays = []
            for via, watched in (("slash", 0), ("dm", 1)):  # stored by the shard-1 process, then by the shard-0 one
                async with http.get(pages[watched] + "/events") as stream:
                    kind, data = await next_event(stream.content, timeout=TIMEOUT)
                    before = json.loads(data)
                    position = await table.position()
                    mover = position.to_move_user()
                    assert kind == "version" and mover is not None and position.game is not None
                    move = str(position.game.legal_moves()[0])
                    if via == "slash":
                        await table.play_slash(fake.user(mover).name, move)
                    else:
                        await table.play_dm(fake.user(mover).name, move, position.seq)

                    kind, data = await next_event(stream.content, timeout=TIMEOUT)
                    shown = time.time()
                    assert kind == "version" and json.loads(data)["version"] > before["version"]
                    moved = (await store.moves(table.game_id))[-1]  # stamped by its process before it committed
                    assert moved.seq == position.seq + 1
                    delays.append(shown - moved.created_at)
                status, _, body = await fetch(http, pages[watched] + "/state.json")
                assert json.loads(body)["positions"] == position.seq + 1
            assert max(delays) < 2.0, delays
            await wait_deliveries_done(store)
            user = (await table.position()).to_move_user()
            assert user is not None
            dm = await table.wait_turn_dm(fake.user(user).name, (await table.position()).seq)
            [own] = [str(b["url"]) for b in dm.buttons if b.get("style") == 5]
            for url in pages:  # the shared secret: either process shows the seat's own view
                status, _, body = await fetch(http, url + own.split(token, 1)[1] + "/state.json")
                assert status == 200 and json.loads(body)["you"]["seat"] == (await table.position()).game.to_move
    print(f"live delay across processes: {', '.join(f'{d * 1000:.0f} ms' for d in delays)}")
