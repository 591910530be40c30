"""Input that forgives, through the real discord.py against the fake Discord.

* Every value an autocomplete offers, picked as it is, is accepted: a whole drafted 2-player game asks every
  autocomplete its moves need on every turn (``land site``, ``build site`` with nothing, a card, or a double
  move's kind filled first, ``score card``, ``choose option``), judges each offer with
  ``tests/fakediscord/audit.offer_move``, and plays its slash-command turns by picking an offer as it is (the
  one with the fewest options filled: "Ship · 12 · Church" with no card chosen).
* A move that reveals nothing is played at once, and its answer (the command's reply in the channel, the turn
  DM clicked) carries *Undo*, which takes it back; a stale *Undo* is refused.
* A move that reveals something hidden or scores a card asks first, in one click, naming what cannot be taken
  back: in the channel (a command's reply, the hand of ``status``) and in a DM (in place of the controls, no
  second message), in English, German and French (alice, bob and carol's Discord languages).
"""

from __future__ import annotations

from bot.adapter import ids
from bot.adapter.words.common import names_of, signed
from bot.adapter.words.moves import scores_now
from bot.host.takeback import move_risk
from engine import SINGLE_BUILDS, View, parse_move
from i18n import ask_move, listed, t
from tests.fakediscord import FakeMessage
from tests.fakediscord.audit import Offer, autocomplete_asks, offer_move
from tests.helpers.buttons import is_answer_undo, is_confirm, is_game_button
from tests.helpers.driver import Driver

LOCALES = {"alice": "en", "bob": "de", "carol": "fr"}
"""The default fake world's users and their Discord languages."""



def confirm_id(message: FakeMessage) -> str:
    return next(b["custom_id"] for b in message.buttons if is_confirm(b["custom_id"]))


def turn_played(locale: str) -> str:
    """How a message with a turn's controls begins once that turn was played ("✅ **Turn played** in …")."""
    return t("bot.dm.turn_over.moved", locale, channel="\0", moves="").split("\0")[0]


def undo_id(message: FakeMessage) -> str:
    return next(b["custom_id"] for b in message.buttons if is_answer_undo(b["custom_id"]))


async def test_every_offer_picked_as_it_is_is_accepted(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob"], draft=True, replay=False)  # the offers are checked, not the replay
    await driver.settle()
    offers = picked = carried = 0
    verbs_offered: set[str] = set()
    turn = 0
    while driver.info().status == "running":
        user = driver.to_move_user()
        assert user is not None
        user_id = fake.user(user).id
        legal = driver.host.play.legal_moves(driver.channel.id, user_id)
        build_sites = driver.host.play.view_for(driver.channel.id, user_id)["you"].get("build_sites")
        playable: list[tuple[Offer, tuple[str, ...]]] = []
        for command, focused, filled in autocomplete_asks(legal, every_card=True):
            handle = await fake.autocomplete(f"santacruz {command}", focused, "", filled, user=user,
                                             channel=driver.channel)
            for choice in (await handle.wait_for_callback()).choices:
                offer = Offer(command, tuple(filled.items()), focused, str(choice["name"]), choice["value"])
                moves = offer_move(offer, legal, build_sites)
                assert moves is not None, f"offered but refused when picked: {offer}"
                offers += 1
                verbs_offered.add(parse_move(moves[0]).verb)
                playable.append((offer, moves))
        seq = driver.info().seq
        turn += 1
        if turn % 2 and playable:
            # pick an offer as it is, the one with the fewest options filled (a site that carries its card)
            offer, moves = min(playable, key=lambda pair: (len(pair[0].filled), pair[0].name))
            reply = await driver.answer(await driver.slash(offer.command, offer.options(), user=user))
            if any(is_confirm(b["custom_id"]) for b in reply.buttons):
                reply = await driver.answer(await fake.click_button(reply, confirm_id(reply), user=user))
            picked += 1
            carried += offer.command == "build" and not offer.filled and str(offer.value).split()[0] in SINGLE_BUILDS
            assert driver.info().seq > seq, f"{offer} picked as it is was refused: {reply.text!r}"
        else:
            await driver.play_turn("dm")
        await driver.settle()
    assert driver.info().status == "over"
    assert picked > 10 and offers > 200
    assert carried > 3, "sites that carry their card, picked with no card chosen, were played"
    assert verbs_offered >= {"set", "land", "score", "pile", "discard"}


async def test_a_move_that_reveals_nothing_has_undo_in_the_channel_and_by_dm(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob"], draft=True)
    await driver.settle()
    user = driver.to_move_user()
    assert user is not None
    other = "bob" if user == "alice" else "alice"
    locale = LOCALES[user]
    legal = driver.host.play.legal_moves(driver.channel.id, fake.user(user).id)
    move = next(m for m in legal if m.startswith("set "))
    seq = driver.info().seq

    # the channel: a command plays a set choice at once; its reply's Undo takes it back
    reply = await driver.answer(await driver.slash("choose", {"option": move}, user=user))
    assert reply.ephemeral and driver.info().seq == seq + 1
    assert [b["label"] for b in reply.buttons] == [t("bot.button.undo", locale)]
    click = await fake.click_button(reply, undo_id(reply), user=user)
    await click.wait_for_callback()
    await driver.wait_seq(seq + 2)
    await driver.settle()
    assert driver.to_move_user() == user and move in driver.host.play.legal_moves(driver.channel.id, fake.user(user).id)
    taken = await click.wait_for_original_edit()
    letter = parse_move(move).letter
    said = t("game.you.set", locale, set=letter, set_name=t(f"game.set.{letter}.name", locale))
    assert taken.text == t("bot.reply.undone", locale, move=said) and not taken.buttons, "said to the player"

    # a DM: the turn DM's button plays it at once; the DM itself gets Undo (no second message), which takes it back
    dms_before = len(fake.dm_messages(user))
    played = await driver.play_dm(user, move)
    await driver.wait_seq(seq + 3)
    dm = await played.wait_for_original_edit()
    assert dm.text.startswith(turn_played(locale)) and said in dm.text  # said as its turn DM is once it passed
    assert [b["label"] for b in dm.buttons] == [t("bot.button.undo", locale)]
    await driver.settle()
    assert len(fake.dm_messages(user)) == dms_before, "no DM beyond the one clicked"
    click = await fake.click_button(dm, undo_id(dm), user=user)
    await driver.wait_seq(seq + 4)
    await driver.settle()
    assert driver.to_move_user() == user

    # Undo is the mover's, and only until someone acts: played again, the next player chooses, Undo is stale
    await driver.play_dm(user, move)
    await driver.wait_seq(seq + 5)
    await driver.settle()
    answer = await driver.answer(await driver.slash("undo", user=other))
    assert answer.text == t("host.error.undo_not_last", LOCALES[other])
    dm = await fake.wait_until(lambda: next((m for m in reversed(fake.dm_messages(user))
                                             if any(is_answer_undo(c) for c in m.custom_ids)), None),
                               description="the DM with Undo")
    await driver.play_turn("slash")
    await driver.settle()
    before = driver.info().seq
    stale = await driver.answer(await fake.click_button(dm, undo_id(dm), user=user))
    assert stale.text == t("host.error.stale", locale) and driver.info().seq == before


async def test_a_revealing_or_scoring_move_is_asked_first_in_every_language(driver: Driver) -> None:
    fake = driver.fake
    await driver.open_game(["alice", "bob", "carol"])
    await driver.settle()
    asked: set[tuple[str, str]] = set()  # (language, where) a question was met
    while len(asked) < 6 and driver.info().status == "running":
        user = driver.to_move_user()
        assert user is not None
        user_id = fake.user(user).id
        locale = LOCALES[user]
        legal = driver.host.play.legal_moves(driver.channel.id, user_id)
        final = [m for m in legal if move_risk(driver.host.games.tables[driver.channel.id].playing, [m]).final
                 and parse_move(m).verb in ("land", "score", *SINGLE_BUILDS)]
        if not final:
            await driver.play_turn("slash")
            await driver.settle()
            continue
        scores = [m for m in final if m.startswith("score ")]
        move = (scores or final)[0]
        risk = move_risk(driver.host.games.tables[driver.channel.id].playing, [move])
        seq = driver.info().seq
        words = []
        if risk.scores:  # what the card gives the player, and the best other player as its menu option says
            view = driver.host.play.view_for(driver.channel.id, user_id)
            now = scores_now(view)[risk.scores]
            card = t(f"game.scoring.{risk.scores}.name", locale)
            other = now["other"]
            words.append(t("bot.confirm.what.score_other", locale, count=now["points"], card=card,
                           other=names_of(view)[other], other_points=signed(now["other_points"]).lstrip("+"))
                         if other is not None else t("bot.confirm.what.score", locale, count=now["points"], card=card))
        if risk.revealed:
            words.append(t("bot.confirm.what.reveal", locale, count=len(risk.revealed),
                           sites=listed(risk.revealed, locale)))
        assert words, move

        # the channel: the command asks (nothing played yet); Cancel leaves everything as it was
        command, options = driver.slash_for_move(move)
        question = await driver.answer(await driver.slash(command, options, user=user))
        assert question.ephemeral and driver.info().seq == seq
        cannot = t("bot.confirm.final", locale, question="", what="").split(":")[0].strip()
        assert cannot in question.text and all(w in question.text for w in words), question.text
        # asked in the mover's own words ("Land on site 12? …"), not told about them in the third person
        view = driver.host.play.view_for(driver.channel.id, user_id)
        names = names_of(view)
        assert ask_move(move, locale, names) in question.text, question.text
        assert names[view["seat"] or 0] not in question.text, question.text
        assert [b["label"] for b in question.buttons] == [t("bot.button.play_final", locale),
                                                          t("bot.button.cancel", locale)]
        asked.add((locale, "channel"))
        cancel = next(b["custom_id"] for b in question.buttons if is_game_button(b["custom_id"], "cancel"))
        await (await fake.click_button(question, cancel, user=user)).wait_for_callback()
        assert driver.info().seq == seq

        # a DM (or the hand of status in the channel, for bob): the menu asks in place, Back restores, one click plays
        if user == "bob":
            controls = await driver.answer(await driver.slash("status", user=user))
        else:
            controls = await driver.wait_turn_dm(user)
        dms_before = len(fake.dm_messages(user))
        select = next(s for s in controls.selects if any(o["value"] == move for o in s["options"]))
        inplace = await driver.answer(await fake.select(controls, select["custom_id"], [move], user=user))
        assert inplace.id == controls.id and driver.info().seq == seq
        assert cannot in inplace.text and all(w in inplace.text for w in words)
        assert [b["label"] for b in inplace.buttons] == [t("bot.button.play_final", locale),
                                                         t("bot.button.back", locale)]
        back = next(b["custom_id"] for b in inplace.buttons if is_game_button(b["custom_id"], "controls"))
        restored = await driver.answer(await fake.click_button(inplace, back, user=user))
        assert cannot not in restored.text and restored.selects and driver.info().seq == seq
        again = await driver.answer(await fake.select(restored, select["custom_id"], [move], user=user))
        done = await fake.click_button(again, confirm_id(again), user=user)
        await driver.wait_seq(seq + 1)
        final_text = await done.wait_for_original_edit()
        assert final_text.text.startswith(turn_played(locale)) and cannot not in final_text.text
        assert not final_text.buttons, "a move that cannot be taken back gets no Undo"
        assert len(fake.dm_messages(user)) - dms_before <= 1, "the question asked no second DM"
        asked.add((locale, "status" if user == "bob" else "dm"))
        await driver.settle()
    assert asked == {(lang, where) for lang in ("en", "fr") for where in ("channel", "dm")} | {
        ("de", "channel"), ("de", "status")}


async def test_a_double_moves_card_is_not_spent_before_its_build_is_confirmed(driver: Driver) -> None:
    """``/santacruz build card:double kind:… site:…`` whose build cannot be taken back asks before playing either:
    Cancel leaves the hand as it was, *Play it* plays the card and the build."""
    fake = driver.fake
    await driver.two_player_game()

    def double_builds(user: str, view: View) -> list[tuple[str, int]] | None:
        """The double moves whose first build cannot be taken back, as (kind, site)."""
        sites = view["you"].get("build_sites") or {}
        game = driver.host.games.tables[driver.channel.id].playing
        found = [(kind, site) for kind in SINGLE_BUILDS if f"double {kind}" in view["you"]["legal_moves"]
                 for site in sites.get(kind, [])
                 if move_risk(game, [f"double {kind}", f"build {site}"]).first_final == 1]
        return found or None

    user, found = await driver.play_until(double_builds, "double move")
    user_id = fake.user(user).id
    view = driver.host.play.view_for(driver.channel.id, user_id)
    kind, site = found[0]
    seat = view["seat"]
    assert seat is not None
    seq, hand = driver.info().seq, dict(view["players"][seat]["building_cards"])

    def hand_now() -> dict[str, int]:
        return dict(driver.host.play.view_for(driver.channel.id, user_id)["players"][seat]["building_cards"])

    options = {"card": "double", "kind": kind, "site": site}
    question = await driver.answer(await driver.slash("build", options, user=user))
    assert driver.info().seq == seq and hand_now() == hand, "nothing is played before the question is answered"
    locale = LOCALES[user]
    assert ask_move(f"build {site}", locale, names_of(view)) in question.text
    game = driver.info().game_id
    assert confirm_id(question) == ids.move(game, seq, f"double {kind}", then=f"build {site}", confirmed=True)
    cancel = next(b["custom_id"] for b in question.buttons if is_game_button(b["custom_id"], "cancel"))
    await (await fake.click_button(question, cancel, user=user)).wait_for_callback()
    assert driver.info().seq == seq and hand_now() == hand, "Cancel leaves the hand exactly as it was"

    question = await driver.answer(await driver.slash("build", options, user=user))
    done = await fake.click_button(question, confirm_id(question), user=user)
    await driver.wait_seq(seq + 2)
    answer = await done.wait_for_original_edit()
    assert hand_now() == {**hand, "double": hand["double"] - 1}
    board = driver.host.play.view_for(driver.channel.id, user_id)["board"]["sites"][site - 1]
    assert [b["seat"] for b in board["buildings"]] == [seat]
    assert f" {site} " in answer.text and t("bot.reply.played", locale, move="").strip() in answer.text
