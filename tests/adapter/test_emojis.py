"""Cards, resources, buildings and bird chips as the application's own emojis (``bot/adapter/emojis.py``), through the
real discord.py and the fake Discord (``tests/fakediscord/emojis.py``, which serves the application emoji routes as
Discord documents them: its own test is ``tests/fakediscord/test_emojis.py``).

On an application without its emojis the bot uploads each once, drawn from the pictures' art at 128 × 128; its turn
DM shows them beside the words in the text, the buttons and the menus (autocomplete keeps its words alone); two
clients starting at once make each emoji once (the one refused takes the other's), a later start makes none, and one
that Discord does not even answer has none and goes on; an application with no room left (2,000 emojis already)
leaves the words alone, and the game goes on.
"""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import discord
from PIL import Image

from bot.adapter.emojis import PREFIX, Emojis
from bot.host.settings import Settings
from render.emoji import EMOJI_ICONS, EMOJI_SIZE, emoji_png
from tests.fakediscord import FakeDiscord, walk_components
from tests.fakediscord.audit import without_emojis
from tests.helpers.driver import TIMEOUT, Driver


async def test_the_bot_uploads_its_emojis_once_and_shows_them_beside_the_words(fake_discord: FakeDiscord,
                                                                              tmp_path: Path) -> None:
    fake = fake_discord
    settings = Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", picture_width=800)
    driver = Driver(fake, settings, channel="games", emojis_before=False)
    await driver.start()
    try:
        made = {e.name: e for e in fake.application_emojis.emojis.values()}
        assert sorted(made) == sorted(PREFIX + icon for icon in EMOJI_ICONS)
        for emoji in made.values():  # the pictures' art, at Discord's advised size
            with Image.open(io.BytesIO(emoji.image)) as image:
                assert image.size == (EMOJI_SIZE, EMOJI_SIZE) and image.mode == "RGBA"
        await driver.open_game(["alice", "bob"], draft=True)
        await driver.settle()
        user = driver.to_move_user()
        assert user is not None
        dm = driver.turn_dm(user)
        ids = {str(e.id) for e in made.values()}
        shown = re.findall(r"<:(\w+):(\d+)>", dm.text)
        assert shown and {i for _, i in shown} <= ids and {n for n, _ in shown} <= set(made)
        assert f"<:{PREFIX}house:{made[PREFIX + 'house'].id}> " in dm.text  # the supply: the emoji, then the words
        buttons = [c for c in walk_components(dm.components) if c.get("type") == 2 and c.get("emoji")]
        assert buttons and all(str(b["emoji"]["id"]) in ids and b["label"] for b in buttons)  # the words stay beside
        handle = await fake.autocomplete("santacruz choose", "option", "", {}, user=user, channel=driver.channel)
        choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
        assert choices and not any("<:" in str(c["name"]) for c in choices)  # autocomplete cannot show them
    finally:
        await driver.stop()


async def draw(icon: str) -> bytes:
    return emoji_png(icon)


async def loaded(fake: FakeDiscord, count: int) -> list[Emojis]:
    """What ``count`` clients of the bot's application starting at once find or make of its emojis."""
    clients = [discord.Client(intents=discord.Intents.none()) for _ in range(count)]
    found = [Emojis() for _ in clients]
    try:
        await asyncio.gather(*(client.login(fake.token) for client in clients))
        await asyncio.gather(*(emojis.load(client, draw) for emojis, client in zip(found, clients, strict=True)))
    finally:
        await asyncio.gather(*(client.close() for client in clients))
    return found


async def test_two_clients_starting_at_once_make_each_emoji_once_and_a_later_start_none(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    first, second = await loaded(fake, 2)
    assert sorted(e.name for e in fake.application_emojis.emojis.values()) == sorted(PREFIX + i for i in EMOJI_ICONS)
    assert all(first.get(icon) == second.get(icon) is not None for icon in EMOJI_ICONS)
    posted = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/emojis")]
    assert [r for r in posted if r.status == 400], "the two never raced for a name"
    (later,) = await loaded(fake, 1)
    assert [r for r in fake.requests if r.method == "POST" and r.path.endswith("/emojis")] == posted
    assert all(later.get(icon) == first.get(icon) for icon in EMOJI_ICONS)
    fake.inject_error("GET", rf"/applications/{fake.application_id}/emojis", status=403, code=50001,
                      message="Missing Access", times=None)
    (unlisted,) = await loaded(fake, 1)  # Discord does not even list them: nothing, and no failure
    assert len(unlisted) == 0 and unlisted.mark("ship") == "" and unlisted.get("ship") is None


async def test_without_room_for_emojis_or_when_discord_fails_the_words_stand_alone(fake_discord: FakeDiscord,
                                                                                   tmp_path: Path) -> None:
    fake = fake_discord
    for i in range(2000):  # the application has no room left: every upload is refused (30008)
        fake.application_emojis.add(f"other_{i}")
    settings = Settings(database_path=str(tmp_path / "santacruz.db"), ai_strength="random", picture_width=800)
    driver = Driver(fake, settings, channel="games", emojis_before=False)
    await driver.start()
    try:
        assert not fake.application_emojis.named(PREFIX + "ship")
        await driver.open_game(["alice", "bob"], draft=True)
        await driver.settle()
        user = driver.to_move_user()
        assert user is not None
        dm = driver.turn_dm(user)
        assert "<:" not in dm.text and without_emojis(dm.text) == dm.text and dm.buttons
        assert not any(c.get("emoji") for c in walk_components(dm.components))
        await driver.play_turn(via="dm")
    finally:
        await driver.stop()
