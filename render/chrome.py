"""The board picture's bands of words below the island: the last move, the scoring cards played this round, and a
DM's own strip (the seat's scoring cards and bird chips, what its flags mean; at the end its place).

``paint_static`` draws the parts that never change, in any language (the bands' frames, the score track's cells:
:mod:`render.track`), into the base image; the ``paint_*`` functions draw a view's changing parts on a copy of it.
The other parts around the island have modules of their own: the header (:mod:`render.header`), the players' cards
(:mod:`render.panel`), the score track (:mod:`render.track`); the legend is a picture of its own
(:mod:`render.legend`). All words come from the ``render.*`` message catalogue.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.types import View
from i18n import listed, t, tn
from render.draw import fit, paste, text, text_width, words, wrap
from render.fonts import ascent, cap_height
from render.icons import icon, marker
from render.layout import LINE_SPACING, PLAYED_LINES, YOU_LINES, YOU_PAD, Layout, Rect
from render.theme import RGB, Theme
from render.track import paint_track_static


def _rrect(img: Image.Image, rect: Rect, fill: RGB, radius: int, outline: RGB | None = None, width: int = 0) -> None:
    ImageDraw.Draw(img).rounded_rectangle(rect, radius=radius, fill=fill, outline=outline, width=width)


# ---------------------------------------------------------------- static parts


def paint_static(img: Image.Image, lay: Layout, theme: Theme) -> None:
    """Frames, empty cards and the score track's cells (the legend is a picture of its own: ``render.legend``)."""
    u = lay.unit
    r = round(10 * u)
    _rrect(img, lay.last_move, theme.card, r)
    _rrect(img, lay.played, theme.card, r)
    if lay.you is not None:
        _rrect(img, lay.you, theme.card, r, outline=theme.legal, width=max(2, round(3 * u)))
    paint_track_static(img, lay, theme)


# ---------------------------------------------------------------- changing parts


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
