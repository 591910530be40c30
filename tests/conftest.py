"""pytest set-up shared by every test folder: the fake Discord's fixtures (used by ``tests/adapter``).

The tests follow the code's layout: ``engine/``, ``render/``, ``i18n/``, ``host/`` (the game host,
no Discord at all), ``adapter/`` (the real discord.py against the fake Discord) and ``play/``.
"""

pytest_plugins = ["tests.fakediscord.fixtures"]
