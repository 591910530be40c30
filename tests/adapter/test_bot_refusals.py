"""Every way a request can be refused: each gets a short ephemeral answer in the user's language, and the
game is unchanged (same move log). Also DMs that cannot be delivered, double clicks and two people acting
at the same instant."""

from __future__ import annotations

from typing import Any

from bot.adapter import ids
from i18n import listed, t
from tests.fakediscord import FakeMessage, InteractionHandle
from tests.helpers.buttons import is_confirm
from tests.helpers.driver import TIMEOUT, Driver, board_posts


def locale_of(driver: Driver, user: str) -> str:
    return driver.fake.user(user).locale.split("-")[0]


async def refused(driver: Driver, handle: InteractionHandle) -> str:
    reply = await driver.answer(handle)
    assert reply.ephemeral, reply.text
    return reply.text


async def to_play_phase(driver: Driver) -> None:
    """Everyone lands."""
    while driver.host.play.public_view(driver.channel.id)["phase"] != "play":
        await driver.play_turn()
    await driver.settle()


async def test_refusals_in_a_running_game(driver: Driver) -> None:
    fake = driver.fake
    mover = await driver.two_player_game()
    other = "bob" if mover == "alice" else "alice"
    seq = driver.info().seq
    legal = driver.host.play.legal_moves(driver.channel.id, fake.user(mover).id)

    # not seated
    text = await refused(driver, await driver.slash("land", {"site": 1}, user="carol"))
    assert text == t("host.error.not_seated", "fr")
    # not your turn
    text = await refused(driver, await driver.slash("land", {"site": 1}, user=other))
    assert text == t("host.error.not_your_turn", locale_of(driver, other), name=fake.user(mover).global_name)
    # an illegal site: says which sites are possible
    bad = next(s for s in range(1, 50) if f"land {s}" not in legal)
    text = await refused(driver, await driver.slash("land", {"site": bad}, user=mover, locale="en-US"))
    sites = listed([m.split()[1] for m in legal], "en")
    assert text == t("bot.error.bad_site", "en", site=bad, sites=sites)
    # a second game in the same channel
    text = await refused(driver, await driver.slash("new", user="carol", locale="en-US"))
    assert text == t("host.error.game_exists", "en")
    # joining or leaving a running game
    text = await refused(driver, await driver.slash("join", user="carol", locale="en-US"))
    assert text == t("host.error.not_in_lobby", "en")
    text = await refused(driver, await driver.slash("leave", user=other, locale="en-US"))
    assert text == t("host.error.leave_running", "en")
    # choosing when there is nothing to choose
    text = await refused(driver, await driver.slash("choose", {"option": "B"}, user=mover, locale="en-US"))
    assert text == t("bot.error.nothing_to_choose", "en")
    # undo by someone who did not move last / with nothing to take back
    text = await refused(driver, await driver.slash("undo", user=mover, locale="en-US"))
    assert text == t("host.error.undo_nothing", "en")
    assert driver.info().seq == seq

    await to_play_phase(driver)
    mover = driver.to_move_user()
    assert mover is not None
    other = "bob" if mover == "alice" else "alice"
    seq = driver.info().seq
    you = driver.host.play.view_for(driver.channel.id, fake.user(mover).id)["you"]
    # a scoring card that is not in the hand, one that does not exist, malformed build options
    missing = next(c for c in ("gold6", "gold10", "coast", "river", "eruption", "birds")
                   if c not in you["scoring_cards"])
    text = await refused(driver, await driver.slash("score", {"card": missing}, user=mover, locale="en-US"))
    assert text.startswith(t("bot.error.no_scoring_card", "en", card=t(f"game.scoring.{missing}.name", "en"),
                             cards="")[:30])
    text = await refused(driver, await driver.slash("score", {"card": "joker"}, user=mover, locale="en-US"))
    assert text.startswith("“joker” is not a scoring card")
    text = await refused(driver, await driver.slash("build", {"card": "double"}, user=mover, locale="en-US"))
    assert text == t("bot.error.need_kind", "en")
    text = await refused(driver, await driver.slash("build", {"card": "ship", "kind": "road"}, user=mover,
                                                    locale="en-US"))
    assert text == t("bot.error.kind_only_double", "en")
    text = await refused(driver, await driver.slash("build", {}, user=mover, locale="en-US"))
    assert text == t("bot.error.need_card", "en")
    text = await refused(driver, await driver.slash("build", {"card": "ship", "site": 999}, user=other,
                                                    locale="en-US"))
    assert text.startswith("It is not your turn")
    # German replies for a German user
    text = await refused(driver, await driver.slash("score", {"card": "joker"}, user="bob"))
    assert text.startswith("„joker“ ist keine Wertungskarte")
    assert driver.info().seq == seq
    assert not [m for m in fake.messages(driver.channel, ephemeral=False) if "joker" in m.text]
    fake.assert_no_unknown_requests()


async def test_undo_takes_back_a_move_that_revealed_nothing(driver: Driver) -> None:
    await driver.open_game(["alice", "bob"])
    await to_play_phase(driver)
    mover = driver.to_move_user()
    assert mover is not None
    other = "bob" if mover == "alice" else "alice"
    uid = driver.fake.user(mover).id
    before = driver.host.play.legal_moves(driver.channel.id, uid)
    assert "double ship" in before  # a ship can always build on one of the free coast sites
    posts = board_posts(driver.fake, driver.channel)
    await driver.play_slash(mover, "double ship")
    await driver.settle()
    assert driver.to_move_user() == mover, "the double move waits for its builds"
    text = await refused(driver, await driver.slash("undo", user=other, locale="en-US"))
    assert text == t("host.error.undo_not_last", "en")
    reply = await driver.answer(await driver.slash("undo", user=mover, locale="en-US"))
    assert reply.text.startswith("Taken back:")
    await driver.settle()
    assert driver.host.play.legal_moves(driver.channel.id, uid) == before
    # the double move was never posted (its post comes after its builds), so neither is taking it back
    assert board_posts(driver.fake, driver.channel) == posts and "Taken back" not in posts[-1].text
    # a scoring card showed a card from the hand: it cannot be taken back
    await driver.play_slash(mover, next(m for m in before if m.startswith("score ")))
    await driver.settle()
    seq = driver.info().seq
    text = await refused(driver, await driver.slash("undo", user=mover, locale="en-US"))
    assert text == t("host.error.undo_hidden", "en")
    assert driver.info().seq == seq


async def test_lobby_refusals(driver: Driver) -> None:
    fake = driver.fake
    lobby = await driver.open_lobby("bob")
    game_id = driver.info().game_id
    # only the opener (or Manage Channels) starts; at least two players
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="carol", locale="en-US")
    assert await refused(driver, click) == t("host.error.not_opener", "en", opener="Bob")
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="bob", locale="en-US")
    assert await refused(driver, click) == t("host.error.too_few_players", "en", min=2)
    text = await refused(driver, await driver.slash("abandon", user="carol", locale="en-US"))
    assert text == t("host.error.not_opener", "en", opener="Bob")
    # joining twice
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol")
    await click.wait_for_callback(timeout=TIMEOUT)
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol", locale="en-US")
    assert await refused(driver, click) == t("host.error.already_seated", "en")
    # the server owner may manage the channel: alice starts bob's game
    await driver.settle()  # the outbox redraws the lobby message
    assert "Carol" in lobby.text
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.wait_posts(1)
    assert driver.info().status == "running"
    # abandon: a confirmation first, then the channel is told
    reply = await driver.answer(await driver.slash("abandon", user="bob", locale="en-US"))
    assert reply.ephemeral and reply.text == t("bot.confirm.abandon", "en")
    cancel = await fake.click_button(reply, ids.game(game_id, "cancel"), user="bob")
    await cancel.wait_for_callback(timeout=TIMEOUT)
    assert driver.info().status == "running"
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    turn_dm = driver.turn_dm(mover)
    reply = await driver.answer(await driver.slash("abandon", user="bob", locale="en-US"))
    click = await fake.click_button(reply, ids.game(game_id, "abandon"), user="bob", locale="en-US")
    await click.wait_for_callback(timeout=TIMEOUT)
    assert driver.info().status == "abandoned"
    await fake.wait_for_message(driver.channel, lambda m: "abandoned by Bob" in m.text, timeout=TIMEOUT)
    told = t("bot.dm.turn_over.abandoned", "en", channel=f"<#{driver.channel.id}>")  # the turn DM, edited
    await fake.wait_until(lambda: fake.message(turn_dm.id).text == told, timeout=TIMEOUT,
                          description="the turn DM told that the game was abandoned", poll=0.1)
    assert not fake.message(turn_dm.id).custom_ids
    text = await refused(driver, await driver.slash("rematch", user="carol", locale="en-US"))
    assert text == t("host.error.not_over", "en")


async def test_dms_blocked_at_join_and_during_the_game(driver: Driver) -> None:
    fake = driver.fake
    fake.block_dms("carol")
    lobby = await driver.open_lobby("alice")
    game_id = driver.info().game_id
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="carol", locale="en-US")
    warning = await click.wait_for_followup(timeout=TIMEOUT)
    assert warning.ephemeral and warning.text == t("bot.reply.dm_blocked", "en")
    await driver.settle()  # the outbox redraws the lobby message
    assert "Carol" in lobby.text, "joined anyway: the cards can be seen with /santacruz hand"
    click = await fake.click_button(lobby, ids.game(game_id, "join"), user="bob")
    await click.wait_for_callback(timeout=TIMEOUT)
    click = await fake.click_button(lobby, ids.game(game_id, "start"), user="alice")
    await click.wait_for_callback(timeout=TIMEOUT)
    await driver.settle()
    carol = fake.user("carol")

    def dm_notice(user_id: int) -> list[FakeMessage]:
        return [m for m in fake.messages(driver.channel, ephemeral=False)
                if f"<@{user_id}>" in m.content and "direct messages" in m.content]

    notices = dm_notice(carol.id)
    assert len(notices) == 1
    allowed = notices[0].allowed_mentions or {}
    assert allowed == {"parse": ["users"]}, "only users may be pinged"
    await driver.restart()  # once per game, not once per start of the bot: what it owes is stored with the game
    # bob blocks DMs in the middle of the game: the channel tells him once, the game goes on
    fake.block_dms("bob")
    moves = 0
    while not dm_notice(fake.user("bob").id) and moves < 12:
        user = driver.to_move_user()
        assert user is not None
        if user == "carol":
            # carol plays from her ephemeral hand, which carries the move controls
            hand = await driver.answer(await driver.slash("status", user="carol"))
            assert "hand.png" in [a.filename for a in hand.attachments]
            move = driver.pick("carol")
            seq = driver.info().seq
            info = driver.info()
            for select in hand.selects:
                if any(o["value"] == move for o in select["options"]):
                    click = await fake.select(hand, select["custom_id"], [move], user="carol")
                    break
            else:
                cid = ids.move(info.game_id, seq, move)
                click = await fake.click_button(hand, cid, user="carol")
            await driver.confirm(click, "carol")  # asked first if it cannot be taken back
            await driver.wait_seq(seq + 1)
        else:
            await driver.play_turn("slash" if user == "bob" else "dm")
        moves += 1
        await driver.settle()
    assert len(dm_notice(fake.user("bob").id)) == 1
    while driver.to_move_user() != "carol":  # her turn's DM is tried (and refused) after the restart too
        user = driver.to_move_user()
        await driver.play_turn("slash" if user == "bob" else "dm")
        await driver.settle()
    assert len(dm_notice(carol.id)) == 1, "told once per game, not after every move nor after a restart"
    assert driver.info().status == "running"


async def test_double_click_and_simultaneous_actions(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob", "carol"])
    await driver.settle()
    mover = driver.to_move_user()
    assert mover is not None
    seq = driver.info().seq
    dm = await driver.wait_turn_dm(mover)
    move = driver.pick(mover)
    select = next(s for s in dm.selects if any(o["value"] == move for o in s["options"]))
    # a landing turns tiles face up: the menu asks first, in place; its "Play it" pressed twice at once
    asked = await fake.select(dm, select["custom_id"], [move], user=mover, locale="en-US")
    prompt = await driver.answer(asked)
    ok = next(b["custom_id"] for b in prompt.buttons if is_confirm(b["custom_id"]))
    first = fake.build_button_click(prompt, ok, user=mover, locale="en-US")
    second = fake.build_button_click(prompt, ok, user=mover, locale="en-US")
    await fake.dispatch_interactions(first, second)
    await driver.wait_seq(seq + 1)
    await driver.settle()
    for handle in (first, second):
        await handle.wait_for_callback(timeout=TIMEOUT)
    refusals = await fake.wait_until(lambda: [m for h in (first, second) for m in h.followups if m.ephemeral],
                                     timeout=TIMEOUT, description="the refusal of the second click")
    assert len(refusals) == 1 and refusals[0].text == t("host.error.stale", "en")
    assert driver.info().seq == seq + 1
    assert len(board_posts(fake, driver.channel)) == 2

    # the player to move and another player at the same instant; and the mover twice (DM and slash)
    mover = driver.to_move_user()
    assert mover is not None
    order = driver.host.play.public_view(driver.channel.id)["turn_order"]
    mover_seat = driver.info().to_move
    last = driver.user_at(order[(order.index(mover_seat) + 2) % 3])  # not the next one: never their turn
    seq = driver.info().seq
    legal = driver.host.play.legal_moves(driver.channel.id, fake.user(mover).id)
    a, b = legal[0], legal[-1]
    dm = await driver.wait_turn_dm(mover)
    select = next(s for s in dm.selects if any(o["value"] == b for o in s["options"]))
    handles: list[Any] = [
        fake.build_slash_command("santacruz land", {"site": int(a.split()[1])}, user=mover,
                                 channel=driver.channel, locale="en-US"),
        fake.build_select(dm, select["custom_id"], [b], user=mover, locale="en-US"),
        fake.build_slash_command("santacruz land", {"site": int(a.split()[1])}, user=last,
                                 channel=driver.channel, locale="en-US"),
    ]
    await fake.dispatch_interactions(*handles)
    questions = [await driver.answer(handle) for handle in handles]
    assert questions[2].text.startswith("It is not your turn")
    assert driver.info().seq == seq, "a landing is asked first, by the command and by the menu"
    # both questions answered at once: exactly one of the mover's two moves is made
    clicks = [fake.build_button_click(q, next(b["custom_id"] for b in q.buttons if is_confirm(b["custom_id"])),
                                      user=mover, locale="en-US") for q in questions[:2]]
    await fake.dispatch_interactions(*clicks)
    await driver.wait_seq(seq + 1)
    await driver.settle()
    texts = []
    for handle in clicks:
        await handle.wait_for_callback(timeout=TIMEOUT)
        message = await handle.wait_until(lambda h: [m for m in h.messages if not m.loading], what="an answer")
        texts.append(message[-1].text)
    assert driver.info().seq == seq + 1, "exactly one of the mover's two moves was made"
    done = [x for x in texts if x.startswith("Done:") or "**Done:" in x]
    assert len(done) == 1, texts
    assert len(board_posts(fake, driver.channel)) == 1 + seq + 1


async def test_an_unexpected_error_is_logged_and_answered_with_an_apology(driver: Driver,
                                                                          monkeypatch: Any) -> None:
    mover = await driver.two_player_game()
    move = driver.pick(mover)

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the database is on fire")

    monkeypatch.setattr(driver.host.play, "ask_or_play", broken)
    command, options = driver.slash_for_move(move)
    reply = await driver.answer(await driver.slash(command, options, user=mover, locale="en-US"))
    what = f"santacruz {command}"
    confirm = [b["custom_id"] for b in reply.buttons if is_confirm(b["custom_id"])]
    if confirm:  # a landing that turns tiles face up is asked first: the click plays it
        reply = await driver.answer(await driver.fake.click_button(reply, confirm[0], user=mover, locale="en-US"))
        what = confirm[0]
    assert reply.ephemeral and reply.text == t("bot.error.unexpected", "en")
    assert driver.runner is not None
    errors = driver.runner.errors
    assert len(errors) == 1 and "the database is on fire" in errors[0]
    assert errors[0].splitlines()[0] == f"bot.adapter.cog: unexpected error while handling {what}"
    errors.clear()
