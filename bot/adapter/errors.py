"""Refusals and their words: why an interaction was refused, said briefly in the user's language.

Two kinds of refusal reach the user: the host's (:class:`bot.host.host.HostError`: not your turn, illegal
move, outdated button...) and the bot's own (:class:`Refusal`: a command used in the wrong place, an option
that names nothing). :class:`ErrorTexts` words both, and Discord's own complaints about a command; an
illegal move is explained by the engine's reason (``HostError.illegal``: a code and parameters, worded by
:func:`i18n.illegal_text` in the user's language) or, for a card not in the hand or a site not open, by
what can be done instead. Every name and typed value in a refusal is escaped (no markdown, no masked link,
no mention). The cog's error handler sends the text as an ephemeral reply and logs whatever has no words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.adapter.words.common import channel_link, clip, esc, scoring_name
from bot.adapter.words.moves import move_label
from bot.host.errors import HostError, StorageFailed
from bot.host.host import Host
from engine import SINGLE_BUILDS, SITE_VERBS, IllegalMove, Move, View, parse_move
from i18n import illegal_text, listed, t


class Refusal(Exception):
    """A refusal of the bot itself (not the host's): a ``bot.error.*`` key and its values."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def text(self, locale: str) -> str:
        return t(self.key, locale, **self.params)


class ErrorTexts:
    """The reply to an interaction that ended in an error; ``channel_for`` finds the game it was about."""

    def __init__(self, host: Host, channel_for: Callable[[discord.Interaction], int]) -> None:
        self.host = host
        self.channel_for = channel_for

    def text(self, interaction: discord.Interaction, error: Exception, locale: str) -> str | None:
        """What to answer to ``error``; ``None`` if it is unexpected (a bug to log, not a refusal)."""
        if isinstance(error, HostError):
            return self.host_error_text(interaction, error, locale)
        if isinstance(error, Refusal):
            return error.text(locale)
        if isinstance(error, StorageFailed):  # a database failure the host did not word itself
            return t("host.error.storage", locale)
        if isinstance(error, (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch)):
            return t("bot.error.outdated", locale)
        if isinstance(error, app_commands.TransformerError):
            return t("bot.error.bad_value", locale, value=esc(str(error.value)))
        if isinstance(error, app_commands.CheckFailure):
            return t("bot.error.not_allowed", locale)
        return None

    def host_error_text(self, interaction: discord.Interaction, error: HostError, locale: str) -> str:
        if error.illegal is None:
            return t(error.key, locale, **_escaped(error.params))
        try:
            channel_id = self.channel_for(interaction)
            view = self.host.play.view_for(channel_id, interaction.user.id)
            legal = [parse_move(m) for m in self.host.play.legal_moves(channel_id, interaction.user.id)]
        except (Refusal, HostError):
            return _refused(error, locale)
        return _explain_illegal(error, view, legal, locale)


def _refused(error: HostError, locale: str) -> str:
    """The refused move and the engine's reason, in the user's words."""
    assert error.illegal is not None
    return "\n".join((t("bot.error.illegal", locale, move=esc(str(error.params.get("move", "")))),
                      illegal_text(error.illegal, locale, esc)))


def _explain_illegal(error: HostError, view: View, legal: list[Move], locale: str) -> str:
    """Why a move is refused, in the user's words, and what they can do instead."""
    reason = error.illegal
    assert reason is not None
    you = view.get("you")
    if you is not None and reason.code == "scoring_card_not_held":
        cards = (listed([scoring_name(c, locale) for c in you["scoring_cards"]], locale)
                 or t("bot.hand.no_cards", locale))
        return t("bot.error.no_scoring_card", locale, card=scoring_name(reason.params["card"], locale),
                 cards=cards)
    if reason.code in ("no_building_card", "no_double_card"):  # said of each card in its own words
        return t(f"game.card.{reason.params.get('kind', 'double')}.none_left", locale)
    asked = _site_asked(error)
    if asked is not None:
        verb, site = asked
        sites = [str(m.site) for m in legal if m.site is not None and m.verb == verb]
        if sites:
            return t("bot.error.bad_site", locale, site=site, sites=listed(sites, locale))
    lines = [_refused(error, locale)]
    if legal:
        lines.append(t("bot.error.possible", locale, moves=_legal_summary(view, legal, locale)))
    return "\n".join(lines)


def _site_asked(error: HostError) -> tuple[str, int | str] | None:
    """The verb and the site (escaped when it is not a number: "land ²") of a refused move that names a site."""
    reason = error.illegal
    if reason is not None and reason.code == "not_a_number" and reason.params.get("verb") in SITE_VERBS:
        return str(reason.params["verb"]), esc(str(reason.params.get("text", "")))
    try:
        move = parse_move(str(error.params.get("move", "")))
    except IllegalMove:
        return None
    return (move.verb, move.site) if move.site is not None else None


def _escaped(params: dict[str, Any]) -> dict[str, Any]:
    """A host refusal's values made harmless: the host words names and typed values raw (it knows no markdown);
    ``channels`` (ids: the threads of a channel's games) become links to them."""
    return {name: ", ".join(channel_link(int(c)) for c in value) if name == "channels"
            else esc(value) if isinstance(value, str) else value for name, value in params.items()}


def _legal_summary(view: View, legal: list[Move], locale: str) -> str:
    groups: dict[str, list[str]] = {}
    for move in legal:
        if move.site is not None:
            groups.setdefault(move.verb, []).append(str(move.site))
        else:
            groups.setdefault(str(move), [])
    parts = []
    for key, sites in groups.items():
        if sites:
            label = (t(f"game.card.{key}.short", locale) if key in SINGLE_BUILDS
                     else t(f"bot.verb.{key}", locale))
            parts.append(f"{label} → {', '.join(sites)}")
        else:
            parts.append(move_label(view, key, locale))
    return clip("; ".join(parts), 1500)
