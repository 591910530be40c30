"""Tests of the message catalogues (``i18n/locales/<lang>/<domain>.json``) and of ``i18n`` itself.

Generic checks run over every catalogue file present, including files added later: every language has
the same files and keys, the same placeholders per key, no empty text, only keys of the file's own domain,
and every literal key the code asks for (``t("…")``, ``_t("…")``, ``i18n.t("…")``, ``tn("…")``) exists.
Then the game's, the rules' and the commands' catalogues are checked against the engine and Discord's
limits, and the engine's events of many random games are put into words in every language.
"""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path
from typing import Any

import pytest

from engine import (
    BUILDING_CARDS,
    BUILDING_SETS,
    BUILDINGS,
    PHASES,
    RESOURCES,
    SCORING_CARD_IDS,
    SINGLE_BUILDS,
    SITE_KINDS,
    new_game,
)
from i18n import (
    DEFAULT_LOCALE,
    LOCALES,
    RULE_TOPICS,
    _once_each,
    ask_move,
    catalogue,
    describe_events,
    describe_move,
    listed,
    normalize_locale,
    plural_form,
    t,
    tn,
)

ROOT = Path(__file__).resolve().parents[2]
LOCALE_DIR = ROOT / "i18n" / "locales"
CODE_DIRS = ("engine", "render", "bot", "i18n")
KEY_CALL = re.compile(r"""\b(_?tn?|HostError)\(\s*(["'])([^"'\\\n]+)\2""")
"""A call ``t("key"``, ``_t('key'``, ``i18n.t("key"``, ``tn("key"`` … with a literal key."""

DISCORD_DESCRIPTION_MAX = 100
RULES_TEXT_MAX = 1500
EMBED_TITLE_MAX = 256


def domain_files() -> dict[str, dict[str, Path]]:
    """``{domain: {lang: path}}`` for every catalogue file of every language."""
    found: dict[str, dict[str, Path]] = {}
    for lang_dir in sorted(p for p in LOCALE_DIR.iterdir() if p.is_dir()):
        for path in sorted(lang_dir.glob("*.json")):
            found.setdefault(path.stem, {})[lang_dir.name] = path
    return found


def load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path} must hold one JSON object"
    return data


def fields(template: str) -> set[str]:
    """The placeholder names of a ``str.format`` template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


DOMAINS = domain_files()


def test_locale_folders_are_the_supported_languages() -> None:
    assert sorted(p.name for p in LOCALE_DIR.iterdir() if p.is_dir()) == sorted(LOCALES)
    assert DEFAULT_LOCALE in LOCALES


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_language_has_the_domain_file(domain: str) -> None:
    assert sorted(DOMAINS[domain]) == sorted(LOCALES), f"{domain}.json is missing in some language"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_values_are_non_empty_texts(domain: str) -> None:
    for lang, path in DOMAINS[domain].items():
        for key, value in load(path).items():
            assert isinstance(value, str), f"{lang}/{domain}.json {key}: not a string"
            assert value.strip(), f"{lang}/{domain}.json {key}: empty"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_keys_belong_to_their_domain(domain: str) -> None:
    for lang, path in DOMAINS[domain].items():
        stray = [k for k in load(path) if not k.startswith(domain + ".")]
        assert not stray, f"{lang}/{domain}.json holds keys outside '{domain}.': {stray[:5]}"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_language_has_the_same_keys(domain: str) -> None:
    keys = {lang: set(load(path)) for lang, path in DOMAINS[domain].items()}
    union = set().union(*keys.values())
    for lang, have in keys.items():
        missing = sorted(union - have)
        assert not missing, f"{lang}/{domain}.json misses keys: {missing[:10]}"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_placeholders_agree_across_languages(domain: str) -> None:
    texts = {lang: load(path) for lang, path in DOMAINS[domain].items()}
    reference = texts.get(DEFAULT_LOCALE) or next(iter(texts.values()))
    for key, template in reference.items():
        want = fields(template)
        for lang, data in texts.items():
            if key in data:
                assert fields(data[key]) == want, f"{lang} {key}: {sorted(fields(data[key]))} != {sorted(want)}"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_placeholders_are_named(domain: str) -> None:
    """``t`` fills in keywords only, so ``{}`` or ``{0}`` could never be filled."""
    for lang, path in DOMAINS[domain].items():
        for key, template in load(path).items():
            for name in fields(template):
                assert name[:1].isalpha() or name.startswith("_"), f"{lang} {key}: {{{name}}}"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_plural_keys_come_in_pairs(domain: str) -> None:
    for lang, path in DOMAINS[domain].items():
        keys = set(load(path))
        for key in keys:
            for have, need in ((".one", ".other"), (".other", ".one")):
                if key.endswith(have):
                    assert key[: -len(have)] + need in keys, f"{lang} {key} has no {need} form"


@pytest.mark.parametrize("lang", LOCALES)
def test_catalogue_merges_without_repeated_keys(lang: str) -> None:
    merged = catalogue(lang)
    assert len(merged) == sum(len(load(paths[lang])) for paths in DOMAINS.values() if lang in paths)


def code_keys() -> list[tuple[str, str, str]]:
    """``(file, function, key)`` for every literal key the code asks for."""
    found = []
    for folder in CODE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for match in KEY_CALL.finditer(path.read_text(encoding="utf-8")):
                found.append((str(path.relative_to(ROOT)), match.group(1), match.group(3)))
    return found


def test_code_asks_only_for_existing_keys() -> None:
    english = catalogue("en")
    missing = []
    for where, func, key in code_keys():
        counted = func.endswith("tn") or (key not in english and f"{key}.one" in english)  # t(key, count=n) too
        wanted = [f"{key}.one", f"{key}.other"] if counted else [key]
        missing.extend(f"{where}: {k}" for k in wanted if k not in english)
    assert not missing, "keys used in code but not in the English catalogue:\n" + "\n".join(missing)


def test_key_scan_finds_calls() -> None:
    sample = """t("game.a", loc) + _t('game.b') + i18n.t(\n  "game.c") + tn("game.d", 2) + print("x")"""
    assert [m.group(3) for m in KEY_CALL.finditer(sample)] == ["game.a", "game.b", "game.c", "game.d"]


# ---------------------------------------------------------------------- i18n functions


@pytest.mark.parametrize(("given", "expected"), [
    ("en-US", "en"), ("en-GB", "en"), ("de", "de"), ("fr", "fr"), ("es-ES", "en"), (None, "en"),
    ("DE", "de"), ("fr_FR", "fr"), ("", "en"), ("pt-BR", "en"),
])
def test_normalize_locale(given: object, expected: str) -> None:
    assert normalize_locale(given) == expected


def test_normalize_locale_takes_discord_locales() -> None:
    discord = pytest.importorskip("discord")
    assert normalize_locale(discord.Locale.german) == "de"
    assert normalize_locale(discord.Locale.french) == "fr"
    assert normalize_locale(discord.Locale.american_english) == "en"
    assert normalize_locale(discord.Locale.spain_spanish) == "en"


def test_t_fills_in_and_falls_back() -> None:
    assert t("game.scoring.gold10.name", "en-US") == "Gold (10)"
    assert t("game.round", "de", round=2) == "2. Durchgang"
    assert t("game.round", "es-ES", round=1) == "Round 1"
    with pytest.raises(KeyError):
        t("game.no.such.key", "fr")


def test_plural_forms() -> None:
    assert tn("game.points", 1, "en") == "1 point"
    assert tn("game.points", 2, "en") == "2 points"
    assert tn("game.points", 0, "de") == "0 Punkte"
    assert tn("game.points", 0, "fr") == "0 point"
    assert plural_form(-1, "en") == "one"
    assert plural_form(1, "fr") == "one"
    assert plural_form(2, "fr") == "other"


# ---------------------------------------------------------------------- the game's words


def game_keys() -> list[str]:
    keys = ["game.title", "game.round", "game.points.one", "game.points.other", "game.set.label"]
    for card in SCORING_CARD_IDS:
        keys += [f"game.scoring.{card}.name", f"game.scoring.{card}.text"]
    for building in BUILDINGS:
        keys += [f"game.building.{building}.{form}" for form in ("one", "other", "a")]
    for card in BUILDING_CARDS:
        keys += [f"game.card.{card}.{form}" for form in ("one", "other", "short")]
    for letter in BUILDING_SETS:
        keys += [f"game.set.{letter}.name", f"game.set.{letter}.cards"]
    keys += [f"game.resource.{r}" for r in RESOURCES]
    keys += [f"game.site_kind.{k}" for k in SITE_KINDS]
    keys += [f"game.phase.{p}" for p in PHASES]
    return keys


def test_game_catalogue_covers_the_engine() -> None:
    english = catalogue("en")
    missing = [k for k in game_keys() if k not in english]
    assert not missing, missing


def test_scoring_card_names_differ() -> None:
    for lang in LOCALES:
        names = [t(f"game.scoring.{card}.name", lang) for card in SCORING_CARD_IDS]
        assert len(set(names)) == len(names), lang


def test_the_double_move_prompt_names_each_kind_in_words() -> None:
    for lang in LOCALES:
        for kind in SINGLE_BUILDS:
            text = t(f"bot.prompt.double.{kind}", lang, left=1)
            assert text != f"bot.prompt.double.{kind}" and "1" in text, (lang, kind)


def test_a_list_of_scoring_cards_reads_as_one_name_per_card() -> None:
    """Hands and listings join card names with commas: a name with a comma would read as two cards ("Bird
    scoring, House, church, lighthouse" is two cards, not four)."""
    for lang in LOCALES:
        for card in SCORING_CARD_IDS:
            name = t(f"game.scoring.{card}.name", lang)
            assert "," not in name, (lang, name)


def test_set_contents_match_the_engine() -> None:
    for letter, cards in BUILDING_SETS.items():
        numbers = [int(n) for n in re.findall(r"\d+", t(f"game.set.{letter}.cards", "en"))]
        assert numbers == [cards["ship"], cards["road"], cards["river"], cards["double"]], letter


# ---------------------------------------------------------------------- rules and commands


def test_rule_topics() -> None:
    for lang in LOCALES:
        listed = [x.strip() for x in t("rules.topics", lang).split(",")]
        assert listed == list(RULE_TOPICS), lang
        for topic in RULE_TOPICS:
            assert len(t(f"rules.{topic}.title", lang)) <= EMBED_TITLE_MAX
            text = t(f"rules.{topic}.text", lang)
            assert len(text) <= RULES_TEXT_MAX, f"{lang} rules.{topic}.text has {len(text)} characters"


def test_rules_keep_the_project_decisions() -> None:
    """Spot checks against shared/rules/README.md: 2 points per bird chip, -2 per volcano building."""
    for lang in LOCALES:
        scoring = t("rules.scoring.text", lang)
        assert "−2" in scoring and ("2 per" in scoring or "2 pro" in scoring or "2 par" in scoring), lang
        assert "3 per" not in t("game.scoring.birds.text", lang)


def test_command_descriptions_fit_discord() -> None:
    for lang in LOCALES:
        for key, text in catalogue(lang).items():
            if key.startswith("commands."):
                assert 1 <= len(text) <= DISCORD_DESCRIPTION_MAX, f"{lang} {key}: {len(text)} characters"


def test_every_subcommand_has_a_description() -> None:
    english = catalogue("en")
    assert "commands.santacruz.description" in english
    for key in english:
        if key.startswith("commands.") and ".option." in key:
            sub = key.split(".")[1]
            assert f"commands.{sub}.description" in english, key


# ---------------------------------------------------------------------- events and moves in words


def random_games() -> list[tuple[list[str], int, bool]]:
    return [(["Ada", "Bo", "Cy", "Di"][:n], seed, draft) for n in (2, 3, 4) for seed in (1, 2) for draft in
            (False, True)]


def check_lines(lines: list[str]) -> None:
    for line in lines:
        assert line.strip()
        assert "{" not in line and "}" not in line, line


@pytest.mark.parametrize(("names", "seed", "draft"), random_games())
def test_every_event_and_move_has_words(names: list[str], seed: int, draft: bool) -> None:
    game = new_game(names, seed, draft=draft)
    rng = random.Random(seed)
    kinds: set[str] = set()
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        move = rng.choice(game.legal_moves())
        events = game.apply(move)
        kinds.update(e["type"] for e in events)
        own_events = game.view(seat)["events"]
        for lang in LOCALES:
            check_lines(describe_events(events, lang, names))
            check_lines(describe_events(own_events, lang, names))
            check_lines(describe_events(events, lang, names, short=True))
            check_lines(describe_events(own_events, lang, names, short=True))
            check_lines([describe_move(str(move), lang, names, seat)])
            to_you = describe_move(str(move), lang, names, seat, you=True)  # the mover's own confirmation
            check_lines([to_you])
            others_pile = move.verb == "pile" and move.pile != seat  # names whose cards; one's own: "your own"
            assert others_pile or not re.search(rf"\b{names[seat]}\b", to_you), to_you
            question = ask_move(move, lang, names, seat)  # asked of the mover, before the move
            check_lines([question])
            assert question.endswith("?"), question
            assert others_pile or not re.search(rf"\b{names[seat]}\b", question), question
    for lang in LOCALES:
        for entry in game.view(None)["log"]:
            check_lines([describe_move(entry["move"], lang, names, entry["seat"])])
    assert {"build", "score", "card", "round_end", "game_over"} <= kinds


def two_turns(reveals: tuple[int, int], *, draws: bool = False) -> list[dict[str, Any]]:
    """Ada's ship card builds a lighthouse on site 7 (2 points, a bird chip) and turns the ``reveals`` face up, in
    that order; Bo's scoring card Eruption costs him 4 points and his church on site 30; then (``draws``) both draw."""
    return [
        {"type": "card", "seat": 0, "card": "ship"},
        {"type": "build", "seat": 0, "site": 7, "building": "lighthouse"},
        {"type": "score", "seat": 0, "delta": 2, "reason": "build"},
        {"type": "bird", "seat": 0, "value": 3},
        *({"type": "reveal", "site": site} for site in reveals),
        {"type": "card", "seat": 1, "card": "eruption", "scoring": True},
        {"type": "score", "seat": 1, "delta": -4, "reason": "eruption"},
        {"type": "destroy", "seat": 1, "site": 30, "building": "church"},
        *([{"type": "draw", "seat": 0}, {"type": "draw", "seat": 1}] if draws else []),
    ]


def test_describe_events_merges_build_points_and_reveals() -> None:
    events = two_turns((8, 9))
    assert describe_events(events, "en", ["Ada", "Bo"]) == [
        "Ada plays a ship card",
        "Ada builds a lighthouse on site 7 (+2)",
        "Ada draws a bird chip worth 3 points (only you see this)",
        "Sites 8 and 9 are turned face up",
        "Bo plays the scoring card “Eruption”",
        "Bo loses 4 points through “Eruption”",
        "Bo loses a church on site 30 in the eruption",
    ]
    assert describe_events(events[1:3], "de", ["Ada"]) == ["Ada baut einen Leuchtturm auf Bauplatz 7 (+2)"]
    assert describe_events(events[1:3], "fr", ["Ada"]) == ["Ada construit un phare sur l’emplacement 7 (+2)"]


def test_short_form_gathers_reveals_destroys_and_points_after_the_actions() -> None:
    events = two_turns((9, 8), draws=True)  # the sites out of order: the short form names them in order
    assert describe_events(events, "en", ["Ada", "Bo"], short=True) == [
        "Ada played a ship card.",
        "Ada built on site 7: Lighthouse.",
        "You took a bird chip worth 3.",
        "Bo played the scoring card Eruption.",
        "Everyone drew a new scoring card.",
        "Sites 8 and 9 turned face up.",
        "The eruption destroyed the buildings on site 30.",
        "Points: Ada +2 and Bo −4.",
    ]


@pytest.mark.parametrize("lang", LOCALES)
@pytest.mark.parametrize("card", ["gold6", "fish-sheep", "birds"])
def test_both_forms_name_a_scoring_card_alike(lang: str, card: str) -> None:
    events = [{"type": "card", "seat": 0, "card": card, "scoring": True}]
    name = t(f"game.scoring.{card}.name", lang)
    (long,) = describe_events(events, lang, ["Ada"])
    (short,) = describe_events(events, lang, ["Ada"], short=True)
    assert name in long
    assert name in short


def test_describe_move() -> None:
    names = ["Ada", "Bo"]
    assert describe_move("ship 7", "en", names, 0) == "Ada plays a ship card and builds on site 7"
    assert describe_move("score gold10", "de", names, 1) == "Bo spielt die Wertungskarte „Gold (10)“"
    # a pile is named by whose cards it holds: its number counts from 0 and would read "the remaining pile 0"
    assert describe_move("pile 0", "fr", names, 1) == "Bo prend les cartes jouées par Ada en manche 1"
    assert describe_move("pile 1", "en", names, 0) == "Ada takes the cards Bo played in round 1"
    # with what the move built, in the channel's words (game.event.build)
    assert (describe_move("land 10", "en", names, 1, built=("lighthouse", 2, False))
            == "Bo lands and builds a lighthouse on site 10 (+2)")
    assert (describe_move("ship 7", "de", names, 0, built=("church", 3, False))
            == "Ada spielt eine Schiffkarte und baut eine Kirche auf Bauplatz 7 (+3)")
    assert (describe_move("build 4", "fr", names, 0, built=("house", 1, False))
            == "Ada construit une maison sur l’emplacement 4 (+1) pendant le double tour")
    assert (describe_move("road 9", "en", names, 0, built=("house", 1, True))
            == "Ada plays a road card and builds a house beside another player’s building on site 9 (share right, +1)")
    assert describe_move("discard", "en", names, 0) == "Ada puts a scoring card back in the box, unseen"


def test_a_move_said_to_its_mover_is_in_the_second_person() -> None:
    names = ["Ada", "Bo"]
    assert (describe_move("land 10", "en", names, 1, built=("lighthouse", 2, False), you=True)
            == "You land and build a lighthouse on site 10 (+2)")
    assert (describe_move("build 4", "de", names, 0, built=("house", 1, True), you=True)
            == "Du setzt ein Haus auf Bauplatz 4 zu einem fremden Gebäude dazu (Dazusetzen, +1) im Doppelzug")
    assert describe_move("score gold10", "fr", names, 1, you=True) == "Tu joues la carte score « Or (10) »"


def test_a_move_asked_of_its_mover_is_in_the_second_person() -> None:
    names = ["Ada", "Bo"]
    assert ask_move("land 12", "en", names) == "Land on site 12?"
    assert ask_move("score gold10", "de", names) == "Die Wertungskarte „Gold (10)“ spielen?"
    assert ask_move("pile 0", "fr", names) == "Prendre les cartes jouées par Ada en manche 1 ?"
    assert ask_move("pile 0", "fr", names, 0) == "Reprendre tes propres cartes de la manche 1 ?"
    assert describe_move("pile 1", "en", names, 1, you=True) == "You take back your own cards from round 1"
    assert describe_move("pile 1", "de", names, 1) == f"{names[1]} nimmt die eigenen Karten aus dem 1. Durchgang zurück"
    assert ask_move("ship", "en", names) == "Play a ship card without building?"
    assert ask_move("double road", "de", names) == "Den Doppelzug spielen, um zweimal wie mit Wegkarten zu bauen?"
    # the whole question before a move that cannot be taken back: one voice, the mover's
    assert (t("bot.confirm.final", "en", question=ask_move("score gold10", "en", names),
              what=t("bot.confirm.what.score", "en", card="Gold (10)", count=5))
            == "Play the scoring card “Gold (10)”? "
               "This cannot be taken back: “Gold (10)” is scored (5 points for you).")


def test_sites_in_a_sentence_are_listed_with_and() -> None:
    assert [listed(sites, "en") for sites in ([12], [12, 14], [3, 7, 12])] == ["12", "12 and 14", "3, 7 and 12"]
    assert listed([17, 21], "de") == "17 und 21" and listed([1, 2, 3], "fr") == "1, 2 et 3"
    reveal = [{"type": "reveal", "site": 17, "tile": 1}, {"type": "reveal", "site": 21, "tile": 2}]
    assert describe_events(reveal, "de", ["Ada"]) == ["Die Bauplätze 17 und 21 werden aufgedeckt"]
    assert (t("bot.confirm.what.reveal", "fr", count=2, sites=listed([17, 21], "fr"))
            == "les emplacements 17 et 21 sont révélés")


def test_a_key_written_twice_in_one_file_is_refused(tmp_path: Path) -> None:
    """``json`` keeps the last of a repeated key without a word; a catalogue says so (an Undo button was named twice,
    differently, in each language's bot.json)."""
    with pytest.raises(ValueError, match=r"bot\.button\.undo"):
        json.loads('{"bot.button.undo": "Rückgängig", "bot.button.undo": "Zurücknehmen"}', object_pairs_hook=_once_each)
    assert json.loads('{"a": 1, "b": 2}', object_pairs_hook=_once_each) == {"a": 1, "b": 2}
