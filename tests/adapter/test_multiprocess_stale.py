"""Two bot processes (shards 0 and 1 of 2) over one PostgreSQL: neither answers from a copy of a game that the
other process changed since.

* Autocomplete: right after one process stored a move (a DM click reaches the shard-0 process, a command in the
  channel of a server on shard 1 reaches the other), the next player's autocomplete served by the other process
  offers the legal sites as the database has them, in the channel and in the DM.
* Commands that touch several games: ``/santacruz vacation`` and ``back`` typed in a server on shard 1, while that
  process's copy of the player's game in a server on shard 0 is behind, are decided on each game as the database
  has it: both games change, at the first try.

The processes sweep only once an hour here, so that nothing but the code under test reads the games again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.adapter import ids
from bot.host.postgres_store import PostgresStore
from engine import Game, parse_move
from i18n import t
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.fakediscord.remote import RemoteTable, poll
from tests.helpers.shards import TIMEOUT, start_process, two_shard_bots, wait_deliveries_done

SINGLE_CARDS = ("ship", "river", "road")
CHOICES_MAX = 25


NO_SWEEP = {"SWEEP_SECONDS": "3600"}
"""No sweep during the test (it would read every changed game again)."""


def site_question(game: Game) -> tuple[str, dict[str, Any], list[int]] | None:
    """The autocomplete that offers the sites of the move to make now (``build card:ship site:`` in the play
    phase: the card with legal builds, ship first), the filled options and the legal sites as the engine has them;
    ``None`` when the move to make is not a site's (a choice, a scoring card)."""
    moves = [parse_move(str(m)) for m in game.legal_moves()]
    by_verb: dict[str, list[int]] = {}
    for move in moves:
        if move.site is not None:
            by_verb.setdefault(move.verb, []).append(move.site)
    if "land" in by_verb:
        return "land", {}, by_verb["land"]
    if "build" in by_verb:  # the second build of a double move
        return "build", {}, by_verb["build"]
    for card in SINGLE_CARDS:
        if card in by_verb:
            return "build", {"card": card}, by_verb[card]
    return None


async def offered_sites(fake: FakeDiscord, command: str, options: dict[str, Any], user: str,
                        channel: FakeChannel) -> list[int]:
    handle = await fake.autocomplete(f"santacruz {command}", "site", "", options, user=user, channel=channel)
    return [int(c["value"]) for c in (await handle.wait_for_callback(timeout=TIMEOUT)).choices]


async def test_autocomplete_after_a_move_in_the_other_process_offers_the_legal_sites(
        postgres: PostgresStore, pg_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2) as fake:
        for name in ("alice", "carol", "dave"):
            fake.add_user(name)
        fake.add_guild("Zero", owner="alice", shard=(0, 2), channels=("games",))
        one = fake.add_guild("One", owner="carol", shard=(1, 2), channels=("games",))
        fake.add_member(one, "dave")
        async with two_shard_bots(fake, pg_url, tmp_path, **NO_SWEEP):
            channel = next(c for c in fake.channels.values() if c.guild_id == one.id)
            table = RemoteTable(fake, postgres, channel, ["carol", "dave"], seed=3, timeout=TIMEOUT)
            await table.open(computers=0)

            checked: dict[str, int] = {"channel": 0, "dm": 0}
            """Autocompletes of ``build card:…`` checked where the other process stored the move just before."""
            turn = 0
            while min(checked.values()) < 2:
                await wait_deliveries_done(postgres)  # nothing but the next move is under way in either process
                via = "dm" if turn % 2 == 0 else "slash"  # a DM's click reaches shard 0, the channel's shard 1
                turn += 1
                position = await table.step(via)
                assert position.running, f"the game ended before autocomplete was checked enough: {checked}"
                user_id = position.to_move_user()
                assert user_id is not None and position.game is not None
                question = site_question(position.game)
                if question is None:
                    continue
                command, options, sites = question
                user = fake.user(user_id).name
                where = "channel" if via == "dm" else "dm"  # served by the process that did not store the move
                asked_in = channel if where == "channel" else fake.dm_channel(user)
                offered = await offered_sites(fake, command, options, user, asked_in)
                expected = list(dict.fromkeys(sites))[:CHOICES_MAX]
                assert sorted(offered) == sorted(expected), (
                    f"move {position.seq + 1}, {user}'s /santacruz {command} {options} in the {where}: offered"
                    f" {offered}, legal {expected}")
                if options:
                    checked[where] += 1


async def vacation_of(store: PostgresStore, game_id: int, user_id: int) -> dict[str, Any] | None:
    row = await store.get_game(game_id)
    assert row is not None
    return next(s for s in row.seats if s["user_id"] == user_id)["vacation"]


async def test_vacation_and_back_typed_where_a_copy_is_behind_change_every_game(
        postgres: PostgresStore, pg_url: str, tmp_path: Path) -> None:
    async with FakeDiscord(shard_count=2, populate=False, max_concurrency=2) as fake:
        for name in ("alice", "bob", "carol"):
            fake.add_user(name)
        zero = fake.add_guild("Zero", owner="alice", shard=(0, 2), channels=("games",))
        one = fake.add_guild("One", owner="carol", shard=(1, 2), channels=("games",))
        fake.add_member(zero, "bob")
        fake.add_member(one, "alice")
        async with two_shard_bots(fake, pg_url, tmp_path, **NO_SWEEP) as bots:
            channel = {g: next(c for c in fake.channels.values() if c.guild_id == g.id) for g in (zero, one)}
            far = RemoteTable(fake, postgres, channel[zero], ["alice", "bob"], seed=4, timeout=TIMEOUT)
            near = RemoteTable(fake, postgres, channel[one], ["carol", "alice"], seed=5, timeout=TIMEOUT)
            await far.open(computers=0)
            await near.open(computers=0)
            await wait_deliveries_done(postgres)
            await bots[1].stop()  # started again, the shard-1 process holds a copy of every open game
            await start_process(fake, bots[1], 1)
            alice = fake.user("alice").id

            await far.step("slash")  # the shard-0 process stores a move: shard 1's copy of it is one behind
            reply = await near.slash("vacation", {"days": 3}, user="alice")
            assert t("host.error.conflict", "en") not in reply.text
            vacations = [await vacation_of(postgres, game, alice) for game in (far.game_id, near.game_id)]
            assert all(v is not None and v["state"] == "vote" for v in vacations), vacations
            assert vacations[0] is not None
            assert reply.text == t("bot.reply.vacation", "en", count=2, until=int(vacations[0]["until"]))

            # bob votes in the far game (its channel's process stores it): shard 1's copy is behind again
            seat = next(n for n, s in enumerate((await far.position()).row.seats) if s["user_id"] == alice)
            vote = ids.vacation(far.game_id, seat, "pause")

            def vote_post() -> FakeMessage | None:
                return next((m for m in fake.messages(channel[zero], ephemeral=False) if vote in m.custom_ids), None)
            post = await fake.wait_until(vote_post, timeout=TIMEOUT, description="the vacation's vote post")
            click = await fake.click_button(post, vote, user="bob")
            await click.wait_for_message(lambda m: not m.loading, timeout=TIMEOUT)

            async def voted() -> bool:
                vacation = await vacation_of(postgres, far.game_id, alice)
                return vacation is not None and vacation["state"] == "pause"
            await poll(voted, timeout=TIMEOUT, description="bob's vote to pause the far game")

            reply = await near.slash("back", user="alice")
            assert reply.text == t("bot.reply.vacation_over", "en", count=2)
            assert [await vacation_of(postgres, game, alice) for game in (far.game_id, near.game_id)] == [None, None]
