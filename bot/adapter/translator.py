"""Slash-command descriptions in the user's language: an ``app_commands.Translator`` over the catalogues.

Command and option *names* stay English, so that everyone in a channel types the same thing; the
descriptions and the choice names are :class:`~discord.app_commands.locale_str` objects carrying a
catalogue key (``locale_str(english, key="commands.land.description")``). When the commands are
synced, discord.py asks this translator for every such string and every Discord locale; German and
French answers fill the ``*_localizations`` fields Discord shows to those users.
"""

from __future__ import annotations

from typing import Final

import discord
from discord import app_commands

from i18n import has, t

TRANSLATED: Final[dict[discord.Locale, str]] = {
    discord.Locale.german: "de",
    discord.Locale.french: "fr",
}
"""Discord locales answered from a catalogue; English is the commands' own text."""


def locale_text(key: str) -> app_commands.locale_str:
    """A translatable command text: the English catalogue text, carrying its key for the translator."""
    return app_commands.locale_str(t(key, "en"), key=key)


class CatalogueTranslator(app_commands.Translator):
    """Looks up the ``key`` a :class:`locale_str` carries in the German or French catalogue."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = TRANSLATED.get(locale)
        key = string.extras.get("key")
        if lang is None or not isinstance(key, str) or not has(key):
            return None
        return t(key, lang)
