"""What players meet, counted: pure functions over the messages the fake Discord recorded.

Used by ``bench/bench_messages.py`` (a whole game per language, figures and a transcript) and meant for tests
that hold the bot to the same budget later. Nothing here talks to Discord or to the bot: every function takes
:class:`~tests.fakediscord.message.FakeMessage` objects (or plain strings) and returns what it found, so each
can be checked on hand-made messages.

* what a person reads of a message (:func:`readable_texts`: content, embeds, text displays, button labels,
  menu options) and its pictures (:func:`pictures`, :func:`picture_size`; a file shown as a picture that holds
  none, :func:`broken_picture`, which the fake Discord records for every upload);
* texts naming ``/santacruz <x>`` where ``x`` is not a registered command (:func:`unknown_commands`, with
  :func:`command_names` reading the synced commands);
* a relative time glued after "since"/"until"-style words, in English, German and French
  (:func:`relative_after_since`);
* plural slips such as "1 points", "2 Punkt", "partie(s)" (:func:`plural_slips`);
* the autocompletes a person asks with given legal moves (:func:`autocomplete_asks`), and the move an offer means
  when picked as it is (:func:`offer_move`): ``None`` when the command, filled that way, plays no legal move;
* one readable line block per message for a transcript (:func:`transcript_entry`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from PIL import Image

from engine import SINGLE_BUILDS, IllegalMove, parse_move, plan_build

from .kinds import LOADING, ComponentType
from .message import FakeAttachment, FakeMessage, walk_components

PICTURE_SUFFIXES: Final = (".png", ".gif", ".jpg", ".jpeg", ".webp")
"""File names that Discord shows as a picture."""
GROUP: Final = "santacruz"
"""The bot's command group."""

# -- reading messages ---------------------------------------------------------------------------------------


def as_sent(message: FakeMessage) -> FakeMessage:
    """The message as it was first shown (before any later edit; a deferred answer's "thinking…" placeholder
    skipped; its attachments as they are now)."""
    shown = [entry for entry in message.history if not int(entry.get("flags") or 0) & LOADING]
    if not shown:
        return message
    first = shown[0]
    return FakeMessage(id=message.id, channel_id=message.channel_id, author=message.author,
                       guild_id=message.guild_id, content=str(first.get("content") or ""),
                       embeds=list(first.get("embeds") or []), components=list(first.get("components") or []),
                       attachments=list(message.attachments), allowed_mentions=message.allowed_mentions,
                       flags=int(first.get("flags") or 0))


CUSTOM_EMOJI: Final = re.compile(r"<a?:(\w+):\d+>")
"""A custom emoji in a text (``<:sc1_ship:123>``), as Discord's markup writes it."""


def without_emojis(text: str) -> str:
    """``text`` without its custom emojis (each with the space after it): its words alone, as they read before the
    bot had emojis."""
    return re.sub(r"<a?:\w+:\d+> ?", "", text)


def readable_texts(message: FakeMessage) -> list[str]:
    """Every text a person reads on ``message``: its content and embeds, text displays, button labels, menu
    placeholders and options (label and description), attachment descriptions."""
    found = [message.text] if message.text else []
    for component in walk_components(message.components):
        kind = component.get("type")
        if kind == ComponentType.BUTTON and component.get("label"):
            found.append(str(component["label"]))
        if component.get("placeholder"):
            found.append(str(component["placeholder"]))
        for option in component.get("options") or []:
            found.extend(str(option[key]) for key in ("label", "description") if option.get(key))
    found.extend(a.description for a in message.attachments if a.description)
    return found


def pictures(message: FakeMessage) -> list[FakeAttachment]:
    """The attachments of ``message`` that Discord shows as pictures."""
    return [a for a in message.attachments
            if a.filename.lower().endswith(PICTURE_SUFFIXES) or (a.content_type or "").startswith("image/")]


def picture_size(attachment: FakeAttachment) -> tuple[int, int] | None:
    """Width and height of a picture attachment in pixels (``None`` when its bytes are no picture)."""
    try:
        with Image.open(io.BytesIO(attachment.data)) as image:
            return image.size
    except (OSError, ValueError):
        return None


def broken_picture(filename: str, data: bytes, content_type: str | None = None) -> bool:
    """Whether a file that Discord shows as a picture (by its name or type) holds no picture: Discord takes such a
    file (an empty one too: its API description sets no least size) and players see a broken picture. A
    ``discord.File`` sent a second time is such a file: the first send read it to its end, so it goes empty."""
    if not (filename.lower().endswith(PICTURE_SUFFIXES) or (content_type or "").startswith("image/")):
        return False
    try:
        with Image.open(io.BytesIO(data)) as image:
            return not all(image.size)
    except (OSError, ValueError):
        return True


def controls(message: FakeMessage) -> list[dict[str, Any]]:
    """The buttons and menus a person can use on ``message`` (link buttons, which have no id, left out)."""
    return [c for c in walk_components(message.components) if c.get("custom_id")]


def pings(message: FakeMessage) -> list[int]:
    """The users ``message`` notifies: ``<@id>`` mentions its ``allowed_mentions`` let through."""
    mentioned = [int(m) for m in re.findall(r"<@!?(\d+)>", message.text)]
    allowed = message.allowed_mentions
    if allowed is None:
        return mentioned
    if "users" in allowed:
        let_through = {int(u) for u in allowed.get("users") or []}
        return [m for m in mentioned if m in let_through]
    return mentioned if "users" in (allowed.get("parse") or []) else []


# -- commands that do not exist -----------------------------------------------------------------------------

_COMMAND = re.compile(rf"/{GROUP}\s+([a-z][a-z0-9_-]*)")


def command_names(synced: Iterable[Mapping[str, Any]], group: str = GROUP) -> set[str]:
    """The subcommand names of ``group`` among synced command payloads (as ``FakeDiscord.synced_commands``)."""
    names: set[str] = set()
    for command in synced:
        if command.get("name") != group:
            continue
        for option in command.get("options") or []:
            if option.get("type") in (1, 2):  # subcommand, subcommand group
                names.add(str(option["name"]))
    return names


def unknown_commands(text: str, known: Collection[str]) -> list[str]:
    """The ``/santacruz <x>`` that ``text`` names where ``x`` is not in ``known``, in order."""
    return [name for name in _COMMAND.findall(text) if name not in known]


# -- relative times after since / until ----------------------------------------------------------------------

_SINCE_WORDS: Final = r"since|until|till|seit|bis|depuis|jusqu['’]à|jusqu['’]au|dès"
_RELATIVE: Final = (r"(?:<t:\d+:R>|vor\s+\d+\s+\w+|in\s+\d+\s+\w+|il\s+y\s+a\s+\d+\s+\w+|dans\s+\d+\s+\w+|"
                    r"\d+\s+\w+\s+ago)")
_SINCE_RELATIVE = re.compile(rf"(?<!\w)(?:{_SINCE_WORDS})\s+(?:\*\*)?{_RELATIVE}", re.IGNORECASE)


def relative_after_since(text: str) -> list[str]:
    """Places in ``text`` where a relative time (Discord's ``<t:…:R>``, or "3 hours ago", „vor 3 Stunden“,
    « il y a 3 heures », "in 6 hours", « dans 6 heures ») follows a since/until word (since, until, seit, bis,
    depuis, jusqu'à…): "since 3 hours ago" reads wrong in every language."""
    return [m.group(0) for m in _SINCE_RELATIVE.finditer(text)]


# -- plural slips --------------------------------------------------------------------------------------------

PLURALS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "en": (("point", "points"), ("day", "days"), ("hour", "hours"), ("minute", "minutes"), ("game", "games"),
           ("win", "wins"), ("card", "cards"), ("chip", "chips"), ("move", "moves"), ("player", "players"),
           ("turn", "turns"), ("vote", "votes"), ("round", "rounds"), ("building", "buildings"),
           ("site", "sites"), ("time", "times"), ("house", "houses"), ("church", "churches")),
    "de": (("Punkt", "Punkte"), ("Tag", "Tage"), ("Stunde", "Stunden"), ("Minute", "Minuten"),
           ("Spiel", "Spiele"), ("Sieg", "Siege"), ("Karte", "Karten"), ("Chip", "Chips"), ("Zug", "Züge"),
           ("Stimme", "Stimmen"), ("Runde", "Runden"), ("Partie", "Partien"), ("Haus", "Häuser"),
           ("Kirche", "Kirchen"), ("Mal", "Male")),
    "fr": (("point", "points"), ("jour", "jours"), ("heure", "heures"), ("minute", "minutes"),
           ("partie", "parties"), ("victoire", "victoires"), ("carte", "cartes"), ("jeton", "jetons"),
           ("coup", "coups"), ("joueur", "joueurs"), ("tour", "tours"), ("vote", "votes"), ("manche", "manches"),
           ("bâtiment", "bâtiments"), ("maison", "maisons"), ("église", "églises")),
}
"""Per language, (singular, plural) of the nouns the bot counts."""
_NUMBER: Final = r"(?<![\w.,−+-])(?:\*\*)?(\d+)(?:\*\*)?"
_ADJECTIVE: Final = r"(?:[^\W\d]+[^\S\n]+)?"
"""A word between a count and its noun, on the same line ("1 Leuchtturm" ending a line is no adjective of the next
line's first word)."""
_OPTIONAL_ENDING = re.compile(r"[^\W\d]+\((?:s|e|en|n|es|x|nen|innen)\)")


@cache
def _counted_nouns(locale: str) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    """Per noun the bot counts in ``locale``, its plural and its singular: the noun, the pattern of a count before it,
    and whether that form wants a count of one (compiled once: a whole game's texts are checked)."""
    nouns = PLURALS.get(locale, ())
    # "6 building cards": a noun before another counted noun is part of a compound, not the counted one
    compound = "|".join(re.escape(word) for pair in nouns for word in pair)
    return tuple((noun, re.compile(rf"{_NUMBER}[^\S\n]+{_ADJECTIVE}({re.escape(noun)})(?![\w(])"
                             rf"(?![^\S\n]+(?:{compound})(?!\w))"), wants_one)
                 for singular, plural in nouns for noun, wants_one in ((plural, False), (singular, True)))


def plural_slips(text: str, locale: str) -> list[str]:
    """Counts in ``text`` whose noun has the wrong number for ``locale`` ("1 points", "after 1 rated games",
    „1 Punkte“, "3 point", « 2 partie »; in French 0 and 1 take the singular, in English and German only 1),
    and optional endings such as "game(s)", „Spiel(en)“, « partie(s) », in the order they appear. Signed changes
    ("+1 points", "−2 points per building") are left alone."""
    found = [(m.start(), m.group(0)) for m in _OPTIONAL_ENDING.finditer(text)]
    for noun, pattern, wants_one in _counted_nouns(locale):
        if noun not in text:  # the pattern matches the noun itself: no need to look for a count before it
            continue
        for match in pattern.finditer(text):
            count = int(match.group(1))
            one = count in (0, 1) if locale == "fr" else count == 1
            if one != wants_one:
                found.append((match.start(), match.group(0)))
    return [slip for _, slip in sorted(found)]


# -- autocomplete offers -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Offer:
    """One value an autocomplete offered: the command, the options already filled, the focused option and the
    value as offered (picking it fills the option with exactly this value)."""

    command: str
    filled: tuple[tuple[str, Any], ...]
    focused: str
    name: str
    value: Any

    def options(self) -> dict[str, Any]:
        """The command's options once this offer is picked."""
        return {**dict(self.filled), self.focused: self.value}


def autocomplete_asks(legal: Sequence[str], *, every_card: bool = False) -> list[tuple[str, str, dict[str, Any]]]:
    """The autocompletes a person asks with these legal moves: (command, focused option, options filled). The build
    cards asked are those held (legal now); with ``every_card``, during a double move's builds, every card (which
    must then offer nothing)."""
    verbs = {parse_move(m).verb for m in legal}
    found: list[tuple[str, str, dict[str, Any]]] = []
    if "land" in verbs:
        found.append(("land", "site", {}))
    if verbs & {*SINGLE_BUILDS, "double", "build"}:
        cards = SINGLE_BUILDS if every_card and "build" in verbs else [c for c in SINGLE_BUILDS if c in verbs]
        found.append(("build", "site", {}))
        found += [("build", "site", {"card": card}) for card in cards]
        found += [("build", "site", {"card": "double", "kind": str(parse_move(m).kind)})
                  for m in legal if parse_move(m).verb == "double"]
    if "score" in verbs:
        found.append(("score", "card", {}))
    if verbs & {"set", "pile", "discard", "pass"}:
        found.append(("choose", "option", {}))
    return found


def offer_move(offer: Offer, legal: Sequence[str], build_sites: Mapping[str, Sequence[int]] | None
               ) -> tuple[str, ...] | None:
    """The legal moves ``offer``, picked as it is, plays with the command's documented meaning (README,
    ``engine.plan_build``); ``None`` when it plays none (the command refuses it, or the value names nothing).
    A ``build`` or ``choose`` value that is a move's notation itself (``"ship 12"``, ``"set B"``) means that move; a
    ``build`` site written as digits (``"12"``: that option is text, so that a value may carry its card) is that
    site. A ``score`` value is a scoring card's id (``"river"`` is the River card, not a river building card)."""
    legal_moves = {str(m) for m in legal}
    if isinstance(offer.value, str) and offer.command in ("build", "choose"):
        try:
            notation = str(parse_move(offer.value))
        except IllegalMove:
            notation = ""
        if notation in legal_moves:
            return (notation,)
    options = offer.options()
    wanted: tuple[str, ...]
    if offer.command == "land":
        wanted = (f"land {options.get('site')}",)
    elif offer.command == "score":
        wanted = (f"score {options.get('card')}",)
    elif offer.command == "choose":
        wanted = (str(options.get("option")),)
    elif offer.command == "build":
        site = options.get("site")
        if isinstance(site, str) and site.strip().isdigit():
            site = int(site)  # the option is text: a number is the site, as the command reads it
        if site is not None and not isinstance(site, int):
            return None
        plan = plan_build([parse_move(m) for m in legal], build_sites, options.get("card"), site,
                          options.get("kind"))
        if plan.problem is not None or not plan.moves:
            return None
        wanted = tuple(str(m) for m in plan.moves)
        # a double move and its first build: the double must be legal and the site one its kind builds on
        if wanted[0].startswith("double") and len(wanted) == 2:
            kind = str(plan.moves[0].kind)
            return wanted if wanted[0] in legal_moves and site in (build_sites or {}).get(kind, ()) else None
    else:
        return None
    return wanted if wanted[0] in legal_moves else None


# -- transcript ------------------------------------------------------------------------------------------------


def transcript_entry(message: FakeMessage, where: str, names: Mapping[int, str] | None = None) -> str:
    """A readable block for ``message`` as it was first shown: where it went, its text, its controls and
    attachments, and how often it was edited afterwards (with its last text when that differs). ``names`` turns
    ``<@id>`` and ``<#id>`` mentions into ``@name`` and ``#name``."""
    sent = as_sent(message)
    flags = " (only they see it)" if message.ephemeral else ""
    lines = [f"--- [{message.id}] {where}{flags}"]
    def readable(text: str) -> str:
        text = CUSTOM_EMOJI.sub(lambda m: f":{m.group(1)}:", text)
        if not names:
            return text
        text = re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(int(m.group(1)), m.group(1)), text)
        return re.sub(r"<#(\d+)>", lambda m: "#" + names.get(int(m.group(1)), m.group(1)), text)

    text = readable(sent.text)
    lines.extend("    " + line for line in text.splitlines() if line.strip())
    buttons = [_shown(c) for c in walk_components(sent.components) if c.get("type") == ComponentType.BUTTON]
    if buttons:
        lines.append("    [buttons: " + " · ".join(buttons) + "]")
    for menu in (c for c in walk_components(sent.components) if c.get("type") in (3, 5, 6, 7, 8)):
        options = [_shown(o) + (f" ({o['description']})" if o.get("description") else "")
                   for o in menu.get("options") or []]
        lines.append(f"    [menu “{menu.get('placeholder', '')}”: " + " | ".join(options) + "]")
    for attachment in message.attachments:
        size = picture_size(attachment) if attachment in pictures(message) else None
        shape = f", {size[0]}×{size[1]} px" if size else ""
        lines.append(f"    [attachment {attachment.filename}: {attachment.size / 1000:.0f} kB{shape}]")
    if message.history:
        lines.append(f"    (edited {len(message.history)}× afterwards)")
        if message.text != sent.text and message.text.strip():
            last = readable(message.text).replace("\n", " / ")
            lines.append(f"    (last text: {last})")
    return "\n".join(lines)


def _shown(item: Mapping[str, Any]) -> str:
    """A button's or a menu option's label as a transcript shows it, after its emoji (``:sc1_ship: Ship``)."""
    emoji = item.get("emoji") or {}
    label = str(item.get("label") or "")
    mark = f":{emoji['name']}:" if emoji.get("id") and emoji.get("name") else str(emoji.get("name") or "")
    return " ".join(part for part in (mark, label) if part) or "?"
