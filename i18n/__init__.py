"""Message catalogues: every text a person sees, in English, German and French.

Catalogues are JSON files ``i18n/locales/<lang>/<domain>.json``, each a flat mapping from a key to a
``str.format`` template. Keys start with their domain (``game.``, ``render.``, ``bot.``, ``rules.``,
``commands.``), so that each file has one owner. :func:`t` looks a key up for a locale and fills in
the placeholders; a missing key in German or French falls back to English, a key missing everywhere
raises ``KeyError`` (tests make sure that never happens).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

LOCALES: Final = ("en", "de", "fr")
DEFAULT_LOCALE: Final = "en"


def normalize_locale(locale: object) -> str:
    """Map a Discord locale (``'de'``, ``'en-US'``, ``'fr'``, a ``discord.Locale``…) to ``en``, ``de`` or ``fr``."""
    text = str(getattr(locale, "value", locale) or "").lower().replace("_", "-")
    lang = text.split("-", 1)[0]
    return lang if lang in LOCALES else DEFAULT_LOCALE


@cache
def catalogue(locale: str) -> dict[str, str]:
    """All keys of one language, merged from its domain files."""
    merged: dict[str, str] = {}
    folder = resources.files("i18n").joinpath("locales", locale)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            overlap = merged.keys() & data.keys()
            if overlap:
                raise ValueError(f"{locale}/{entry.name} repeats keys: {sorted(overlap)[:5]}")
            merged.update(data)
    return merged


def has(key: str) -> bool:
    return key in catalogue(DEFAULT_LOCALE)


def t(key: str, locale: object = DEFAULT_LOCALE, /, **values: Any) -> str:
    """The text for ``key`` in ``locale`` with ``values`` filled in."""
    lang = normalize_locale(locale)
    template = catalogue(lang).get(key)
    if template is None:
        template = catalogue(DEFAULT_LOCALE)[key]
    return template.format(**values) if values else template
