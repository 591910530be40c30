"""One message per turn in Components V2, and the DM budget, through the real discord.py and the fake
Discord, counted with ``tests/fakediscord/audit.py``.

A drafted 2-player game per language (English to its end; German and French through their double moves) in which
every player plays their double move, one by one slash command with its first build, one by the controls of their
turn DM; then: at most one channel post per move (plus the start and the game over) with two pictures (the
overview and the board; the game over's also the chart and the replay), each turn post pinging the
player to move once, a double move as one post, at most one DM per own action plus four per player, no "cards
changed" after one's own move, and every post a V2 container with the accent of the player to move, its words, the
overview and the board, each in a gallery, and its buttons. Apart from it: Undo on a post edits that post (no new
board, no new ping) and is taken off by the next post; the mention in quiet hours names without pinging.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from bot.adapter import ids
from i18n import t
from render.theme import DEFAULT_THEME
from tests.fakediscord import IS_COMPONENTS_V2, ComponentType, FakeMessage, walk_components
from tests.fakediscord.audit import controls, pictures, pings
from tests.helpers.buttons import is_game_button
from tests.helpers.driver import TIMEOUT, Driver, board_posts, turns_ended, undoable_move

PLAYERS = ["alice", "bob"]
LOCALES = {"en": "en-US", "de": "de", "fr": "fr"}


@dataclass
class Act:
    """One own action: the first snowflake after it began, whose it was, the round it began in."""

    first_id: int
    user: str
    round: int


def channel_posts(driver: Driver) -> list[FakeMessage]:
    fake = driver.fake
    return [m for m in fake.messages(driver.channel, ephemeral=False) if m.author_id == fake.bot_user.id
            and m.interaction_metadata is None]


def of_type(message: FakeMessage, kind: int) -> list[dict[str, Any]]:
    return [c for c in walk_components(message.components) if c.get("type") == kind]


def colour(seat: int) -> int:
    r, g, b = DEFAULT_THEME.player(seat)
    return (r << 16) + (g << 8) + b


def heading(key: str, locale: str) -> str:
    """The words a DM heading ``key`` starts with, before its channel."""
    return t(key, locale, channel="\x00", phase="").split("\x00")[0]


async def play(driver: Driver, acts: list[Act], *, via: str, doubles: set[str]) -> None:
    """The player to move plays: their double move if they still hold it (by slash command with its first build,
    or by the DM controls), else a move that builds or decides something."""
    user = driver.to_move_user()
    assert user is not None
    uid = driver.fake.user(user).id
    legal = driver.host.play.legal_moves(driver.channel.id, uid)
    view = driver.host.play.view_for(driver.channel.id, uid)
    seq = driver.info().seq
    acts.append(Act(driver.fake.snowflakes.next(), user, view["round"]))
    double = next((m for m in legal if m.startswith("double") and view["you"]["build_sites"].get(m.split()[1])),
                  None)
    if double is not None and user not in doubles:
        doubles.add(user)
        kind = double.split()[1]
        if via == "slash":
            site = view["you"]["build_sites"][kind][0]
            await driver.slash_confirmed("build", {"card": "double", "kind": kind, "site": site}, user)
            await driver.wait_seq(seq + 2)
        else:
            await driver.play_dm(user, double)
            await driver.wait_seq(seq + 1)
        return
    useful = [m for m in legal
              if m != "pass" and not (m.split()[0] in ("ship", "river", "road") and len(m.split()) == 1)]
    move = driver.rng.choice(useful or legal)
    if via == "dm":
        await driver.play_dm(user, move)
    else:
        await driver.play_slash(user, move)
    await driver.wait_seq(seq + 1)


def assert_turn_post(driver: Driver, post: FakeMessage, lang: str) -> None:
    """A V2 post: one container with the accent of the player to move, words mentioning them (pinging them once),
    the overview and the board, each alone in a gallery, and My cards."""
    assert post.flags & IS_COMPONENTS_V2 and not post.content and not post.embeds
    assert [c["type"] for c in post.components] == [ComponentType.CONTAINER]
    container = post.components[0]
    texts = of_type(post, ComponentType.TEXT_DISPLAY)
    assert len(texts) == 1 and len(texts[0]["content"]) <= 4000
    gallery = of_type(post, ComponentType.MEDIA_GALLERY)
    assert all(len(g["items"]) == 1 for g in gallery)  # a gallery's only item is never cropped
    urls = [item["media"]["url"] for g in gallery for item in g["items"]]
    assert urls[0] == "attachment://overview.png" and "attachment://board.png" in urls
    assert [f"attachment://{a.filename}" for a in post.attachments] == urls
    assert len(list(walk_components(post.components))) <= 40
    mentioned = [int(m) for m in re.findall(r"<@!?(\d+)>", post.text)]
    if "attachment://game-over.png" in urls:
        assert not mentioned and any(is_game_button(c["custom_id"], "rematch") for c in controls(post))
        return
    assert len(mentioned) <= 1 and pings(post) == mentioned  # the player to move, once (no quiet hours here)
    if mentioned:
        seat = next(s for s in driver.info().seats if s.user_id == mentioned[0]).seat
        assert container.get("accent_color") == colour(seat)
        name = driver.fake.user(mentioned[0])
        assert t("bot.post.next", lang, mention=f"<@{name.id}>", phase="").split("(")[0].strip() in post.text
    assert any(is_game_button(c["custom_id"], "hand") for c in controls(post)), (post.text, controls(post))


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
async def test_one_post_per_turn_and_the_dm_budget(driver: Driver, lang: str) -> None:
    fake = driver.fake
    await driver.open_game(PLAYERS, draft=True, language=lang)
    await driver.settle()
    acts: list[Act] = []
    doubles: set[str] = set()
    moves_at_double: list[tuple[int, int]] = []
    turns = 0
    while driver.info().status == "running" and (lang == "en" or len(doubles) < len(PLAYERS) or turns < 8):
        posts_before = len(board_posts(fake, driver.channel))
        seq = driver.info().seq
        had = set(doubles)
        await play(driver, acts, via="slash" if turns % 2 == 0 else "dm", doubles=doubles)
        turns += 1
        await driver.settle()
        if doubles != had:  # a double move began: nothing posted until its last build
            view = driver.host.play.public_view(driver.channel.id)
            if view["pending"] is not None:
                assert len(board_posts(fake, driver.channel)) == posts_before
                moves_at_double.append((seq, posts_before))
    assert len(doubles) == len(PLAYERS) and moves_at_double

    view = driver.host.play.public_view(driver.channel.id)
    moves = len(view["log"])
    posts = board_posts(fake, driver.channel)
    # one post per turn: the start, then one per ended turn; a double move and its builds are one turn
    assert len(posts) == 1 + turns_ended(view) < 1 + moves
    # each post's pictures are its overview and its board; the game over's also the chart and the replay
    assert sum(len(pictures(p)) for p in channel_posts(driver)) <= 2 * len(posts) + 2
    for post in posts:
        assert_turn_post(driver, post, lang)
    # the double move's post tells the card and both builds, and pings the next player once
    double_words = {t(f"game.event.card.double_{k}", lang, player="\x00").split("\x00")[1]
                    for k in ("ship", "river", "road")}
    double_posts = [p for p in posts if any(w in p.text for w in double_words)]
    assert len(double_posts) >= len(PLAYERS) and all(len(pings(p)) <= 1 for p in double_posts)
    if lang == "en":
        final = posts[-1]
        assert driver.info().status == "over"
        assert [a.filename for a in final.attachments][:3] == ["overview.png", "game-over.png", "board.png"]

    # DMs: at most one per own action plus four per player; never "cards changed" after one's own move
    changed = {heading("bot.dm.hand_changed", loc) for loc in LOCALES}
    rounds = [a.round for a in acts[1:]] + [view["round"]]
    for user in PLAYERS:
        dms = [m for m in fake.dm_messages(user) if m.author_id == fake.bot_user.id]
        own = sum(1 for a in acts if a.user == user)
        assert len(dms) <= own + 4, (user, len(dms), own)
        for dm in dms:
            if not any(dm.text.startswith(h) for h in changed):
                continue
            index = max(i for i, a in enumerate(acts) if a.first_id < dm.id)
            act = acts[index]
            assert act.user != user or rounds[index] != act.round, f"'cards changed' after {user}'s own move"
        # DM pictures are narrow: 800 pixels at most
        for dm in dms:
            for picture in pictures(dm):
                assert picture.size < 150_000
    fake.assert_no_unknown_requests()


async def test_undo_on_the_post_edits_it_and_next_post_takes_undo_off(driver: Driver) -> None:
    fake = driver.fake
    mover, game, seq, post = await undoable_move(driver)
    undo = ids.game(game, "undo", seq)
    assert [c["custom_id"] for c in controls(post)] == [ids.game(game, "hand", seq), undo]
    assert [b["label"] for b in post.buttons] == ["My cards", "Undo"]
    pinged = pings(post)
    assert len(pinged) == 1 and pinged[0] != fake.user(mover).id
    count = len(fake.messages(driver.channel, ephemeral=False))
    other = next(u for u in ("alice", "bob", "carol") if u != mover)

    # someone else's click is refused in words, and changes nothing
    click = await fake.click_button(post, undo, user=other)
    refusal = await driver.answer(click)
    assert refusal.ephemeral and refusal.text == t("host.error.undo_not_last", fake.user(other).locale or "en")
    assert driver.info().seq == seq

    nxt = driver.to_move_user()
    assert nxt is not None and nxt != mover
    sent = await fake.wait_until(lambda: next((m for m in reversed(fake.dm_messages(nxt)) if controls(m)), None),
                                 timeout=TIMEOUT, description="the next player's turn DM")
    click = await fake.click_button(post, undo, user=mover)
    answer = await driver.answer(click)
    assert answer.ephemeral and answer.text.startswith("Taken back:")
    await driver.settle()
    assert driver.to_move_user() == mover and driver.info().seq == seq + 1
    # the turn the next player was sent is not theirs any more: their DM loses its controls
    assert controls(fake.message(sent.id)) == [], "an outdated turn DM keeps its controls after an undo"
    # no new post, no new ping: the same message, edited, the move struck through, the board as it is now
    assert len(fake.messages(driver.channel, ephemeral=False)) == count
    edited = fake.message(post.id)
    assert edited.history and "~~" in edited.text and "(taken back)" in edited.text
    assert pings(edited) == [] and [c["custom_id"] for c in controls(edited)].count(undo) == 0
    assert [a.filename for a in edited.attachments] == ["overview.png", "board.png"]
    assert edited.flags & IS_COMPONENTS_V2

    # played again: a new post with Undo, which loses it once the next player's post comes
    await driver.play_slash(mover, "set B")
    await driver.settle()
    again = board_posts(fake, driver.channel)[-1]
    assert again.id != post.id and any(is_game_button(c["custom_id"], "undo") for c in controls(again))
    await driver.play_turn()
    await driver.settle()
    assert not any(is_game_button(c["custom_id"], "undo") for c in controls(fake.message(again.id)))
    assert len(pictures(fake.message(again.id))) == 2  # the overview and the board stay
    fake.assert_no_unknown_requests()


async def test_the_mention_in_quiet_hours_names_without_pinging(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(PLAYERS)
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    other = next(u for u in PLAYERS if u != mover)
    hour = int(driver.host.outbox.now() // 3600) % 24
    await driver.host.people.change_settings(fake.user(other).id, quiet=(hour, (hour + 2) % 24))
    await driver.play_turn()
    await driver.settle()
    post = board_posts(fake, driver.channel)[-1]
    assert post.flags & IS_COMPONENTS_V2
    assert f"<@{fake.user(other).id}>" in post.text and pings(post) == []
    # the other player is not in their quiet hours: the next post pings them
    assert driver.to_move_user() == other
    await driver.play_turn()
    await driver.settle()
    assert pings(board_posts(fake, driver.channel)[-1]) == [fake.user(mover).id]


def told_turn_over(message: FakeMessage) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """A turn DM as told that its turn passed: its words, its galleries' pictures, its controls."""
    texts = [c["content"] for c in walk_components(message.components) if c.get("type") == ComponentType.TEXT_DISPLAY]
    galleries = [item["media"]["url"].rsplit("/", 1)[-1] for gallery in of_type(message, ComponentType.MEDIA_GALLERY)
                 for item in gallery["items"]]
    return texts, galleries, controls(message)


async def test_a_passed_turns_dm_is_told_so_unread_when_this_process_sent_it_and_read_first_after_a_restart(
        driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob", "carol"], draft=True)
    await driver.settle()
    for restart in (False, True):
        mover = driver.to_move_user()
        assert mover is not None
        dm = driver.turn_dm(mover)
        assert controls(dm) and [a.filename for a in pictures(dm)] == ["overview.png", "hand.png"]
        if restart:  # the DM was sent by the process before: only Discord knows what it shows
            await driver.restart()
        reads = len(fake.requests_to("GET", rf"/channels/{dm.channel_id}/messages/{dm.id}"))
        await driver.play_slash(mover, "set A" if not restart else "set B")
        await driver.settle()
        texts, galleries, left = told_turn_over(fake.message(dm.id))
        assert len(fake.requests_to("GET", rf"/channels/{dm.channel_id}/messages/{dm.id}")) == reads + restart
        moved = t("bot.dm.turn_over.moved", fake.user(mover).locale or "en", channel="\x00", moves="").split("\x00")[0]
        assert len(texts) == 1 and texts[0].startswith(moved), texts
        assert galleries == ["overview.png", "hand.png"] and left == []
    fake.assert_no_unknown_requests()
