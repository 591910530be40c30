"""Names people choose that the bot, its pages and its pictures must show as they are and survive: hostile ones
(Discord markdown, a masked link, a mention) and long ones in several scripts."""

from __future__ import annotations

HOSTILE_NAMES = {"mallory": "**Mal** [click me](https://evil.example) @everyone",
                 "trudy": "__Tru__ ||dy|| `x` > quote"}
"""Display names written in Discord markdown, with a masked link and a mass mention: shown escaped, never as
markup."""
LONG_NAMES = {
    "Latin": ["Alexandra Kim", "Jean-Baptiste Beauregard", "Bartholomäus von Wolkenstein-Rodeneck"[:32]],
    "CJK": ["王小明王小明王小明王小明", "たろうやまだたろうやまだたろうやまだ", "김민준이서연김민준이서연김민준"],
    "emoji": ["🦊 Fuchs der Schlaue", "🐻🎲 Bärbel Würfelglück 🌊⭐"],
    "Arabic": ["محمد عبد الرحمن", "فاطمة الزهراء بنت عبد الله الفاسي"[:32]],
}
"""Long names in four scripts (Latin, CJK, emoji, Arabic), each at most 32 characters, as Discord allows."""
