"""A fake Discord (REST API v10 and gateway) on 127.0.0.1 for end-to-end bot tests.

The real, unmodified discord.py talks to it over HTTP and a websocket, so a bot is tested exactly as it runs, without
the internet. Teach it what Discord really does (checked against Discord's documentation and its OpenAPI description,
``discord-api-spec/``), never what is convenient. A test starts it with the ``fake_discord`` fixture, drives the bot
with interactions (``await fake.slash_command(...)``, ``fake.click_button(...)``) and reads what the bot did (messages,
recorded requests, synced commands, one :class:`InteractionHandle` per interaction).

Where each thing lives (one topic a module; no module over 500 lines):

========================  ==========================================================================================
**The server**
``server.py``             :class:`FakeDiscord`: composed of the parts below; its state, start and stop, and what
                          every request goes through (recorded, rate limited, body checked, emojis and pictures
                          checked, faults, token, routed to a part)
``routing.py``            how a part marks a handler with its routes (``@route("GET", "/channels/{channel_id}")``),
                          :class:`RecordedRequest`, JSON answers
**Its parts** (each a mixin of :class:`FakeDiscord` with its REST routes next to their handlers)
``world.py``              setting up the world (users, guilds, channels, roles, members, DMs) and looking things up
``guilds.py``             REST: the bot's user and application, users, DM channels, guilds, roles, members
``channels.py``           REST: channels and messages (post, edit, delete, react, nonces), message events, a person
                          posting, deleting a channel
``threads.py``            threads: made, archived (idle or locked), unarchived by a message
``uploads.py``            attachments and uploads: multipart bodies, a message's files, attachment and CDN URLs
``app_commands.py``       REST: the application commands the bot syncs
``emojis.py``             REST: the application's own emojis; a button or option may show only those
``slash.py``              slash commands and autocomplete as a person types them (options checked and resolved)
``interactions.py``       clicks, select menus, modals, raw component interactions; dispatching interactions
``responses.py``          REST: the bot's answers to interactions (callbacks, followups, ``@original`` edits)
``gateway.py``            the gateway websocket: sessions, shards, heartbeats, RESUME, dispatching events
``faults.py``             Discord failing on purpose: injected errors, rate limits, stalled requests, denied
                          permissions, Discord unreachable
``rate_limits.py``        Discord's rate limits enforced on every request: per-route buckets with their headers, the
                          global limit, invalid requests and a ban past them; the gateway's session starts
``inspection.py``         what tests read and wait on (messages, requests, ``wait_*``, the timeout report)
**Data, no I/O**
``kinds.py``              Discord's numbers: flags, permissions, locales, the type enums, snowflakes
``entities.py``           users, roles, channels, members, guilds and their JSON
``message.py``            messages, attachments, uploaded files and their JSON
``handles.py``            :class:`InteractionHandle` and :class:`InteractionCallback`: what one interaction led to
``validation.py``         what Discord refuses and how it says so (limits of messages, components, commands...)
``openapi.py``            the check of every request body against Discord's OpenAPI description
**For tests**
``fixtures.py``           the ``fake_discord`` fixture, :func:`patch_discord`, :func:`run_bot`, :class:`BotRunner`
``audit.py``              what players meet, counted over recorded messages (texts, pictures, pings, plural slips)
``remote.py``             playing for the people of games that bot processes elsewhere hold
``child_bot.py``          a bot process started against the fake
``sample_bot.py``         a small discord.py bot using every feature the fake serves, for the fake's own tests
``test_*.py``             the fake's own tests, one file a topic
========================  ==========================================================================================

A new route is a handler marked with ``@route`` in the part of its topic; a new topic is a new part (a module with one
mixin class), added to :class:`FakeDiscord`'s bases in ``server.py``.
"""

from .entities import FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser
from .fixtures import BotRunner, patch_discord, run_bot
from .gateway import GatewayConnection, GatewaySession, shard_of
from .handles import InteractionCallback, InteractionHandle
from .inspection import DEFAULT_TIMEOUT, FakeDiscordTimeout
from .kinds import (
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    CallbackType,
    ChannelType,
    ComponentType,
    InteractionType,
    OptionType,
)
from .message import TINY_PNG, FakeAttachment, FakeMessage, UploadedFile, walk_components
from .routing import RecordedRequest
from .server import FakeDiscord
from .validation import ApiError

__all__ = [
    "DEFAULT_TIMEOUT",
    "EPHEMERAL",
    "IS_COMPONENTS_V2",
    "LOADING",
    "TINY_PNG",
    "ApiError",
    "BotRunner",
    "CallbackType",
    "ChannelType",
    "ComponentType",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "GatewayConnection",
    "GatewaySession",
    "InteractionCallback",
    "InteractionHandle",
    "InteractionType",
    "OptionType",
    "RecordedRequest",
    "UploadedFile",
    "patch_discord",
    "run_bot",
    "shard_of",
    "walk_components",
]
