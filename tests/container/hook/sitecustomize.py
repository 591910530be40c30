"""Point discord.py at the fake Discord when ``FAKE_DISCORD_URL`` is set (``http://127.0.0.1:PORT``).

``scripts/container-check`` mounts this folder into the container and puts it on ``PYTHONPATH``, so Python
imports it at start-up and the image's own ``santacruz-bot`` runs unchanged against the fake, as
``tests/fakediscord/child_bot.py`` does for a bot process outside a container. Never part of the image.
"""

import os

_url = os.environ.get("FAKE_DISCORD_URL")
if _url:
    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = f"{_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(_url.replace("http://", "ws://") + "/gateway/")
    discord.asset.Asset.BASE = _url
