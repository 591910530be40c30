"""Ratings as players see them: a familiar scale from 1000 that never goes negative, "provisional" during the first
rated games, a one-line meaning under the stats, and counts in their plural forms (``bot.adapter.words.archive``)."""

from __future__ import annotations

from bot.adapter.words.archive import leaderboard_text, stats_text
from bot.host.ratings import (
    PROVISIONAL_GAMES,
    BoardRow,
    Leaderboard,
    PlayerStats,
    Rating,
    ShareByPlayers,
    displayed,
    new_rating,
    player_stats,
    rate,
)


def one_game_stats(rating: Rating | None) -> PlayerStats:
    return PlayerStats(user_id=1, name="Ada", games=1, wins=1, by_players=[ShareByPlayers(2, 1, 1)],
                       average_score=61.0, best_score=61, average_rank=1.0, favourite_card="birds",
                       profitable_card="birds", bird_chips=1, games_with_computers=0,
                       ratings={"humans": rating} if rating else {}, rating_history=[], scores=[61])


def test_a_newcomer_shows_1000_and_no_rating_is_negative() -> None:
    assert new_rating().shown == 1000 == displayed(0.0)
    assert displayed(-40.0) == 0 and displayed(-25.0) == 0 and displayed(-24.9) == 4
    assert [displayed(o) for o in (-3.0, 0.0, 2.5, 20.0)] == [880, 1000, 1100, 1800]


def test_after_a_first_game_the_loser_is_below_1000_and_the_winner_above() -> None:
    winner, loser = rate([new_rating(), new_rating()])
    assert loser.ordinal < 0 < winner.ordinal  # what is stored can go negative …
    assert 0 < loser.shown < 1000 < winner.shown  # … what is shown cannot
    assert winner.provisional and loser.provisional and not Rating(25.0, 2.0, PROVISIONAL_GAMES).provisional


def test_the_history_line_is_on_the_shown_scale() -> None:
    rows = [{"name": "Ada", "rank": 1, "players": 2, "score": 61, "scoring_cards": {}, "bird_chips": 0,
             "with_computers": 0}]
    stats = player_stats(1, rows, {"humans": Rating(26.0, 8.0, 1)}, [-1.5, 2.0])
    assert stats is not None and stats.rating_history == [940.0, 1080.0]


def test_the_stats_explain_a_provisional_rating_and_count_in_words() -> None:
    rating = Rating(27.0, 8.0, 1)  # ordinal 3: 1120
    english = stats_text(one_game_stats(rating), "en")
    assert "Rating: **1120** (provisional) after 1 rated game" in english
    assert "2 players: 1 of 1 won (100%)" in english and "Bird chips: 1 point in all" in english
    assert "everyone starts at 1000" in english and f"first {PROVISIONAL_GAMES} rated games" in english
    assert "Favourite scoring card: Bird scoring" in english
    french = stats_text(one_game_stats(rating), "fr")
    assert "Cote : **1120** (provisoire) après 1 partie classée" in french and "1 sur 1 gagnée (100\u00a0%)" in french
    assert "Wertungszahl: **1120** (vorläufig) nach 1 gewerteten Spiel" in stats_text(one_game_stats(rating), "de")
    settled = stats_text(one_game_stats(Rating(27.0, 2.0, 12)), "en")
    assert "Rating: **1840** after 12 rated games" in settled and "(provisional)" not in settled.splitlines()[-2]
    unrated = stats_text(one_game_stats(None), "en")
    assert "Rating: none yet" in unrated and "everyone starts at 1000" in unrated


def test_leaderboard_rows_count_in_words_and_mark_provisional_ratings() -> None:
    rows = [BoardRow(place=1, user_id=1, name="Ada", rating=1120, rated_games=1, wins=1, games=1),
            BoardRow(place=2, user_id=2, name="Bo", rating=1510, rated_games=9, wins=4, games=9),
            BoardRow(place=3, user_id=3, name="Cy", rating=None, rated_games=0, wins=0, games=2)]
    board = Leaderboard(by="rating", page=0, pages=1, rows=rows, own=None)
    lines = leaderboard_text(board, 2, "en").splitlines()
    assert lines[1:] == ["1. Ada: rating 1120 (provisional), 1 win, 1 game", "**2. Bo: rating 1510, 4 wins, 9 games**",
                         "3. Cy: rating –, 0 wins, 2 games"]
    assert leaderboard_text(board, 2, "fr").splitlines()[1] == "1. Ada : cote 1120 (provisoire), 1 victoire, 1 partie"
    assert leaderboard_text(board, 2, "de").splitlines()[2] == "**2. Bo: Wertungszahl 1510, 4 Siege, 9 Spiele**"
