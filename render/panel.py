"""The board picture's panel: one card per seat (name, score and rank, tags; the buildings, building cards,
scoring cards, bird chips and resources each seat holds), cached by what it shows, and the points each seat got
from the last move. Where a card's lines go is :func:`render.layout.card_geometry`'s."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine import BUILDING_CARDS, BUILDINGS, RESOURCES
from engine.types import PlayerView, View
from i18n import t
from render import script
from render.draw import fit, paste, text, text_width
from render.icons import faded, icon, marker
from render.layout import CARD_PAD, CardGeometry, Layout
from render.theme import RGB, Theme


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


@lru_cache(maxsize=8)
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


@lru_cache(maxsize=8)
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
