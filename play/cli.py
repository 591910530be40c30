"""``santacruz``: Santa Cruz without Discord — a whole computer game as pictures, or a game in the terminal.

::

    santacruz demo [--players 3] [--seed 1] [--strength greedy] [--out demo-out] [--locale en] [--width 1280]
    santacruz play [--players 3] [--humans 1] [--strength greedy] [--seed N] [--locale en] [--out play-out]
                   [--width 1280]
    santacruz replay FILE [--out replay-out] [--locale en] [--width 1280]

``demo`` plays a whole game between computer players, prints the move log with the scores as it goes,
and writes the board picture after every move, an animated GIF of the whole game, the game-over
picture and the game's web page (``index.html``: the board to zoom, the replay slider, the log; as the bot's
``/g/<token>`` page, without a server) into a folder. ``play`` is a terminal game against computer players (or
hot-seat): each turn writes the player's board picture into a folder and prints the board in words, the moves are
listed in words and picked by number. ``replay`` reads a game record exported with
``/santacruz history export:true`` (names, options, the deal without its seed, the moves) and writes the board picture
after every move, the game-over picture and the animated replay (``replay.gif``) into a folder. ``--width`` is the
board pictures' width in pixels, as the bot's ``PICTURE_WIDTH`` (a player's own picture is three quarters of it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import Game, IllegalMove, View, from_record, new_game, parse_move
from engine.ai import STRENGTHS, choose_move
from engine.ai.coach import DEFAULT_BUDGET, advise
from i18n import LOCALES, ask_move, decimal, describe_events, describe_move, illegal_text, listed, t, tn
from i18n.coach import advice_text
from render.theme import DEFAULT_THEME, WIDTHS, Theme

GIF_WIDTH = 800
"""Frame width of the animated GIF (the board pictures themselves keep their full size)."""


def _names(n: int, humans: int, locale: str) -> list[str]:
    names = []
    for seat in range(n):
        if seat < humans:
            names.append(t("cli.player_name", locale, n=seat + 1))
        else:
            names.append(t("cli.computer_name", locale, n=seat + 1))
    return names


def _scores_line(game: Game, locale: str) -> str:
    """The scores in track order: "1. Computer 2: 12 points · 2. Player 1: 8 points"."""
    view = game.view(None)
    parts = [t("cli.score_entry", locale, rank=p["rank"], name=p["name"], points=tn("game.points", p["score"], locale))
             for p in sorted(view["players"], key=lambda p: p["rank"])]
    return t("cli.scores", locale, scores=" · ".join(parts))


def computer_move(game: Game, seat: int, strength: str, seed: int, budget: float) -> str:
    """A computer player's move, from that seat's view only."""
    return choose_move(game.view(seat), strength=strength, seed=seed, budget=budget)


# ---------------------------------------------------------------------------------------------- demo


def run_demo(players: int, seed: int, strength: str, budget: float, out: Path, locale: str,
             pictures: bool = True, stream: TextIO | None = None, width: int = DEFAULT_THEME.width) -> Game:
    """Play a whole computer game; print its log (to ``stream``, else standard output) and (with ``pictures``) write
    its pictures, ``width`` pixels wide, into ``out``."""
    from bot.web.static_site import write_page
    from render.board import render_board
    from render.gameover import render_game_over
    from render.replay import render_replay

    stream = sys.stdout if stream is None else stream
    theme = Theme(width=width)
    names = [f"{t('cli.computer_name', locale, n=i + 1)}" for i in range(players)]
    game = new_game(names, seed)
    out.mkdir(parents=True, exist_ok=True)
    views: list[View] = []

    def picture(number: int) -> None:
        view = game.view(None)
        (out / f"move-{number:03d}.png").write_bytes(render_board(view, locale=locale, theme=theme))
        views.append(view)

    print(t("cli.demo.start", locale, players=players, seed=seed,
            strength=t(f"commands.choice.strength.{strength}", locale)), file=stream)
    if pictures:
        picture(0)
    number = 0
    started = time.perf_counter()
    while game.to_move is not None:
        seat = game.to_move
        move = computer_move(game, seat, strength, seed * 1000 + number, budget)
        events = game.apply(move)
        number += 1
        lines = describe_events(events, locale, game.names) or [describe_move(move, locale, game.names, seat)]
        progress = t("cli.demo.progress", locale, number=number, round=game.round,
                     seconds=decimal(time.perf_counter() - started, locale))
        print(f"{progress} {lines[0]}", file=stream)
        for line in lines[1:]:
            print(f"      {line}", file=stream)
        print(f"      {_scores_line(game, locale)}", file=stream)
        if pictures:
            picture(number)
    for line in result_lines(game, locale):
        print(line, file=stream)
    if pictures:
        (out / "game-over.png").write_bytes(render_game_over(game.view(None), locale=locale, theme=theme))
        gif = render_replay(views, locale=locale, max_frames=len(views), width=GIF_WIDTH)  # every move a frame
        (out / "game.gif").write_bytes(gif)
        page = write_page(out, views, locale)  # the bot's web page, as files: zoom, the replay slider, the log
        print(t("cli.demo.written", locale, count=number + 1, folder=str(out)), file=stream)
        print(t("cli.demo.page", locale, file=str(page)), file=stream)
    return game


# ---------------------------------------------------------------------------------------------- play


def _tile_words(view: View, site: int, locale: str) -> list[str]:
    """What building on ``site`` gives, as far as the seat sees it: first, marked, the building beside which a build
    would stand (it spends the share right); the building, its points, resources, the fish bonus, the bird chip; a
    face-down site's kind."""
    entry = next(s for s in view["board"]["sites"] if s["id"] == site)
    tile = entry["tile"]
    words = [_SHARE_MARK + t("cli.play.beside", locale, player=view["players"][entry["buildings"][0]["seat"]]["name"])
             ] if entry["buildings"] else []
    if tile is None:
        words.append(t("cli.play.site_face_down", locale, kind=t(f"game.site_kind.{entry['kind']}", locale)))
    else:
        words += [t(f"game.building.{tile['building']}.one", locale), tn("game.points", tile["points"], locale)]
        words += [t(f"game.resource.{r}", locale) for r in tile["resources"]]
        if tile["fish_bonus"]:
            words.append(t("cli.play.fish_bonus", locale, bonus=tile["fish_bonus"]))
        if tile["bird"]:
            words.append(t("game.term.bird_chip.one", locale))
    return words


_SHARE_MARK = "⇄ "
"""Marks a site already built on in the list of moves: building there spends the share right."""


def _shares_with(view: View, move: str) -> str | None:
    """The name of the player beside whose building ``move`` would build (spending the share right), or ``None``."""
    site = parse_move(move).site
    entry = next((s for s in view["board"]["sites"] if s["id"] == site), None)
    if entry is None or not entry["buildings"] or parse_move(move).verb == "land":
        return None
    return view["players"][entry["buildings"][0]["seat"]]["name"]


def move_options(view: View, locale: str) -> list[tuple[str, str]]:
    """The seat's legal moves, each with its words as the player reads them in the list (never the notation):
    "Land on site 5 — Church · 2 points · Sugar · Bird chip", "Play the scoring card “Coast” — now 6 for you, 10
    for Computer 2"."""
    names = [p["name"] for p in view["players"]]
    now = {c["card"]: c for c in view["you"]["cards_now"]}
    options = []
    for move in view["you"]["legal_moves"]:
        parsed = parse_move(move)
        said = ask_move(parsed, locale, names, view["seat"]).rstrip(" ?\u00a0\u202f")
        if parsed.site is not None:
            said += " — " + " · ".join(_tile_words(view, parsed.site, locale))
        elif parsed.verb == "score" and parsed.card in now:
            c = now[str(parsed.card)]
            other, mine = c["other"], tn("game.points", c["points"], locale)
            said += " — " + (t("cli.play.score_now", locale, mine=mine, player=names[other],
                               theirs=tn("game.points", c["other_points"], locale))
                             if other is not None else t("cli.play.score_now_alone", locale, mine=mine))
        options.append((move, said))
    return options


def board_text(view: View, locale: str) -> list[str]:
    """A compact board in words: per player (in turn order) the sites built on with their buildings, the resources
    held, bird chips, scoring cards in hand and those played this round; then how many sites are still face down."""
    by_seat: dict[int, list[str]] = {p["seat"]: [] for p in view["players"]}
    for site in view["board"]["sites"]:
        for b in site["buildings"]:
            building = t(f"game.building.{b['type']}.one", locale)
            by_seat[b["seat"]].append(t("cli.play.site_building", locale, building=building, site=site["id"]))
    lines = [t("cli.play.board", locale)]
    for seat in view["turn_order"]:
        p = view["players"][seat]
        parts = [t("cli.play.built", locale, sites=listed(by_seat[seat], locale)) if by_seat[seat]
                 else t("cli.play.nothing_built", locale)]
        if p["resources"]:
            parts.append(t("cli.play.resources", locale,
                           resources=listed([t(f"game.resource.{r}", locale) for r in p["resources"]], locale)))
        parts.append(tn("cli.play.chips", p["birds"], locale))
        parts.append(tn("cli.play.in_hand", p["scoring_cards_in_hand"], locale))
        if p["played_scoring_cards"]:
            parts.append(t("cli.play.played", locale, cards=listed(
                [t(f"game.scoring.{c}.name", locale) for c in p["played_scoring_cards"]], locale)))
        lines.append("  " + t("cli.play.board_line", locale, name=p["name"], parts=" · ".join(parts)))
    hidden = sum(1 for s in view["board"]["sites"] if s["tile"] is None)
    lines.append("  " + tn("cli.play.face_down", hidden, locale))
    return lines


def _show_turn(game: Game, seat: int, locale: str, stream: TextIO, pictures: Path | None, theme: Theme) -> list[str]:
    """Print the seat's turn (its board picture's path, the board in words, its hand, its moves numbered) and return
    the moves in the listed order."""
    view = game.view(seat)
    me = view["players"][seat]
    you = view["you"]
    print(file=stream)
    print(t("cli.play.turn", locale, player=me["name"], round=view["round"],
            phase=t(f"game.phase.{view['phase']}", locale)), file=stream)
    if pictures is not None:
        from render.board import render_board

        pictures.mkdir(parents=True, exist_ok=True)
        path = pictures / "board.png"
        path.write_bytes(render_board(view, locale=locale, personal=True, theme=theme))
        print("  " + t("cli.play.picture", locale, path=str(path)), file=stream)
    for line in board_text(view, locale):
        print("  " + line, file=stream)
    print("  " + _scores_line(game, locale), file=stream)
    cards = listed([tn(f"game.count.card.{k}", v, locale) for k, v in me["building_cards"].items() if v], locale)
    print("  " + t("cli.play.building_cards", locale, cards=cards or "—"), file=stream)
    scoring = listed([t(f"game.scoring.{c}.name", locale) for c in you["scoring_cards"]], locale)
    print("  " + t("cli.play.scoring_cards", locale, cards=scoring or "—"), file=stream)
    supply = listed([tn(f"game.count.building.{b}", n, locale) for b, n in me["supply"].items()], locale)
    print("  " + t("cli.play.supply", locale, supply=supply), file=stream)
    if you["bird_chips"]:
        print("  " + t("cli.play.birds", locale, chips=listed(you["bird_chips"], locale)), file=stream)
    if view["pending"]:
        print("  " + tn("cli.play.pending", view["pending"]["builds_left"], locale,
                       card=t(f"game.card.{view['pending']['card']}.short", locale)), file=stream)
    print("  " + t("cli.play.legal", locale), file=stream)
    options = move_options(view, locale)
    for number, (_move, said) in enumerate(options, start=1):
        print(f"  {number:>4}  {said}", file=stream)
    return [move for move, _said in options]


def run_play(players: int, humans: int, strength: str, seed: int, budget: float, locale: str,
             ask: Callable[[str], str] = input, stream: TextIO | None = None, *,
             hint_budget: float | None = DEFAULT_BUDGET, hint_iterations: int | None = None,
             pictures: Path | None = None, width: int = DEFAULT_THEME.width) -> Game:
    """A terminal game: ``humans`` hot-seat players (seats 0..humans-1) against computer players.

    Each turn shows the board in words and, with ``pictures`` (a folder), writes the player's own board picture
    (legal sites flagged; ``personal_share`` of ``width``) there as ``board.png`` and names it. The moves are listed
    in words, numbered: the player types a number (or the engine's notation). ``hint`` at the prompt prints the
    coach's advice for the player to move (:mod:`engine.ai.coach`), from that player's view, thinking ``hint_budget``
    seconds (or ``hint_iterations`` playouts), and the numbers of its two moves in the list.
    """
    stream = sys.stdout if stream is None else stream
    theme = Theme(width=width)
    names = _names(players, humans, locale)
    game = new_game(names, seed)
    print(t("cli.play.start", locale, players=players, humans=humans), file=stream)
    number = 0
    last_human: int | None = None
    while game.to_move is not None:
        seat = game.to_move
        if seat >= humans:
            move = computer_move(game, seat, strength, seed * 1000 + number, budget)
            events = game.apply(move)
        else:
            if humans > 1 and last_human != seat:
                ask(t("cli.play.hand_over", locale, player=game.names[seat]))
            last_human = seat
            listed = _show_turn(game, seat, locale, stream, pictures, theme)
            while True:
                text = typed = ask(t("cli.play.prompt", locale)).strip()
                if text.isdigit() and 1 <= int(text) <= len(listed):
                    text = listed[int(text) - 1]
                if text in ("quit", "exit"):
                    print(t("cli.play.bye", locale), file=stream)
                    return game
                if text in ("help", "?", ""):
                    print(t("cli.play.help", locale), file=stream)
                    continue
                if text == "hint":
                    print(t("cli.play.thinking", locale), file=stream)
                    advice = advise(game.view(seat), seed=seed * 1000 + number, budget=hint_budget,
                                    iterations=hint_iterations)
                    print(advice_text(advice, locale, notation=False), file=stream)
                    best = listed.index(advice.best.move) + 1
                    if advice.runner_up is not None:
                        runner = listed.index(advice.runner_up.move) + 1
                        print(t("cli.play.hint_pick", locale, best=best, runner=runner), file=stream)
                    else:
                        print(t("cli.play.hint_pick_only", locale, best=best), file=stream)
                    continue
                owner = _shares_with(game.view(seat), text) if game.is_legal(text) else None
                if owner is not None:  # the share right is spent only when the player says so
                    answer = ask(t("cli.play.share_ask", locale, player=owner, site=parse_move(text).site)).strip()
                    if answer.lower() not in t("cli.play.yes", locale).split(",") and answer != typed:
                        continue
                try:
                    events = game.apply(text)
                except IllegalMove as exc:
                    print(t("cli.play.illegal", locale, reason=illegal_text(exc, locale)), file=stream)
                    continue
                move = text
                break
        number += 1
        for line in describe_events(events, locale, game.names) or [describe_move(move, locale, game.names, seat)]:
            print(f"  {line}", file=stream)
    for line in result_lines(game, locale):
        print(line, file=stream)
    return game


def result_lines(game: Game, locale: str) -> list[str]:
    """A finished game's result: the final ranking with each player's score and bird chips (the events just said
    who won)."""
    view = game.view(None)
    lines = [t("cli.result", locale)]
    for place, seat in enumerate(view["ranking"], start=1):
        p = view["players"][seat]
        chips = p.get("bird_chips") or []
        entry = t("cli.score_entry", locale, rank=place, name=p["name"], points=tn("game.points", p["score"], locale))
        if chips:
            entry += " " + t("cli.result_chips", locale, chips=listed(chips, locale))
        lines.append("  " + entry)
    return lines


# ---------------------------------------------------------------------------------------------- main


# ---------------------------------------------------------------------------------------------- replay

RECORD_FORMAT = "santacruz-game"
"""The ``format`` field of an exported game record."""


class BadRecord(Exception):
    """The file is not a game record this program can replay."""


def read_record(path: Path) -> tuple[dict[str, Any], list[View]]:
    """An exported game record and its public views (the set-up, then after each move)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise BadRecord(f"{path}: not a Santa Cruz game record")
        game = from_record(record["setup"], [])
        views = [game.view(None)]
        for move in record["moves"]:
            game.apply(move["move"])
            views.append(game.view(None))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError, IllegalMove) as exc:
        raise BadRecord(f"{path}: {exc}") from exc
    return record, views


def run_replay(path: Path, out: Path, locale: str, stream: TextIO | None = None,
               width: int = DEFAULT_THEME.width) -> list[View]:
    """Write the pictures of an exported game into ``out``: a board per position and the game over, ``width`` pixels
    wide, and the GIF."""
    from render.board import render_board
    from render.gameover import render_game_over
    from render.replay import render_replay

    _record, views = read_record(path)
    theme = Theme(width=width)
    out.mkdir(parents=True, exist_ok=True)
    for number, view in enumerate(views):
        (out / f"move-{number:03d}.png").write_bytes(render_board(view, locale=locale, theme=theme))
    (out / "game-over.png").write_bytes(render_game_over(views[-1], locale=locale, theme=theme))
    (out / "replay.gif").write_bytes(render_replay(views, locale=locale))
    print(t("cli.replay.written", locale, count=len(views), folder=str(out)), file=stream or sys.stdout)
    return views


def picture_width(text: str) -> int:
    """The ``--width`` option: pixels, in the range the pictures are drawn for (``render.theme.WIDTHS``)."""
    low, high = WIDTHS
    if not text.isdigit() or not low <= int(text) <= high:
        raise argparse.ArgumentTypeError(f"a width in pixels from {low} to {high}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="santacruz", description="Santa Cruz without Discord.")
    width_help = "width of the board pictures in pixels (a player's own: three quarters of it)"
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("demo", "play"):
        p = sub.add_parser(name, help=f"santacruz {name}")
        p.add_argument("--players", type=int, default=3, choices=(2, 3, 4), help="players in the game")
        p.add_argument("--seed", type=int, default=None, help="seed of the game (random when left out)")
        p.add_argument("--strength", choices=STRENGTHS, default="greedy", help="computer strength")
        p.add_argument("--budget", type=float, default=0.5, help="seconds per move for the expert and the master")
        p.add_argument("--locale", choices=LOCALES, default="en", help="language")
        p.add_argument("--width", type=picture_width, default=DEFAULT_THEME.width, help=width_help)
        if name == "demo":
            p.add_argument("--out", type=Path, default=Path("demo-out"), help="folder for the pictures")
            p.add_argument("--no-pictures", action="store_true", help="only print the log")
        else:
            p.add_argument("--humans", type=int, default=1, help="people at this keyboard (hot-seat)")
            p.add_argument("--out", type=Path, default=Path("play-out"),
                           help="folder for the board picture of each turn (board.png)")
            p.add_argument("--no-pictures", action="store_true", help="no board picture, the board in words only")
    replay = sub.add_parser("replay", help="santacruz replay FILE: pictures and a GIF of an exported game")
    replay.add_argument("file", type=Path, help="a game record from /santacruz history export:true")
    replay.add_argument("--out", type=Path, default=Path("replay-out"), help="folder for the pictures")
    replay.add_argument("--locale", choices=LOCALES, default="en", help="language")
    replay.add_argument("--width", type=picture_width, default=DEFAULT_THEME.width, help=width_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "replay":
        try:
            run_replay(args.file, args.out, args.locale, width=args.width)
        except BadRecord as exc:
            print(t("cli.replay.bad_file", args.locale, reason=str(exc)), file=sys.stderr)
            return 2
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    if args.command == "demo":
        run_demo(args.players, seed, args.strength, args.budget, args.out, args.locale, not args.no_pictures,
                 width=args.width)
        return 0
    if not 1 <= args.humans <= args.players:
        print(t("cli.play.bad_humans", args.locale, players=args.players), file=sys.stderr)
        return 2
    try:
        run_play(args.players, args.humans, args.strength, seed, args.budget, args.locale,
                 pictures=None if args.no_pictures else args.out, width=args.width)
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main", "read_record", "run_demo", "run_play", "run_replay"]
