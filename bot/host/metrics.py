"""What an operator's dashboard reads: the process's Prometheus metrics, defined once here, recorded where each thing
happens, exposed by the adapter's HTTP server (``/metrics``, :mod:`bot.adapter.health`).

The metrics live in their own :data:`REGISTRY` (not prometheus-client's global one), so what ``/metrics`` shows is
exactly this list. Counters and histograms are recorded as things happen: interactions and their acknowledgements,
requests Discord refused, computer moves and hints, pictures, lease take-overs, storage failures. What is a state
rather than an event (the outbox's backlog, the games by status) is read from the database when ``/metrics`` is
asked (:func:`observe_store`), so it is the same whichever process is asked.

Nothing here knows Discord: labels are plain strings the adapter passes in.
"""

from __future__ import annotations

from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY: Final = CollectorRegistry(auto_describe=True)
"""Every metric of this process (``/metrics`` exposes this registry)."""

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
    "santacruz_render_seconds", "Time a picture took to draw, by what it shows", ("picture",), buckets=_SECONDS,
    registry=REGISTRY)
LEASE_TAKEOVERS: Final = Counter(
    "santacruz_lease_takeovers", "Work (a channel's outbox or computers) this process took over from another process "
    "whose lease had run out or been released", ("work",), registry=REGISTRY)
STORAGE_ERRORS: Final = Counter(
    "santacruz_storage_errors", "Reads and writes the database refused (locked, full, unreachable), by what was "
    "being done", ("doing",), registry=REGISTRY)
OUTBOX_BACKLOG: Final = Gauge(
    "santacruz_outbox_backlog", "Posts and DMs owed and not yet sent (all processes' channels)", registry=REGISTRY)
OUTBOX_OLDEST: Final = Gauge(
    "santacruz_outbox_oldest_seconds", "Age of the oldest post or DM owed that is due (0: none)", registry=REGISTRY)
GAMES: Final = Gauge(
    "santacruz_games", "Games in the database, by status", ("status",), registry=REGISTRY)
STATUSES: Final = ("lobby", "running", "over", "abandoned", "damaged")


def observe_store(figures: dict[str, Any]) -> None:
    """Set the database's figures (``backlog``, ``oldest`` seconds, ``games`` by status) before an exposition."""
    OUTBOX_BACKLOG.set(figures["backlog"])
    OUTBOX_OLDEST.set(figures["oldest"])
    for status in STATUSES:
        GAMES.labels(status).set(figures["games"].get(status, 0))
