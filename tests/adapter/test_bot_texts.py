"""The bot's words without Discord: labels of sites and moves, hands, posts, escaping, and that the
channel's words never show what only one player may know."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.adapter.threads import LOCKED
from bot.adapter.words.common import MESSAGE_MAX, SEP, esc
from bot.adapter.words.dm import hand_text, turn_over_text
from bot.adapter.words.moves import final_question, move_label, public_move, site_label
from bot.adapter.words.posts import move_post
from bot.host.deliveries import CHANNEL_GONE
from bot.host.table import MoveResult, SeatInfo, TableInfo
from bot.host.takeback import Risk
from i18n import LOCALES, t


def game_in_play(seed: int = 3, players: int = 3) -> engine.Game:
    game = engine.new_game(["Ada", "Bo", "Cy"][:players], seed)
    rng = random.Random(seed)
    while game.phase != "play":
        game.apply(rng.choice(game.legal_moves()))
    return game


def result(game: engine.Game, move: str, *, undo: bool = False, events: list[dict[str, Any]] | None = None,
           seat: int = 0) -> MoveResult:
    view = game.view(None)
    return MoveResult(game_id=1, channel_id=2, locale="en", seq=5, seat=seat, name="Ada", user_id=10,
                      by_computer=False, move=move, undo=undo, events=events or [], view=view,
                      to_move=game.to_move, to_move_name="Bo", to_move_user_id=11, computer_to_move=False,
                      secret_changed=(), dm_user_ids=(), game_over=False, ranking=None)


def test_site_labels_say_what_a_tile_gives() -> None:
    game = game_in_play()
    view = game.view(game.to_move)
    revealed = next(s for s in view["board"]["sites"] if s["tile"] and not s["buildings"])
    label = site_label(view, revealed["id"], "en")
    building = t(f"game.building.{revealed['tile']['building']}.one", "en")
    assert label.startswith(f"{revealed['id']} · {building} · ")
    assert "point" in label
    hidden = next(s for s in view["board"]["sites"] if s["tile"] is None)
    assert site_label(view, hidden["id"], "de").endswith("verdeckt")
    built = next(s for s in view["board"]["sites"] if s["buildings"])
    owner = view["players"][built["buildings"][0]["seat"]]["name"]
    # spending the share right is said before what the tile gives (a menu cuts a long label at its end)
    assert site_label(view, built["id"], "en").startswith(
        f"{built['id']} · share with {owner}: uses your share right this round · ")


@pytest.mark.parametrize("locale", LOCALES)
def test_every_legal_move_has_words(locale: str) -> None:
    rng = random.Random(5)
    for seed in range(6):
        game = engine.new_game(["Ada", "Bo", "Cy", "Di"][: 2 + seed % 3], seed, draft=seed % 2 == 0)
        while not game.is_over():
            view = game.view(game.to_move)
            for move in view["you"]["legal_moves"]:
                label = move_label(view, move, locale)
                assert label and label != move and len(label) < 200
            game.apply(rng.choice(game.legal_moves()))


def test_hand_text_shows_the_seats_own_secrets() -> None:
    game = game_in_play()
    seat = game.to_move
    view = game.view(seat)
    text = hand_text(view, "en")
    for card in view["you"]["scoring_cards"]:
        assert t(f"game.scoring.{card}.name", "en") in text
    assert text.splitlines()[0].startswith("Score:")


def test_an_undone_discard_stays_secret_in_the_channel() -> None:
    game = game_in_play()
    post = move_post(result(game, "discard gold10", undo=True), "en")
    assert "Gold (10)" not in post and post.startswith("Taken back:")
    assert public_move("discard gold10") == "discard" and public_move("land 3") == "land 3"


def test_move_post_mentions_the_next_player_and_keeps_to_the_limit() -> None:
    game = game_in_play()
    events = [{"type": "reveal", "site": s} for s in range(1, 4)] * 200
    post = move_post(result(game, "ship 3", events=events), "fr")
    assert len(post) <= MESSAGE_MAX and post.endswith(").") and "<@11>" in post


def test_names_are_escaped() -> None:
    assert esc("@everyone") == "@\u200beveryone"
    assert esc("**Bo**") == "\\*\\*Bo\\*\\*"
    assert esc("<@&123456789012345678>") != "<@&123456789012345678>"


def test_the_question_before_a_scoring_card_names_what_it_gives_the_best_other_player() -> None:
    names = ["Ada", "Bo"]
    volcano = Risk(("score volcano",), final=True, first_final=0, scores="volcano", points=0, other=1, other_points=9)
    assert (final_question("score volcano", volcano, "en", names)
            == "Play the scoring card “Volcano”? This cannot be taken back: “Volcano” is scored (0 points for you, "
               "9 for Bo).")
    eruption = Risk(("score eruption",), final=True, first_final=0, scores="eruption", other=1, other_points=-6)
    assert (final_question("score eruption", eruption, "de", names)
            == "Die Wertungskarte „Vulkanausbruch“ spielen? Das kann nicht zurückgenommen werden: „Vulkanausbruch“ "
               "wird gewertet (0 Punkte für dich, −6 für Bo).")
    alone = Risk(("score gold10",), final=True, first_final=0, scores="gold10", points=1, revealed=(3, 4))
    assert (final_question("score gold10", alone, "fr", names)
            == "Jouer la carte score « Or (10) » ? Ce coup ne pourra pas être repris : la carte « Or (10) » est "
               "décomptée (1 point pour toi) ; les emplacements 3 et 4 sont révélés.")


def test_the_question_before_taking_a_pile_says_whose_cards_they_are_to_the_mover() -> None:
    """Taking back one's own round-1 cards is asked as such, another's names their owner."""
    names = ["Ada", "Bo"]
    own, other = (Risk((move,), final=True, first_final=0) for move in ("pile 1", "pile 0"))
    asked = final_question("pile 1", own, "fr", names, seat=1)
    assert asked.startswith("Reprendre tes propres cartes de la manche 1 ?"), asked
    assert final_question("pile 0", other, "en", names, seat=1).startswith("Take the cards Ada played in round 1?")


@pytest.mark.parametrize("locale", LOCALES)
def test_a_turn_dm_of_a_game_whose_channel_went_says_how_it_ended(locale: str) -> None:
    """The edit of a DM still showing a turn when its game's channel went: a deleted channel (or a server the bot
    left) is not linked, a locked thread (still there to read) is; neither reads as "abandoned"."""
    info = TableInfo(game_id=7, channel_id=42, guild_id=1, status="abandoned", opener_id=5, seats=(), draft=False,
                     locale="en", seq=3, to_move=None, created_at=0.0, last_move_at=None)
    deleted = turn_over_text(info, {"reason": CHANNEL_GONE, "why": "thread deleted"}, locale)
    locked = turn_over_text(info, {"reason": CHANNEL_GONE, "why": LOCKED}, locale)
    assert deleted == t("bot.dm.turn_over.channel_gone", locale) and "<#42>" not in deleted
    assert locked == t("bot.dm.turn_over.thread_locked", locale, channel="<#42>")
    abandoned = t("bot.dm.turn_over.abandoned", locale, channel="<#42>")
    assert abandoned not in (deleted, locked)


def seat_of(seat: int, name: str) -> SeatInfo:
    return SeatInfo(seat=seat, user_id=10 + seat, name=name, is_computer=False, strength=None, away=False)


def build_events(seat: int, site: int, *, shared: bool = False) -> list[dict[str, Any]]:
    """What a move that built on ``site`` logs: the build, then its points."""
    return [{"type": "build", "seat": seat, "site": site, "building": "lighthouse", "shared": shared},
            {"type": "score", "seat": seat, "reason": "build", "delta": 2}]


MOVER = 1
"""Bob's seat: the player whose DM is told that their turn was played."""
TURNS_OF_EVERY_KIND = [
    (["set B"], []), (["land 12"], []), (["land 12"], build_events(MOVER, 12)), (["ship 7"], []),
    (["ship 7"], build_events(MOVER, 7)), (["ship 7"], build_events(MOVER, 7, shared=True)), (["ship"], []),
    (["river 3"], build_events(MOVER, 3)), (["river"], []), (["road 9"], build_events(MOVER, 9)), (["road"], []),
    (["double ship", "build 4", "build 5"], build_events(MOVER, 4) + build_events(MOVER, 5)),
    (["double river", "build 4", "pass"], []), (["double road", "build 9"], []), (["score gold10"], []),
    (["pile 0"], []), (["pile 1"], []), (["discard"], []), (["discard birds"], []),
]
"""A turn of every kind of move, as a passed turn's DM gets them (public: a discard's card hidden), with and without
what it built."""
YOU = {"en": "You ", "de": "Du ", "fr": "Tu "}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("reason", ["moved", "computer"])
def test_a_passed_turn_s_dm_says_every_kind_of_move_to_its_player_in_the_second_person(locale: str,
                                                                                        reason: str) -> None:
    """“Turn played” (or played by the computer for them) in a player's own DM says each move of the turn as theirs:
    "You put a scoring card back in the box, face down", never "Bob puts …"."""
    seats = tuple(seat_of(i, name) for i, name in enumerate(("Ann", "Bob")))
    info = TableInfo(game_id=7, channel_id=42, guild_id=1, status="running", opener_id=10, seats=seats, draft=True,
                     locale="en", seq=9, to_move=0, created_at=0.0, last_move_at=None)
    heading = t(f"bot.dm.turn_over.{reason}", locale, channel="<#42>", moves="")
    for moves, events in TURNS_OF_EVERY_KIND:
        text = turn_over_text(info, {"reason": reason, "moved": MOVER, "moves": moves, "events": events}, locale)
        assert text.startswith(heading) and "Bob" not in text, text
        said = text[len(heading):].split(SEP)
        assert len(said) == len(moves) and all(part.startswith(YOU[locale]) for part in said), (moves, text)
