"""The words of a decision without Discord: counts of cards and buildings in words, what a scoring card
would score now (checked against the engine's own scoring), which card builds where, the time a turn runs out, a
landing in the log in the channel's words (checked move by move against the engine's events over whole games),
piles named by whose cards they hold, no double colon in the double move's question, and the turn DM's account of
the turns since the player's last move within its room; in en, de and fr."""

from __future__ import annotations

import random

import pytest

import engine
from bot.adapter.words.common import phase_text, signed
from bot.adapter.words.dm import building_cards_text, builds_text, dm_text, since_text, supply_text
from bot.adapter.words.moves import (
    cannot_undo_text,
    confirm_question,
    final_question,
    move_label,
    played_text,
    score_label,
    scores_now,
)
from bot.adapter.words.person import game_line
from bot.adapter.words.posts import log_lines, status_text
from bot.host.table import SeatInfo, TableInfo
from bot.host.takeback import move_risk
from bot.host.user_settings import OpenGame
from engine import SINGLE_BUILDS
from engine.log import built as built_by
from i18n import LOCALES, describe_events, describe_move, listed, t, tn
from tests.fakediscord.audit import plural_slips, relative_after_since


def played(seed: int, players: int, *, moves: int | None = None) -> tuple[engine.Game, list[list[dict]]]:
    """A game of random moves (all of it, or ``moves`` of it) and the events of each move."""
    game = engine.new_game(["Ada", "Bo", "Cy", "Di"][:players], seed, draft=seed % 2 == 0)
    rng = random.Random(seed)
    events: list[list[dict]] = []
    while not game.is_over() and (moves is None or len(events) < moves):
        events.append([dict(e) for e in game.apply(rng.choice(game.legal_moves()))])
    return game, events


def in_play(seed: int, *, builds: int = 0) -> engine.Game:
    """A game in its play phase after ``builds`` more random moves of that phase."""
    game = engine.new_game(["Ada", "Bo", "Cy"], seed)
    rng = random.Random(seed)
    while game.phase != "play":
        game.apply(rng.choice(game.legal_moves()))
    for _ in range(builds):
        if game.phase != "play":
            break
        game.apply(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("locale", LOCALES)
def test_cards_and_buildings_are_counted_in_words(locale: str) -> None:
    player = {"building_cards": {"ship": 1, "river": 2, "road": 0, "double": 1},
              "supply": {"house": 8, "church": 1, "lighthouse": 0}}
    cards = building_cards_text(player, locale)  # type: ignore[arg-type]
    supply = supply_text(player, locale)  # type: ignore[arg-type]
    assert cards == listed([tn("game.count.card.ship", 1, locale), tn("game.count.card.river", 2, locale),
                            tn("game.count.card.double", 1, locale)], locale)
    assert supply == listed([tn(f"game.count.building.{b}", n, locale)
                             for b, n in (("house", 8), ("church", 1), ("lighthouse", 0))], locale)
    assert "×" not in cards + supply
    assert plural_slips(cards + ", " + supply, locale) == []
    english = {"en": "1 ship, 2 rivers and 1 double move / 8 houses, 1 church and 0 lighthouses",
               "de": "1 Schiff, 2 Flüsse und 1 Doppelzug / 8 Häuser, 1 Kirche und 0 Leuchttürme",
               "fr": "1 navire, 2 rivières et 1 double tour / 8 maisons, 1 église et 0 phare"}
    assert f"{cards} / {supply}" == english[locale]


def test_scoring_cards_say_what_they_score_now_as_the_engine_counts() -> None:
    seen_points = set()
    for seed in range(8):
        game = in_play(seed, builds=12)
        if game.phase != "play":
            continue
        seat = game.to_move
        view = game.view(seat)
        now = scores_now(view)
        assert set(now) == set(game.hand_scoring[seat])
        for card, entry in now.items():
            points = [game.card_points(p, card) for p in range(game.n)]
            assert entry["points"] == points[seat]
            best = max(points[p] for p in range(game.n) if p != seat)
            assert entry["other"] != seat and entry["other_points"] == best
            assert (entry["other"] is None) == (best == 0), "nobody is named when the best other would score nothing"
            label = score_label(view, card, "en", now)
            other = entry["other"]
            if other is None:
                assert label == f"{t(f'game.scoring.{card}.name', 'en')} · now: you {signed(points[seat])}"
                continue
            assert label == (f"{t(f'game.scoring.{card}.name', 'en')} · now: you {signed(points[seat])}, "
                             f"{view['players'][other]['name']} {signed(entry['other_points'])}")
            seen_points.add(points[seat])
    assert len(seen_points) > 1  # the positions are not all 0 for everyone
    public = in_play(1).view(None)
    assert scores_now(public) == {}
    assert signed(-2) == "−2" and signed(0) == "0" and signed(5) == "+5"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_turn_dm_says_which_card_builds_where(locale: str) -> None:
    game = in_play(4, builds=3)
    view = game.view(game.to_move)
    line = builds_text(view, locale)
    held = view["players"][view["seat"]]["building_cards"]
    legal = [engine.parse_move(m) for m in view["you"]["legal_moves"]]
    for card in SINGLE_BUILDS:
        sites = sorted(m.site for m in legal if m.verb == card and m.site is not None)
        part = f"{t(f'game.card.{card}.short', locale)} " + (listed(sites, locale)
                                                            or t("bot.dm.builds_nowhere", locale))
        assert (part in line) == bool(held.get(card)), (part, line)
    assert line.startswith(t("bot.dm.builds", locale, cards=""))
    assert builds_text(game.view(None), locale) == ""  # the public view: nothing of anyone's cards
    other = game.view((game.to_move + 1) % game.n)  # not its turn: the view does not say
    assert builds_text(other, locale) == ""


def test_the_log_says_a_build_in_the_channels_words_over_whole_games() -> None:
    checked = shares = 0
    for seed, players in ((1, 2), (2, 3), (3, 4), (6, 4)):
        game, events = played(seed, players)
        view = game.view(None)
        names = [p["name"] for p in view["players"]]
        assert len(events) == len(view["log"])
        bullets = [line for line in log_lines(view, "en") if line.startswith("• ")]
        assert len(bullets) == len(view["log"])
        for index, (entry, made) in enumerate(zip(view["log"], events, strict=True)):
            builds = [e for e in made if e["type"] == "build" and e["seat"] == entry["seat"]]
            site = builds[0]["site"] if builds else None
            built = built_by(entry["events"], entry["seat"], site)
            if not builds:
                assert built is None, entry
                continue
            points = next(e["delta"] for e in made if e["type"] == "score" and e["reason"] == "build")
            shared = bool(builds[0].get("shared"))
            assert built == (builds[0]["building"], points, shared), entry
            shares += shared
            # the log line says the build in the channel's words: the same sentence after the player's name
            channel = describe_events(made, "en", names)
            build_line = next(line for line in channel if f"site {builds[0]['site']} (" in line)
            said = bullets[index]
            assert said == "• " + describe_move(entry["move"], "en", names, entry["seat"], built=built)
            assert build_line.removeprefix(names[entry["seat"]] + " ") in said, (build_line, said)
            checked += 1
        lines = "\n".join(log_lines(view, "en"))
        assert " lands on site " not in lines  # every landing builds, and says what
    assert checked > 100 and shares > 0


def test_the_movers_confirmation_says_what_the_move_built() -> None:
    game = in_play(5)
    seat = game.to_move
    move = next(m for m in game.legal_moves() if m.site is not None)
    game.apply(move)
    view = game.view(None)
    names = [p["name"] for p in view["players"]]
    text = played_text(str(move), "en", names, seat, view)
    tile = game.site_tile[move.site]
    assert f"and build {t(f'game.building.{tile.building}.a', 'en')} on site {move.site} (+{tile.points})" in text
    assert text.startswith("Done: You ") and names[seat] not in text  # said to the mover


@pytest.mark.parametrize("locale", LOCALES)
def test_piles_are_named_by_whose_cards_not_by_a_number(locale: str) -> None:
    names = ["Ada", "Bo", "Cy"]
    lines = describe_events([{"type": "pile", "seat": 1, "pile": 2}, {"type": "pile", "seat": 2, "pile": 0,
                                                                       "forced": True}], locale, names)
    assert "Cy" in lines[0] and "Ada" in lines[1]
    assert not any(ch.isdigit() and ch not in "1" for line in lines for ch in line), lines  # "round 1" only
    assert "0" not in "".join(lines)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_double_moves_question_has_one_colon(locale: str) -> None:
    question = confirm_question("double road", locale)
    head = question.split("?")[0]
    assert head.count(":") == 1, question
    assert t("game.card.road.short", locale) in question


@pytest.mark.parametrize("locale", LOCALES)
def test_status_and_games_say_when_the_time_runs_out(locale: str) -> None:
    game = in_play(2)
    seats = tuple(SeatInfo(seat=i, user_id=100 + i, name=n, is_computer=False, strength=None, away=False)
                  for i, n in enumerate(["Ada", "Bo", "Cy"]))
    info = TableInfo(game_id=1, channel_id=5, guild_id=6, status="running", opener_id=100, seats=seats, draft=False,
                     locale=locale, seq=3, to_move=game.to_move, created_at=1000.0, last_move_at=2000.0,
                     deadline_hours=24)
    status = status_text(info, game.view(None), locale, deadline=88400.0)
    assert t("bot.status.deadline", locale, until="<t:88400:R>", at="<t:88400:t>") in status
    assert "⏰" not in status_text(info, game.view(None), locale)
    line = game_line(OpenGame(1, 5, 6, "running", 100, "Ada", False, 2000.0, True), locale, 88400.0)
    assert t("bot.games.deadline", locale, until="<t:88400:R>") in line
    dm = dm_text(info, game.view(game.to_move), locale, turn=True, deadline=88400.0)
    assert t("bot.dm.deadline", locale, until="<t:88400:R>", at="<t:88400:t>") in dm
    for text in (status, line, dm):
        assert relative_after_since(text) == [], text
        assert plural_slips(text, locale) == [], text
    asked = dm_text(info, game.view((game.to_move + 1) % 3), locale, turn=False, asked=True)
    assert asked.startswith(t("bot.dm.your_cards", locale, channel="<#5>", phase=phase_text(game.view(None),
                                                                                                  locale)))


@pytest.mark.parametrize("locale", LOCALES)
def test_spending_the_share_right_is_said_in_the_menu_and_the_question(locale: str) -> None:
    """A site already built on is offered as spending the share right, not as a site "shared" already, and the
    question before such a build says it uses the right for this round."""
    said = 0
    for seed in range(12):
        game = engine.new_game(["Ada", "Bo", "Cy"], seed)
        rng = random.Random(seed)
        while not game.is_over():
            seat = game.to_move
            assert seat is not None
            legal = game.legal_moves()
            view = game.view(seat)
            names = [p["name"] for p in view["players"]]
            for move in legal:
                if move.site is None or move.verb == "land":
                    continue
                risk = move_risk(game, [str(move)])
                owner = game.occupants[move.site][0][0] if game.occupants[move.site] else None
                assert risk.shares == owner
                share = t("bot.confirm.share", locale, player=names[owner]) if owner is not None else None
                question = final_question(str(move), risk, locale, names)
                assert (share is not None and share in question) == (owner is not None), question
                if owner is not None:
                    assert t("bot.site.share", locale, player=names[owner]) in move_label(view, move, locale)
                    said += 1
            game.apply(rng.choice(legal))
    assert said > 5


def test_the_question_before_the_last_move_names_your_bird_chips_apart() -> None:
    """The last move reveals the bird chips: those the mover holds are named with what they add, apart from the card
    (never a chip the move draws: its value is hidden until then)."""
    for seed in range(4):
        game, _ = played(seed, 2 + seed % 3)
        last = engine.new_game(game.names, game.seed, draft=game.draft)
        for _, move in game.moves[:-1]:
            last.apply(move)
        seat, move = game.moves[-1]
        risk = move_risk(last, [move])
        held = last.birds[seat]  # before the move: a chip it draws has a value the mover does not know yet
        assert risk.ends_game and risk.chips == tuple(held)
        text = cannot_undo_text(risk, "en", game.names)
        if held:
            assert f"+{sum(held)} from those you hold ({' + '.join(map(str, held))})" in text, text
        else:
            assert text.endswith(t("bot.confirm.what.game_over", "en")), text


@pytest.mark.parametrize("locale", LOCALES)
def test_the_log_says_each_moves_points_and_the_games_result(locale: str) -> None:
    scored = nobody = 0
    for seed, players in ((3, 4), (6, 3)):
        game, events = played(seed, players)
        view = game.view(None)
        names = [p["name"] for p in view["players"]]
        lines = log_lines(view, locale)
        moves = [line.removeprefix("• ") for line in lines if line.startswith("• ")]
        assert len(moves) == len(view["log"]) == len(events)
        for index, (line, made) in enumerate(zip(moves, events, strict=True)):
            entry = view["log"][index]
            said = describe_move(entry["move"], locale, names, entry["seat"], built=built_by(entry["events"],
                                                                                               entry["seat"]))
            # the points of a scoring card for everyone, as the engine's own events give them, seat by seat (the bird
            # chips shown at the end are said with the result)
            by_card: dict[int, int] = {}
            for e in made:
                if e["type"] == "score" and e["reason"] not in ("build", "bird_chips"):
                    by_card[e["seat"]] = by_card.get(e["seat"], 0) + e["delta"]
            changes = [f"{names[seat]} {signed(delta)}" for seat, delta in sorted(by_card.items()) if delta]
            if changes:
                assert line == t("bot.log.points", locale, move=said, changes=listed(changes, locale)), line
                scored += 1
            elif entry["move"].startswith("score "):
                assert line == t("bot.log.no_points", locale, move=said), line
                nobody += 1
            else:
                assert line == said, line
        # after round 1, its scores; at the end, the result from the engine's ranking
        round_one = next(e["scores"] for i, e in enumerate(view["log"]) if view["log"][i + 1]["round"] == 2
                         and e["round"] == 2)
        best = max(range(players), key=lambda s: (round_one[s], -s))
        assert any(line.startswith(t("bot.log.round_scores", locale, round=1, scores=f"{names[best]} "))
                   for line in lines)
        ranking = game.ranking()
        tail = lines[-players - 2:]
        assert tail[0] == t("bot.post.game_over", locale)
        for place, (line, seat) in enumerate(zip(tail[1:-1], ranking, strict=True), start=1):
            assert line.startswith(f"{place}. {names[seat]}") and tn("game.points", game.score[seat], locale) in line
            assert listed(view["players"][seat]["bird_chips"], locale) in line
        assert tail[-1] == t("bot.log.winner", locale, name=names[ranking[0]])
    assert scored > 10 and nobody > 0


@pytest.mark.parametrize("locale", LOCALES)
def test_status_after_the_game_shows_its_result_not_empty_hands(locale: str) -> None:
    game, _events = played(3, 4)
    seats = tuple(SeatInfo(seat=i, user_id=100 + i, name=n, is_computer=False, strength=None, away=False)
                  for i, n in enumerate(["Ada", "Bo", "Cy", "Di"]))
    info = TableInfo(game_id=1, channel_id=5, guild_id=6, status="finished", opener_id=100, seats=seats, draft=False,
                     locale=locale, seq=99, to_move=None, created_at=1000.0, last_move_at=2000.0)
    status = status_text(info, game.view(None), locale)
    winner = game.names[game.ranking()[0]]
    assert t("bot.log.winner", locale, name=winner) in status and t("bot.post.game_over", locale) in status
    for seat in range(4):
        assert tn("game.points", game.score[seat], locale) in status
    assert tn("bot.count.building_cards", 0, locale) not in status  # no hands left to count
    assert tn("bot.count.scoring_cards", 0, locale) not in status
    assert plural_slips(status, locale) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_what_happened_since_the_last_move_fits_its_room_the_newest_turns_kept(locale: str) -> None:
    """The turn DM's account of the turns since the player's last move: one line per turn in the channel's words,
    within its room (a short one here), the oldest turns giving way to "…" first, the newest always there."""
    game, _ = played(5, 4)
    final = game
    cut = 0
    for moves in range(8, len(final.log), 3):
        position = final.at(moves)
        seat = position.to_move
        assert seat is not None
        view = position.view(seat, since=True)
        turns = view["you"]["since"]["turns"]
        text = since_text(view, locale, limit=300)
        said = [" · ".join(describe_events(turn["events"], locale, [p["name"] for p in view["players"]]))
                for turn in turns]
        said = [line for line in said if line]
        if not said:
            continue
        lines = text.splitlines()
        notes = [line for line in lines if not any(line == f"• {turn}" for turn in said)][1:]
        assert lines[0] == t("bot.dm.since", locale) and len(text) <= max(300, len(lines[0]) + len(said[-1]) + 9
                                                                          + sum(len(n) + 1 for n in notes))
        assert f"• {said[-1]}" in lines  # the newest turn is always said
        if lines[1] == "• …":
            cut += 1
        else:
            assert [f"• {line}" for line in said] == lines[1:len(said) + 1]  # every turn, in order
    assert cut > 0
