"""A scoring card's points now are one answer (``Game.card_now``, carried by the seat's view): the question before
playing it (``bot.host.takeback``), its menu label and autocomplete (the adapter's words) and the coach name the same
points and the same other player, and name nobody when the best other player would score nothing."""

from __future__ import annotations

import random

from bot.adapter.words.moves import score_label, scores_now
from bot.host.takeback import move_risk
from engine import Game, default_island, new_game
from engine.ai.coach import _Explainer
from i18n import t


def _positions(players: int, seed: int) -> list[Game]:
    """Positions of a random game where the seat to move may score a scoring card."""
    game, rng, found = new_game([f"P{i}" for i in range(players)], seed=seed), random.Random(seed), []
    while not game.is_over():
        legal = game.legal_moves()
        if any(m.verb == "score" for m in legal):
            found.append(game.clone())
        game.apply(rng.choice(legal))
    return found


def test_the_question_the_menus_and_the_coach_name_the_same_points_and_player() -> None:
    nobody = somebody = 0
    for players, seed in ((2, 3), (3, 5), (4, 8)):
        for game in _positions(players, seed)[::3]:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            menus = scores_now(view)
            assert [entry["card"] for entry in view["you"]["cards_now"]] == view["you"]["scoring_cards"]
            assert menus == {card: game.card_now(seat, card) for card in view["you"]["scoring_cards"]}
            explainer = _Explainer(view, game, default_island(), 0)
            for move in (m for m in game.legal_moves() if m.verb == "score"):
                card = str(move.card)
                risk = move_risk(game, [str(move)])
                menu = menus[card]
                assert (risk.scores, risk.points, risk.other, risk.other_points) == (
                    card, menu["points"], menu["other"], menu["other_points"])
                (reason, *_), points_now = explainer.reasons(str(move))
                assert points_now == menu["points"]
                other = menu["other"]
                if other is None:
                    nobody += 1
                    assert reason.code == "card_score_alone" and reason["points"] == menu["points"]
                    assert score_label(view, card, "en", menus) == t("bot.score.now_alone", "en", card=t(
                        f"game.scoring.{card}.name", "en"), points=_signed(menu["points"]))
                else:
                    somebody += 1
                    assert reason.code == "card_score"
                    assert (reason["points"], reason["other"], reason["other_points"]) == (
                        menu["points"], other, menu["other_points"])
                    assert view["players"][other]["name"] in score_label(view, card, "en", menus)
    assert nobody and somebody, "both cases occur in these games"


def _signed(number: int) -> str:
    return f"+{number}" if number > 0 else f"−{-number}" if number < 0 else "0"
