"""What an operator's dashboard reads: the process's Prometheus metrics, defined once here, recorded where each thing
happens, exposed by the adapter's HTTP server (``/metrics``, :mod:`bot.adapter.health`).

The metrics live in their own :data:`REGISTRY` (not prometheus-client's global one), so what ``/metrics`` shows is
exactly this list, with prometheus-client's process, garbage-collector and platform collectors (``process_*``,
``python_gc_*``, ``python_info``) and the build (``santacruz_build_info``: this version, Python's, discord.py's).
Counters and histograms are recorded as things happen: interactions and their acknowledgements, requests Discord
refused or rate-limited, the gateway's connections, the event loop's lag, database transactions, computer moves and
hints, pictures, lease take-overs, storage failures, deliveries given up or skipped. What is a state rather than an
event is read when ``/metrics`` is asked: the outbox's backlog and the games by status from the database
(:func:`observe_store`, the same whichever process is asked), the gateway's latency per shard and the servers from
the process's own gateway (:func:`observe_gateway`).

Nothing here knows Discord: labels are plain strings the adapter passes in.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib import metadata
from typing import Any, Final

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
)

REGISTRY: Final = CollectorRegistry(auto_describe=True)
"""Every metric of this process (``/metrics`` exposes this registry)."""
ProcessCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

_SECONDS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)

INTERACTIONS: Final = Counter(
    "santacruz_interactions", "Interactions, counted at their first answer, by kind (command, autocomplete, "
    "component, modal), command (or button), and outcome: answered, deferred (the answer follows), refused (in "
    "words), error (an unexpected failure, said in words), unanswered (the answer failed: too late, or twice), "
    "stopping (answered while the bot stops)", ("kind", "command", "outcome"), registry=REGISTRY)
ACK_SECONDS: Final = Histogram(
    "santacruz_interaction_ack_seconds", "Time from an interaction's creation to the bot's first answer to it "
    "(Discord allows 3 s)", ("kind",), buckets=_SECONDS, registry=REGISTRY)
DISCORD_ERRORS: Final = Counter(
    "santacruz_discord_errors", "Requests to Discord that failed, by what they were (post, dm, edit, interaction, "
    "other) and HTTP status", ("request", "status"), registry=REGISTRY)
DELIVERIES_FAILED: Final = Counter(
    "santacruz_deliveries_failed", "Posts and DMs the outbox could not deliver, by delivery kind and what became of "
    "them (retried later, given up); Discord's statuses are in santacruz_discord_errors", ("kind", "outcome"),
    registry=REGISTRY)
DELIVERIES_SKIPPED: Final = Counter(
    "santacruz_deliveries_skipped", "Posts and DMs the outbox did not send on purpose, by delivery kind and why: "
    "turn_passed (a turn DM whose turn was played before it went out), same_hand (a later DM shows it), not_running, "
    "turn_dms_off, collapsed (gathered into one DM after quiet hours), game_gone, no_game_over, lobby_redrawn_later "
    "(a later redraw of the lobby message draws it), folded (a \"your cards changed\" DM folded into the turn DM "
    "written while it waited). Normal play, not a failure", ("kind", "reason"), registry=REGISTRY)
DELIVERIES_FOUND: Final = Counter(
    "santacruz_deliveries_found", "Posts and DMs left from before a start that were in Discord already (sent after "
    "the backup a restore brought back, or by a process that died before recording them): recorded, not sent "
    "again, by delivery kind", ("kind",), registry=REGISTRY)
COMPUTER_SECONDS: Final = Histogram(
    "santacruz_computer_move_seconds", "Time a computer player took to choose a move, by strength", ("strength",),
    buckets=_SECONDS, registry=REGISTRY)
HINT_SECONDS: Final = Histogram(
    "santacruz_hint_seconds", "Time the coach took for a hint", buckets=_SECONDS, registry=REGISTRY)
RENDER_SECONDS: Final = Histogram(
    "santacruz_render_seconds", "Time a picture took to draw, its wait for a render worker included, by what it shows "
    "and the priority of its work: post (the moves being played, and all other work), catch_up (posts and DMs owed "
    "from before this process started, drawn by the spare render worker), cosmetic", ("picture", "priority"),
    buckets=_SECONDS, registry=REGISTRY)
LEASE_TAKEOVERS: Final = Counter(
    "santacruz_lease_takeovers", "Work (a channel's outbox or computers) this process took over from another process "
    "whose lease had run out or been released", ("work",), registry=REGISTRY)
STORAGE_ERRORS: Final = Counter(
    "santacruz_storage_errors", "Reads and writes the database refused (locked, full, unreachable), by what was "
    "being done", ("doing",), registry=REGISTRY)
BUDGET_WAIT: Final = Histogram(
    "santacruz_discord_budget_wait_seconds", "Time a request to Discord waited for a token of the bot's shared budget "
    "(PostgreSQL: GLOBAL_RATE_LIMIT for all processes), by priority: post (posts, turn DMs, everything else), "
    "catch_up (posts and DMs owed from before the process started) or cosmetic (edits that only tidy old messages); "
    "each gives way to the ones before it when the budget is tight", ("priority",),
    buckets=_SECONDS, registry=REGISTRY)
BUDGET_RETAKEN: Final = Counter(
    "santacruz_discord_budget_retaken", "Requests to Discord that took a second token of the budget because the slot "
    "(1/8 s) their first was counted in was over before they went out, by why: resumed_late (the busy event loop let "
    "the request go on late after its token was handed out) or connected_late (a connection had to be made or waited "
    "for first)", ("why",), registry=REGISTRY)
BUDGET_RESERVATIONS: Final = Counter(
    "santacruz_discord_budget_reservations", "Round trips to the database that reserved tokens of the shared budget "
    "(a few tokens each)", registry=REGISTRY)
OUTBOX_BACKLOG: Final = Gauge(
    "santacruz_outbox_backlog", "Posts and DMs owed and not yet sent (all processes' channels)", registry=REGISTRY)
OUTBOX_OLDEST: Final = Gauge(
    "santacruz_outbox_oldest_seconds", "Age of the oldest post or DM owed that is due (0: none)", registry=REGISTRY)
GAMES: Final = Gauge(
    "santacruz_games", "Games in the database, by status", ("status",), registry=REGISTRY)
STATUSES: Final = ("lobby", "running", "over", "abandoned", "damaged")
RATE_LIMITS: Final = Counter(
    "santacruz_discord_rate_limits", "Requests Discord answered 429 Too Many Requests (discord.py waits each out and "
    "sends it again), by the limit's scope (user: the bot's own per-route limit, shared: a channel's or server's "
    "limit shared with others, global: all of the bot's requests, none: no scope said, e.g. Cloudflare's ban after "
    "too many refused requests) and what the request was", ("scope", "request"), registry=REGISTRY)
GATEWAY_EVENTS: Final = Counter(
    "santacruz_gateway_events", "What happened to the gateway connection, by shard: session (a new session: at the "
    "start, and after a break that could not be resumed), resume (a session resumed after a break: the events "
    "meanwhile are replayed), disconnect (a connection lost, or an attempt to connect that failed)",
    ("shard", "event"), registry=REGISTRY)
GATEWAY_LATENCY: Final = Gauge(
    "santacruz_gateway_latency_seconds", "Time between the gateway's last heartbeat and its acknowledgement, by shard "
    "(left out until the first heartbeat was acknowledged)", ("shard",), registry=REGISTRY)
GUILDS: Final = Gauge(
    "santacruz_guilds", "Servers the bot is in, as this process's shards see them", registry=REGISTRY)
LOOP_LAG: Final = Histogram(
    "santacruz_event_loop_lag_seconds", "How late the event loop woke a task that slept one second: the time it spent "
    "on other work meanwhile (every answer waits that long)", buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                                        1.0, 2.5, 5.0), registry=REGISTRY)
GC_PAUSE: Final = Histogram(
    "santacruz_gc_pause_seconds", "How long a garbage collection of this process took, by generation (the event loop "
    "waits for it, and a request held meanwhile leaves late)", ("generation",),
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0), registry=REGISTRY)
DATABASE_SECONDS: Final = Histogram(
    "santacruz_database_seconds", "Time a database transaction took, by kind (read, write), its wait for the "
    "connection (PostgreSQL's pool, SQLite's one connection) included", ("kind",), buckets=_SECONDS,
    registry=REGISTRY)
BUILD: Final = Info(
    "santacruz_build", "The running build: this bot's version, Python's and discord.py's", registry=REGISTRY)


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


BUILD.info({"version": _version("santacruz-discord"), "python": platform.python_version(),
            "discord_py": _version("discord.py")})


def observe_store(figures: dict[str, Any]) -> None:
    """Set the database's figures (``backlog``, ``oldest`` seconds, ``games`` by status) before an exposition."""
    OUTBOX_BACKLOG.set(figures["backlog"])
    OUTBOX_OLDEST.set(figures["oldest"])
    for status in STATUSES:
        GAMES.labels(status).set(figures["games"].get(status, 0))


def observe_gateway(latencies: Mapping[int, float], guilds: int) -> None:
    """Set the gateway's figures before an exposition: each shard's latency (seconds; an infinite one, before the
    first acknowledged heartbeat, is left out) and the servers this process sees."""
    for shard, latency in latencies.items():
        if latency != float("inf"):
            GATEWAY_LATENCY.labels(str(shard)).set(latency)
    GUILDS.set(guilds)
