"""*Undo* on the posts of a game whose moves two bot processes (shards 0 and 1 of 2, one PostgreSQL) post in turn, and
the game's web page served by both.

In a server on shard 1, a command in the channel reaches that server's process and a DM click the shard-0 process;
each posts the moves it stored. Only the latest post carries *Undo*, whichever process sent the one before, and an
undo edits the post of the move it takes back, not an older post the undoing process happens to have sent.

Each process serves the web pages on its own ``WEB_PORT`` behind one ``PUBLIC_URL`` (the shard-0 process's address,
as a reverse proxy would give): the same token is the same page on both, and a move stored by one process shows on a
live stream from the other (the database's notice of the change, not the process that made it; the delay from the
move's stamp to the event is printed, ``bench/bench_web.py`` measures it), the undo too. A player's link to their own
view, signed by whichever process sent the turn DM with the shared ``WEB_SECRET``, opens on both.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import aiohttp

from bot.host.postgres_store import PostgresStore
from i18n import t
from tests.fakediscord import FakeDiscord
from tests.fakediscord.remote import RemoteTable
from tests.helpers.driver import board_posts, has_undo, post_of
from tests.helpers.http import fetch, free_port, next_event
from tests.helpers.shards import TIMEOUT, two_shard_bots, wait_deliveries_done
from tests.helpers.web import SECRET


async def seen_on(stream: Any, store: PostgresStore, game: int, before: int, delays: list[float]) -> int:
    """The first version above ``before`` a live stream tells of (the stream told of the earlier ones too), its delay
    from the last move's stamp noted."""
    version = before
    while version <= before:
        kind, data = await next_event(stream.content, timeout=TIMEOUT)
        shown = time.time()
        assert kind == "version"
        version = int(json.loads(data)["version"])
    delays.append(shown - (await store.moves(game))[-1].created_at)  # stamped by its process before it committed
    return version


async def test_only_the_latest_post_has_undo_and_an_undo_edits_its_own_post(postgres: PostgresStore, pg_url: str,
                                                                            tmp_path: Path) -> None:
    ports = (free_port(), free_port())
    web = [{"WEB_PORT": str(port), "WEB_SECRET": SECRET, "PUBLIC_URL": f"http://127.0.0.1:{ports[0]}"}
           for port in ports]
    delays: list[float] = []
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2) as fake:
        for name in ("alice", "bob"):
            fake.add_user(name)
        guild = fake.add_guild("One", owner="alice", shard=(1, 2), channels=("games",))
        fake.add_member(guild, "bob")
        channel = next(c for c in fake.channels.values() if c.guild_id == guild.id)
        async with two_shard_bots(fake, pg_url, tmp_path, each=web), aiohttp.ClientSession() as http:
            table = RemoteTable(fake, postgres, channel, ["alice", "bob"], seed=3, timeout=TIMEOUT)
            await table.open(computers=0, draft=True)  # each player chooses a building-card set: nothing is revealed
            game = table.game_id
            await wait_deliveries_done(postgres)
            [page] = [str(b["url"]) for b in board_posts(fake, channel)[0].buttons if b.get("style") == 5]
            token = page.rsplit("/", 1)[1]
            assert page == f"http://127.0.0.1:{ports[0]}/g/{token}"
            pages = [f"http://127.0.0.1:{port}/g/{token}" for port in ports]
            for url in pages:
                status, _, body = await fetch(http, url + "/state.json")
                assert status == 200 and json.loads(body)["positions"] == 0
            async with http.get(pages[0] + "/events") as on_zero, http.get(pages[1] + "/events") as on_one:
                version = int(json.loads((await next_event(on_zero.content, timeout=TIMEOUT))[1])["version"])
                await next_event(on_one.content, timeout=TIMEOUT)

                first = await table.position()
                by_command = first.to_move_user()
                assert by_command is not None and first.game is not None
                await table.play_slash(fake.user(by_command).name, str(first.game.legal_moves()[0]))  # shard 1 posts
                version = await seen_on(on_zero, postgres, game, version, delays)  # on the shard-0 process's page
                await table.wait_seq(first.seq + 1)
                await wait_deliveries_done(postgres)
                one = post_of(fake, channel, game, first.seq + 1)
                assert has_undo(one, game)

                second = await table.position()
                by_dm = second.to_move_user()
                assert by_dm is not None and by_dm != by_command and second.game is not None
                mover = fake.user(by_dm).name
                dm = await table.wait_turn_dm(mover, second.seq)
                [own] = [str(b["url"]) for b in dm.buttons if b.get("style") == 5]
                for url in pages:  # signed with the shared secret: either process shows the seat's own view
                    status, _, body = await fetch(http, url + own.split(token, 1)[1] + "/state.json")
                    assert status == 200 and json.loads(body)["you"]["seat"] == second.game.to_move
                await table.play_dm(mover, str(second.game.legal_moves()[0]), second.seq)  # the shard-0 process posts
                version = await seen_on(on_one, postgres, game, version, delays)  # on the shard-1 process's page
                await table.wait_seq(second.seq + 1)
                await wait_deliveries_done(postgres)
                two = post_of(fake, channel, game, second.seq + 1)
                assert has_undo(two, game)
                assert not has_undo(post_of(fake, channel, game, first.seq + 1), game), \
                    "the post before, sent by the other process, still has Undo"
                words_of_one = post_of(fake, channel, game, first.seq + 1).text

                taken = await table.slash("undo", user=mover)  # typed in the channel: the shard-1 process takes it back
                assert taken.text.startswith(t("bot.reply.undone", "en", move="").strip()), taken.text
                await seen_on(on_zero, postgres, game, version, delays)  # the undo shows on the other process's page
            status, _, body = await fetch(http, pages[0] + "/state.json")
            assert json.loads(body)["positions"] == second.seq
            await wait_deliveries_done(postgres)
            assert (await table.position()).seq == second.seq  # the move is taken back
            edited = next(m for m in fake.messages(channel, ephemeral=False) if m.id == two.id)
            taken_back = t("bot.post.taken_back", "en", move="").replace("~~~~", "").strip()  # "(taken back)"
            assert edited.id == two.id and taken_back in edited.text, edited.text
            assert not has_undo(edited, game)
            assert [str(b["url"]) for b in edited.buttons if b.get("style") == 5] == [page]  # the undo keeps the link
            assert post_of(fake, channel, game, first.seq + 1).text == words_of_one, \
                "an older post was edited in place of the post of the move taken back"
    print(f"live delay across processes: {', '.join(f'{d * 1000:.0f} ms' for d in delays)}")
