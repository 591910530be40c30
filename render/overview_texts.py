"""The overview's texts: its header (whose turn it is, or who won; the round and the phase), a card per player
(name; score, place, ▶ "to move", the last move's points) and the last move's words (in a DM: every move since the
seat's own). Each is a sprite cached by what it shows, an item of the overview's layer, with the record of every
text on it (:class:`Written`: what it says, the box its ink covers, the height of its capitals), which tests measure
at Discord's scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.types import View
from i18n import t
from render import script
from render.describe import LastMove
from render.draw import fit, paste, text, text_width
from render.fonts import ascent, cap_height, line_height
from render.header import turn_label, winner_label
from render.icons import icon, marker
from render.layer import Item
from render.layout import LINE_SPACING, Rect
from render.overview_layout import OverviewLayout
from render.theme import RGB, Theme


@dataclass(frozen=True, slots=True)
class Written:
    """One text the overview drew: what it says, the box its ink covers (picture pixels), the height of its
    capitals and digits, and what it is."""

    role: str
    """``name``, ``score``, ``place``, ``to_move`` (the words and the ▶ of whose turn it is), ``points`` (the last
    move's), ``winner``, ``round``, ``words`` (the last move's) or ``number`` (a DM's legal site)."""
    text: str
    box: Rect
    cap: int
    seat: int | None = None


def frame(d: ImageDraw.ImageDraw, rect: Rect, u: float, fill: RGB, edge: RGB, width: float) -> None:
    """A card's frame: its fill and its edge ``width`` units wide."""
    d.rounded_rectangle(rect, radius=round(10 * u), fill=fill, outline=edge, width=max(2, round(width * u)))


@lru_cache(maxsize=16)
def _card_ground(size: tuple[int, int], u: float, fill: RGB, edge: RGB, width: float, theme: Theme) -> Image.Image:
    """An empty card of ``size`` on the page's background (cached: a card is drawn on a copy)."""
    img = Image.new("RGB", size, theme.background)
    d = ImageDraw.Draw(img)
    if width:
        frame(d, (0, 0, size[0] - 1, size[1] - 1), u, fill, edge, width)
    else:
        d.rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius=round(10 * u), fill=fill)
    return img


class _Page:
    """The picture being drawn, and the record of every text drawn on it."""

    def __init__(self, img: Image.Image) -> None:
        self.img = img
        self.written: list[Written] = []

    def text(self, role: str, x: float, y: float, s: str, size: int, fill: RGB, *, weight: str = "bold",
             anchor: str = "lm", seat: int | None = None) -> float:
        """Draw ``s`` and record it with the box its ink covers; returns the right end of its advance."""
        if not s:
            return x
        box = text(self.img, x, y, s, size, fill, weight=weight, anchor=anchor)
        self.written.append(Written(role, s, box, cap_height(size, weight), seat))
        return x + (text_width(s, size, weight) if anchor[0] == "l" else 0)

    def line(self, role: str, x: float, y: float, s: str, size: int, fill: RGB, *, weight: str = "regular") -> float:
        """Draw ``s`` word by word from (x, y), the left end of its baseline (each word's glyphs are cached: a new
        sentence costs no new drawing of its words), and record it as one text; returns its right end."""
        space = text_width(" ", size, weight)
        boxes = []
        for word in s.split(" "):
            if word:
                boxes.append(text(self.img, x, y, word, size, fill, weight=weight, anchor="ls"))
            x += text_width(word, size, weight) + space
        if boxes:
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                   max(b[3] for b in boxes))
            self.written.append(Written(role, s, box, cap_height(size, weight)))
        return x - space

    def sign(self, role: str, spr: Image.Image, x: float, y: float, said: str, seat: int | None = None) -> None:
        """Paste a sign that says something (the ▶ of whose turn it is) and record it, as tall as its sprite."""
        paste(self.img, spr, x, y)
        self.written.append(Written(role, said, (round(x), round(y), round(x) + spr.width, round(y) + spr.height),
                                    spr.height, seat))


Records = tuple[Written, ...]
"""The texts on a cached part of the picture, in its own pixels."""


HeaderState = tuple[int | None, bool, str, int, str, int, str]
"""(the seat to move or who won, whether it is a turn, its name, its score, its mark, the round, the phase)."""


@lru_cache(maxsize=8)
def header_image(state: HeaderState, geometry: tuple[int, int, float, int, int], theme: Theme,
                 locale: str) -> tuple[Image.Image, Records]:
    """The header (cached): whose turn it is (or who won), large, and below it the round and the phase."""
    who, turn, name, score, mark, round_no, phase = state
    width, height, u, title, line = geometry
    page = _Page(Image.new("RGB", (width, height), theme.card))
    pad = 12 * u
    cy = pad + LINE_SPACING * title / 2
    x = 16 * u
    if who is not None:
        sign = icon("turn" if turn else "tick", round(cap_height(title, "bold") * 1.15), theme)
        page.sign("to_move" if turn else "winner", sign, x, cy - sign.height / 2, "▶", who)
        x += sign.width + 10 * u
        m = marker(round(title * 1.05), theme.player(who), theme.ink(who), mark, 0, theme.lap_ring)
        paste(page.img, m, x, cy - m.height / 2)
        x += m.width + 12 * u
        room = width - 16 * u - x
        if turn:
            label, size = turn_label(name, locale, title, room)
        else:
            label, size = winner_label(name, score, locale, title, room)
        page.text("to_move" if turn else "winner", x, cy, label, size, theme.text, seat=who)
    below = f"{t('render.round', locale, n=round_no)} · {t(f'render.phase.{phase}', locale)}"
    said, size = fit(below, line, width - 32 * u, min_size=line)
    page.text("round", 16 * u, pad + LINE_SPACING * (title + line / 2), said, size, theme.muted, weight="regular")
    return page.img, tuple(page.written)


def header_item(lay: OverviewLayout, view: View, theme: Theme, locale: str,
                marks: list[str]) -> tuple[Item, Records]:
    """The header's item (cached by what it shows: whose turn it is or who won, the round, the phase) and its
    texts."""
    seat = view.get("to_move")
    who = seat if seat is not None else view.get("winner")
    player = view["players"][who] if who is not None else None
    state = (who, seat is not None, player["name"] if player else "",  # the score only in who won's words
             player["score"] if player and seat is None else 0, marks[who] if who is not None else "",
             view.get("round", 1), view.get("phase", "play"))
    x0, y0, x1, y1 = lay.header
    geometry = (x1 - x0, y1 - y0, lay.unit, lay.title_size, lay.line_size)
    img, records = header_image(state, geometry, theme, locale)
    return (("header", state, locale), img, x0, y0), records


CardState = tuple[int, str, str, int, int, bool, bool, bool, int]
"""(seat, name, mark, score, place, lit, the seat's own, to move, the last move's points): what a card shows."""


def card_items(lay: OverviewLayout, view: View, theme: Theme, locale: str, marks: list[str],
                deltas: dict[int, int], you: int | None) -> list[tuple[Item, Records]]:
    """A card per seat (cached by what it shows: between two moves most stay the same)."""
    to_move = view.get("to_move")
    over = view.get("phase") == "over"
    geometry = (lay.unit, lay.key_size, lay.score_size, lay.marker_size)
    out: list[tuple[Item, Records]] = []
    for p in view["players"]:
        seat = p["seat"]
        x0, y0, x1, y1 = lay.cards[seat]
        state = (seat, p["name"], marks[seat], p["score"], p.get("rank", 0),
                 seat == to_move or (over and p.get("rank") == 1), seat == you, seat == to_move, deltas.get(seat, 0))
        card, records = card_image(state, (x1 - x0, y1 - y0), geometry, theme, locale)
        out.append(((("card", state, locale), card, x0, y0), records))
    return out


@lru_cache(maxsize=8)
def card_image(state: CardState, size: tuple[int, int], geometry: tuple[float, int, int, int], theme: Theme,
               locale: str) -> tuple[Image.Image, Records]:
    """A player's card and the texts on it (card pixels): the marker and the name, the last move's points on the
    right; the score, the place and, for the seat to move, ▶ and "to move". Lit (the seat to move, or the winner)
    or edged in the colour of the seat's own flags (a DM)."""
    seat, pname, mark, score, rank, lit, own, moving, delta = state
    u, key, score_size, marker_size = geometry
    W, H = size
    edge = theme.last_move if lit else theme.legal if own else theme.card_edge
    page = _Page(_card_ground(size, u, theme.card_active if lit else theme.card, edge, 4 if lit or own else 1.5,
                              theme).copy())
    pad = 12 * u
    cy = pad + LINE_SPACING * key / 2
    m = marker(marker_size, theme.player(seat), theme.ink(seat), mark, 0, theme.lap_ring)
    paste(page.img, m, pad, cy - m.height / 2)
    nx = pad + m.width + 10 * u
    right = W - pad
    if delta:  # the last move's points on the name's line, right
        label = f"{delta:+d}"
        page.text("points", right, cy, label, key, theme.good if delta > 0 else theme.bad, anchor="rm", seat=seat)
        right -= text_width(label, key, "bold") + 12 * u
    name, fitted = fit(pname, key, right - nx, "bold", min_size=key)
    top = script.bbox(name, fitted, "bold", "lm")[1]  # a script taller than the line (Arabic) stays inside
    page.text("name", nx, max(cy, 2 - top), name, fitted, theme.text, seat=seat)
    cy = H - pad - 0.6 * score_size
    x = page.text("score", pad, cy, str(score), score_size, theme.text, seat=seat) + 14 * u
    x = page.text("place", x, cy, t("render.rank", locale, rank=rank), key,
                  theme.last_move if rank == 1 else theme.muted, seat=seat) + 18 * u
    if moving:
        sign = icon("turn", round(key * 0.8), theme)
        page.sign("to_move", sign, x, cy - sign.height / 2, "▶", seat)
        x += sign.width + 6 * u
        page.text("to_move", x, cy, t("render.to_move_short", locale), key, theme.last_move, seat=seat)
    return page.img, tuple(page.written)


Word = tuple[str, str]
"""A word and its weight: the label's are bold, in the colour of the last move's marks."""


def _lines(words: list[Word], size: int, width: float) -> list[list[Word]]:
    """``words`` broken into lines no wider than ``width`` at spaces; a word wider than a line alone on it."""
    lines: list[list[Word]] = []
    line: list[Word] = []
    used = 0.0
    for word, weight in words:
        w = text_width(word, size, weight)
        space = text_width(" ", size, weight)
        if line and used + space + w > width:
            lines.append(line)
            line, used = [], 0.0
        used += (space if line else 0.0) + w
        line.append((word, weight))
    if line:
        lines.append(line)
    return lines


@lru_cache(maxsize=4)
def words_image(label: str, sentences: tuple[str, ...], size: tuple[int, int], geometry: tuple[float, int],
                theme: Theme) -> tuple[Image.Image, Records]:
    """The last move's words after their ``label`` (in a DM: every move since the seat's own) in their box (cached),
    as many lines as it holds, the last ending in "…" where they do not all fit; an empty box where nothing happened
    (a DM after the seat's own move)."""
    u, line = geometry
    W, H = size
    page = _Page(_card_ground(size, u, theme.card, theme.card, 0, theme).copy())
    if not sentences:
        return page.img, ()
    step = LINE_SPACING * line
    pad = 12 * u
    first = pad + ascent(line)  # the first baseline; the last one leaves room for the descenders
    most = 1 + int((H - pad - (line_height(line) - ascent(line)) - first) // step)
    width = W - 2 * pad
    words = [(w, "bold") for w in label.split()] + [(w, "regular") for w in " ".join(sentences).split()]
    lines = _lines(words, line, width)
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = [*lines[-1], ("…", "regular")]
        while len(lines[-1]) > 2 and _lines(lines[-1], line, width) != [lines[-1]]:
            lines[-1] = [*lines[-1][:-2], ("…", "regular")]
    y = first
    for words_of_line in lines:
        x = pad
        for weight in ("bold", "regular"):  # the label's words first, then the others, each run recorded as one
            run = " ".join(word for word, w in words_of_line if w == weight)
            if not run:
                continue
            room = W - pad - x
            if text_width(run, line, weight) > room:  # one word longer than a line (a name without spaces)
                run, _ = fit(run, line, room, weight, min_size=line)
            colour = theme.last_move if weight == "bold" else theme.text
            x = page.line("words", x, y, run, line, colour, weight=weight) + text_width(" ", line)
        y += step
    return page.img, tuple(page.written)


def words_item(lay: OverviewLayout, last: LastMove, theme: Theme, locale: str) -> tuple[Item, Records]:
    """The last move's words' item (cached by what they say) and its texts."""
    x0, y0, x1, y1 = lay.words
    label = t(last.label, locale)
    sentences = tuple(last.sentences)
    img, records = words_image(label, sentences, (x1 - x0, y1 - y0), (lay.unit, lay.line_size), theme)
    return (("words", label, sentences), img, x0, y0), records
