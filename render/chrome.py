"""Everything around the island: header, last-move bar, player panel, score track, legend, personal strip.

``paint_static`` draws the parts that never change (frames, track cells, legend) into the base image;
the ``paint_*`` functions draw a view's changing parts on a copy of it. All words come from the
``render.*`` message catalogue.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine import BUILDING_CARDS, BUILDINGS, RESOURCES
from engine.types import PlayerView, View
from i18n import listed, t, tn
from render import script
from render.draw import fit, paste, shape_points, sprite, text, text_width, words, wrap
from render.fonts import ascent, cap_height, font
from render.icons import icon, marker, marker_width, piece
from render.layout import (
    CARD_PAD,
    LINE_SPACING,
    PLAYED_LINES,
    TRACK_ROWS,
    YOU_LINES,
    YOU_PAD,
    CardGeometry,
    Layout,
    Rect,
    header_bands,
    header_lines,
    track_bands,
    track_title_lines,
)
from render.theme import RGB, Theme
from render.tiles import back, badge, dashed_outline, face, pad_of, ring

TRACK_CELLS = 50


def _rrect(img: Image.Image, rect: Rect, fill: RGB, radius: int, outline: RGB | None = None, width: int = 0) -> None:
    ImageDraw.Draw(img).rounded_rectangle(rect, radius=radius, fill=fill, outline=outline, width=width)


@lru_cache(maxsize=256)
def faded(name: str, size: int, theme: Theme) -> Image.Image:
    """An icon at a third of its opacity (a resource not held)."""
    im = icon(name, size, theme).copy()
    im.putalpha(im.getchannel("A").point(lambda a: a * 30 // 100))
    return im


# ---------------------------------------------------------------- static parts


def paint_static(img: Image.Image, lay: Layout, theme: Theme, locale: str, n_players: int, personal: bool) -> None:
    """Frames, empty cards and the score track's cells (the legend is a picture of its own: ``render.legend``)."""
    u = lay.unit
    r = round(10 * u)
    _rrect(img, lay.last_move, theme.card, r)
    _rrect(img, lay.played, theme.card, r)
    if lay.you is not None:
        _rrect(img, lay.you, theme.card, r, outline=theme.legal, width=max(2, round(3 * u)))
    _paint_track_static(img, lay, theme, locale)


def track_cells(lay: Layout) -> list[Rect]:
    """The 50 cells of the score track, 0 to 49, in two rows."""
    x0, y0, x1, y1 = lay.track
    title_h, _number_h = track_bands(lay.unit, lay.line_size, x1 - x0)
    per_row = TRACK_CELLS // TRACK_ROWS
    cw = (x1 - x0) / per_row
    ch = (y1 - y0 - title_h) / TRACK_ROWS
    cells = []
    for v in range(TRACK_CELLS):
        row, col = divmod(v, per_row)
        cells.append((round(x0 + col * cw), round(y0 + title_h + row * ch), round(x0 + (col + 1) * cw) - 2,
                      round(y0 + title_h + (row + 1) * ch) - 2))
    return cells


def _paint_track_static(img: Image.Image, lay: Layout, theme: Theme, locale: str) -> None:
    """The score track's title, what a ring means, and its numbered cells, all at the last move's size (readable on
    a phone); the fives in bold."""
    u = lay.unit
    size = lay.line_size
    x0, y0, x1, _y1 = lay.track
    lines = track_title_lines(u, size, x1 - x0)
    step = LINE_SPACING * size
    cy = y0 + 2 * u + step / 2
    title = t("render.track.title", locale)
    text(img, x0 + 4 * u, cy, title, size, theme.text, weight="bold", anchor="lm")
    lap = icon("lap", round(size * 1.1), theme)
    hx = x0 + 4 * u + text_width(title, size, "bold") + 20 * u
    if lines > 1:  # what a ring means on a line of its own
        hx, cy = x0 + 4 * u, cy + step
    paste(img, lap, hx, cy - lap.height / 2)
    text(img, hx + lap.width + 8 * u, cy, t("render.track.hint", locale), size, theme.muted, anchor="lm")
    d = ImageDraw.Draw(img)
    for v, (cx0, cy0, cx1, cy1) in enumerate(track_cells(lay)):
        fill = theme.track_cell if (v // 5) % 2 == 0 else theme.track_cell_alt
        d.rounded_rectangle((cx0, cy0, cx1, cy1), radius=round(5 * u), fill=fill)
        if v % 5 == 0:  # the fives only, at a size a phone shows: the cells' shades group the others by five
            text(img, cx0 + 4 * u, cy0 + 2 * u, str(v), size, theme.text, weight="bold")


@lru_cache(maxsize=32)
def _legend_sample(name: str, size: int, theme: Theme) -> Image.Image:
    """A legend picture that is not a plain icon: site shapes, road, river, fish bonus, marks."""
    w, h = round(size * 1.45), size
    if name == "back":
        return back("land", w, h, theme).crop(_trim(h))
    if name == "last":
        im = ring("land", w, h, theme.last_move, 0.14).copy()
        spr = back("land", w, h, theme)
        im.paste(spr, (0, 0), spr)
        return im.crop(_trim(h, 0.7))
    if name == "revealed":
        im = face("land", ("house", 2, (), 0, False), w, h, theme).copy()
        dash = dashed_outline("land", w, h, theme.reveal)
        im.paste(dash, (0, 0), dash)
        return im.crop(_trim(h, 0.7))

    def paint(d: ImageDraw.ImageDraw, k: int) -> None:
        W, H = w * k, h * k
        if name in ("coast", "land", "volcano"):
            pts = shape_points(name, W / 2, H / 2, W - 2 * k, H - 2 * k)
            fill = {"coast": theme.tile_coast, "volcano": theme.tile_volcano}.get(name, theme.tile_land)
            d.polygon(pts, fill=fill, outline=theme.tile_edge, width=max(2, round(h * 0.06)) * k)
        elif name == "road":
            d.line([(0, H * 0.6), (W, H * 0.4)], fill=theme.road_edge, width=round(H * 0.28))
            d.line([(0, H * 0.6), (W, H * 0.4)], fill=theme.road, width=round(H * 0.18))
        elif name == "river":
            pts = [(W * i / 20, H * 0.5 + H * 0.18 * math.sin(i / 20 * 4 * math.pi)) for i in range(21)]
            d.line(pts, fill=(20, 70, 140), width=round(H * 0.34), joint="curve")
            d.line(pts, fill=theme.river, width=round(H * 0.24), joint="curve")
            d.line(pts, fill=theme.river_light, width=max(1, round(H * 0.06)), joint="curve")
        elif name == "bonus":
            d.text((W / 2, H / 2), "+2", font=font(round(H * 0.8), "bold"), fill=theme.fish_bonus, anchor="mm")

    return sprite(w, h, paint)


def _trim(h: int, extra: float = 0.0) -> tuple[int, int, int, int]:
    pad = pad_of(h)
    e = round(extra * pad)
    w = round(h * 1.45)
    return (pad - e, pad - e, pad + w + e, pad + h + e)


def legend_entries(personal: bool) -> list[tuple[str, str]]:
    """(picture, catalogue key) of every legend entry, in order."""
    entries = [
        ("coast", "render.legend.coast"), ("land", "render.legend.land"), ("volcano", "render.legend.volcano"),
        ("back", "render.legend.back"), ("road", "render.legend.road"), ("river", "render.legend.river"),
        ("house", "render.legend.house"), ("church", "render.legend.church"),
        ("lighthouse", "render.legend.lighthouse"), ("points", "render.legend.points"),
        ("bonus", "render.legend.fish_bonus"), ("bird", "render.legend.bird"),
        ("fish", "render.resource.fish"), ("sheep", "render.resource.sheep"), ("wood", "render.resource.wood"),
        ("sugar", "render.resource.sugar"), ("gold", "render.resource.gold"), ("tick", "render.legend.held"),
        ("ship", "render.legend.ship"), ("river_card", "render.legend.river_card"),
        ("road_card", "render.legend.road_card"), ("double", "render.legend.double"),
        ("scoring", "render.legend.scoring"), ("chip", "render.legend.chips"),
        ("last", "render.legend.last"), ("revealed", "render.legend.revealed"),
        ("destroy", "render.legend.destroyed"),
    ]
    if personal:
        entries.append(("flag", "render.legend.legal"))
    return entries


def legend_picture(name: str, size: int, theme: Theme) -> Image.Image:
    """The picture of legend entry ``name`` (see :func:`legend_entries`), ``size`` pixels high."""
    if name in ("coast", "land", "volcano", "back", "road", "river", "bonus", "last", "revealed"):
        return _legend_sample(name, size, theme)
    return icon({"river_card": "river", "road_card": "road"}.get(name, name), size, theme)


# ---------------------------------------------------------------- changing parts


def paint_header(img: Image.Image, lay: Layout, view: View, theme: Theme, locale: str,
                 marks: list[str]) -> None:
    """Two lines, readable on a phone: whose turn it is, and on the right what is left of the scoring deck and the
    bird chips; below, the round and the phase (at the last move's size)."""
    u = lay.unit
    x0, y0, x1, _y1 = lay.header
    pad = 16 * u
    top_h, _band = header_bands(u, lay.name_size, lay.line_size, x1 - x0)
    line = LINE_SPACING * lay.line_size
    cy = y0 + top_h / 2 + 3 * u
    size = lay.line_size
    room = x1 - x0 - 2 * pad
    if view.get("phase") != "over":  # what is left of the scoring deck and the bird chips, as the panel counts them
        isz = round(size * 1.2)
        x = x1 - pad
        for name, n in (("chip", view.get("bird_chips_left", 0)), ("scoring", view.get("scoring_deck", 0))):
            label = str(n)
            x -= text_width(label, size, "bold")
            text(img, x, cy, label, size, theme.muted, weight="bold", anchor="lm")
            x -= isz + 4 * u
            paste(img, icon(name, isz, theme), x, cy - isz / 2)
            x -= 18 * u
        room = x - (x0 + pad)
    phase = view.get("phase", "play")
    below = f"{t('render.round', locale, n=view.get('round', 1))} · {t(f'render.phase.{phase}', locale)}"
    lines = wrap(below, size, x1 - x0 - 2 * pad, "bold")[:header_lines(u, size, x1 - x0)]
    for i, said in enumerate(lines):
        said, _ = fit(said, size, x1 - x0 - 2 * pad, "bold", min_size=size)
        text(img, x0 + pad, y0 + top_h + (i + 0.5) * line, said, size, theme.text, weight="bold", anchor="lm")
    seat = view.get("to_move")
    winner = view.get("winner")
    if seat is None and winner is None:
        return
    who = seat if seat is not None else winner
    assert who is not None
    player = view["players"][who]
    tsize = lay.name_size
    x = x0 + pad
    m = marker(max(round(36 * u), round(tsize * 0.95)), theme.player(who), theme.ink(who), marks[who], 0,
               theme.lap_ring)
    tri = icon("turn" if seat is not None else "tick", round(26 * u), theme)
    paste(img, tri, x, cy - tri.height / 2)
    paste(img, m, x + 30 * u, cy - m.height / 2)
    tx = x + 30 * u + m.width + 10 * u
    if seat is not None:
        label, lsize = turn_label(player["name"], locale, tsize, x0 + pad + room - tx)
    else:
        label, lsize = winner_label(player["name"], player["score"], locale, tsize, x0 + pad + room - tx)
    text(img, tx, cy, label, lsize, theme.text, weight="bold", anchor="lm")


def winner_label(name: str, score: int, locale: str, size: int, width: float) -> tuple[str, int]:
    """Who won, in the header of the game over's board: "Fuchs wins with 87 points!" where it fits ``width`` whole
    (bold, at ``size``), else the name alone (the tick before it and the card's "#1" say the rest), cut only if the
    name itself is too long."""
    label, fitted = "", size
    for said in (t("render.over.winner", locale, name=name, count=score), name):
        label, fitted = fit(said, size, width, "bold", min_size=size)
        if label == said:
            break
    return label, fitted


def turn_label(name: str, locale: str, size: int, width: float) -> tuple[str, int]:
    """Whose turn it is in the header, in the words that fit ``width`` whole (bold, at ``size``): "Fuchs ist am
    Zug", else "Fuchs am Zug", else the name alone (the ▶ before it says whose turn it is), cut only if the name
    itself is too long; never "Fuchs ist a…"."""
    label, fitted = "", size
    for said in (t("render.to_move", locale, name=name), t("render.to_move_compact", locale, name=name), name):
        label, fitted = fit(said, size, width, "bold", min_size=size)
        if label == said:
            break
    return label, fitted


def paint_last_move(img: Image.Image, lay: Layout, sentences: list[str], theme: Theme, locale: str,
                    label_key: str = "render.last_move") -> None:
    u = lay.unit
    x0, y0, x1, y1 = lay.last_move
    label = t(label_key, locale)
    size = lay.line_size
    lx = x0 + 14 * u
    text(img, lx, y0 + 12 * u, label, size, theme.last_move, weight="bold")
    max_lines = max(1, int(((y1 - y0) - 16 * u) // (size * LINE_SPACING)))
    tx, top = lx + text_width(label, size, "bold") + 12 * u, 0
    body = " ".join(sentences)
    if tx - x0 > (x1 - x0) / 3 and max_lines > 3:  # a long label ("Since your last move:") over words of the full width
        tx, top = lx, 1
    lines = _cut(wrap(body, size, x1 - tx - 14 * u), max_lines - top, size, x1 - tx - 14 * u)
    for i, line in enumerate(lines, start=top):
        words(img, tx, y0 + 12 * u + i * size * LINE_SPACING + ascent(size), line, size, theme.text)


def paint_played(img: Image.Image, lay: Layout, view: View, theme: Theme, locale: str, marks: list[str]) -> None:
    """The scoring cards played this round, each player's after their marker ("Ⓐ Coast, Gold  Ⓑ Volcano eruption"),
    the eruption card in the colour of losses so that whether it is out shows at a glance; at the last move's size,
    on :data:`render.layout.PLAYED_LINES` lines, ending in "…" where a long round's cards do not fit."""
    u = lay.unit
    x0, y0, x1, _y1 = lay.played
    size = lay.line_size
    label = t("render.played.title", locale)
    lx = x0 + 14 * u
    top = y0 + 10 * u + ascent(size)
    words(img, lx, top, label, size, theme.muted, weight="bold")
    start = lx + text_width(label, size, "bold") + 12 * u
    right = x1 - 14 * u
    space = text_width(" ", size)
    tokens: list[tuple[int | None, str, RGB]] = []  # (a seat's marker, or None: a word), the word, its colour
    for player in view.get("turn_order") or range(len(view["players"])):
        cards = view["players"][player].get("played_scoring_cards", [])
        for i, card in enumerate(cards):
            colour = theme.bad if card == "eruption" else theme.text
            name = t(f"game.scoring.{card}.name", locale) + ("," if i < len(cards) - 1 else "")
            for j, word in enumerate(name.split(" ")):
                tokens.append((player if i == 0 and j == 0 else None, word, colour))
    if not tokens:
        tokens = [(None, word, theme.muted) for word in t("render.played.none", locale).split(" ")]
    disc = round(size * 1.05)
    x, line = start, 0
    for seat, word, colour in tokens:
        lead = disc + 8 * u if seat is not None else 0.0
        gap = 24 * u if seat is not None and x > start else 0.0
        width = gap + lead + text_width(word, size)
        if x > start and x + width > right:  # the next line, or "…" where there is none
            if line + 1 >= PLAYED_LINES:
                text(img, min(x, right - text_width("…", size)), top + line * size * LINE_SPACING, "…", size,
                     theme.muted, anchor="ls")
                return
            x, line, gap = x0 + 14 * u, line + 1, 0.0
        y = top + line * size * LINE_SPACING
        x += gap
        if seat is not None:
            m = marker(disc, theme.player(seat), theme.ink(seat), marks[seat], 0, theme.lap_ring)
            paste(img, m, x, y - cap_height(size) / 2 - m.height / 2)
            x += lead
        text(img, x, y, word, size, colour, anchor="ls")
        x += text_width(word, size) + space


def _count(img: Image.Image, x: float, cy: float, pic: Image.Image, n: int | str, size: int, colour: RGB,
           u: float) -> float:
    """An icon followed by a number; returns the x after it."""
    paste(img, pic, x, cy - pic.height / 2)
    x += pic.width + 4 * u
    label = str(n)
    text(img, x, cy, label, size, colour, weight="bold", anchor="lm")
    return x + text_width(label, size, "bold") + 12 * u


CardState = tuple[Any, ...]


def card_state(p: PlayerView, active: bool, mark: str) -> CardState:
    """Everything a player's card shows except the last move's points, as a hashable key."""
    supply = p.get("supply", {})
    cards = p.get("building_cards", {})
    return (p["seat"], p["name"], mark, p["score"], p["rank"], p.get("laps", 0), p.get("track", 0), active,
            bool(p.get("can_share")), tuple(supply.get(b, 0) for b in BUILDINGS),
            tuple(cards.get(c, 0) for c in BUILDING_CARDS), p.get("scoring_cards_in_hand", 0), p.get("birds", 0),
            tuple(r in p.get("resources", []) for r in RESOURCES))


@lru_cache(maxsize=128)
def _row(groups: tuple[tuple[str, tuple[int, ...]], ...], width: int, geo: CardGeometry, bg: RGB, theme: Theme,
         u: float) -> Image.Image:
    """One icon row of a card, on the card's colour: its groups (``supply``, ``hand``, ``cards``, ``resources``)
    with their values, one after the other."""
    img = Image.new("RGB", (width, geo.row_h), bg)
    cy = geo.row_h / 2
    isz, num = geo.icon_size, geo.count_size
    x = 0.0
    for kind, values in groups:
        if x:  # a little more room between two groups than between their counts
            x += 6 * u
        if kind == "supply":  # buildings in supply
            for b, n in zip(BUILDINGS, values, strict=True):
                x = _count(img, x, cy, icon(b, isz, theme) if n else faded(b, isz, theme), n, num,
                           theme.text if n else theme.faded, u)
        elif kind == "hand":  # scoring cards in hand, bird chips
            x = _count(img, x, cy, icon("scoring", isz, theme), values[0], num, theme.text, u)
            x = _count(img, x, cy, icon("chip", isz, theme), values[1], num, theme.text, u)
        elif kind == "cards":  # building cards left
            for c, n in zip(BUILDING_CARDS, values, strict=True):
                x = _count(img, x, cy, icon(c, isz, theme) if n else faded(c, isz, theme), n, num,
                           theme.text if n else theme.faded, u)
        else:  # resources held (ticked) and not held (faded)
            tick = icon("tick", round(isz * 0.6), theme)
            for r, has in zip(RESOURCES, values, strict=True):
                if has:
                    paste(img, icon(r, isz, theme), x, cy - isz / 2)
                    paste(img, tick, x + isz - tick.width * 0.45, cy + isz / 2 - tick.height * 0.8)
                else:
                    paste(img, faded(r, isz, theme), x, cy - isz / 2)
                x += isz + 8 * u
    return img


@lru_cache(maxsize=64)
def card_image(state: CardState, size: tuple[int, int], theme: Theme, locale: str, u: float,
               name_size: int, geo: CardGeometry) -> Image.Image:
    """A player's card: name, score and rank, supply, cards, chips, resources; lit up when to move."""
    (seat, pname, mark, score, rank, laps, track, active, can_share, supply, cards, in_hand, birds,
     held) = state
    W, H = size
    img = Image.new("RGB", size, theme.background)
    d = ImageDraw.Draw(img)
    bg = theme.card_active if active else theme.card
    d.rounded_rectangle((0, 0, W - 1, H - 1), radius=round(10 * u), fill=bg,
                        outline=theme.last_move if active else theme.card_edge,
                        width=max(2, round(4 * u)) if active else max(1, round(1.5 * u)))
    pad = CARD_PAD * u
    # row 1: marker and name, the whole width
    m = marker(round(44 * u), theme.player(seat), theme.ink(seat), mark, 0, theme.lap_ring)
    paste(img, m, pad, pad)
    cy = pad + 22 * u
    nx = pad + m.width + 10 * u
    name, nsize = fit(pname, name_size, W - pad - nx, "bold", min_size=name_size)
    top = script.bbox(name, nsize, "bold", "lm")[1]  # a script taller than the marker (Arabic) stays inside
    text(img, nx, max(cy, 2 - top), name, nsize, theme.text, weight="bold", anchor="lm")
    # row 2: score, rank, laps, turn and share tags (the move's points go on the right, drawn per picture)
    cy = geo.rank_y
    small = geo.count_size
    label = str(score)
    text(img, pad, cy, label, geo.score_size, theme.text, weight="bold", anchor="lm")
    x = pad + text_width(label, geo.score_size, "bold") + 12 * u
    label = t("render.rank", locale, rank=rank)
    text(img, x, cy, label, small, theme.last_move if rank == 1 else theme.muted, weight="bold", anchor="lm")
    beside_rank = geo.tags_y == geo.rank_y  # else the tags have a line of their own, the card's width
    x = x + text_width(label, small, "bold") + 10 * u if beside_rank else pad
    cy = geo.tags_y
    limit = W - pad - (text_width("+88", small, "bold") + 8 * u if beside_rank else 0)  # room for the points
    tags = []  # most telling first: the share right is shown nowhere else, the card's light says who moves
    if can_share:
        tags.append((t("render.can_share", locale), theme.muted))
    if active:
        tags.append((t("render.to_move_short", locale), theme.last_move))
    if laps:
        tags.append((t("render.laps", locale, laps=laps * 50, track=track), theme.muted))
    dot = text_width("·", small, "bold") + 10 * u
    for i, (label, colour) in enumerate(tags):  # whole tags only, as many as fit
        if x + (dot if i else 0) + text_width(label, small, "bold") > limit:
            break
        if i:  # a dot between two tags, so that they do not read as one
            text(img, x, cy, "·", small, theme.muted, weight="bold", anchor="lm")
            x += dot
        text(img, x, cy, label, small, colour, weight="bold", anchor="lm")
        x += text_width(label, small, "bold") + 10 * u
    # the icon rows (cached)
    values = {"supply": supply, "hand": (in_hand, birds), "cards": cards, "resources": held}
    row_w = round(W - 2 * pad)
    for groups, ry in zip(geo.rows, geo.row_ys, strict=True):
        row = _row(tuple((g, values[g]) for g in groups), row_w, geo, bg, theme, u)
        img.paste(row, (round(pad), round(ry - geo.row_h / 2)))
    return img


def paint_panel(img: Image.Image, lay: Layout, view: View, theme: Theme, locale: str, marks: list[str],
                deltas: dict[int, int]) -> None:
    """One card per seat (cached by what it shows) and the points each seat got from the last move."""
    u = lay.unit
    for p in view["players"]:
        seat = p["seat"]
        x0, y0, x1, y1 = lay.cards[seat]
        state = card_state(p, view.get("to_move") == seat, marks[seat])
        img.paste(card_image(state, (x1 - x0, y1 - y0), theme, locale, u, lay.name_size, lay.card), (x0, y0))
        delta = deltas.get(seat, 0)
        if delta:
            text(img, x1 - CARD_PAD * u, y0 + lay.card.rank_y, f"{delta:+d}", lay.card.count_size,
                 theme.good if delta > 0 else theme.bad, weight="bold", anchor="rm")


def paint_track(img: Image.Image, lay: Layout, view: View, theme: Theme, marks: list[str]) -> None:
    """The players' markers on the 0–49 track, in track order (a later arrival stands behind), below each cell's
    number (three or four on one cell fill it, number included)."""
    _title_h, number_h = track_bands(lay.unit, lay.line_size, lay.track[2] - lay.track[0])
    cells = track_cells(lay)
    by_cell: dict[int, list[PlayerView]] = {}
    players = view["players"]
    for seat in view.get("ranking", [p["seat"] for p in players]):
        p = players[seat]
        by_cell.setdefault(int(p["track"]) % TRACK_CELLS, []).append(p)
    for value, group in by_cell.items():
        cx0, cy0, cx1, cy1 = cells[value]
        w = cx1 - cx0
        n = len(group)
        if n <= 2:  # in the band below the number
            top, h = cy0 + number_h, cy1 - cy0 - number_h
            room = min(w / n, h) * 0.92
            spots = [(0.5, 0.5)] if n == 1 else [(0.25, 0.5), (0.75, 0.5)]
        else:
            top, h = cy0, cy1 - cy0
            room = min(w, h) * 0.48
            spots = [(0.25, 0.26), (0.75, 0.26), (0.25, 0.75), (0.75, 0.75)]
        for p, (fx, fy) in reversed(list(zip(group, spots, strict=False))):
            seat = p["seat"]
            laps = int(p.get("laps", 0))
            size = max(4, int(room))
            while size > 4 and marker_width(size, laps) > room:  # the rings inside the cell too
                size -= 1
            m = marker(size, theme.player(seat), theme.ink(seat), marks[seat], laps, theme.lap_ring)
            x = min(max(cx0, cx0 + fx * w - m.width / 2), cx1 - m.width)
            y = min(max(top, top + fy * h - m.height / 2), cy1 - m.height)
            paste(img, m, x, y)


def paint_you(img: Image.Image, lay: Layout, view: View, theme: Theme, locale: str, n_sites: int,
              others: list[str]) -> None:
    """The personal strip: the seat's own scoring cards and bird chips, and what its flags mean, at the last move's
    size (readable on a phone): two paragraphs wrapped in :data:`render.layout.YOU_LINES` lines. The first (who,
    the cards, then the chips where they fit after the cards, else on a line of their own) takes up to all lines but
    one, the second (the flag and what to do) the rest, cut with "…" where a long list of other moves does not
    fit."""
    if lay.you is None:
        return
    you = view.get("you")
    if you is None:
        return
    u = lay.unit
    x0, y0, x1, _y1 = lay.you
    size = lay.line_size
    pad = 14 * u
    step = size * LINE_SPACING
    top = y0 + YOU_PAD * u + ascent(size)
    seat = you["seat"]
    title = t("render.you.title", locale, name=view["players"][seat]["name"])
    cards = [t(f"game.scoring.{c}.name", locale) for c in you.get("scoring_cards", [])]
    chips = you.get("bird_chips", [])
    held = t("render.you.cards", locale, cards=listed(cards, locale) if cards else t("render.you.no_cards", locale))
    over = view.get("phase") == "over"
    if over:  # no cards and no flags any more: the seat's place, against the winner's
        held = _result_words(view, seat, locale)
    birds = t("render.you.chips", locale, chips=listed(chips, locale) if chips else t("render.you.no_chips", locale))
    tx = x0 + pad + text_width(title, size, "bold") + 10 * u
    width = x1 - pad - (x0 + pad)
    words(img, x0 + pad, top, title, size, theme.legal, weight="bold")
    lines = wrap(held, size, x1 - pad - tx)[:1]
    rest = held[len(lines[0]):].strip()
    lines += wrap(rest, size, width) if rest else []
    together = f"{lines[-1]}  ·  {birds}"  # the chips after the cards where they fit, else on a line of their own
    if text_width(together, size) <= (x1 - pad - tx if len(lines) == 1 else width):
        lines[-1] = together
    else:
        lines.append(birds)
    lines = _cut(lines, YOU_LINES - 1, size, width)
    words(img, tx, top, lines[0], size, theme.text)
    for i, line in enumerate(lines[1:], start=1):
        words(img, x0 + pad, top + i * step, line, size, theme.text)
    if over:
        return
    mover = view.get("to_move")
    if mover != seat:
        said = t("render.you.wait", locale, name=view["players"][mover]["name"]) if isinstance(mover, int) else ""
    elif n_sites:
        said = t("render.you.sites", locale, n=n_sites)
        if others:
            said += " " + t("render.you.also", locale, moves=listed(others, locale, choice=True))
    elif others:
        said = t("render.you.choose", locale, moves=listed(others, locale, choice=True))
    else:
        said = t("render.you.no_sites", locale)
    y = top + len(lines) * step
    flag = icon("flag", round(size * 1.2), theme)
    paste(img, flag, x0 + pad, y - cap_height(size) / 2 - flag.height / 2)  # centred on the line's capitals
    lx = x0 + pad + flag.width + 8 * u
    for i, line in enumerate(_cut(wrap(said, size, x1 - pad - lx), YOU_LINES - len(lines), size, x1 - pad - lx)):
        words(img, lx, y + i * step, line, size, theme.text)


def _result_words(view: View, seat: int, locale: str) -> str:
    """The seat's place and points at the game's end, and the winner's."""
    players = view["players"]
    me = players[seat]
    points = tn("game.points", me["score"], locale)
    if me["rank"] == 1:
        return t("render.you.won", locale, points=points)
    best = players[view["ranking"][0]]
    return t("render.you.placed", locale, rank=me["rank"], n=len(players), points=points, winner=best["name"],
             winner_points=tn("game.points", best["score"], locale))


def _cut(lines: list[str], most: int, size: int, width: float) -> list[str]:
    """The first ``most`` of ``lines``, the last of them ending in "…" when some were left out."""
    if len(lines) <= most:
        return lines
    kept = lines[:most]
    kept[-1], _ = fit(kept[-1] + " …", size, width, min_size=size)
    return kept


# ---------------------------------------------------------------- palette sample


def paint_sample(img: Image.Image, lay: Layout, theme: Theme, y: int) -> None:
    """Typical changing content below ``y`` so the output palette has its colours and edges."""
    w, h = lay.tile_w, lay.tile_h
    x = 10
    tiles = [("coast", ("lighthouse", 2, ("fish",), 2, True)),
             ("land", ("church", 3, ("sheep", "wood"), 0, False)),
             ("volcano", ("house", 4, ("gold", "sugar"), 0, True)),
             ("coast", ("house", 1, ("fish", "sugar"), 1, False))]
    for kind, key in tiles:
        for extra in (None, theme.last_move, theme.legal):
            if extra:
                spr = ring(kind, w, h, extra, 0.14)
                img.paste(spr, (x, y), spr)
            spr = face(kind, key, w, h, theme)
            img.paste(spr, (x, y), spr)
            x += spr.width + 4
            if x > img.width - 3 * spr.width:
                x, y = 10, y + spr.height + 4
    x, y = 10, y + 2 * h
    for seat in range(len(theme.players)):
        if x > img.width - 4 * h:
            x, y = 10, y + 2 * h
        for b in BUILDINGS:
            spr = piece(b, round(h * 0.9), theme.player(seat), theme.ink(seat), "W")
            img.paste(spr, (x, y), spr)
            x += spr.width + 4
        m = marker(round(30 * lay.unit), theme.player(seat), theme.ink(seat), "M", 1, theme.lap_ring)
        img.paste(m, (x, y), m)
        x += m.width + 4
    x, y = 10, y + 2 * h
    for bg in (theme.card, theme.card_active, theme.background):
        ImageDraw.Draw(img).rectangle((x, y, x + 300, y + 80), fill=bg)
        for i, c in enumerate((theme.text, theme.muted, theme.good, theme.bad, theme.last_move, theme.legal)):
            text(img, x + 4 + (i % 3) * 100, y + 4 + (i // 3) * 26, "Äg 47+", 22, c, weight="bold")
        for i, name in enumerate(("fish", "sheep", "wood", "sugar", "gold", "ship", "river", "road")):
            spr = faded(name, 24, theme)
            img.paste(spr, (x + i * 30, y + 54), spr)
        x += 310
    spr = badge(42, round(h * 0.5), theme.legal, theme.badge_text)
    img.paste(spr, (x, y), spr)
