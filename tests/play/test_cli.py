"""The offline front-end: ``santacruz demo`` writes a whole game's pictures, ``santacruz play`` runs in a terminal."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from engine import parse_move
from i18n import listed
from play.cli import build_parser, main, run_demo, run_play
from render.theme import Theme


def test_demo_plays_a_whole_game_and_writes_a_picture_per_move_a_gif_and_the_game_over(tmp_path: Path) -> None:
    """At the narrowest width the bot draws (``--width``): what is checked is that every picture is written, not
    what it shows at full size (the render tests draw the default width)."""
    out = io.StringIO()
    game = run_demo(2, 3, "greedy", 0.05, tmp_path, "en", stream=out, width=800)
    moves = len(game.moves)
    assert game.phase == "over"
    pictures = sorted(tmp_path.glob("move-*.png"))
    assert len(pictures) == moves + 1
    for picture in pictures[::20]:
        with Image.open(picture) as img:
            assert img.format == "PNG" and img.width == 800
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == moves + 1
    with Image.open(tmp_path / "game-over.png") as over:
        assert over.format == "PNG" and over.width == 800
    text = out.getvalue()
    assert "The game is over" in text
    assert text.count("[") >= moves  # a progress line per move
    # the game's web page as files: every position's document in it, each naming its picture (the browser test of
    # such a page is tests/web/test_browser.py)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert str(tmp_path / "index.html") in text and (tmp_path / "page.js").is_file()
    documents = json.loads(page.split('<script type="application/json" id="positions">')[1].split("</script>")[0])
    assert [d["board"]["src"] for d in documents] == [p.name for p in pictures]
    assert 'type="range"' in page and "<script>" not in page


def test_demo_speaks_german(tmp_path: Path) -> None:
    out = io.StringIO()
    run_demo(2, 5, "random", 0.1, tmp_path, "de", pictures=False, stream=out)
    assert "Durchgang" in out.getvalue() and "(Zufällig)" in out.getvalue()
    assert not list(tmp_path.glob("*.png"))


def test_play_in_the_terminal_against_the_computer_with_help_and_a_refused_move() -> None:
    out = io.StringIO()
    asked = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        if len(asked) == 1:
            return "help"
        if len(asked) == 2:
            return "land 999"
        return "1"  # the first move listed

    game = run_play(3, 1, "random", 9, 0.1, "en", ask=ask, stream=out)
    assert game.phase == "over"
    text = out.getvalue()
    assert "Type the number of one of the moves listed" in text
    assert "Not possible: There is no site 999" in text
    assert "The game is over" in text


def test_play_hot_seat_asks_to_pass_the_keyboard_and_quit_leaves() -> None:
    out = io.StringIO()
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return "quit" if prompt.startswith("move") else ""

    game = run_play(2, 2, "random", 1, 0.1, "en", ask=ask, stream=out)
    assert game.phase != "over"
    assert prompts[0].startswith("Pass the keyboard to Player")
    assert "Game left." in out.getvalue()


def test_command_line_checks_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    args = parser.parse_args(["demo", "--players", "4", "--seed", "2", "--no-pictures"])
    assert (args.players, args.seed, args.no_pictures, args.width) == (4, 2, True, Theme().width)
    assert main(["play", "--players", "2", "--humans", "3"]) == 2
    assert parser.parse_args(["replay", "game.json", "--width", "800"]).width == 800
    for width in ("799", "2401", "wide"):
        with pytest.raises(SystemExit):
            parser.parse_args(["demo", "--width", width])
        assert "a width in pixels from 800 to 2400" in capsys.readouterr().err


def test_the_master_plays_a_demo_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One whole game of masters, from the command line, in German (each move thinks 10 ms)."""
    assert build_parser().parse_args(["play", "--strength", "master"]).strength == "master"
    assert main(["demo", "--players", "2", "--seed", "3", "--strength", "master", "--budget", "0.01",
                 "--locale", "de", "--no-pictures", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Santa-Cruz-Demo: 2 Computerspieler (Meister), Startwert 3")
    assert "Das Spiel ist zu Ende" in out and not list(tmp_path.glob("*.png"))


def _listed(turn: str, heading: str = "Your moves (type the number):") -> list[str]:
    """The moves of a turn's list, by number, in words."""
    block = turn.split(heading, 1)[1].splitlines()[1:]
    out = []
    for line in block:
        number, _, said = line.strip().partition("  ")
        if not number.isdigit():
            break
        assert int(number) == len(out) + 1
        out.append(said)
    return out


def test_hint_at_the_prompt_prints_the_coach_s_advice_and_its_move_can_be_played() -> None:
    out = io.StringIO()
    hinted: list[str] = []

    def ask(prompt: str) -> str:
        turn = out.getvalue().rsplit("Your moves (type the number):", 1)[1]
        if "In your list: best move " in turn:  # the hint of this turn: play its move
            number = turn.split("In your list: best move ", 1)[1].split(",")[0].rstrip(".")
            hinted.append(number)
            return number
        if len(hinted) < 4:
            return "hint"
        return "1"

    game = run_play(2, 1, "greedy", 5, 0.1, "en", ask=ask, stream=out, hint_budget=None, hint_iterations=12)
    text = out.getvalue()
    assert game.phase == "over"
    assert "'hint'" in text.splitlines()[0]
    assert text.count("The coach is thinking…") == 4
    assert text.count("Hint for Player 1") == 4
    assert "Runner-up:" in text or "It is your only possible move" in text
    turns = text.split("— Player 1, your turn")[1:5]
    said = [_listed(turn)[int(n) - 1] for turn, n in zip(turns, hinted, strict=True)]
    best = [turn.split("Best move: ", 1)[1].split("\n", 1)[0] for turn in turns]
    played = [move for seat, move in game.moves if seat == 0][:4]
    for words, coach, move in zip(said, best, played, strict=True):  # the number names the coach's move
        site = parse_move(move).site
        assert site is None or (f" {site} " in f"{words} " and f" {site}" in coach), (words, coach, move)


def test_hint_speaks_the_game_s_language() -> None:
    out = io.StringIO()
    answers = iter(["hint", "quit"])
    run_play(3, 1, "random", 2, 0.1, "de", ask=lambda _prompt: next(answers), stream=out, hint_budget=None,
             hint_iterations=8)
    text = out.getvalue()
    assert "Der Trainer denkt nach …" in text
    assert "Tipp für" in text and "Bester Zug:" in text


def test_a_turn_shows_the_board_as_a_picture_and_in_words_and_the_moves_in_words(tmp_path: Path) -> None:
    """Each turn writes the player's own board picture beside (named in one line) and prints a compact board in words
    (each player's buildings, resources, bird chips, cards), a readable score line, and the moves numbered in words
    with what their tile gives, the fish bonus and the bird chip included, never the engine's ids ("score trio", a
    bare "river"); the number plays the move."""
    out = io.StringIO()
    answers = iter(["2", "quit"])
    game = run_play(3, 1, "greedy", 4, 0.1, "en", ask=lambda _prompt: next(answers), stream=out,
                    pictures=tmp_path, width=800)
    text = out.getvalue()
    first = text.split("— Player 1, your turn", 2)[1]
    picture = tmp_path / "board.png"
    assert f"Board picture: {picture} (your legal sites flagged)" in first
    with Image.open(picture) as img:
        assert img.format == "PNG" and img.width == 600  # the seat's own picture: three quarters of --width 800
    assert "On the board:" in first and "sites face down" in first
    for name in ("Player 1", "Computer 2", "Computer 3"):
        assert any(line.strip().startswith(f"{name}: ") and "bird chip" in line and "scoring card" in line
                   for line in first.splitlines()), name
    scores = next(line for line in first.splitlines() if line.strip().startswith("Scores: "))
    assert all(entry.split(". ", 1)[1].split(": ")[1].endswith(("point", "points"))
               for entry in scores.strip().removeprefix("Scores: ").split(" · ")), scores
    listed = _listed(first)
    view_moves = [move for seat, move in game.moves if seat == 0]
    assert listed[1].startswith(f"Land on site {parse_move(view_moves[0]).site} — ")
    assert any("fish bonus +" in said for said in listed) and any("Bird chip" in said for said in listed)
    later = text.split("— Player 1, your turn", 2)[2]
    for said in listed + _listed(later):
        assert not said.startswith(("score ", "river", "road", "ship", "land ", "double", "build ")), said
        assert "?" not in said


def test_every_move_of_a_whole_game_is_listed_in_words(tmp_path: Path) -> None:
    """A whole game played by the first number of each list: every list is words (scoring cards by name with what
    they score now, double moves, cards without a site, the round-2 piles and discards), none an engine id."""
    out = io.StringIO()
    game = run_play(2, 1, "random", 7, 0.05, "de", ask=lambda _prompt: "1", stream=out)
    assert game.phase == "over"
    text = out.getvalue()
    ids = ("score ", "river", "road", "ship", "land ", "double", "build ", "pile ", "discard ", "set ")
    turns = text.split("Deine Züge (gib die Nummer ein):")[1:]
    assert len(turns) == len([1 for seat, _ in game.moves if seat == 0])
    for turn in turns:
        for said in _listed("Deine Züge (gib die Nummer ein):" + turn, "Deine Züge (gib die Nummer ein):"):
            assert not said.startswith(ids) and not said.endswith("?"), said
    assert "jetzt " in text and " für dich" in text  # a scoring card's points now
    assert "Punkte: 1. " in text
    # the hand in words ("Vorrat: 8 Häuser, 3 Kirchen und 2 Leuchttürme"), never "Häuser 8" or "Schiff ×1"
    assert "Vorrat: 8 Häuser, 3 Kirchen und 2 Leuchttürme" in text and "×" not in text
    # the end said once: who won (the events), then the final ranking with each score and the bird chips
    assert text.count("Das Spiel ist zu Ende") == 1
    result = text.split("Endstand:\n", 1)[1].splitlines()
    view = game.view(None)
    for place, (line, seat) in enumerate(zip(result, view["ranking"], strict=True), start=1):
        p = view["players"][seat]
        assert line.strip().startswith(f"{place}. {p['name']}: {p['score']} Punkt"), line
        assert not p["bird_chips"] or line.endswith(f"(Vogelchips {listed(p['bird_chips'], 'de')})"), line


def _sharing_player(out: io.StringIO, asked: list[str]) -> Callable[[str], str]:
    """Player 1 at the keyboard: picks a site already built on whenever one is listed (else the first move) and
    answers the share question "n" the first time, "y" after."""
    answers = iter(["n", "y"])

    def ask(prompt: str) -> str:
        asked.append(prompt)
        if prompt.startswith("Site "):
            return next(answers, "y")
        listed = _listed(out.getvalue().rsplit("— Player 1, your turn", 1)[-1])
        shared = [n for n, said in enumerate(listed, start=1) if "⇄ beside " in said]
        return str(shared[0]) if shared else "1"

    return ask


def test_a_site_already_built_on_is_marked_and_its_share_right_spent_only_when_the_player_says_so() -> None:
    """In the list, a site that holds another player's building says that building there spends the share right;
    choosing it asks first: "n" goes back to the moves (nothing played), "y" builds beside."""
    for seed in range(1, 30):
        out = io.StringIO()
        asked: list[str] = []
        game = run_play(2, 1, "random", seed, 0.05, "en", ask=_sharing_player(out, asked), stream=out)
        shares = [p for p in asked if p.startswith("Site ")]
        if not shares:
            continue
        assert "uses your share right for this round" in shares[0]
        first = asked.index(shares[0])
        assert asked[first + 1] == "move> " and asked[first + 2] == shares[1]  # "n": back to the moves, asked again
        assert any(e["type"] == "build" and e.get("shared") and e["seat"] == 0 for entry in game.log
                   for e in entry["events"])
        return
    raise AssertionError("no game offered player 1 a site already built on")
