"""Whole games through the real discord.py against the fake Discord: three people from ``/santacruz new``
to game over and a rematch (nothing secret in the log at DEBUG either), away and back, and a German run (one person
against two computers is in ``test_bot_archive``, whose archive checks look at that game).

Every move goes through an interaction (slash commands in the channel, buttons and menus in DMs); the
channel must get one message with a PNG board after every move, hands must arrive by DM, and nothing
one player must not know may reach the channel, another player's DMs or another player's replies.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

import render.board
from bot.adapter import ids
from i18n import t
from tests.fakediscord import ComponentType, FakeDiscord, FakeMessage, walk_components
from tests.fakediscord.audit import as_sent
from tests.helpers.driver import TIMEOUT, Driver, board_posts, turns_ended
from tests.helpers.secrets import DISTINCT_CARDS, SEED, log_leaks

PNG = b"\x89PNG\r\n\x1a\n"


class SecretWatch:
    """Checks after each step that no seat's hidden scoring cards or bird-chip values reached anyone else."""

    def __init__(self, driver: Driver, players: list[str]) -> None:
        self.driver = driver
        self.fake = driver.fake
        self.players = players
        self.public: set[str] = set()
        """Scoring cards that everyone has seen (played, or in a round-2 pile)."""
        self.checked: set[tuple[int, int]] = set()
        self.renders: list[tuple[int | None, bool]] = []

    def hidden(self) -> dict[str, set[str]]:
        """User -> the distinctive scoring cards only they know of now."""
        host, channel = self.driver.host, self.driver.channel.id
        public = host.play.public_view(channel)
        for player in public["players"]:
            self.public.update(player["played_scoring_cards"])
        for pile in public.get("piles") or []:
            self.public.update(pile["scoring_cards"])
        out = {}
        for user in self.players:
            you = host.play.view_for(channel, self.fake.user(user).id)["you"]
            out[user] = {c for c in you["scoring_cards"] if c in DISTINCT_CARDS and c not in self.public}
        return out

    def readers(self) -> list[tuple[FakeMessage, str | None]]:
        """Every message so far with who may read it (``None``: everyone in the channel)."""
        out: list[tuple[FakeMessage, str | None]] = []
        for message in self.fake.messages(self.driver.channel):
            if not message.ephemeral:
                out.append((message, None))
            elif message.interaction_metadata:
                out.append((message, self.fake.user(int(message.interaction_metadata["user"]["id"])).name))
        for user in self.players:
            out.extend((message, user) for message in self.fake.dm_messages(user))
        return out

    def check(self) -> None:
        if self.driver.info().status != "running":
            return
        hidden = self.hidden()
        for message, reader in self.readers():
            stamp = (message.id, len(message.history))
            if stamp in self.checked:
                continue
            self.checked.add(stamp)
            text = message.text + " " + " ".join(
                str(o.get("label", "")) + str(o.get("description", "")) for s in message.selects for o in s["options"])
            for owner, cards in hidden.items():
                if owner == reader:
                    continue
                for card in cards:
                    for lang in ("en", "de", "fr"):
                        name = t(f"game.scoring.{card}.name", lang)
                        assert name not in text, f"{owner}'s hidden card {card} shown to {reader or 'the channel'}"
            if reader is None:
                assert "(only you see this)" not in text and "worth" not in text, text

    def spy_renders(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real = render.board.render_board

        def spy(view: dict[str, Any], *, locale: str = "en", personal: bool = False, **theme: Any) -> bytes:
            self.renders.append((view.get("seat"), personal))
            return real(view, locale=locale, personal=personal, **theme)

        monkeypatch.setattr(render.board, "render_board", spy)


def assert_png(message: FakeMessage) -> None:
    board = next(a for a in message.attachments if a.filename == "board.png")
    assert board.data.startswith(PNG) and board.content_type == "image/png"


async def test_three_players_play_a_whole_game_then_a_rematch_and_log_no_secret(
        debug_log: io.StringIO, driver: Driver, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game no player's secret leaks from, to the others (:class:`SecretWatch`) nor to the log at DEBUG
    (``debug_log`` is set up before the bot starts; ``test_log_secrets`` says what is searched)."""
    fake = driver.fake
    assert fake.token == "fake-bot-token"
    driver.seed = SEED
    players = ["alice", "bob", "carol"]
    states: dict[str, str] = {}

    def remember_state(label: str) -> None:
        game = driver.host.games.tables[driver.channel.id].current_game()  # a finished game is kept packed
        states[label] = game.to_json()

    watch = SecretWatch(driver, players)
    watch.spy_renders(monkeypatch)
    lobby = await driver.open_game(players)
    assert driver.host.games.tables[driver.channel.id].game.seed == SEED
    remember_state("start")
    assert "Alice" in lobby.text and "Carol" in lobby.text and not lobby.buttons  # started: buttons gone
    # everyone got their hand by DM at the start, the first player with move controls
    for user in players:
        await fake.wait_for_dm(user, lambda m: m.attachments and "hand.png" in [a.filename for a in m.attachments])
    await driver.settle()
    watch.check()

    turns = 0
    while driver.info().status == "running":
        via = "dm" if turns % 2 else "slash"
        await driver.play_turn(via)
        turns += 1
        await driver.settle()
        remember_state(f"after move {turns}")
        posts = board_posts(fake, driver.channel)
        assert len(posts) == 1 + turns_ended(driver.host.play.public_view(driver.channel.id)), "one post per turn"
        assert_png(posts[-1])
        if turns % 7 == 0:  # others' replies must not leak either
            other = players[turns % 3]
            for command in ("status", "log"):  # a player's status shows their hand
                await driver.answer(await driver.slash(command, user=other))
        watch.check()

    info = driver.info()
    assert info.status == "over" and turns == info.seq
    final = board_posts(fake, driver.channel)[-1]
    # one game-over message: the ranking, and the final overview, the chart, the board and the replay, each alone in
    # a gallery of its own (Discord crops the items of a gallery of several)
    names = ["overview.png", "game-over.png", "board.png", "replay.gif"]
    assert [a.filename for a in final.attachments] == names
    gallery = [c for c in walk_components(final.components) if c.get("type") == ComponentType.MEDIA_GALLERY]
    assert [[item["media"]["url"] for item in g["items"]] for g in gallery] == [[f"attachment://{n}"] for n in names]
    assert not [m for m in fake.messages(driver.channel, ephemeral=False) if m.id > final.id]
    assert "Game over" in final.text and final.custom_ids == [ids.game(info.game_id, "rematch")]
    ranking = driver.host.play.public_view(driver.channel.id)["ranking"]
    winner = info.seats[ranking[0]].name
    assert f"1. {winner}" in final.text
    # pictures: the channel's always from the public view, the personal ones from the seat's own view
    assert watch.renders and all((seat is None) == (not personal) for seat, personal in watch.renders)
    # every person got DMs with their cards, and the DM controls were used
    for user in players:  # the overview the chat shows without a tap, then their own board
        assert any([a.filename for a in m.attachments] == ["overview.png", "hand.png"] for m in fake.dm_messages(user))
    clicked = [h for h in fake.interactions.values() if h.channel.is_dm and h.type == 3]
    assert len(clicked) >= turns // 2
    await driver.answer(await driver.slash("status", user="alice"))  # the result, which the log must not spill

    # rematch: a new lobby with the same players seated
    await driver.answer(await driver.slash("rematch", user="bob"))
    lobby = await driver.lobby()
    new = driver.info()
    assert new.status == "lobby" and new.game_id != info.game_id
    assert sorted(s.name for s in new.seats) == sorted(s.name for s in info.seats)
    assert any(b["custom_id"] == ids.game(new.game_id, "start") for b in lobby.buttons)
    assert new.opener_id == fake.user("bob").id
    fake.assert_no_unknown_requests()
    await driver.stop()  # its shutdown is in the log too
    assert log_leaks(debug_log.getvalue(), driver, states, players, turns) == []


async def test_away_and_back(driver: Driver) -> None:
    fake = driver.fake
    first = await driver.two_player_game()
    other = "bob" if first == "alice" else "alice"
    await driver.play_turn()
    await driver.settle()
    assert driver.to_move_user() == other
    reply = await driver.answer(await driver.slash("away", user=other, locale="en-US"))
    assert reply.ephemeral and "back" in reply.text
    # the computer plays the absent player's turn at once, and says so in the channel
    await driver.settle()
    assert driver.to_move_user() == first
    posts = board_posts(fake, driver.channel)
    assert any("The computer plays for" in p.text for p in posts)
    notice = fake.messages(driver.channel, ephemeral=False)
    assert any("is away" in m.text for m in notice)
    # an absent player cannot move; back again, they play themselves
    handle = await driver.slash("away", user=other, locale="en-US")
    assert (await driver.answer(handle)).text == t("host.error.already_away", "en")
    reply = await driver.answer(await driver.slash("back", user=other))
    assert reply.ephemeral
    await driver.play_turn()
    await driver.settle()
    assert driver.to_move_user() == other, "the returning player is to move again"
    await driver.play_turn("dm")
    await driver.settle()
    fake.assert_no_unknown_requests()


@pytest.fixture
def german_world(fake_discord: FakeDiscord) -> FakeDiscord:
    guild = fake_discord.add_guild("Spielerunde", owner="bob", preferred_locale="de", channels=("spiele",))
    for user in ("alice", "carol"):
        fake_discord.add_member(guild, user)
    return fake_discord


async def test_german_server_and_german_user(german_world: FakeDiscord, settings: Any) -> None:
    fake = german_world
    driver = Driver(fake, settings, channel="spiele")
    await driver.start()
    try:
        # alice (English) opens a game in a German server: the channel speaks German
        lobby = await driver.open_lobby("alice")
        assert "ein neues Spiel" in lobby.text and "Sprache: Deutsch" in lobby.text
        assert driver.button_label(lobby, "join") == "Mitspielen"
        # bob's own replies are German, alice's English, carol's French
        reply = await driver.answer(await driver.slash("join", user="bob"))
        assert reply.ephemeral and reply.text.startswith("Du spielst mit")
        reply = await driver.answer(await driver.slash("join", user="alice"))
        assert reply.ephemeral and "bereits" not in reply.text and "already" in reply.text
        reply = await driver.answer(await driver.slash("rules", {"topic": "round2"}, user="carol"))
        assert reply.embeds[0]["title"] == t("rules.round2.title", "fr")
        click = await fake.click_button(lobby, ids.game(driver.info().game_id, "start"), user="alice")
        await click.wait_for_callback(timeout=TIMEOUT)
        await driver.settle()
        start = board_posts(fake, driver.channel)[0]
        assert "Das Spiel beginnt" in start.text
        await driver.play_turn()
        await driver.settle()
        post = board_posts(fake, driver.channel)[-1]
        assert "Bauplatz" in post.text and "du bist am Zug" in post.text
        # DMs follow each reader's language
        bob_dms = fake.dm_messages("bob")
        assert any("Baukarten" in as_sent(m).text for m in bob_dms)  # as sent: a passed turn's DM says so since
        assert any("Building cards" in as_sent(m).text for m in fake.dm_messages("alice"))
    finally:
        await driver.stop()
