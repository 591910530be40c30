"""The commands one by one: how they are synced (localized descriptions), autocomplete, rules, status,
log, board, hand, the lobby's computer seats, kick, a draft, reminders, escaping of names, commands in
DMs, and the ``santacruz-bot`` entry point."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
from pathlib import Path
from typing import Any

import pytest

from bot.adapter import ids
from bot.adapter import main as bot_main
from bot.adapter.client import SantaCruzBot, create_bot
from bot.host.settings import Settings
from engine.ai import OFFERED, STRONGEST
from i18n import RULE_TOPICS, t
from tests.fakediscord import CallbackType
from tests.helpers.buttons import is_game_button
from tests.helpers.driver import TIMEOUT, Driver, board_posts

SUBCOMMANDS = ("new", "join", "leave", "start", "land", "build", "score", "choose", "board", "status", "log",
               "abandon", "undo", "rematch", "away", "back", "rules", "addbot", "kick", "history",
               "stats", "hint", "vacation", "games", "settings")


async def test_commands_are_synced_in_english_with_german_and_french_descriptions(driver: Driver) -> None:
    (group,) = driver.fake.synced_commands()
    assert group["name"] == "santacruz" and not group.get("name_localizations")
    assert group["description"] == t("commands.santacruz.description", "en")
    assert group["description_localizations"] == {"de": t("commands.santacruz.description", "de"),
                                                  "fr": t("commands.santacruz.description", "fr")}
    subs = {o["name"]: o for o in group["options"]}
    assert sorted(subs) == sorted(SUBCOMMANDS)
    for name, sub in subs.items():
        assert sub["description"] == t(f"commands.{name}.description", "en")
        assert set(sub["description_localizations"]) == {"de", "fr"}
        assert sub["description_localizations"]["de"] == t(f"commands.{name}.description", "de")
        for option in sub.get("options", []):
            key = f"commands.{name}.option.{option['name']}"
            assert option["description"] == t(key, "en")
            assert option["description_localizations"] == {"de": t(key, "de"), "fr": t(key, "fr")}
            assert not option.get("name_localizations"), "names stay English"
    card = next(o for o in subs["build"]["options"] if o["name"] == "card")
    assert [c["value"] for c in card["choices"]] == ["ship", "river", "road", "double"]
    assert card["choices"][0]["name_localizations"] == {"de": "Schiffkarte", "fr": "Carte navire"}
    site = next(o for o in subs["land"]["options"] if o["name"] == "site")
    assert site["type"] == 4 and site["autocomplete"] is True
    topics = next(o for o in subs["rules"]["options"] if o["name"] == "topic")
    assert [c["value"] for c in topics["choices"]] == list(RULE_TOPICS)
    for name in ("new", "addbot"):
        strength = next(o for o in subs[name]["options"] if o["name"] == "strength")
        assert [c["value"] for c in strength["choices"]] == list(OFFERED)
        for offered in strength["choices"]:  # the strongest last: master, if offered, else expert
            key = f"commands.choice.strength.{offered['value']}"
            assert offered["name"] == t(key, "en") and offered["name_localizations"] == {"de": t(key, "de"),
                                                                                         "fr": t(key, "fr")}


async def test_rules_in_every_language(driver: Driver) -> None:
    for user, lang in (("alice", "en"), ("bob", "de"), ("carol", "fr")):
        for topic in RULE_TOPICS:
            reply = await driver.answer(await driver.slash("rules", {"topic": topic}, user=user))
            embed = reply.embeds[0]
            assert reply.ephemeral and embed["title"] == t(f"rules.{topic}.title", lang)
            assert embed["description"] == t(f"rules.{topic}.text", lang)
    reply = await driver.answer(await driver.slash("rules", user="alice"))
    assert reply.embeds[0]["title"] == t("rules.overview.title", "en")


async def test_autocomplete_lists_legal_sites_and_own_cards_in_words(driver: Driver) -> None:
    fake = driver.fake
    mover = await driver.two_player_game()
    uid = fake.user(mover).id
    legal = driver.host.play.legal_moves(driver.channel.id, uid)
    handle = await fake.autocomplete("santacruz land", "site", "", user=mover, channel=driver.channel,
                                     locale="en-US")
    callback = await handle.wait_for_callback(timeout=TIMEOUT)
    assert callback.kind is CallbackType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
    assert [c["value"] for c in callback.choices] == [int(m.split()[1]) for m in legal]
    pattern = re.compile(r"^\d+ · (House|Church|Lighthouse) · \d+ points?( · .+)?$")
    assert all(pattern.match(c["name"]) for c in callback.choices), callback.choices
    # in German for a German user, filtered by what was typed
    handle = await fake.autocomplete("santacruz land", "site", "1", user=mover, channel=driver.channel,
                                     locale="de")
    choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert choices and all(str(c["value"]).startswith("1") or "1" in c["name"] for c in choices)
    assert all(re.search(r"(Haus|Kirche|Leuchtturm) · \d+ Punkte?", c["name"]) for c in choices)
    # not your turn: nothing to offer
    other = "bob" if mover == "alice" else "alice"
    handle = await fake.autocomplete("santacruz land", "site", "", user=other, channel=driver.channel)
    assert (await handle.wait_for_callback(timeout=TIMEOUT)).choices == []
    # scoring cards: none before they may be scored (a value offered is a value accepted)
    handle = await fake.autocomplete("santacruz score", "card", "", user=other, channel=driver.channel,
                                     locale="en-US")
    assert (await handle.wait_for_callback(timeout=TIMEOUT)).choices == []
    # build sites follow the chosen card
    while driver.host.play.public_view(driver.channel.id)["phase"] != "play":
        await driver.play_turn()
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    # scoring cards on your turn: your own, by name, what each would score now for you and the best other player,
    # and text
    own = driver.host.play.view_for(driver.channel.id, fake.user(mover).id)["you"]["scoring_cards"]
    handle = await fake.autocomplete("santacruz score", "card", "", user=mover, channel=driver.channel,
                                     locale="en-US")
    choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert sorted(c["value"] for c in choices) == sorted(set(own))
    assert all(c["name"].startswith(t(f"game.scoring.{c['value']}.name", "en") + " · now: you ") for c in choices)
    assert all(" — " in c["name"] for c in choices)
    legal = driver.host.play.legal_moves(driver.channel.id, fake.user(mover).id)
    handle = await fake.autocomplete("santacruz build", "site", "", {"card": "ship"}, user=mover,
                                     channel=driver.channel)
    choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert [c["value"] for c in choices] == [m.split()[1] for m in legal if m.startswith("ship ")][:25]
    # a double move: the sites its first build could take, known before it is played
    you = driver.host.play.view_for(driver.channel.id, fake.user(mover).id)["you"]
    handle = await fake.autocomplete("santacruz build", "site", "", {"card": "double", "kind": "ship"},
                                     user=mover, channel=driver.channel)
    choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
    assert [c["value"] for c in choices] == [str(site) for site in you["build_sites"]["ship"][:25]]
    assert choices  # the coast always has free sites at this point


async def test_a_draft_game_chosen_with_choose_and_its_autocomplete(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob", "carol"], draft=True)
    await driver.settle()
    start = board_posts(fake, driver.channel)[0]
    assert "building-card set" in start.text
    chosen = []
    while driver.host.play.public_view(driver.channel.id)["phase"] == "choose_set":
        user = driver.to_move_user()
        assert user is not None
        handle = await fake.autocomplete("santacruz choose", "option", "", user=user, channel=driver.channel,
                                         locale="en-US")
        choices = (await handle.wait_for_callback(timeout=TIMEOUT)).choices
        assert choices and all(c["value"].startswith("set ") for c in choices)
        for choice in choices:
            letter = choice["value"].split()[1]
            assert choice["name"] == (t("game.set.label", "en", set=letter, name=t(f"game.set.{letter}.name", "en"))
                                      + " — " + t(f"game.set.{letter}.cards", "en"))
        if chosen:  # a set someone took already is refused
            reply = await driver.answer(await driver.slash("choose", {"option": chosen[0]}, user=user,
                                                           locale="en-US"))
            assert reply.ephemeral and reply.text.startswith(f"“set {chosen[0]}” is not possible now.")
        letter = choices[-1]["value"].split()[1]
        reply = await driver.answer(await driver.slash("choose", {"option": letter}, user=user, locale="en-US"))
        assert reply.text.startswith("Done:")
        chosen.append(letter)
        await driver.settle()
    assert len(set(chosen)) == len(chosen) >= 2
    assert driver.host.play.public_view(driver.channel.id)["phase"] == "land"


async def test_status_log_board_and_hand(driver: Driver) -> None:
    fake = driver.fake
    await driver.two_player_game()
    for _ in range(3):
        await driver.play_turn()
    await driver.settle()
    status = await driver.answer(await driver.slash("status", user="carol", locale="en-US"))
    assert status.ephemeral and "To move:" in status.text and "<t:" in status.text
    assert "Alice" in status.text and "Bob" in status.text
    log = await driver.answer(await driver.slash("log", user="alice", locale="en-US"))
    assert log.ephemeral and "(3)" in log.text and log.text.count("• ") == 3
    posts = len(board_posts(fake, driver.channel))
    board = await driver.answer(await driver.slash("board", user="carol"))
    assert not board.ephemeral and [a.filename for a in board.attachments] == ["overview.png", "board.png"]
    assert len(board_posts(fake, driver.channel)) == posts + 1
    # a player's status shows their own hand too (the onlooker carol saw none above)
    hand = await driver.answer(await driver.slash("status", user="bob"))
    assert hand.ephemeral and "Wertungskarten:" in hand.text and "hand.png" in [a.filename for a in hand.attachments]
    assert "Am Zug:" in hand.text and "Scoring cards:" not in status.text and not status.attachments
    # the same commands from a DM find the user's only game
    dm = fake.dm_channel("alice")
    hand = await driver.answer(await driver.slash("status", user="alice", channel=dm))
    assert "Scoring cards:" in hand.text and "To move:" in hand.text
    reply = await driver.answer(await driver.slash("new", user="alice", channel=dm))
    assert reply.text == t("bot.error.guild_only", "en")
    reply = await driver.answer(await driver.slash("status", user="carol", channel=fake.dm_channel("carol")))
    assert reply.text == t("bot.error.dm_no_game", "fr")


async def test_computer_seats_kick_and_hand_over(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("alice")
    game_id = driver.info().game_id
    click = await fake.click_button(lobby, ids.game(game_id, "addbot"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()  # the outbox redraws the lobby message
    assert "Computer 1" in lobby.text and ids.game(game_id, "removebot") in lobby.custom_ids
    reply = await driver.answer(await driver.slash("addbot", {"strength": STRONGEST}, user="alice"))
    assert "Computer 2" in reply.text and driver.info().seats[-1].strength == STRONGEST
    await driver.settle()
    assert f"Computer 2 (computer player, {t(f'commands.choice.strength.{STRONGEST}', 'en')})" in lobby.text
    click = await fake.click_button(lobby, ids.game(game_id, "removebot"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    assert len(driver.info().seats) == 2
    await driver.answer(await driver.slash("join", user="bob"))
    assert len(driver.info().seats) == 3
    # kick: only the opener; then bob is out
    reply = await driver.answer(await driver.slash("kick", {"player": fake.user("alice")}, user="bob",
                                                   locale="en-US"))
    assert reply.text == t("host.error.not_opener", "en", opener="Alice")
    reply = await driver.answer(await driver.slash("kick", {"player": fake.user("carol")}, user="alice"))
    assert reply.text == t("host.error.not_a_player", "en", name="Carol")
    reply = await driver.answer(await driver.slash("kick", {"player": fake.user("bob")}, user="alice"))
    assert reply.text == t("bot.reply.kicked", "en", name="Bob")
    assert [s.name for s in driver.info().seats] == ["Alice", "Computer 1"]
    await driver.answer(await driver.slash("join", user="bob"))
    await driver.answer(await driver.slash("start", user="alice"))
    await driver.settle()
    # hand over an absent player: only after the time limit
    reply = await driver.answer(await driver.slash("kick", {"player": fake.user("bob")}, user="alice",
                                                   locale="en-US"))
    assert reply.text.startswith("Bob’s seat can be handed to the computer only after")
    assert fake.dm_messages("bob")


async def test_turn_reminders_are_sent_once(driver: Driver) -> None:
    fake = driver.fake
    user = await driver.two_player_game()
    cog: Any = driver.bot.get_cog("SantaCruz")
    later = driver.info().last_move_at + 13 * 3600
    before = len(fake.dm_messages(user))
    assert await cog.send_reminders(now=later) == 1
    reminder = fake.dm_messages(user)[-1]
    assert len(fake.dm_messages(user)) == before + 1
    assert reminder.text.startswith(t("bot.dm.reminder", fake.user(user).locale.split("-")[0],
                                      channel=f"<#{driver.channel.id}>"))
    assert reminder.selects or reminder.buttons, "the reminder carries the move controls"
    assert await cog.send_reminders(now=later + 60) == 0, "not twice"
    # and the controls work
    await driver.play_dm(user, driver.pick(user))
    await driver.wait_seq(1)


async def test_names_cannot_ping_or_format(driver: Driver) -> None:
    fake = driver.fake
    mallory = fake.add_user("mallory", global_name="@everyone **Boss** <@&1>")
    fake.add_member(fake.default_guild, mallory)
    lobby = await driver.open_lobby("mallory")
    assert "@everyone" not in lobby.content.replace("@\u200beveryone", "")
    assert "**Boss**" not in lobby.content and "\\*\\*Boss\\*\\*" in lobby.content
    assert lobby.allowed_mentions == {"parse": ["users"]}
    await driver.answer(await driver.slash("join", user="alice"))
    await driver.answer(await driver.slash("start", user="mallory"))
    await driver.settle()
    for message in fake.messages(driver.channel, ephemeral=False):
        assert message.allowed_mentions in (None, {"parse": ["users"]}), message.allowed_mentions
        assert "@everyone" not in message.content.replace("@\u200beveryone", "")


async def test_create_bot_does_not_start_it(settings: Settings) -> None:
    bot = create_bot(settings, guild_ready_timeout=0.1)
    assert isinstance(bot, SantaCruzBot) and not bot.is_ready() and bot.host is None
    assert bot.allowed_mentions is not None and bot.allowed_mentions.everyone is False
    assert not bot.intents.members and not bot.intents.message_content
    await bot.close()
    import bot as bot_package

    packaged = bot_package.create_bot(settings, guild_ready_timeout=0.1)  # the name for it
    assert isinstance(packaged, SantaCruzBot)
    await packaged.close()


def test_main_refuses_to_start_without_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert bot_main.main() == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.setenv("AI_STRENGTH", "godlike")
    assert bot_main.main() == 2
    assert "AI_STRENGTH" in capsys.readouterr().err


async def test_an_outdated_command_gets_a_clear_answer(driver: Driver) -> None:
    fake = driver.fake
    for gone in ("teleport", "hand", "export"):  # never a command, or one folded into status / history
        handle = fake.build_slash_command("santacruz rules", {}, user="alice", channel=driver.channel)
        handle.payload["data"]["options"] = [{"name": gone, "type": 1, "options": []}]
        await fake.dispatch_interactions(handle)
        reply = await driver.answer(handle)
        assert reply.ephemeral and reply.text == t("bot.error.outdated", "en")


async def test_commands_sync_to_the_development_server_when_set(fake_discord: Any, settings: Settings) -> None:
    fake = fake_discord
    dev = Settings(database_path=settings.database_path, dev_guild_id=fake.default_guild.id)
    driver = Driver(fake, dev)
    await driver.start()
    try:
        assert [scope for scope, _ in fake.command_syncs] == [fake.default_guild.id]
        assert [c["name"] for c in fake.synced_commands(fake.default_guild)] == ["santacruz"]
        assert fake.synced_commands() == []
        reply = await driver.answer(await driver.slash("rules", user="alice"))
        assert reply.embeds
    finally:
        await driver.stop()


async def test_the_console_script_runs_the_bot_with_worker_processes(fake_discord: Any, settings: Settings) -> None:
    """``bot.adapter.main.run`` as ``santacruz-bot`` runs it: pictures come from a process pool, and the garbage
    collector sets aside what the process holds for good and looks through the rest seldom."""
    fake = fake_discord
    thresholds = gc.get_threshold()
    task = asyncio.create_task(bot_main.run(Settings(discord_token=fake.token, database_path=settings.database_path,
                                                     picture_width=settings.picture_width)))
    try:
        await fake.wait_until(lambda: fake.is_connected and fake.command_syncs, timeout=TIMEOUT,
                              description="the bot to connect")
        await fake.wait_until(lambda: any(e["t"] == "READY" for e in fake.dispatched_events()), timeout=TIMEOUT)
        await (await fake.slash_command("santacruz new", {"thread": False}, user="alice")).wait_for_message(
            timeout=TIMEOUT)
        lobby = await fake.wait_for_message(fake.default_channel, lambda m: any(
            is_game_button(c, "join") for c in m.custom_ids), timeout=TIMEOUT)  # posted by the outbox
        await fake.slash_command("santacruz join", {}, user="bob")
        await fake.wait_until(lambda: "Bob" in lobby.text, timeout=TIMEOUT, description="bob in the lobby", poll=0.1)
        await fake.slash_command("santacruz start", {}, user="alice")
        start = await fake.wait_for_message(fake.default_channel, lambda m: m.attachments, timeout=TIMEOUT)
        assert start.attachments[0].data.startswith(b"\x89PNG")
        assert gc.get_threshold() == bot_main.GC_THRESHOLDS and bot_main.GC_THRESHOLDS[0] > 700  # Python's: 700
        assert gc.get_freeze_count() > 10_000  # the modules and their objects, never looked through again
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        fake.end_sessions()
        gc.unfreeze()  # the tests after it in this process collect as they did
        gc.set_threshold(*thresholds)


def test_the_console_script_s_module_is_light_for_its_worker_processes(tmp_path: Path) -> None:
    """Each worker process (started with ``spawn``) imports the ``santacruz-bot`` script again, and through it the
    module of the installed entry point: a worker started from a script like it imports neither discord.py nor the
    adapter, only what its job needs."""
    import subprocess
    import sys
    from importlib.metadata import entry_points

    (command,) = [e for e in entry_points(group="console_scripts") if e.name == "santacruz-bot"]
    module, _, function = command.value.partition(":")
    script = tmp_path / "santacruz-bot"  # what pip writes for the command
    script.write_text(f"import sys\nfrom {module} import {function}\n"
                      "from bot.host.workers import process_pool_factory\n\n\n"
                      "def job():\n    import sys\n    import bot.host.pictures\n"
                      "    return sorted(m for m in ('discord', 'bot.adapter', 'aiohttp') if m in sys.modules)\n\n\n"
                      "if __name__ == '__main__':\n    with process_pool_factory(1)() as pool:\n"
                      "        print(pool.submit(job).result(), 'bot.adapter' in sys.modules)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False"], done.stdout  # the worker, and the script itself, stay light
