"""The board picture's header: whose turn it is (or who won), what is left of the scoring deck and the bird chips,
and the round and the phase; and the words that name whose turn it is or who won where they fit, which the
overview's header (:mod:`render.overview_texts`) says alike."""

from __future__ import annotations

from PIL import Image

from engine.types import View
from i18n import t
from render.draw import fit, paste, text, text_width, wrap
from render.icons import icon, marker
from render.layout import LINE_SPACING, Layout, header_bands, header_lines
from render.theme import Theme


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
