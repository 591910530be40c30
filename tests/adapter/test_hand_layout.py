"""A player's hand message as a Components V2 layout (``bot/adapter/dm_layout.py``) within Discord's limits in the
longest case, checked by the fake Discord's own rules for a message body: at every position of a whole 4-player
drafted game, by players whose names are as long as Discord allows and all markdown (escaping doubles them), in German
(the longest words), the turn DM that ends quiet hours with many games waiting, every note and line, and the most
controls; then a long question asked in place and three moves played below it. No more than 40 components and 4,000
characters of text, what happened since the player's last move shortened from its oldest turns (the newest kept),
and the hand, the picture and the controls always there.
"""

from __future__ import annotations

import random

from bot.adapter import dm_layout
from bot.adapter.views import controls_view
from bot.adapter.words.dm import hand_words
from bot.host.table import SeatInfo, TableInfo
from engine import new_game
from tests.fakediscord import IS_COMPONENTS_V2, ComponentType, openapi, walk_components
from tests.fakediscord.validation import V2_COMPONENTS_MAX, V2_TEXT_MAX, FormErrors, validate_message

NAMES = [f"{i}" + "*_" * 15 + "~" for i in range(4)]
"""Four names of 32 characters (Discord's longest), every one of them escaped in a message."""
LOCALE = "de"
HEADING = "\n".join(["**Während deiner Ruhezeit:**"] + [f"- Du bist am Zug in <#{1000 + i}> seit <t:1:R>"
                                                           for i in range(40)])
"""The head of a DM that ends quiet hours with forty games waiting for the player."""


def body(layout: object, picture: bool) -> tuple[dict[str, object], FormErrors]:
    """The message body discord.py sends for ``layout`` and what the fake Discord's rules for a message refuse in it
    (its API description is checked on the largest bodies: :func:`described`)."""
    payload = {"flags": IS_COMPONENTS_V2, "components": layout.to_components(),  # type: ignore[attr-defined]
               "attachments": [{"id": 0, "filename": "overview.png"}, {"id": 1, "filename": "hand.png"}]
               if picture else []}
    errors = FormErrors()
    validate_message(payload, [], errors, partial=False)
    return payload, errors


def described(payload: dict[str, object]) -> list[str]:
    """What Discord's API description refuses in ``payload`` (sent as a new message)."""
    return [f"{where}: {why}" for where, why, _ in openapi.body_errors("POST", "/channels/5/messages", payload)]


def texts(payload: dict[str, object]) -> dict[int, str]:
    return {int(c["id"]): str(c["content"]) for c in walk_components(payload["components"])  # type: ignore[arg-type]
            if c.get("type") == ComponentType.TEXT_DISPLAY}


def test_the_longest_hand_message_keeps_discords_limits_after_a_question_and_three_moves() -> None:
    game = new_game(NAMES, seed=11, draft=True)
    rng = random.Random(11)
    seats = tuple(SeatInfo(seat=i, user_id=100 + i, name=n, is_computer=False, strength=None, away=False)
                  for i, n in enumerate(NAMES))
    shortened = 0
    largest: list[dict[str, object]] = []
    while game.to_move is not None:
        seat = game.to_move
        if len(game.log) % 3:  # every third position is enough (a seat's view since its last move replays the game)
            game.apply(rng.choice(sorted(game.legal_moves(), key=str)))
            continue
        view = game.view(seat, since=True)
        info = TableInfo(game_id=1, channel_id=5, guild_id=6, status="running", opener_id=100, seats=seats,
                         draft=True, locale=LOCALE, seq=len(game.log), to_move=seat, created_at=1000.0,
                         last_move_at=2000.0, deadline_hours=24)
        words = hand_words(info, view, LOCALE, turn=True, reminder=True, deadline=88400.0,
                           notes=[f"{name} ist im Urlaub bis <t:99999:f>; der Computer spielt" for name in NAMES])
        dm = dm_layout.hand_panel(view, words, heading=HEADING, waiting="Noch 40 andere Partien warten auf dich.",
                                  pictures=("overview.png", "hand.png"))
        controls = controls_view(1, len(game.log), view, LOCALE, hints=True)
        sent, errors = body(dm_layout.layout(dm, dm_layout.action_rows(controls)), picture=True)
        assert not errors.items, errors.summary()
        shown = texts(sent)
        assert sum(map(len, shown.values())) <= dm_layout.SENT_MAX  # room left for what a click adds
        assert {dm_layout.HEAD, dm_layout.HAND, dm_layout.TURN} <= set(shown)
        since = words.since.split("\n")
        if words.since and shown.get(dm_layout.SINCE) != words.since:
            shortened += 1
            assert shown[dm_layout.SINCE].split("\n")[-1] == since[-1], "the newest turn gave way"
        asked = dm.asking("Wirklich? " + "Das kann nicht zurückgenommen werden. " * 20)
        for i in range(3):
            asked = asked.played(f"**Erledigt: Du baust ein Haus auf Platz {i} im Doppelzug (+3)** " + "·" * 100)
        clicked = dm_layout.layout(asked, dm_layout.action_rows(controls_view(1, len(game.log), view, LOCALE)))
        after, errors = body(clicked, picture=True)
        assert not errors.items, errors.summary()
        components = list(walk_components(after["components"]))  # type: ignore[arg-type]
        if not largest or len(components) > len(list(walk_components(largest[0]["components"]))):  # type: ignore
            largest = [after, sent]
        assert len(components) <= V2_COMPONENTS_MAX
        assert sum(map(len, texts(after).values())) <= V2_TEXT_MAX
        galleries = [c for c in components if c.get("type") == ComponentType.MEDIA_GALLERY]
        assert [[item["media"]["url"] for item in g["items"]] for g in galleries] == \
            [["attachment://overview.png"], ["attachment://hand.png"]], "the overview first, each alone (not cropped)"
        assert len({c["id"] for c in components if "id" in c}) == len([c for c in components if "id" in c])
        game.apply(rng.choice(sorted(game.legal_moves(), key=str)))
    assert shortened >= 5, "the longest case never needed shortening: it is not the longest"
    assert len(list(walk_components(largest[0]["components"]))) > 10  # type: ignore[arg-type]
    assert [described(payload) for payload in largest] == [[], []]
