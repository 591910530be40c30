"""A whole game within its budget of posts and DMs, and the rest of a turn in the answer to its first step, through
the real discord.py and the fake Discord.

The whole game (``tests/adapter/whole_game.py``, also behind ``bench/bench_messages.py``): a seeded 4-player drafted
game in German, read in English, German and French: by people named 王小明, たろう, 🦊 Fuchs and محمد, each in their
own Discord language (their DMs and answers in it), and the channel's posts both as posted (German) and drawn again from
the stored game in English and French; half their turns by slash commands picked from the autocomplete offers, half by
their turn DMs' controls, with ``status``, ``games``, ``log`` and ``undo`` on the way. It must give at most one channel
picture per move (plus the start and the game over), at most one DM per own turn plus four per player (the join's
welcome and the game-over DM included: a "your cards changed" DM that the player's turn DM follows within moments is
folded into it; the players act at a person's quick pace on the bot's clock), no refused
autocomplete offer and no move played by command that autocomplete did not offer, no text naming a command that does
not exist, no relative time after since/until and no plural slip (each text read in its own language). Read as each
player: every turn DM (as sent) names every turn made since that player's own last move, replayed from the stored log
(so does ``status``, to the asker); at the end no DM still says "Your turn" (each was edited once its turn passed);
each player got one game-over DM with their score broken down against the winner's and the link to the game-over
post; the play phase's help line came in one or two DMs per player, the hints banner on two posts at most and never on
the game over, in every language. Every number a hint states (asked in each of the three languages) is the number of
the question and the answer in the asker's language, and of the move's post in all three.

One game read in three languages proves what three games did, for a third of the time: the three were the same
seeded game (the same moves, hints and positions), and what differs by language is only the words, all of which are
still read in each language.

The rest of a turn: a double move's card leaves its player to move. No new DM follows; the clicked turn DM is edited
in place with where to build and the build controls, and a slash command's reply carries the same controls, which
play the build.
"""

from __future__ import annotations

from bot.adapter import ids
from bot.adapter.words.dm import turn_prompt
from i18n import LOCALES
from tests.adapter.whole_game import PLAYERS, run
from tests.fakediscord import FakeMessage
from tests.fakediscord.audit import controls
from tests.helpers.driver import Driver

READERS = {"王小明": "fr", "たろう": "en", "🦊 Fuchs": "de", "محمد": "fr"}
"""Each person's Discord language: the game (in German) is read in all three."""


async def test_a_whole_game_read_in_every_language_keeps_the_budget() -> None:
    figures = await run("de", seed=7, verify=3, readers=READERS)
    report = "\n".join(figures.report)
    assert set(READERS.values()) == set(LOCALES) and figures.lang == "de"
    assert figures.moves > 80, report  # the game ran to its end
    assert 0 < figures.channel_posts <= figures.moves + 2, report
    assert figures.channel_pictures <= 2 * figures.channel_posts + 2, report
    assert set(figures.dms) == set(PLAYERS)
    for name, (dms, _) in figures.dms.items():  # the join's welcome and the game-over DM included
        turns = figures.own_turns[name]
        assert turns > 15 and dms <= turns + 4, f"{name}: {dms} DMs for {turns} own turns\n{report}"
    # every turn DM names every turn made since its player's own last move, whole; so does status, to the asker
    assert figures.turn_dms > 80 and figures.since_missing == [], figures.since_missing[:5]
    assert sum(figures.status_since) >= len(PLAYERS) - 1, figures.status_since  # all but the last mover
    # once a turn has passed its DM says so: at the end no DM says "Your turn"
    assert figures.your_turn_left == [], figures.your_turn_left[:5]
    for name, over in figures.game_over_dms.items():  # one game-over DM each: the breakdown and the link
        assert len(over) == 1, f"{name}: {over}"
        assert f"= {figures.final_scores[name]}" in over[0] and over[0].count(" = ") == 2, over[0]
        assert figures.over_link in over[0]
    # the help line on a player's first turns of the play phase only; the hints banner twice at most, in the
    # game's posts and in the same posts drawn again in the other languages
    assert all(1 <= figures.help_lines.get(name, 0) <= 2 for name in PLAYERS), figures.help_lines
    assert set(figures.banners) == set(LOCALES), figures.banners
    for banners in figures.banners.values():
        assert banners[0] and sum(banners) <= 2 and not banners[-1], figures.banners
    assert all(figures.redrawn[lang] > figures.moves // 2 for lang in LOCALES if lang != "de"), figures.redrawn
    assert figures.offers_made > 0 and figures.offers_refused == 0, report
    assert figures.played_offer_refused == [] and figures.verified_accepted == [], report
    assert figures.moves_not_offered == [], report  # every move played by command was one autocomplete offered
    assert figures.unknown == [] and figures.since == [] and figures.plurals == [], report
    # every number a hint states is the one the question before the move and the post of the move state (the post
    # in every language)
    hints = figures.hints
    assert hints.hints >= figures.moves // 8 and hints.problems == [], "\n".join(hints.problems)
    assert set(hints.asked_in) == set(LOCALES), hints.asked_in
    assert hints.checked["build"] and hints.checked["card"] and hints.checked["volcano"], hints.checked
    assert hints.checked["birds"] == 1, hints.checked  # the last move's hint: the asker's bird chips apart


async def to_a_double_move(driver: Driver) -> tuple[str, str]:
    """Play useful moves until the player to move holds a double move that can build; (the user, the move)."""
    while True:
        user = driver.to_move_user()
        assert user is not None and driver.info().status == "running", "no double move came up"
        uid = driver.fake.user(user).id
        legal = driver.host.play.legal_moves(driver.channel.id, uid)
        sites = driver.host.play.view_for(driver.channel.id, uid)["you"].get("build_sites") or {}
        double = next((m for m in legal if m.startswith("double") and sites.get(m.split()[1])), None)
        if double is not None:
            return user, double
        seq = driver.info().seq
        useful = [m for m in legal if m.split()[0] not in ("pass", "double")
                  and not (m.split()[0] in ("ship", "river", "road") and len(m.split()) == 1)]
        await driver.play_slash(user, driver.rng.choice(useful or legal))
        await driver.wait_seq(seq + 1)
        await driver.settle()


def prompts(driver: Driver, user: str) -> list[str]:
    """Where the user is asked to build now ("Double move with Ship: choose where to build (2 left)."), in each
    language (the answer speaks the user's)."""
    view = driver.host.play.view_for(driver.channel.id, driver.fake.user(user).id)
    assert view["pending"] is not None
    return [turn_prompt(view, locale) for locale in LOCALES]


def build_menu(message: FakeMessage, seq: int) -> list[str]:
    """The build sites offered by ``message``'s controls for the game at ``seq``."""
    return [o["value"] for s in message.selects if f":{seq}:" in s["custom_id"] for o in s["options"]]


async def test_a_double_move_by_dm_continues_in_the_clicked_dm(driver: Driver) -> None:
    await driver.open_game(["alice", "bob"], draft=True)
    await driver.settle()
    user, double = await to_a_double_move(driver)
    dm = driver.turn_dm(user)
    dms_before = len(driver.fake.dm_messages(user))
    seq = driver.info().seq
    await driver.answer(await driver.play_dm(user, double))
    await driver.wait_seq(seq + 1)
    await driver.settle()
    assert driver.to_move_user() == user
    assert len(driver.fake.dm_messages(user)) == dms_before  # no new turn DM for one's own double move
    edited = driver.fake.dm_messages(user)[-1]
    assert edited.id == dm.id
    legal = driver.host.play.legal_moves(driver.channel.id, driver.fake.user(user).id)
    builds = build_menu(edited, seq + 1)
    assert builds and set(builds) <= set(legal)
    assert any(p in edited.text for p in prompts(driver, user))
    assert driver.turn_dm(user).id == dm.id  # the Driver finds the controls of now there
    await driver.play_dm(user, builds[0])
    await driver.wait_seq(seq + 2)


async def test_a_double_move_by_command_continues_in_its_reply(driver: Driver) -> None:
    await driver.open_game(["alice", "bob"], draft=True)
    await driver.settle()
    user, double = await to_a_double_move(driver)
    dms_before = len(driver.fake.dm_messages(user))
    seq = driver.info().seq
    handle = await driver.slash("build", {"card": "double", "kind": double.split()[1]}, user=user)
    answer = await driver.answer(handle)
    await driver.wait_seq(seq + 1)
    await driver.settle()
    assert driver.to_move_user() == user
    assert len(driver.fake.dm_messages(user)) == dms_before
    assert any(p in answer.text for p in prompts(driver, user))
    builds = build_menu(answer, seq + 1)
    legal = driver.host.play.legal_moves(driver.channel.id, driver.fake.user(user).id)
    assert builds and set(builds) <= set(legal)
    undo = ids.answer_undo(driver.info().game_id, seq + 1, 1)
    may_undo = driver.host.play.undoable_by(driver.channel.id) == driver.fake.user(user).id
    assert (undo in [c["custom_id"] for c in controls(answer)]) == may_undo
    select = next(s for s in answer.selects if f":{seq + 1}:" in s["custom_id"])
    click = await driver.fake.select(answer, select["custom_id"], [builds[0]], user=user)
    await driver.answer(await driver.confirm(click, user))
    await driver.wait_seq(seq + 2)
