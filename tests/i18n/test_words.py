"""The words players read, checked over every catalogue (en, de, fr) and through the functions that fill them.

- every count goes through the plural forms: no "game(s)", „Spiel(en)“, « partie(s) »;
- a relative time (Discord's ``<t:…:R>``, "3 hours ago" / "vor 3 Stunden" / "il y a 3 heures") is never glued
  into since/until wording ("since 3 hours ago", „seit vor 3 Stunden“, « jusqu'à dans 6 heures »);
- every ``/santacruz <name> [option:value]`` a text names is a command (and option) the cog registers;
- French speaks to the player as *tu* (no *vous*); French and English have one apostrophe, the typographic ’
  (English quotes with “ ” already);
- one term per thing: the scoring card is named as the rules name it, not like the bird chips;
- a full lobby suggests removing a computer seat only when there is one.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.adapter.cog import SantaCruzCog
from bot.adapter.words.common import timestamp
from bot.adapter.words.dm import held_text
from bot.adapter.words.lobby import seat_name, strength_name
from bot.adapter.words.notices import idle_text, kept_open_text, notice_text
from bot.adapter.words.person import game_line, settings_text
from bot.host.host import HostError, lobby_full
from bot.host.idle import ABANDONED, LOBBY_CLOSED, NOTICE
from bot.host.table import Seat
from bot.host.user_settings import OpenGame, UserSettings
from engine.ai import STRENGTHS
from i18n import LOCALES, catalogue, t

ROOT = Path(__file__).resolve().parents[2]
LOCALE_DIR = ROOT / "i18n" / "locales"

BRACKET_PLURAL = re.compile(r"\w\((?:s|e|n|en|es|er|x|nen|innen)\)", re.IGNORECASE)
"""A plural written as "(s)": "game(s)", „Spiel(en)“, « partie(s) »."""
RELATIVE = r"(?:<t:[^>]*:R>|\{since\})"
"""A relative time: Discord's ``R`` timestamp, or ``{since}``, which the code fills with one."""
GLUED = re.compile(r"\b(?:since|until|till|seit|bis|ab|depuis|jusqu[’']\s*(?:à|au|a)|dès)\s+" + RELATIVE,
                   re.IGNORECASE)
"""A relative time inside since/until wording."""
NAMED_COMMAND = re.compile(r"/santacruz ([a-z][a-z_-]*)((?: [a-z_]+:[^\s`]+)*)")
FORMAL_FRENCH = re.compile(r"\b(?:vous|votre|vos)\b", re.IGNORECASE)
STRAIGHT_APOSTROPHE = re.compile(r"(?<=[^\W\d_]|\})'(?=\w)")
"""An apostrophe after a letter or a placeholder (``l'emplacement``, ``{name}'s``); quotes around terminal words
(``'help'``) are not one."""


def catalogue_texts(lang: str | None = None) -> list[tuple[str, str, str]]:
    """``(language, key, text)`` of every catalogue file (of one language, or of all)."""
    found = []
    for lang_dir in sorted(p for p in LOCALE_DIR.iterdir() if p.is_dir() and lang in (None, p.name)):
        for path in sorted(lang_dir.glob("*.json")):
            found += [(lang_dir.name, key, text)
                      for key, text in json.loads(path.read_text(encoding="utf-8")).items()]
    return found


def registered() -> dict[str, set[str]]:
    """The subcommands of ``/santacruz`` with the names of their options, as Discord shows them."""
    return {command.name: {p.display_name for p in getattr(command, "parameters", [])}
            for command in SantaCruzCog.__cog_app_commands__}


# ---------------------------------------------------------------------- the scans


def test_no_plural_is_written_in_brackets() -> None:
    found = [f"{lang} {key}: {text}" for lang, key, text in catalogue_texts() if BRACKET_PLURAL.search(text)]
    assert not found, "counts go through .one/.other forms:\n" + "\n".join(found)


def test_the_scan_finds_bracket_plurals() -> None:
    assert all(BRACKET_PLURAL.search(s) for s in ("2 game(s)", "3 Spiel(en)", "2 partie(s)", "gewählt(e)"))
    assert not BRACKET_PLURAL.search("Gold (10) · (computer) · (provisional)")


def test_no_relative_time_is_glued_into_since_or_until_wording() -> None:
    found = [f"{lang} {key}: {text}" for lang, key, text in catalogue_texts() if GLUED.search(text)]
    assert not found, "a relative time reads '3 hours ago' by itself:\n" + "\n".join(found)


@pytest.mark.parametrize("glued", ["your turn since {since}", "seit <t:{until}:R>", "depuis {since}",
                                   "tu as jusqu’à <t:1:R>", "you have until <t:{until}:R>", "bis <t:5:R>"])
def test_the_scan_finds_glued_relative_times(glued: str) -> None:
    assert GLUED.search(glued)


def test_every_named_command_and_option_is_registered() -> None:
    commands = registered()
    assert {"status", "history", "games", "back", "settings"} <= set(commands)
    wrong = []
    for lang, key, text in catalogue_texts():
        for match in NAMED_COMMAND.finditer(text):
            name, options = match.group(1), match.group(2)
            if name not in commands:
                wrong.append(f"{lang} {key}: /santacruz {name}")
                continue
            wrong += [f"{lang} {key}: /santacruz {name} {option}" for option in re.findall(r" ([a-z_]+):", options)
                      if option not in commands[name]]
    assert not wrong, "texts name commands that do not exist:\n" + "\n".join(wrong)


def test_the_help_for_closed_dms_points_to_status() -> None:
    for lang in LOCALES:
        for key in ("bot.post.dm_failed", "bot.reply.dm_blocked"):
            text = t(key, lang, mention="<@1>")
            assert "`/santacruz status`" in text and "/santacruz hand" not in text


def test_french_says_tu_and_uses_one_apostrophe() -> None:
    french = catalogue_texts("fr")
    assert len(french) > 400
    formal = [f"{key}: {text}" for _, key, text in french if FORMAL_FRENCH.search(text)]
    assert not formal, "French speaks to the player as tu:\n" + "\n".join(formal)
    straight = [f"{key}: {text}" for _, key, text in french if STRAIGHT_APOSTROPHE.search(text)]
    assert not straight, "French apostrophes are ’:\n" + "\n".join(straight)
    assert sum("’" in text for _, _, text in french) > 100


def test_english_uses_one_apostrophe() -> None:
    english = catalogue_texts("en")
    straight = [f"{key}: {text}" for _, key, text in english
                if any(STRAIGHT_APOSTROPHE.search(part) for part in re.split(r"`[^`]*`", text))]
    assert not straight, "English apostrophes are ’ (outside `code`):\n" + "\n".join(straight)
    assert sum("’" in text for _, _, text in english) > 30


def test_the_scoring_card_is_named_as_the_rules_name_it() -> None:
    names = {"en": "Bird scoring", "de": "Vogelwertung", "fr": "Décompte des oiseaux"}
    for lang, name in names.items():
        assert t("game.scoring.birds.name", lang) == name
        assert t("game.scoring.birds.name", lang) != t("game.term.bird_chip.other", lang)
        assert t("bot.hand.scoring_cards", lang, cards=name) != t("bot.hand.bird_chips", lang, chips=name)
    german = " ".join(text for _, _, text in catalogue_texts("de"))
    assert "Vogelplättchen" not in german and "Vogelchips" in german
    french = " ".join(text for _, _, text in catalogue_texts("fr")).lower()
    assert "carte de décompte" not in french and "carte d’évaluation" not in french


# ---------------------------------------------------------------------- through the functions that fill them


def test_turns_say_when_they_started() -> None:
    game = OpenGame(game_id=1, channel_id=5, guild_id=7, status="running", to_move_user_id=2, to_move_name="Bob",
                    computer_to_move=False, since=1_700_000_000, yours=False)
    mine, computer = replace(game, yours=True), replace(game, computer_to_move=True)
    lobby = replace(game, status="lobby")
    when = timestamp(game.since)
    lines = {lang: [game_line(g, lang) for g in (game, mine, computer, lobby)] + [held_text([mine], [], lang)]
             for lang in LOCALES}
    assert lines["en"][:2] == [f"<#5>: Bob’s turn (started {when})", f"<#5>: **your turn** (started {when})"]
    assert lines["de"][1] == f"<#5>: **du bist dran** (Zug begann {when})"
    assert lines["fr"][1] == f"<#5> : **à toi de jouer** (tour commencé {when})"
    for lang, texts in lines.items():
        for text in texts:
            assert when in text and not GLUED.search(text), (lang, text)


def test_the_deadline_warning_says_when_time_runs_out() -> None:
    payload = {"key": "bot.deadline.warning", "params": {"until": 1_700_000_000, "channel": 5}}
    words = {lang: notice_text(payload, lang) for lang in LOCALES}
    assert "your time runs out <t:1700000000:R>" in words["en"]
    assert "Deine Zeit läuft <t:1700000000:R> ab" in words["de"]
    assert "ton délai expire <t:1700000000:R>" in words["fr"]
    assert not any(GLUED.search(text) for text in words.values())


@pytest.mark.parametrize(("days", "en", "de", "fr"), [(1, "for 1 day,", "ist 1 Tag im", "pendant 1 jour,"),
                                                       (3, "for 3 days,", "ist 3 Tage im", "pendant 3 jours,")])
def test_a_vacation_notice_counts_its_days(days: int, en: str, de: str, fr: str) -> None:
    payload = {"key": "bot.vacation.vote", "params": {"name": "Ada", "until": 1_700_000_000, "days": days}}
    assert en in notice_text(payload, "en") and de in notice_text(payload, "de") and fr in notice_text(payload, "fr")


def test_idle_tables_count_their_days() -> None:
    closed = {"what": LOBBY_CLOSED, "locale": "de", "days": 1}
    assert "innerhalb von 1 Tag gestartet" in idle_text(closed)
    assert "innerhalb von 7 Tagen gestartet" in idle_text({**closed, "days": 7})
    notice = {"what": NOTICE, "locale": "en", "days": 14, "grace_days": 3, "user_ids": [1]}
    assert "No move in this game for 14 days. Press **Keep it open** within 3 days," in idle_text(notice)
    assert "après 1 jour sans coup" in idle_text({"what": ABANDONED, "locale": "fr", "days": 1})
    assert "After another 1.5 days" in kept_open_text("Ada", 1.5, "en")


def test_reminder_hours_are_counted() -> None:
    one = UserSettings(reminder_hours=1.0)
    assert "after 1 hour without" in settings_text(one, "en", now=0.0, default_hours=12)
    assert "après 1 heure sans" in settings_text(one, "fr", now=0.0, default_hours=12)
    assert "nach 12 Stunden ohne" in settings_text(UserSettings(), "de", now=0.0, default_hours=12)


@pytest.mark.parametrize(("count", "en", "de", "fr"), [
    (1, "Your vacation is over in 1 game.", "in 1 Spiel beendet", "terminées dans 1 partie."),
    (2, "Your vacation is over in 2 games.", "in 2 Spielen beendet", "terminées dans 2 parties."),
])
def test_counted_keys_read_with_t_pick_their_form(count: int, en: str, de: str, fr: str) -> None:
    assert t("bot.reply.vacation_over", "en", count=count).endswith(en)
    assert de in t("bot.reply.vacation_over", "de", count=count)
    assert t("bot.reply.vacation_over", "fr", count=count).endswith(fr)
    assert t("bot.reply.joined", "en", count=1) == "You joined the game (1 player so far)."


def test_a_full_lobby_mentions_removing_a_computer_only_when_there_is_one() -> None:
    people = [Seat(user_id=i, name=f"P{i}") for i in range(1, 5)]
    with_computer = [*people[:3], Seat(user_id=None, name="Computer 1")]
    assert lobby_full(people) == "host.error.lobby_full"
    assert lobby_full(with_computer) == "host.error.lobby_full_computers"
    for lang, word in (("en", "computer"), ("de", "Computer"), ("fr", "ordinateur")):
        assert word not in HostError(lobby_full(people), max=4).text(lang)
        assert word in HostError(lobby_full(with_computer), max=4).text(lang)


def test_every_strength_is_named_in_every_language_where_a_computer_seat_is_shown() -> None:
    """The engine's strengths (the terminal game has them all; ``new``/``addbot`` offer engine.ai.OFFERED) in
    words, each its own word in each language, in a lobby's or game's seat line."""
    expected = {"de": ("Zufällig", "Gierig", "Experte", "Meister"), "fr": ("Au hasard", "Glouton", "Expert", "Maître"),
                "en": ("Random", "Greedy", "Expert", "Master")}
    assert STRENGTHS == ("random", "greedy", "expert", "master")
    for lang in LOCALES:
        names = [strength_name(strength, lang) for strength in STRENGTHS]
        assert tuple(names) == expected[lang] and all(f"commands.choice.strength.{s}" in catalogue(lang)
                                                      for s in STRENGTHS)
        for strength, name in zip(STRENGTHS, names, strict=True):
            line = seat_name(Seat(user_id=None, name="Computer 2", strength=strength), lang)
            assert "Computer 2" in line and name in line, (lang, line)


def test_the_export_answer_sends_nobody_to_a_terminal() -> None:
    for lang in LOCALES:
        text = t("bot.export.sent", lang, id=12, file="santacruz-12.json")
        assert "santacruz replay" not in text and "--out" not in text and "JSON" in text
