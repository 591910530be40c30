"""Refusals and their words: why an interaction was refused, said briefly in the user's language.

Two kinds of refusal reach the user: the host's (:class:`bot.host.host.HostError`: not your turn, illegal
move, stale button...) and the bot's own (:class:`Refusal`: a command used in the wrong place, an option
that names nothing). :class:`ErrorTexts` words both, and Discord's own complaints about a command; an
illegal move is explained (the card is not in the hand, the site is not open) with what can be done
instead. The cog's error handler sends the text as an ephemeral reply and logs whatever has no words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.adapter import texts
from bot.host.host import Host, HostError
from bot.host.store import StorageFailed
from engine import BUILDING_CARDS, SCORING_CARD_IDS
from i18n import t


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
            return t("bot.error.bad_value", locale, value=texts.esc(str(error.value)))
        if isinstance(error, app_commands.CheckFailure):
            return t("bot.error.not_allowed", locale)
        return None

    def host_error_text(self, interaction: discord.Interaction, error: HostError, locale: str) -> str:
        if error.key != "host.error.illegal_move":
            return error.text(locale)
        try:
            channel_id = self.channel_for(interaction)
        except Refusal:
            return t("bot.error.illegal", locale, move=texts.esc(str(error.params.get("move", ""))))
        move = str(error.params.get("move", ""))
        try:
            return self._explain_illegal(channel_id, interaction.user.id, move, locale)
        except HostError:
            return t("bot.error.illegal", locale, move=texts.esc(move))

    def _explain_illegal(self, channel_id: int, user_id: int, move: str, locale: str) -> str:
        """Why a move is refused, in the user's words, and what they can do instead."""
        verb, _, arg = move.partition(" ")
        view = self.host.view_for(channel_id, user_id)
        legal: list[str] = self.host.legal_moves(channel_id, user_id)
        you = view.get("you")
        if you is not None and verb == "score" and arg not in you["scoring_cards"]:
            cards = (", ".join(texts.scoring_name(c, locale) for c in you["scoring_cards"])
                     or t("bot.hand.no_cards", locale))
            name = texts.scoring_name(arg, locale) if arg in SCORING_CARD_IDS else texts.esc(arg)
            return t("bot.error.no_scoring_card", locale, card=name, cards=cards)
        if you is not None and verb in BUILDING_CARDS and not view["players"][you["seat"]]["building_cards"][verb]:
            return t("bot.error.no_building_card", locale, card=t(f"game.card.{verb}.one", locale))
        if verb in texts.SITE_VERBS and arg:
            sites = [m.partition(" ")[2] for m in legal if m.partition(" ")[0] == verb and m.partition(" ")[2]]
            if sites:
                return t("bot.error.bad_site", locale, site=texts.esc(arg), sites=", ".join(sites))
        lines = [t("bot.error.illegal", locale, move=texts.esc(move))]
        if legal:
            lines.append(t("bot.error.possible", locale, moves=_legal_summary(view, legal, locale)))
        return "\n".join(lines)


def _legal_summary(view: dict[str, Any], legal: list[str], locale: str) -> str:
    groups: dict[str, list[str]] = {}
    for move in legal:
        verb, _, arg = move.partition(" ")
        if verb in texts.SITE_VERBS and arg:
            groups.setdefault(verb, []).append(arg)
        else:
            groups.setdefault(move, [])
    parts = []
    for key, sites in groups.items():
        if sites:
            label = (t(f"game.card.{key}.short", locale) if key in texts.SINGLE_CARDS
                     else t(f"bot.verb.{key}", locale))
            parts.append(f"{label} → {', '.join(sites)}")
        else:
            parts.append(texts.move_label(view, key, locale))
    return texts.clip("; ".join(parts), 1500)
