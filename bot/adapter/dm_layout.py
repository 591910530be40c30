"""A player's hand as one Components V2 message: a turn DM, a "your cards changed" DM, the DM that ends quiet hours,
and the hand ``/santacruz status`` (or *My cards*) shows to its asker alone.

One container in the player's colour holds text displays, each with its own component id so that a later edit finds it
again (whichever process sent the message, however long ago): the head (:data:`HEAD`: where, whose turn), what happened
since the player's last move (:data:`SINCE`), their hand (:data:`HAND`), the pictures, each in a media gallery of its
own so that Discord crops neither (:data:`PICTURE` on: the overview the chat shows without a tap, then the player's own
board a tap opens), what to do now (:data:`TURN`), then the controls in action rows. A click edits the message in
place: the question before a move that cannot be taken back replaces the controls (:data:`QUESTION`, with *Play it* and
*Back*), a move played adds its line (:data:`PLAYED` on), and once the turn has passed the message says how, with the
pictures of that turn (:func:`turn_over_layout`). A message sent with the V2 flag keeps it: every edit sends the whole
layout again, never ``content`` (:func:`read` reads a message back into a :class:`Panel`; a message without the flag, a
command's answer or a DM sent before the bot spoke V2, is edited as text by the callers).

Discord's limits (40 components, 4,000 characters of text) are kept here: the texts a DM is sent with leave
:data:`ROOM` for what a click adds, and :func:`layout` shortens the oldest part of what happened since the player's last
move first when a message would still be too long.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import discord

from bot.adapter.posts import TEXT_MAX, accent
from bot.adapter.words.common import clip, lines_text
from bot.adapter.words.dm import HandWords
from engine import View

HEAD: Final = 10
"""The component id of the head: where, whose turn (the DM that ends quiet hours puts its list of games above)."""
SINCE: Final = 20
"""What happened since the player's last move."""
HAND: Final = 30
"""The player's cards, bird chips and supply."""
PICTURE: Final = 40
"""The first media gallery, after the hand: the overview (the next gallery, the player's own board, is ``PICTURE + 1``;
component ids are unique within a message)."""
TURN: Final = 50
"""What the player is asked to do now, and the other games waiting for them."""
PLAYED: Final = 60
"""The first line a move played with the controls adds (the next ones count up from it)."""
QUESTION: Final = 90
"""The question asked in place of the controls before a move that cannot be taken back."""
ROOM: Final = 1000
"""Characters of text a DM leaves free when it is sent, for what a click adds (the question, the moves played)."""
SENT_MAX: Final = TEXT_MAX - ROOM
"""Characters of text a DM is sent with at most."""
SHORTENED_FIRST: Final = (SINCE, HEAD, HAND, TURN)
"""Which texts give way first when a message would carry too much text (the oldest turns of SINCE first)."""


@dataclass(frozen=True, slots=True)
class Panel:
    """What a hand message shows: its texts by component id (in order), its pictures' file names (in order, each in a
    gallery of its own), the container's colour."""

    texts: tuple[tuple[int, str], ...]
    pictures: tuple[str, ...] = ()
    colour: discord.Colour | None = None

    @classmethod
    def of(cls, parts: Sequence[tuple[int, str]], *, pictures: Sequence[str],
           colour: discord.Colour | None) -> Panel:
        """The texts that are not empty, shortened to :data:`SENT_MAX` in all."""
        texts = _fit([(i, text) for i, text in parts if text], SENT_MAX)
        return cls(tuple(texts), tuple(pictures), colour)

    @property
    def asked(self) -> bool:
        """Whether a question is asked in place of its controls."""
        return any(i == QUESTION for i, _ in self.texts)

    def without_question(self) -> Panel:
        return replace(self, texts=tuple((i, text) for i, text in self.texts if i != QUESTION))

    def asking(self, question: str) -> Panel:
        """The same message asking ``question`` below its texts (instead of an earlier question)."""
        return replace(self, texts=(*self.without_question().texts, (QUESTION, question)))

    def played(self, line: str) -> Panel:
        """The same message without its question, and ``line`` (a move played) below its texts."""
        texts = self.without_question().texts
        next_id = max([PLAYED - 1, *(i for i, _ in texts if PLAYED <= i < QUESTION)]) + 1
        return replace(self, texts=(*texts, (min(next_id, QUESTION - 1), line)))


def hand_panel(view: View, words: HandWords, *, heading: str = "", waiting: str = "",
               pictures: Sequence[str]) -> Panel:
    """The hand message of the seat whose own ``view`` this is, in its colour: ``words`` (``heading`` above them:
    the list of games of the DM that ends quiet hours or the game's status; ``waiting``, the other games waiting, below
    what to do) and the ``pictures`` sent with it."""
    return Panel.of([(HEAD, lines_text([heading, words.head])), (SINCE, words.since), (HAND, words.hand),
                      (TURN, lines_text([words.turn, waiting]))], pictures=pictures, colour=accent(view.get("seat")))


def layout(dm: Panel, items: Sequence[discord.ui.Item[Any]] = ()) -> discord.ui.LayoutView:
    """The message of ``dm`` with ``items`` (buttons and menus, in order) in action rows below its texts: a select
    menu on a row of its own, buttons five to a row."""
    box: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(accent_colour=dm.colour)
    pictured = not dm.pictures
    for component_id, text in _fit(list(dm.texts), TEXT_MAX):
        if not pictured and component_id > HAND:
            _add_galleries(box, dm.pictures)
            pictured = True
        box.add_item(discord.ui.TextDisplay(text, id=component_id))
    if not pictured:
        _add_galleries(box, dm.pictures)
    for row in action_rows(items):
        box.add_item(row)
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(box)
    return view


def turn_over_layout(dm: Panel, text: str,
                     rows: Sequence[discord.ui.ActionRow[Any]] = ()) -> discord.ui.LayoutView:
    """A hand message ``dm`` once its turn has passed: ``text`` (how it passed) in place of its words, the pictures
    of that turn, and only the ``rows`` it keeps (the *Undo* of the move its controls made)."""
    box: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(accent_colour=dm.colour)
    box.add_item(discord.ui.TextDisplay(clip(text, TEXT_MAX), id=HEAD))
    _add_galleries(box, dm.pictures)
    for row in rows:
        box.add_item(row)
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(box)
    return view


def action_rows(items: Sequence[discord.ui.Item[Any]] | discord.ui.View | None) -> list[discord.ui.ActionRow[Any]]:
    """``items`` (or a classic view's items, taken out of it) in action rows: each select menu on a row of its own,
    the buttons after them five to a row, in order (as a classic view lays them out); a row stays as it is."""
    if items is None:
        return []
    if isinstance(items, discord.ui.View):
        children = list(items.children)
        items.clear_items()
    else:
        children = list(items)
    rows: list[discord.ui.ActionRow[Any]] = []
    buttons: list[discord.ui.Item[Any]] = []
    for item in children:
        if isinstance(item, discord.ui.ActionRow):  # a row already
            rows.append(item)
        elif _is_button(item):
            buttons.append(item)
        else:
            rows.append(discord.ui.ActionRow(item))
    rows += [discord.ui.ActionRow(*buttons[i:i + 5]) for i in range(0, len(buttons), 5)]
    return rows


def words(dm: Panel) -> str:
    """The words of a hand message as Discord shows them: its texts, one after the other."""
    return "\n".join(text for _, text in dm.texts)


def words_of(message: discord.Message) -> str:
    """The words of a message: a hand message's texts (:func:`words`), else its content."""
    dm = read(message)
    return message.content if dm is None else words(dm)


def read(message: discord.Message) -> Panel | None:
    """A hand message as it is on Discord (its texts, pictures and colour), or ``None`` for a message without the
    V2 flag (edited as text)."""
    if not message.flags.components_v2:
        return None
    texts: list[tuple[int, str]] = []
    pictures: list[str] = []
    colour: discord.Colour | None = None
    for top in message.components:
        if not isinstance(top, discord.components.Container):
            continue
        colour = top.accent_colour
        for child in top.children:
            if isinstance(child, discord.components.TextDisplay):
                texts.append((child.id if child.id is not None else HEAD, child.content))
            elif isinstance(child, discord.components.MediaGalleryComponent) and child.items:
                # the file's name from the gallery's link (attachment://hand.png as sent, Discord's copy of the file
                # as read back), or the message's attachment in the same place
                named = child.items[0].media.url.split("?")[0].rsplit("/", 1)[-1]
                at = len(pictures)
                if not named and at < len(message.attachments):
                    named = message.attachments[at].filename
                if named:
                    pictures.append(named)
    return Panel(tuple(texts), tuple(pictures), colour)


def kept_rows(message: discord.Message) -> list[discord.ui.ActionRow[Any]]:
    """The action rows of a V2 message as Discord has them (their buttons and menus, to send again)."""
    found: list[discord.ui.ActionRow[Any]] = []
    for item in discord.ui.LayoutView.from_message(message, timeout=None).walk_children():
        if isinstance(item, discord.ui.ActionRow):
            found.append(item)
    for row in found:
        parent = row.parent
        if isinstance(parent, discord.ui.Container):
            parent.remove_item(row)
    return found


def _is_button(item: discord.ui.Item[Any]) -> bool:
    inner = getattr(item, "item", item)  # a DynamicItem wraps its button or menu
    return isinstance(inner, discord.ui.Button)


def _add_galleries(box: discord.ui.Container[discord.ui.LayoutView], names: Sequence[str]) -> None:
    """Each of the pictures ``names`` in a media gallery of its own (ids from :data:`PICTURE` on)."""
    for at, name in enumerate(names):
        box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{name}"), id=PICTURE + at))


def _fit(texts: list[tuple[int, str]], limit: int) -> list[tuple[int, str]]:
    """``texts`` shortened to ``limit`` characters in all: what happened since the player's last move loses its
    oldest lines first (after its heading), then the head, the hand and the turn are clipped, and last what a click
    added."""
    over = sum(len(text) for _, text in texts) - limit
    if over <= 0:
        return texts
    fitted = dict(texts)
    order = [*SHORTENED_FIRST, *(i for i, _ in texts if i not in SHORTENED_FIRST)]
    for component_id in order:
        text = fitted.get(component_id)
        if text is None or over <= 0:
            continue
        shorter = _shorter(text, len(text) - over) if component_id == SINCE else clip(text, max(1, len(text) - over))
        over -= len(text) - len(shorter)
        fitted[component_id] = shorter
    return [(i, fitted[i]) for i, _ in texts if fitted[i]]


def _shorter(since: str, limit: int) -> str:
    """What happened since the player's last move in at most ``limit`` characters: its heading, "• …", and its newest
    lines that fit ("" when not even one does)."""
    head, *lines = since.split("\n")
    kept: list[str] = []
    room = limit - len(head) - len("\n• …")
    for line in reversed(lines):
        if len(line) + 1 > room:
            break
        kept.insert(0, line)
        room -= len(line) + 1
    return "\n".join([head, "• …", *kept]) if kept else ""
