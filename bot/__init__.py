"""The Discord side of Santa Cruz.

``bot.host`` makes every decision about games in channels and knows nothing of Discord;
``bot.store`` keeps games and their move log in SQLite; ``bot.settings`` reads the environment;
``bot.table`` holds the host's data and answer types. The cog (Discord commands and views) calls the
host and turns its answers into messages.
"""
