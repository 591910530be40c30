"""End to end with two bot processes (shards 0 and 1 of 2) over one PostgreSQL database.

Two servers, one per shard, a game in each (two people and a computer) played to the end with slash commands
and DM buttons; DM clicks reach the shard-0 process whatever the game's server. The shard-1 process is killed
(SIGKILL) just after a move in its server's game; its game goes on by DM through the shard-0 process, which
takes over the dead process's posts once its lease expires, the other game never stops, and the restarted
process finishes its game. Afterwards the database and the fake Discord show every move once, in order, posted
once; the computer's moves once each; at most one reminder per player and turn; every delivery done.

One bot on PostgreSQL also shows that a post queued while its channel's outbox is letting go of its lease is
delivered (the lease's row is held by the test, so the outbox waits in the middle of letting go); and one bot
that a post sent again (its answer was lost, as when a process dies before it marks the post done) is not
posted twice: each delivery carries its own nonce, and Discord answers a known nonce with the message it made.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg

from bot.adapter import ids
from bot.adapter.emojis import PREFIX
from bot.adapter.words.common import channel_link
from bot.host.deliveries import MOVE_POST
from bot.host.postgres_store import PostgresStore
from bot.host.settings import Settings
from engine import new_game
from i18n import t
from render.emoji import EMOJI_ICONS
from tests.fakediscord import FakeChannel, FakeDiscord
from tests.fakediscord.audit import as_sent
from tests.fakediscord.remote import Position, RemoteTable, first_custom_ids, poll
from tests.helpers.buttons import game_button_seq, move_control_seq
from tests.helpers.driver import Driver, board_posts
from tests.helpers.shards import TIMEOUT, start_process, two_shard_bots, wait_deliveries_done

KILL_AT = 6
"""The killed process's game is this many moves in when its process dies."""
WHILE_DEAD = 2
"""Moves made by DM in the killed process's game while it is down (handled by the shard-0 process)."""


def move_posts(fake: FakeDiscord, channel: FakeChannel, game_id: int) -> Counter[int]:
    """How many times each position of the game was posted in the channel (the start is 0): a post carries
    the "My cards" button of its position (``hand`` at ``seq``); the game-over post a rematch button."""
    posted: Counter[int] = Counter()
    for message in fake.messages(channel, ephemeral=False):
        for custom_id in first_custom_ids(message):
            seq = game_button_seq(custom_id, game_id, "hand")
            if seq is not None:
                posted[seq] += 1
            elif custom_id == ids.game(game_id, "rematch"):
                posted[-1] += 1
    return posted


def reminders(fake: FakeDiscord, table: RemoteTable) -> Counter[tuple[str, int]]:
    """Reminder DMs of the table's game by (user, position): a reminder carries the controls of its turn."""
    text = t("bot.dm.reminder", "en", channel=channel_link(table.channel.id))
    sent: Counter[tuple[str, int]] = Counter()
    for user in table.users:
        for message in fake.dm_messages(user):
            if text not in as_sent(message).text:  # told since that its turn passed
                continue
            seqs = {seq for cid in first_custom_ids(message)
                    if (seq := move_control_seq(cid, table.game_id)) is not None}
            for seq in seqs:
                sent[(user, seq)] += 1
    return sent


async def wait_reminder(fake: FakeDiscord, table: RemoteTable, position: Position) -> None:
    """Let the person to move wait until their turn reminder comes (the sweep sends it about a second in)."""
    user_id = position.to_move_user()
    assert user_id is not None
    user = fake.user(user_id).name

    async def reminded() -> bool:
        return reminders(fake, table)[(user, position.seq)] > 0
    await poll(reminded, timeout=TIMEOUT, description=f"a reminder for {user}")


def never_reminded(position: Position) -> bool:
    """Whether the person to move was not reminded yet in this game (a player gets one reminder a day)."""
    assert position.game is not None and position.game.to_move is not None
    return position.to_move_user() is not None and position.row.seats[position.game.to_move]["reminded_at"] is None


async def play_to_end(table: RemoteTable, *, remind_at: int) -> None:
    """Play the game to its end, slash commands and DM controls in turn; once at move ``remind_at`` or later
    a person not reminded yet waits for their reminder before moving."""
    reminded = False
    turn = 0
    while (position := await table.position()).running:
        if not reminded and position.seq >= remind_at and never_reminded(position):
            await wait_reminder(table.fake, table, position)
            reminded = True
        turn += 1
        await table.step("dm" if turn % 2 else "slash")


async def person_moves_by_dm(table: RemoteTable, count: int) -> None:
    """``count`` moves of people, all with their turn DM's controls (computer moves in between waited for)."""
    made = 0
    while made < count and (await table.position()).running:
        before = table.dm_moves
        await table.step("dm")
        made += table.dm_moves - before


async def check_game(store: PostgresStore, fake: FakeDiscord, table: RemoteTable) -> None:
    """What the database and the channel show once the game is over and every delivery is done."""
    position = await table.position()
    assert position.row.status == "over" and position.game is not None
    rows = await store.moves(table.game_id)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1)), "the move log has a gap or a double"
    replayed = new_game(position.game.names, position.row.seed)
    for row in rows:
        replayed.apply(row.move)
    assert replayed.to_json() == position.game.to_json(), "the stored moves do not replay to the final state"
    computer_seats = {n for n, seat in enumerate(position.row.seats) if seat["user_id"] is None}
    computer_moves = [r.seq for r in rows if r.seat in computer_seats]
    assert computer_moves and all(rows[seq - 1].user_id is None for seq in computer_moves)
    posted = move_posts(fake, table.channel, table.game_id)
    last = len(rows)
    # one post per turn: the start (0), each move that ended a turn but the last (its "My cards" button; a double
    # move's card and builds are one turn, posted after its last build), the game over
    ended = [r.seq for i, r in enumerate(rows[:-1]) if not rows[i + 1].move.startswith("build")]
    assert posted == Counter({0: 1, **{seq: 1 for seq in ended}, -1: 1}), \
        f"posts per position (a missing or doubled one): {sorted(posted.items())}"
    deliveries = await store.deliveries(table.game_id)
    assert all(d.done_at is not None for d in deliveries), "a delivery is not done"
    assert sorted(d.seq for d in deliveries if d.kind == MOVE_POST) == [*ended, last]
    heads = [t(key, "en", channel="\0", phase="").split("\0")[0] for key in ("bot.dm.your_turn", "bot.dm.reminder")]
    still = [m.text[:60] for user in table.users for m in fake.dm_messages(user)
             if any(head in m.text for head in heads)]
    assert still == [], f"DMs whose turn passed still say it is theirs (whichever process sent them): {still}"
    sent = reminders(fake, table)
    per_user = Counter(user for user, _ in sent.elements())
    assert sent and max(per_user.values()) == 1, f"reminders per (user, position), at most one a day: {sent}"


def dm_clicks_on_shard_0(fake: FakeDiscord, table: RemoteTable) -> list[Any]:
    session = fake.shard_sessions()[0]
    clicks = {str(h.id) for h in table.dm_clicks}
    return [e for e in session.events if e["t"] == "INTERACTION_CREATE" and e["d"]["id"] in clicks]


async def test_two_processes_play_two_games_and_one_survives_a_kill(postgres: PostgresStore, pg_url: str,
                                                                     tmp_path: Path) -> None:
    # two whole games at machine speed: Discord's 5 posts per 5 s per channel would hold them for a minute and more
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2, route_limits=()) as fake:
        for name in ("alice", "bob", "carol", "dave"):
            fake.add_user(name)
        zero = fake.add_guild("Zero", owner="alice", shard=(0, 2), channels=("games",))
        one = fake.add_guild("One", owner="carol", shard=(1, 2), channels=("games",))
        fake.add_member(zero, "bob")
        fake.add_member(one, "dave")
        async with two_shard_bots(fake, pg_url, tmp_path) as bots:
            channel = {g: next(c for c in fake.channels.values() if c.guild_id == g.id) for g in (zero, one)}
            steady = RemoteTable(fake, postgres, channel[zero], ["alice", "bob"], seed=1, timeout=TIMEOUT)
            killed = RemoteTable(fake, postgres, channel[one], ["carol", "dave"], seed=2, timeout=TIMEOUT)
            await asyncio.gather(steady.open(), killed.open())

            steady_game = asyncio.create_task(play_to_end(steady, remind_at=KILL_AT + 4))
            while (await killed.position()).seq < KILL_AT or (await killed.position()).to_move_user() is None:
                await killed.step("slash")
            await killed.step("slash")  # its post and DMs are on their way when the process dies
            while (half := await killed.position()).game is not None and half.game.pending is not None:
                # a double move's builds: their controls came with the command's answer in the channel, which only
                # the dying process hears (Discord sends a server's interactions to its shard); the turn ends first
                await killed.step("slash")
            bots[1].kill()
            at_kill = (await steady.position()).seq

            await person_moves_by_dm(killed, WHILE_DEAD)  # the shard-0 process serves the game meanwhile
            went_on = asyncio.ensure_future(steady.wait_seq(at_kill + 3))  # the other game went on (or is over)
            await asyncio.wait({went_on, steady_game}, return_when=asyncio.FIRST_COMPLETED)
            if steady_game.done() and steady_game.exception() is not None:  # its own failure, not a wait's timeout
                went_on.cancel()
                await steady_game
            await went_on

            await start_process(fake, bots[1], 1)
            await asyncio.gather(steady_game, play_to_end(killed, remind_at=0))
            await wait_deliveries_done(postgres)

            for table in (steady, killed):
                await check_game(postgres, fake, table)
                assert table.slash_moves and table.dm_moves
            assert dm_clicks_on_shard_0(fake, killed), "no DM click of shard 1's game reached the shard-0 process"
    # both processes started at once on an application without emojis, and one of them restarted: each emoji was
    # made once (the process Discord refused a name listed the emojis again and took the one made)
    made = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/emojis") and r.status == 201]
    assert len(made) == len(EMOJI_ICONS) == len(fake.application_emojis.emojis)
    assert all(len(fake.application_emojis.named(PREFIX + icon)) == 1 for icon in EMOJI_ICONS)


async def test_a_post_queued_while_the_outbox_lets_go_of_its_lease_is_delivered(fake_discord: FakeDiscord,
                                                                                  pg_url: str) -> None:
    settings = Settings(database_url=pg_url, ai_strength="random", ai_seconds=0.05, sweep_seconds=3600.0)
    driver = Driver(fake_discord, settings, channel="games")  # no sweep comes to the rescue in this test
    await driver.start()
    try:
        await driver.two_player_game()
        lease = f"outbox:{driver.channel.id}"
        locker = await asyncpg.connect(pg_url)
        try:
            await locker.execute("INSERT INTO leases (name, owner, until) VALUES ($1, $2, $3) ON CONFLICT (name)"
                                 " DO UPDATE SET owner = excluded.owner, until = excluded.until",
                                 lease, driver.host.owner, driver.host.outbox.now() + 3600)
            holding = locker.transaction()
            await holding.start()
            await locker.execute("SELECT 1 FROM leases WHERE name = $1 FOR UPDATE", lease)
            driver.bot.get_cog("SantaCruz").publisher.wake(driver.channel.id)  # nothing to send: it lets go

            async def letting_go() -> bool:
                """Whether the bot waits for the lease's row: nothing else of it is locked, and with nothing to
                deliver the outbox does not take its lease, it lets go of it."""
                waiting = await locker.fetchval("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                                " AND pid <> pg_backend_pid()")
                return bool(waiting)
            await poll(letting_go, timeout=TIMEOUT, description="the outbox to wait while letting go of its lease")
            await driver.play_turn("slash")  # its post is queued while the outbox's task is still letting go
            await holding.rollback()
        finally:
            await locker.close()
        await driver.wait_posts(2)  # the start and the move
    finally:
        await driver.stop()


async def test_a_post_sent_again_after_its_answer_was_lost_is_posted_once(driver: Driver) -> None:
    await driver.two_player_game()
    messages = f"/channels/{driver.channel.id}/messages"
    driver.fake.fail_route("POST", messages, status=503, after=True)  # Discord posted it; the bot hears 503
    before = len(driver.fake.requests_to("POST", messages))
    await driver.play_turn("slash")
    await driver.settle()
    sent = driver.fake.requests_to("POST", messages)[before:]
    assert len(sent) == 2, "the move's post was not sent again after the 503"
    assert sent[0].json["nonce"] == sent[1].json["nonce"]
    assert len(board_posts(driver.fake, driver.channel)) == 2  # the start and the move, once each


async def test_a_dm_sent_again_after_its_answer_was_lost_is_one_dm(driver: Driver) -> None:
    """The turn DM carries its delivery's nonce too: after a 503 that came once Discord had made it (or a process
    that died before marking it sent), the DM sent again is answered with the first one, not a second DM."""
    mover = await driver.two_player_game()
    other = "bob" if mover == "alice" else "alice"
    dms = f"/channels/{driver.fake.dm_channel(other).id}/messages"
    driver.fake.fail_route("POST", dms, status=503, after=True)
    before = len(driver.fake.requests_to("POST", dms))
    dm_count = len(driver.fake.dm_messages(other))
    await driver.play_turn("slash")
    await driver.settle()
    turn_dm = await driver.wait_turn_dm(other)
    sent = driver.fake.requests_to("POST", dms)[before:]
    assert len(sent) == 2, "the turn DM was not sent again after the 503"
    assert sent[0].json["nonce"] == sent[1].json["nonce"]
    assert len(driver.fake.dm_messages(other)) == dm_count + 1
    assert driver.fake.dm_messages(other)[-1].id == turn_dm.id
