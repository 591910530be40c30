"""The counts of ``tests/fakediscord/audit.py`` (what ``bench/bench_messages.py`` measures), each on
hand-made messages: what a person reads and sees, commands that do not exist, relative times after since/until,
plural slips, the move an autocomplete offer means, and the transcript block of a message."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from bot.adapter import ids
from tests.fakediscord import EPHEMERAL, LOADING, FakeAttachment, FakeMessage, audit
from tests.fakediscord.audit import Offer, offer_move

BOT = {"id": "1", "username": "bot"}


def message(content: str = "", **fields: Any) -> FakeMessage:
    return FakeMessage(id=fields.pop("id", 100), channel_id=fields.pop("channel_id", 10), author=BOT,
                       content=content, **fields)


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (250, 240, 212)).save(out, "PNG")
    return out.getvalue()


def attachment(filename: str, data: bytes) -> FakeAttachment:
    return FakeAttachment(id=5, filename=filename, data=data, url=f"http://x/{filename}")


UNDO, MENU_ID = ids.game(1, "undo", 4), ids.pick(1, 4, "ship")
"""The ids of the hand-made controls below, as the bot makes them."""
ROW = {"type": 1, "components": [
    {"type": 2, "style": 1, "label": "Undo", "custom_id": UNDO},
    {"type": 2, "style": 5, "label": "Rules", "url": "https://example.org"},
]}
MENU = {"type": 1, "components": [
    {"type": 3, "custom_id": MENU_ID, "placeholder": "Build a ship",
     "options": [{"label": "12 · Church", "value": "ship 12", "description": "3 points"}]},
]}


def test_readable_texts_cover_content_embeds_displays_buttons_and_menus() -> None:
    shown = message("Your turn", embeds=[{"title": "Santa Cruz", "fields": [{"name": "Score", "value": "3"}]}],
                    components=[{"type": 17, "components": [{"type": 10, "content": "王小明 builds"}]}, ROW, MENU])
    texts = audit.readable_texts(shown)
    for wanted in ("Your turn", "Santa Cruz", "Score", "王小明 builds", "Undo", "Rules", "Build a ship",
                   "12 · Church", "3 points"):
        assert any(wanted in text for text in texts), wanted
    assert [c["custom_id"] for c in audit.controls(shown)] == [UNDO, MENU_ID]  # the link has no id


def test_pictures_are_image_attachments_with_their_pixels() -> None:
    board, log = attachment("board.png", png(400, 300)), attachment("santacruz-log.txt", b"land 3\n")
    shown = message("x", attachments=[board, log])
    assert audit.pictures(shown) == [board]
    assert audit.picture_size(board) == (400, 300)
    assert audit.picture_size(attachment("broken.png", b"not a picture")) is None


def test_pings_follow_allowed_mentions() -> None:
    text = "<@7>, it is your turn; <@8> waits"
    assert audit.pings(message(text)) == [7, 8]
    assert audit.pings(message(text, allowed_mentions={"users": ["7"]})) == [7]
    assert audit.pings(message(text, allowed_mentions={"parse": []})) == []
    assert audit.pings(message(text, allowed_mentions={"parse": ["users"]})) == [7, 8]


SYNCED = [{"name": "santacruz", "options": [
    {"type": 1, "name": "status", "options": []},
    {"type": 1, "name": "build", "options": [{"type": 4, "name": "site"}]},
]}, {"name": "other", "options": [{"type": 1, "name": "hand"}]}]


def test_unknown_commands_against_the_synced_group() -> None:
    known = audit.command_names(SYNCED)
    assert known == {"status", "build"}
    text = "Your DMs are closed: use `/santacruz hand`, then `/santacruz status` or /santacruz build site:3."
    assert audit.unknown_commands(text, known) == ["hand"]
    assert audit.unknown_commands("`/santacruz status` shows it", known) == []


def test_relative_times_after_since_and_until_in_three_languages() -> None:
    glued = ["your turn since <t:1700000000:R>", "you have until <t:1700000000:R>", "am Zug seit <t:17:R>",
             "bis in 6 Stunden", "seit vor 3 Stunden", "à toi depuis il y a 3 heures", "jusqu'à dans 6 heures",
             "jusqu’à <t:17:R>", "since 3 hours ago"]
    for text in glued:
        assert audit.relative_after_since(text), text
    fine = ["your turn started <t:1700000000:R>", "on vacation until <t:1700000000:f>",
            "your time runs out <t:17:R> (at <t:17:t>)", "Zug begonnen <t:17:R>", "bis 18 Uhr",
            "depuis le début"]
    for text in fine:
        assert audit.relative_after_since(text) == [], text


def test_plural_slips_in_english() -> None:
    assert audit.plural_slips("1 points at the end", "en") == ["1 points"]
    assert audit.plural_slips("after 1 rated games", "en") == ["1 rated games"]
    assert audit.plural_slips("**1** wins, 3 game", "en") == ["**1** wins", "3 game"]
    assert audit.plural_slips("in 2 game(s)", "en") == ["game(s)"]
    assert audit.plural_slips("1 point · 6 building cards · 2 scoring cards · 0 bird chips · 1 bird chip", "en") == []
    assert audit.plural_slips("+1 points, −2 points per building: signed changes are left alone", "en") == []


def test_plural_slips_in_german_and_french() -> None:
    assert audit.plural_slips("mit 1 Punkte, 2 Spiel(en)", "de") == ["1 Punkte", "Spiel(en)"]
    assert audit.plural_slips("1 Punkt · 2 Punkte · 3 Siege", "de") == []
    assert audit.plural_slips("0 points, 1 parties, partie(s)", "fr") == ["0 points", "1 parties", "partie(s)"]
    assert audit.plural_slips("0 point · 1 partie · 2 parties", "fr") == []
    # a count ending its line is not the count of the next line's first word
    assert audit.plural_slips("Vorrat: 8 Häuser, 1 Leuchtturm\nSpiele eine Baukarte", "de") == []
    assert audit.plural_slips("Vorrat: 1 Leuchtturm Spiele", "de") == ["1 Leuchtturm Spiele"]


LEGAL = ["ship 12", "ship 14", "river 3", "double road", "score birds", "road"]
SITES = {"ship": [12, 14], "river": [3], "road": [5, 6]}


def test_offer_move_for_build_with_or_without_the_card() -> None:
    site_first = Offer("build", (), "site", "Ship · 12 · Church", 12)
    assert offer_move(site_first, LEGAL, SITES) is None  # "say which card": the command refuses it
    with_card = Offer("build", (("card", "ship"),), "site", "12 · Church", 12)
    assert offer_move(with_card, LEGAL, SITES) == ("ship 12",)
    assert offer_move(Offer("build", (("card", "ship"),), "site", "3", 3), LEGAL, SITES) is None
    double = Offer("build", (("card", "double"), ("kind", "road")), "site", "5 · House", 5)
    assert offer_move(double, LEGAL, SITES) == ("double road", "build 5")
    assert offer_move(Offer("build", (("card", "double"), ("kind", "road")), "site", "12", 12), LEGAL, SITES) is None
    carrying = Offer("build", (), "site", "Ship · 14", "ship 14")  # a value that carries its card
    assert offer_move(carrying, LEGAL, SITES) == ("ship 14",)


def test_offer_move_during_a_double_move_and_for_the_other_commands() -> None:
    pending = ["build 5", "build 6", "pass"]
    assert offer_move(Offer("build", (), "site", "5", 5), pending, SITES) == ("build 5",)
    assert offer_move(Offer("build", (), "site", "7", 7), pending, SITES) is None
    assert offer_move(Offer("land", (), "site", "10", 10), ["land 10", "land 12"], None) == ("land 10",)
    assert offer_move(Offer("land", (), "site", "11", 11), ["land 10", "land 12"], None) is None
    assert offer_move(Offer("score", (), "card", "Bird scoring", "birds"), LEGAL, SITES) == ("score birds",)
    assert offer_move(Offer("score", (), "card", "Coast", "coast"), LEGAL, SITES) is None
    # a scoring card named like a building card is scored, even where that building card could be played
    assert offer_move(Offer("score", (), "card", "River", "river"), ["river", "score river"], {}) == ("score river",)
    assert offer_move(Offer("choose", (), "option", "Set C", "set C"), ["set A", "set C"], None) == ("set C",)
    assert offer_move(Offer("choose", (), "option", "Set B", "set B"), ["set A", "set C"], None) is None


def test_transcript_shows_the_message_as_first_shown_and_its_edits() -> None:
    deferred = message("Done: 王小明 lands on site 10", flags=EPHEMERAL, components=[ROW],
                       history=[{"content": "", "flags": EPHEMERAL | LOADING, "components": []}])
    assert audit.as_sent(deferred).content == "Done: 王小明 lands on site 10"  # the "thinking…" placeholder is skipped
    post = message("<@7>, it is your turn in <#10>", components=[ROW, MENU],
                   attachments=[attachment("board.png", png(160, 90))],
                   history=[{"content": "<@7>, it is your turn in <#10>", "components": [ROW, MENU], "flags": 0}])
    post.content, post.components = "<@8> moved meanwhile", []
    block = audit.transcript_entry(post, "#santa-cruz", {7: "王小明", 8: "محمد", 10: "santa-cruz"})
    assert "@王小明, it is your turn in #santa-cruz" in block
    assert "[buttons: Undo · Rules]" in block
    assert "[menu “Build a ship”: 12 · Church (3 points)]" in block
    assert "board.png" in block and "160×90 px" in block
    assert "(edited 1× afterwards)" in block and "(last text: @محمد moved meanwhile)" in block
    assert "(only they see it)" in audit.transcript_entry(deferred, "#santa-cruz")
