"""The games' web pages: an HTTP server (aiohttp) that shows each game's live board, its replay and its log, and a
seat's own view behind a signed link; and the same page written as static files for the offline demo.

It never imports discord.py: every decision is the host's part :mod:`bot.host.web`, which it reads through. The
adapter only adds the link buttons to its posts and DMs, and starts :class:`bot.web.server.WebServer` beside the bot.
"""
