"""``render_game_over``: the final ranking and a chart of every player's score over the game.

Made from the view alone: ``ranking`` and ``players`` for the podium (bird-chip values are public once
the game is over), ``log`` (each entry holds everyone's score after that move) for the chart. Layers:
background; header with the winner; ranking cards; the chart's grid, round boundary, lines (drawn at
twice the size and reduced, so they are smooth) and each line's letter at its end.
"""

from __future__ import annotations

import math
from collections import Counter

from PIL import Image, ImageDraw

from engine.types import PlayerView, View
from i18n import normalize_locale, t
from render.draw import fit, paste, text, text_width
from render.encode import encode
from render.fonts import cap_height, line_height
from render.icons import icon, marker
from render.theme import DEFAULT_THEME, RGB, Theme


def _nice_step(top: int, most: int = 8) -> int:
    """The smallest round step that marks 0 to ``top`` with at most ``most`` steps."""
    for step in (5, 10, 20, 25, 50, 100):
        if top / step <= most:
            return step
    return 200


def _dash_line(d: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], fill: RGB, width: int,
               dash: float) -> None:
    length = math.dist(a, b)
    n = max(1, int(length / dash))
    for i in range(0, n, 2):
        f0, f1 = i / n, min(1.0, (i + 1) / n)
        d.line([(a[0] + (b[0] - a[0]) * f0, a[1] + (b[1] - a[1]) * f0),
                (a[0] + (b[0] - a[0]) * f1, a[1] + (b[1] - a[1]) * f1)], fill=fill, width=width)


COLUMN_MOST = 900
"""The widest the ranking's column grows for the bird chips' line, in units of the 1600-pixel picture (860 at the
least): the chart keeps the rest."""


def compose_game_over(view: View, *, locale: str = "en", theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The game-over picture as an RGB image."""
    locale = normalize_locale(locale)
    W = theme.width
    u = W / 1600
    H = round(900 * u)
    img = Image.new("RGB", (W, H), theme.background)
    d = ImageDraw.Draw(img)
    players = view["players"]
    marks = theme.marks([p["name"] for p in players])
    ranking = list(view.get("ranking") or [p["seat"] for p in players])
    winner = players[ranking[0]]
    # header
    d.rectangle((0, 0, W, round(84 * u)), fill=theme.card)
    bold_line = theme.phone_size(theme.phone_line, "bold")  # the least a bold line is drawn at: a phone's size
    title_size = max(round(36 * u), bold_line)
    text(img, 24 * u, 42 * u, t("render.over.title", locale), title_size, theme.last_move, weight="bold",
         anchor="lm")
    x = 24 * u + text_width(t("render.over.title", locale), title_size, "bold") + 30 * u
    line, size = fit(t("render.over.winner", locale, name=winner["name"], count=winner["score"]), title_size,
                     W - x - 24 * u, "bold", min_size=bold_line)
    text(img, x, 42 * u, line, size, theme.text, weight="bold", anchor="lm")
    # ranking
    left, top = round(20 * u), round(110 * u)
    small = max(round(22 * u), theme.phone_size(theme.phone_line))  # readable on a phone, as the board's words
    log = view.get("log") or []
    # an entry's round is the one after its move: the first entry of round 2 is the move that ended round 1
    round_one = next((e["scores"] for e in log if e.get("round") == 2), None)
    rounds = {} if round_one is None else {p["seat"]: t("render.over.rounds", locale, one=round_one[p["seat"]],
                                                        two=p["score"] - round_one[p["seat"]]
                                                        - sum(p.get("bird_chips") or [])) for p in players}
    # as wide as the rounds' points need at a phone's size, and the chips counted by value up to a width that
    # leaves the chart its room (the sizes round up a little more at some widths than at others)
    counted = [t("render.over.birds", locale, chips=_counted(p.get("bird_chips") or [])) for p in players]
    col_w = round(max([860 * u, min(COLUMN_MOST * u, max(190 * u + text_width(line, small) for line in counted))]
                      + [150 * u + text_width(line, small) for line in rounds.values()]))
    heading = _heading_size(theme)
    text(img, left, top, t("render.over.ranking", locale), heading, theme.text, weight="bold")
    y = top + line_height(heading, "bold") + 4 * u
    row_h = min(round(170 * u), round((H - y - 16 * u) / max(1, len(ranking))))
    nx = left + 130 * u  # where a place's name and lines begin
    chip_lines = _chip_lines(players, locale, small, left + col_w - nx - 60 * u)
    for place, seat in enumerate(ranking, start=1):
        p = players[seat]
        rect = (left, round(y), left + col_w, round(y + row_h - 12 * u))
        d.rounded_rectangle(rect, radius=round(10 * u), fill=theme.card_active if place == 1 else theme.card,
                            outline=theme.last_move if place == 1 else theme.card_edge, width=max(1, round(3 * u)))
        cy = y + 40 * u
        text(img, left + 20 * u, cy, str(place), round(44 * u), theme.last_move if place == 1 else theme.text,
             weight="bold", anchor="lm")
        m = marker(round(48 * u), theme.player(seat), theme.ink(seat), marks[seat], 0, theme.lap_ring)
        paste(img, m, left + 70 * u, cy - m.height / 2)
        score = t("render.over.points", locale, count=p["score"])
        ssize = max(round(32 * u), bold_line)
        text(img, rect[2] - 18 * u, cy, score, ssize, theme.text, weight="bold", anchor="rm")
        name_size = max(round(32 * u), theme.phone_size(theme.phone_text, "bold"))
        name, nsize = fit(p["name"], name_size, rect[2] - 30 * u - text_width(score, ssize, "bold") - nx, "bold",
                          min_size=name_size)
        text(img, nx, cy, name, nsize, theme.text, weight="bold", anchor="lm")
        chips = p.get("bird_chips")
        if chips is not None and row_h > 100 * u:
            chip = icon("chip", round(30 * u), theme)
            cy2 = y + 92 * u
            paste(img, chip, nx, cy2 - chip.height / 2)
            label, lsize = fit(chip_lines[seat], small, rect[2] - nx - 60 * u)
            text(img, nx + 40 * u, cy2, label, lsize, theme.muted, anchor="lm")
        if rounds and row_h > 140 * u:  # the rounds' points and the bird chips add up to the score
            label, lsize = fit(rounds[seat], small, rect[2] - nx - 20 * u)
            text(img, nx, y + 132 * u, label, lsize, theme.muted, anchor="lm")
        y += row_h
    _paint_chart(img, view, theme, locale, marks, (left + col_w + round(40 * u), top, W - round(24 * u),
                                                   H - round(24 * u)))
    return img


def _heading_size(theme: Theme) -> int:
    """The size of the ranking's and the chart's titles: as tall as a line of the ranking on a phone, in bold."""
    return max(round(26 * theme.width / 1600), theme.phone_size(theme.phone_line, "bold"))


def _chip_lines(players: list[PlayerView], locale: str, size: int, width: float) -> dict[int, str]:
    """Each seat's bird chips, named and added up ("Bird chips: 2+3+1 = 6"); where one of them does not fit ``width``
    at ``size`` (a phone's size), counted by value ("Bird chips: 4×3 + 3×2 + 2×1 = 20"), and where even that does
    not fit, their sum alone ("Bird chips: 20"): alike in every row, and always named."""
    chips = {p["seat"]: p.get("bird_chips") or [] for p in players}
    forms = ({seat: _added_up(c) for seat, c in chips.items()}, {seat: _counted(c) for seat, c in chips.items()})
    for form in forms:
        lines = {seat: t("render.over.birds", locale, chips=v) for seat, v in form.items()}
        if all(text_width(line, size) <= width for line in lines.values()):
            return lines
    return {seat: t("render.over.birds", locale, chips=sum(c)) for seat, c in chips.items()}


def _added_up(chips: list[int]) -> str:
    """A seat's bird chips and their sum: "2+3+1 = 6"; one chip is its value alone, none is 0."""
    return "+".join(map(str, chips)) + f" = {sum(chips)}" if len(chips) > 1 else str(sum(chips))


def _counted(chips: list[int]) -> str:
    """A seat's bird chips counted by value, the highest first, and their sum: "4×3 + 3×2 + 2×1 = 20"."""
    if len(chips) < 2:
        return _added_up(chips)
    counts = sorted(Counter(chips).items(), reverse=True)
    return " + ".join(f"{n}×{value}" if n > 1 else str(value) for value, n in counts) + f" = {sum(chips)}"


def _paint_chart(img: Image.Image, view: View, theme: Theme, locale: str, marks: list[str],
                 rect: tuple[int, int, int, int]) -> None:
    u = img.width / 1600
    x0, y0, x1, y1 = rect
    players = view["players"]
    log = view.get("log") or []
    series = [[int(e["scores"][p["seat"]]) for e in log] for p in players]
    n_moves = len(log)
    # the words and numbers are as large as the ranking's lines on a phone; the plot takes the room they leave
    small = max(round(18 * u), theme.phone_size(theme.phone_line))
    heading = _heading_size(theme)
    gap = round(10 * u)
    last_r1 = next((i for i, e in enumerate(log) if e.get("round", 1) == 2), None)  # the move that ended round 1
    divider = last_r1 + 0.5 if last_r1 is not None and n_moves > last_r1 + 1 else None  # where round 2 starts
    cy0 = y0 + round(line_height(heading, "bold")) + gap
    if divider is not None:  # a row for the rounds' names
        cy0 += round(line_height(small)) + gap
    cy1 = y1 - round(line_height(small)) - gap
    top_score = max([10, *(max(s) for s in series if s)])
    low = min([0, *(min(s) for s in series if s)])
    most = max(2, int((cy1 - cy0) / (2.2 * cap_height(small))))  # a number's height and more between two
    step = _nice_step(max(top_score, top_score - low), most)
    top = step * math.ceil(top_score / step)
    bottom = -step * math.ceil(-low / step) if low < 0 else 0
    cx0 = x0 + round(max(text_width(str(v), small) for v in (bottom, top))) + 2 * gap
    cx1 = x1 - round(40 * u)
    k = 2
    big = Image.new("RGB", ((cx1 - cx0 + 40) * k, (cy1 - cy0 + 40) * k), theme.background)
    d = ImageDraw.Draw(big)
    ox, oy = 20 * k, 20 * k
    pw, ph = (cx1 - cx0) * k, (cy1 - cy0) * k

    def px(i: float, v: float) -> tuple[float, float]:
        xs = ox + (i / max(1, n_moves - 1)) * pw
        ys = oy + ph - (v - bottom) / max(1, top - bottom) * ph
        return (xs, ys)

    for v in range(bottom, top + 1, step):
        _x, yv = px(0, v)
        d.line([(ox, yv), (ox + pw, yv)], fill=theme.chart_grid, width=k)
    if divider is not None:  # where round 2 starts
        xb, _y = px(divider, 0)
        _dash_line(d, (xb, oy), (xb, oy + ph), theme.muted, 2 * k, 8 * k)
    order = list(view.get("ranking") or range(len(players)))
    for seat in reversed(order):
        pts = [px(i, v) for i, v in enumerate(series[seat])]
        if len(pts) == 1:
            pts = pts * 2
        if pts:
            dark = sum(theme.player(seat)) < 240  # a dark player's line gets a light edge on the dark chart
            d.line(pts, fill=theme.muted if dark else (12, 14, 20), width=round(9 * u * k), joint="curve")
            d.line(pts, fill=theme.player(seat), width=round(5 * u * k), joint="curve")
    img.paste(big.reduce(k), (cx0 - 20, cy0 - 20))
    title, tsize = fit(t("render.over.chart", locale), heading, x1 - x0, "bold")
    text(img, x0, y0, title, tsize, theme.text, weight="bold")  # over the margin
    # axis labels
    for v in range(bottom, top + 1, step):
        _x, yv = px(0, v)
        text(img, cx0 - gap, cy0 + yv / k - 20, str(v), small, theme.muted, anchor="rm")
    moves, msize = fit(t("render.over.moves", locale), small, cx1 - cx0)
    text(img, (cx0 + cx1) / 2, cy1 + gap, moves, msize, theme.muted, anchor="mt")
    if divider is not None:
        xb = cx0 + px(divider, 0)[0] / k - 20
        y_rounds = cy0 - gap
        one = t("render.over.round", locale, n=1)
        if text_width(one, small) <= xb - cx0 - gap:
            text(img, cx0, y_rounds, one, small, theme.muted, anchor="ls")
        elif text_width(one, small) <= xb - x0 - gap:  # over the axis' numbers, up to the line where round 2 starts
            text(img, xb - gap, y_rounds, one, small, theme.muted, anchor="rs")
        # a round 1 shorter still goes without: the line and round 2 say it
        two, wsize = fit(t("render.over.round", locale, n=2), small, x1 - xb - gap, min_size=small)
        text(img, xb + gap, y_rounds, two, wsize, theme.muted, anchor="ls")
    # each line's letter at its end, nudged apart when ends are close
    ends: list[tuple[float, int]] = []
    for seat in order:
        if series[seat]:
            _xe, ye = px(n_moves - 1, series[seat][-1])
            ends.append((cy0 + ye / k - 20, seat))
    ends.sort()
    size = round(34 * u)
    placed: list[float] = []
    for y, seat in ends:
        if placed and y - placed[-1] < size + 2:
            y = placed[-1] + size + 2
        placed.append(y)
        m = marker(size, theme.player(seat), theme.ink(seat), marks[seat], 0, theme.lap_ring)
        paste(img, m, cx1 + 4 * u, y - m.height / 2)


def render_game_over(view: View, *, locale: str = "en", theme: Theme = DEFAULT_THEME) -> bytes:
    """The game-over picture of ``view`` (public or a seat's; it shows nothing secret) as PNG bytes."""
    return encode(compose_game_over(view, locale=locale, theme=theme), None, theme)
