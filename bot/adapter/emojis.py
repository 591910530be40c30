"""The application's own emojis for the building cards, a scoring card, the buildings, the resources and a bird chip,
shown beside their words in buttons, menus and texts (an autocomplete choice cannot show a custom emoji: it keeps its
words alone).

At start-up (:meth:`Emojis.load`) the bot lists its application's emojis and uploads those it lacks, by name
(:data:`PREFIX` and the icon: ``sc1_ship``), drawn from the pictures' own art (:func:`render.emoji.emoji_png`,
128 × 128). Several processes or shards starting at once over one database do not upload one twice: Discord refuses a
second emoji of the same name, and the process refused lists the emojis again and takes the one that was made. An emoji
that cannot be uploaded or listed (the application has its 2,000 already, Discord refuses it or does not answer) is
simply left out: the words stand alone, as before emojis, and the bot works the same. Application emojis need no
permission in a server or a DM.

New art needs new names: change :data:`PREFIX` (the old emojis stay on the application, and in the messages that
show them, until someone deletes them in the Developer Portal).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

import discord

from bot.adapter.sending import TRANSIENT_ERRORS
from bot.adapter.words.moves import site_of
from engine import BUILDING_CARDS, SCORING_CARDS, Move, View, parse_move
from render.emoji import EMOJI_ICONS

log = logging.getLogger(__name__)

PREFIX: Final = "sc1_"
"""The start of the bot's emoji names: "sc" and the version of their art."""
UPLOAD_MAX: Final = 256 * 1024
"""Bytes an emoji may have at most (Discord's limit)."""
INVALID_FORM: Final = 50035
"""Discord's code of a refused body, among them an emoji name the application has already."""

Draw = Callable[[str], Awaitable[bytes | None]]
"""An icon's emoji as PNG bytes (:func:`render.emoji.emoji_png`, off the event loop: ``Pictures.emoji``), or
``None`` when it could not be drawn."""


class Emojis:
    """The emojis the bot may use, by icon name; empty until :meth:`load` found or made them (then words only)."""

    def __init__(self, found: dict[str, discord.PartialEmoji] | None = None) -> None:
        self._found: dict[str, discord.PartialEmoji] = dict(found or {})

    def __len__(self) -> int:
        return len(self._found)

    def get(self, icon: str | None) -> discord.PartialEmoji | None:
        """The emoji of ``icon`` for a button or a menu option, or ``None`` (none: its words alone)."""
        return self._found.get(icon) if icon is not None else None

    def mark(self, icon: str | None) -> str:
        """The emoji of ``icon`` in a text, followed by a space (``"<:sc1_ship:123> "``), or ``""``."""
        emoji = self.get(icon)
        return f"{emoji} " if emoji is not None else ""

    async def load(self, client: discord.Client, draw: Draw) -> None:
        """Find the bot's emojis on its application and upload the missing ones (drawn by ``draw``); whatever fails
        is logged and left out."""
        try:
            have = await _listed(client)
        except (discord.HTTPException, discord.MissingApplicationID, *TRANSIENT_ERRORS) as exc:
            log.warning("the application's emojis could not be listed (%s): words without emojis", _why(exc))
            return
        for icon in EMOJI_ICONS:
            name = PREFIX + icon
            png = await draw(icon) if name not in have else None
            if png is not None:
                try:
                    have[name] = await _upload(client, name, png)
                except _NameRefused as refused:  # perhaps another process made it meanwhile: look again
                    try:
                        have |= await _listed(client)
                    except (discord.HTTPException, *TRANSIENT_ERRORS) as exc:
                        log.warning("the application's emojis could not be listed again (%s)", _why(exc))
                    if name not in have:
                        log.warning("Discord refused the emoji %s (%s): left out", name, refused)
                except _NotUploaded as failed:
                    log.warning("the emoji %s could not be uploaded (%s): left out", name, failed)
            if name in have:
                self._found[icon] = have[name]
        missing = [icon for icon in EMOJI_ICONS if icon not in self._found]
        if missing:
            log.warning("no emoji for %s: their words stand alone", ", ".join(missing))
        else:
            log.info("%d application emojis ready", len(self._found))


NO_EMOJIS: Final = Emojis()
"""No emoji at all: the words alone."""

SET_ICONS: Final = {"A": "river", "B": "road", "C": "ship"}
"""A building-card set's icon: the card it holds most of (the balanced set D has none)."""


def scoring_icon(card: str) -> str:
    """A scoring card's icon: the resource it scores alone, a bird chip for the birds, a house for the houses, else
    the scoring card's own."""
    scoring = SCORING_CARDS.get(card)
    if scoring is not None and len(scoring.resources) == 1:
        return scoring.resources[0]
    return {"birds": "chip", "houses": "house"}.get(card, "scoring")


def move_icon(view: View, move: str | Move) -> str | None:
    """The icon beside a legal move of the seat whose own ``view`` this is: a site's building (when its tile shows),
    a building card played without building, a double move, a scoring card, a set or a pile (their set's icon)."""
    m = parse_move(move) if isinstance(move, str) else move
    if m.site is not None:
        entry = site_of(view, m.site)
        tile = entry.get("tile") if entry is not None else None
        return str(tile["building"]) if tile is not None else None
    if m.verb in ("score", "discard") and m.card is not None:
        return scoring_icon(str(m.card))
    if m.verb == "set":
        return SET_ICONS.get(str(m.letter))
    if m.verb == "pile":
        pile = next((p for p in view.get("piles") or [] if p["id"] == m.pile), None)
        return SET_ICONS.get(str(pile["set"])) if pile is not None else None
    if m.verb in BUILDING_CARDS:  # played without building, or a double move
        return m.verb
    return None


class _NotUploaded(Exception):
    """An emoji that could not be uploaded (too large, a limit reached, Discord failed or did not answer)."""


class _NameRefused(_NotUploaded):
    """Discord refused the emoji's body (an invalid form): most often, the application has an emoji of that name."""


async def _listed(client: discord.Client) -> dict[str, discord.PartialEmoji]:
    """The application's emojis of the bot (named with :data:`PREFIX`), by name."""
    return {e.name: discord.PartialEmoji(name=e.name, id=e.id) for e in await client.fetch_application_emojis()
            if e.name.startswith(PREFIX)}


async def _upload(client: discord.Client, name: str, png: bytes) -> discord.PartialEmoji:
    """Upload emoji ``name``; raises :class:`_NameRefused` when Discord refuses its body, :class:`_NotUploaded` for
    any other failure."""
    if len(png) > UPLOAD_MAX:
        raise _NotUploaded(f"{len(png)} bytes, more than Discord takes")
    try:
        made = await client.create_application_emoji(name=name, image=png)
    except discord.HTTPException as exc:
        if exc.status == 400 and exc.code == INVALID_FORM:
            raise _NameRefused(_why(exc)) from None
        raise _NotUploaded(_why(exc)) from None
    except TRANSIENT_ERRORS as exc:
        raise _NotUploaded(_why(exc)) from None
    return discord.PartialEmoji(name=made.name, id=made.id)


def _why(exc: BaseException) -> str:
    status, code = getattr(exc, "status", None), getattr(exc, "code", None)
    return " ".join(str(p) for p in (type(exc).__name__, status, code) if p is not None)
