"""The offline front-end: ``santacruz demo`` writes a whole game's pictures, ``santacruz play`` runs in a terminal."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from play.cli import build_parser, main, run_demo, run_play


def test_demo_plays_a_whole_game_and_writes_a_picture_per_move_a_gif_and_the_game_over(tmp_path: Path) -> None:
    out = io.StringIO()
    game = run_demo(2, 3, "greedy", 0.05, tmp_path, "en", stream=out)
    moves = len(game.moves)
    assert game.phase == "over"
    pictures = sorted(tmp_path.glob("move-*.png"))
    assert len(pictures) == moves + 1
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == moves + 1
    with Image.open(tmp_path / "game-over.png") as over:
        assert over.format == "PNG"
    text = out.getvalue()
    assert "The game is over" in text
    assert text.count("[") >= moves  # a progress line per move


def test_demo_speaks_german(tmp_path: Path) -> None:
    out = io.StringIO()
    run_demo(2, 5, "random", 0.1, tmp_path, "de", pictures=False, stream=out)
    assert "Durchgang" in out.getvalue()
    assert not list(tmp_path.glob("*.png"))


def test_play_in_the_terminal_against_the_computer_with_help_and_a_refused_move() -> None:
    out = io.StringIO()
    asked = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        text = out.getvalue()
        if len(asked) == 1:
            return "help"
        if len(asked) == 2:
            return "land 999"
        block = text.rsplit("Your moves:", 1)[1].splitlines()
        return block[1].split("(")[0].strip()

    game = run_play(3, 1, "random", 9, 0.1, "en", ask=ask, stream=out)
    assert game.phase == "over"
    text = out.getvalue()
    assert "Type one of the moves listed" in text
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


def test_command_line_checks_its_options(capsys: object) -> None:
    parser = build_parser()
    args = parser.parse_args(["demo", "--players", "4", "--seed", "2", "--no-pictures"])
    assert (args.players, args.seed, args.no_pictures) == (4, 2, True)
    assert main(["play", "--players", "2", "--humans", "3"]) == 2


def test_the_master_plays_a_demo_from_the_command_line(tmp_path: Path, capsys: object) -> None:
    assert build_parser().parse_args(["play", "--strength", "master"]).strength == "master"
    assert main(["demo", "--players", "2", "--seed", "3", "--strength", "master", "--budget", "0.01",
                 "--no-pictures", "--out", str(tmp_path)]) == 0


def test_hint_at_the_prompt_prints_the_coach_s_advice_and_its_move_can_be_played() -> None:
    out = io.StringIO()
    hinted: list[str] = []

    def ask(prompt: str) -> str:
        turn = out.getvalue().rsplit("Your moves:", 1)[1]
        if "Best move: " in turn:  # the hint of this turn: play its move
            move = turn.split("Best move: ", 1)[1].split(" — ", 1)[0]
            hinted.append(move)
            return move
        if len(hinted) < 4:
            return "hint"
        return turn.splitlines()[1].split("(")[0].strip()

    game = run_play(2, 1, "greedy", 5, 0.1, "en", ask=ask, stream=out, hint_budget=None, hint_iterations=12)
    text = out.getvalue()
    assert game.phase == "over"
    assert "'hint'" in text.splitlines()[0]
    assert text.count("The coach is thinking…") == 4
    assert text.count("Hint for Player 1") == 4
    assert "Runner-up:" in text or "It is your only possible move" in text
    assert hinted == [move for seat, move in game.moves if seat == 0][:4]


def test_hint_speaks_the_game_s_language() -> None:
    out = io.StringIO()
    answers = iter(["hint", "quit"])
    run_play(3, 1, "random", 2, 0.1, "de", ask=lambda _prompt: next(answers), stream=out, hint_budget=None,
             hint_iterations=8)
    text = out.getvalue()
    assert "Der Trainer denkt nach …" in text
    assert "Tipp für" in text and "Bester Zug:" in text
