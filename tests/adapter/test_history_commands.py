"""``/santacruz stats``, its ``leaderboard:`` (once a command of its own) and forget-me (a button of ``settings``)
through the real discord.py and the fake Discord.

The server's history is made by the store's own final-move write (``append_move`` with the game's results, as
the host does at game over) on the bot's database file; the commands, the pages' buttons (after a restart too)
and the confirmation are real interactions.
"""

from __future__ import annotations

import io
import itertools

from PIL import Image

from bot.adapter import ids
from bot.host.model import MoveRow
from bot.host.ratings import PAGE_SIZE, SeatResult
from bot.host.store import Store
from i18n import percent, t
from tests.fakediscord import FakeMessage
from tests.helpers.driver import TIMEOUT, Driver

CHANNELS = itertools.count(5000)
OTHERS = [(900 + i, f"Player {i}") for i in range(PAGE_SIZE + 2)]
"""People of the server who are not on this fake Discord (only their rows matter)."""


async def finished(store: Store, guild_id: int, people: list[tuple[int, str]], at: float) -> int:
    """A finished game of ``people`` (best first) stored as the host stores its final move."""
    game_id = await store.insert_game(channel_id=next(CHANNELS), guild_id=guild_id, opener_id=people[0][0],
                                      seats=[{"user_id": u, "name": n} for u, n in people], options={}, seed=1,
                                      status="running", locale="en", now=at)
    results = [SeatResult(guild_id=guild_id, game_id=game_id, seat=i, user_id=u, name=n, score=60 - 7 * i,
                          rank=i + 1, players=len(people), with_computers=False, finished_at=at,
                          scoring_cards={"sheep": 7 - i}, bird_chips=3 + i)
               for i, (u, n) in enumerate(people)]
    await store.append_move(MoveRow(game_id, 1, 0, people[0][0], "pass", None, at), results=results, status="over")
    return game_id


async def seed_history(driver: Driver) -> tuple[int, int, int]:
    """Twelve others with three games each, and one game Bob won against Alice; (alice, bob, that game)."""
    alice, bob = driver.fake.user("alice").id, driver.fake.user("bob").id
    guild = driver.channel.guild_id
    assert guild is not None
    store = await Store.open(driver.settings.database_path)
    try:
        for round_ in range(3):
            for i in range(0, len(OTHERS), 2):
                await finished(store, guild, [OTHERS[i], OTHERS[i + 1]], 1000.0 + round_ * 100 + i)
        game = await finished(store, guild, [(bob, "Bob"), (alice, "Alice")], 2000.0)
    finally:
        await store.close()
    return alice, bob, game


def png_of(message: FakeMessage, name: str) -> Image.Image:
    attachment = next(a for a in message.attachments if a.filename == name)
    img = Image.open(io.BytesIO(attachment.data))
    img.load()
    return img


async def test_stats_answer_with_the_numbers_and_a_chart(driver: Driver) -> None:
    await seed_history(driver)
    reply = await driver.answer(await driver.slash("stats", user="bob"))  # Bob reads German
    assert t("bot.stats.title", "de", name="Bob") in reply.text
    assert t("bot.stats.games", "de", games=1, wins=1, share=percent(1, "de")) in reply.text
    assert t("bot.stats.score", "de", average="60", best=60) in reply.text
    assert t("bot.stats.cards", "de", favourite="Schaf", profitable="Schaf") in reply.text
    assert "Wertungszahl: " in reply.text and reply.ephemeral
    chart = png_of(reply, "stats.png")
    assert chart.format == "PNG" and chart.size == (1200, 400)
    # another player's stats, and someone with no finished game here
    reply = await driver.answer(await driver.slash("stats", {"player": driver.fake.user("alice")}, user="alice"))
    assert t("bot.stats.title", "en", name="Alice") in reply.text
    assert t("bot.stats.games", "en", games=1, wins=0, share=percent(0, "en")) in reply.text
    assert t("bot.stats.score", "en", average="53", best=53) in reply.text
    reply = await driver.answer(await driver.slash("stats", user="carol"))
    assert reply.text == t("bot.stats.none", "fr", name="Carol")


async def test_the_leaderboard_pages_survive_a_restart_and_show_the_callers_row(driver: Driver) -> None:
    await seed_history(driver)
    reply = await driver.answer(await driver.slash("stats", {"leaderboard": "games"}, user="alice"))
    lines = reply.text.splitlines()
    assert lines[0] == f"**{t('bot.leaderboard.title', 'en', by=t('bot.leaderboard.by.games', 'en'))}**"
    assert sum(line.startswith(tuple(f"{p}. " for p in range(1, PAGE_SIZE + 1))) for line in lines) == PAGE_SIZE
    assert lines[-2].startswith(t("bot.leaderboard.you", "en")) and "Alice" in lines[-2]
    assert lines[-1] == t("bot.leaderboard.page", "en", page=1, pages=2)
    assert reply.custom_ids == [ids.leaderboard("games", 0), ids.leaderboard("games", 1)]
    await driver.restart()
    click = await driver.fake.click_button(reply, ids.leaderboard("games", 1), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    lines = reply.text.splitlines()
    assert lines[-1] == t("bot.leaderboard.page", "en", page=2, pages=2)
    assert not any(line.startswith(t("bot.leaderboard.you", "en")) for line in lines)
    assert any(line.startswith("**") and "Alice" in line for line in lines[1:])  # her own row, in bold
    # by rating: rated people only, in the caller's language
    reply = await driver.answer(await driver.slash("stats", {"leaderboard": "rating"}, user="carol"))
    assert "Carol" not in reply.text
    assert t("bot.leaderboard.title", "fr", by=t("bot.leaderboard.by.rating", "fr")) in reply.text
    # a player and a leaderboard at once: refused in words, nothing shown
    both = await driver.answer(await driver.slash("stats", {"player": driver.fake.user("bob"), "leaderboard": "wins"},
                                                  user="alice"))
    assert both.ephemeral and both.text == t("bot.stats.player_or_leaderboard", "en")


async def test_forget_me_asks_first_and_removes_only_the_caller(driver: Driver) -> None:
    alice, bob, game = await seed_history(driver)
    panel = await driver.answer(await driver.slash("settings", user="alice"))
    assert ids.forget_ask(alice) in panel.custom_ids
    other = await driver.answer(await driver.fake.click_button(panel, ids.forget_ask(alice), user="bob"))
    assert other.text == t("bot.forget.not_yours", "de")  # someone else's panel asks them nothing
    question = await driver.answer(await driver.fake.click_button(panel, ids.forget_ask(alice), user="alice"))
    assert question.text == t("bot.forget.question", "en")
    assert ids.forget(alice) in question.custom_ids
    refused = await driver.answer(await driver.fake.click_button(question, ids.forget(alice), user="bob"))
    assert refused.text == t("bot.forget.not_yours", "de")
    assert "Alice" in (await driver.answer(await driver.slash("stats", user="alice"))).text  # nothing changed yet
    click = await driver.fake.click_button(question, ids.forget(alice), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    assert question.text == t("bot.forget.done", "en", results=1, ratings=1, games=1) and not question.custom_ids
    reply = await driver.answer(await driver.slash("stats", user="alice"))
    assert reply.text == t("bot.stats.none", "en", name="Alice")
    reply = await driver.answer(await driver.slash("stats", user="bob"))
    assert t("bot.stats.games", "de", games=1, wins=1, share=percent(1, "de")) in reply.text  # Bob: whole
    row = await driver.host.store.get_game(game)
    assert {s["user_id"]: s["name"] for s in row.seats} == {bob: "Bob", alice: "former player"}
    assert len(await driver.host.store.moves(game)) == 1


async def test_stats_say_how_fast_a_player_moves_and_count_seats_taken_over_apart(driver: Driver) -> None:
    alice, bob, _ = await seed_history(driver)
    guild = driver.channel.guild_id
    assert guild is not None
    store = await Store.open(driver.settings.database_path)
    try:
        async with store._write() as db:  # five timed turns of Bob's, as his moves would have written them
            for seq, seconds in enumerate((60.0, 120.0, 600.0, 7200.0, 90000.0), start=1):
                await db.execute("INSERT INTO turn_times (game_id, seq, guild_id, user_id, seconds, moved_at)"
                                 " VALUES (?, ?, ?, ?, ?, ?)", 77, seq, guild, bob, seconds, 3000.0)
        # Alice took over the seat of someone who left, and won: counted apart, not in her record
        game = await store.insert_game(channel_id=next(CHANNELS), guild_id=guild, opener_id=bob, seed=1,
                                       seats=[{"user_id": alice, "name": "Alice",
                                               "former": [{"user_id": 999, "name": "Gone", "until": 4}]},
                                              {"user_id": bob, "name": "Bob"}],
                                       options={}, status="running", locale="en", now=3000.0)
        results = [SeatResult(guild_id=guild, game_id=game, seat=i, user_id=u, name=n, score=50 - i, rank=i + 1,
                              players=2, with_computers=True, finished_at=3000.0, taken_over=i == 0)
                   for i, (u, n) in enumerate(((alice, "Alice"), (bob, "Bob")))]
        await store.append_move(MoveRow(game, 1, 0, alice, "pass", None, 3000.0), results=results, status="over")
    finally:
        await store.close()
    reply = await driver.answer(await driver.slash("stats", user="bob"))  # Bob reads German
    assert t("bot.stats.speed", "de", turns=5, median="10 Min.", p90="15 Std. 48 Min.") in reply.text
    reply = await driver.answer(await driver.slash("stats", user="alice"))
    assert t("bot.stats.games", "en", games=1, wins=0, share=percent(0, "en")) in reply.text  # hers, whole
    assert t("bot.stats.taken_over", "en", games=1, wins=1) in reply.text
    assert "Turn speed" not in reply.text  # none of her turns was timed
