"""*Undo* on the posts of a game whose moves two bot processes (shards 0 and 1 of 2, one PostgreSQL) post in turn.

In a server on shard 1, a command in the channel reaches that server's process and a DM click the shard-0 process;
each posts the moves it stored. Only the latest post carries *Undo*, whichever process sent the one before, and an
undo edits the post of the move it takes back, not an older post the undoing process happens to have sent.
"""

from __future__ import annotations

from pathlib import Path

from bot.host.postgres_store import PostgresStore
from i18n import t
from tests.adapter.conftest import has_undo, post_of
from tests.adapter.test_multiprocess import wait_deliveries_done
from tests.adapter.two_shards import TIMEOUT, two_shard_bots
from tests.fakediscord import FakeDiscord
from tests.fakediscord.remote import RemoteTable


async def test_only_the_latest_post_has_undo_and_an_undo_edits_its_own_post(store: PostgresStore, pg_url: str,
                                                                            tmp_path: Path) -> None:
    async with FakeDiscord(shard_count=2, populate=False) as fake:
        for name in ("alice", "bob"):
            fake.add_user(name)
        guild = fake.add_guild("One", owner="alice", shard=(1, 2), channels=("games",))
        fake.add_member(guild, "bob")
        channel = next(c for c in fake.channels.values() if c.guild_id == guild.id)
        async with two_shard_bots(fake, pg_url, tmp_path):
            table = RemoteTable(fake, store, channel, ["alice", "bob"], seed=3, timeout=TIMEOUT)
            await table.open(computers=0, draft=True)  # each player chooses a building-card set: nothing is revealed
            game = table.game_id

            first = await table.position()
            by_command = first.to_move_user()
            assert by_command is not None and first.game is not None
            await table.play_slash(fake.user(by_command).name, str(first.game.legal_moves()[0]))  # shard 1 posts
            await table.wait_seq(first.seq + 1)
            await wait_deliveries_done(store)
            one = post_of(fake, channel, game, first.seq + 1)
            assert has_undo(one, game)

            second = await table.position()
            by_dm = second.to_move_user()
            assert by_dm is not None and by_dm != by_command and second.game is not None
            mover = fake.user(by_dm).name
            await table.play_dm(mover, str(second.game.legal_moves()[0]), second.seq)  # the shard-0 process posts
            await table.wait_seq(second.seq + 1)
            await wait_deliveries_done(store)
            two = post_of(fake, channel, game, second.seq + 1)
            assert has_undo(two, game)
            assert not has_undo(post_of(fake, channel, game, first.seq + 1), game), \
                "the post before, sent by the other process, still has Undo"
            words_of_one = post_of(fake, channel, game, first.seq + 1).text

            taken = await table.slash("undo", user=mover)  # typed in the channel: the shard-1 process takes it back
            assert taken.text.startswith(t("bot.reply.undone", "en", move="").strip()), taken.text
            await wait_deliveries_done(store)
            assert (await table.position()).seq == second.seq  # the move is taken back
            edited = next(m for m in fake.messages(channel, ephemeral=False) if m.id == two.id)
            taken_back = t("bot.post.taken_back", "en", move="").replace("~~~~", "").strip()  # "(taken back)"
            assert edited.id == two.id and taken_back in edited.text, edited.text
            assert not has_undo(edited, game)
            assert post_of(fake, channel, game, first.seq + 1).text == words_of_one, \
                "an older post was edited in place of the post of the move taken back"
