"""What one interaction led to: :class:`InteractionHandle` (the interaction a test dispatched, the bot's callback,
its original response, edits and followups, with ``wait_for_*`` helpers) and :class:`InteractionCallback` (the bot's
first answer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from .entities import FakeChannel, FakeGuild, FakeUser
from .inspection import DEFAULT_TIMEOUT
from .kinds import EPHEMERAL, CallbackType, InteractionType
from .message import FakeMessage, UploadedFile
from .routing import RecordedRequest
from .validation import ApiError

if TYPE_CHECKING:
    from .server import FakeDiscord

T = TypeVar("T")


@dataclass
class InteractionCallback:
    """What the bot answered to ``POST /interactions/{id}/{token}/callback``."""

    type: int
    data: dict[str, Any] | None
    files: list[UploadedFile] = field(default_factory=list)

    @property
    def kind(self) -> CallbackType | int:
        """The type as a :class:`CallbackType` when known."""
        try:
            return CallbackType(self.type)
        except ValueError:
            return self.type

    @property
    def flags(self) -> int:
        """``data.flags`` (0 if absent)."""
        return int((self.data or {}).get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Whether the answer (message or deferral) is ephemeral."""
        return bool(self.flags & EPHEMERAL)

    @property
    def content(self) -> str | None:
        """``data.content``."""
        return (self.data or {}).get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        """``data.embeds``."""
        return list((self.data or {}).get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        """``data.components``."""
        return list((self.data or {}).get("components") or [])

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices (type 8)."""
        return list((self.data or {}).get("choices") or [])


class InteractionHandle:
    """One interaction the test dispatched, and everything the bot did with its token.

    Created by the ``fake.build_*`` methods (not yet sent) or returned by the sending helpers
    (``await fake.slash_command(...)``). Await the bot's reaction with the ``wait_for_*``
    methods; plain attributes give the state right now.
    """

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        payload: dict[str, Any],
        user: FakeUser,
        channel: FakeChannel,
        guild: FakeGuild | None,
        source_message_id: int | None = None,
        description: str = "",
    ) -> None:
        self.fake = fake
        #: The INTERACTION_CREATE ``d`` payload.
        self.payload = payload
        self.id = int(payload["id"])
        self.token: str = payload["token"]
        self.type = InteractionType(payload["type"])
        self.user = user
        self.channel = channel
        self.guild = guild
        #: For component / modal interactions: the message the component is on.
        self.source_message_id = source_message_id
        self.description = description or f"{self.type.name} interaction {self.id}"
        #: Loop time when the INTERACTION_CREATE frame was sent (None until dispatched).
        self.dispatched_at: float | None = None
        #: The accepted callback (``None`` until the bot answered).
        self.callback: InteractionCallback | None = None
        #: Callbacks the fake rejected (e.g. a second acknowledgement, a validation error).
        self.rejected_callbacks: list[tuple[InteractionCallback, ApiError]] = []
        #: Id of the message created by a type 4/5 callback.
        self.original_message_id: int | None = None
        #: Ids of messages created (or filled, after a type 5 deferral) through the followup webhook.
        self.followup_ids: list[int] = []
        #: JSON bodies of every edit of the original response (``PATCH .../messages/@original``).
        self.original_edits: list[dict[str, Any]] = []
        #: Every REST request made with this interaction's id or token.
        self.requests: list[RecordedRequest] = []
        self._first_followup_fills_original = False

    def __repr__(self) -> str:
        state = self.callback.kind if self.callback else "pending"
        return f"<InteractionHandle {self.description} id={self.id} callback={state}>"

    # -- state ----------------------------------------------------------------------

    @property
    def data(self) -> dict[str, Any]:
        """The interaction's ``data`` object."""
        return self.payload.get("data") or {}

    @property
    def acknowledged(self) -> bool:
        """Whether the bot answered the interaction."""
        return self.callback is not None

    @property
    def original_message(self) -> FakeMessage | None:
        """The message the interaction's ``@original`` refers to right now.

        That is the message of a type 4/5 callback, else (for component interactions answered
        with type 6/7) the message the component is on.
        """
        mid = self._original_id()
        return self.fake._messages.get(mid) if mid is not None else None

    @property
    def followups(self) -> list[FakeMessage]:
        """Messages sent through the followup webhook, in order (current state)."""
        return [self.fake._messages[mid] for mid in self.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """The original response (unless still loading) followed by the followups, deduplicated."""
        result: list[FakeMessage] = []
        original = self.original_message
        # a component's message counts once this interaction changed it (type 7, or an edit)
        changed = (
            self.original_message_id is not None
            or self.original_edits
            or (self.callback is not None and self.callback.type == CallbackType.UPDATE_MESSAGE)
        )
        if original is not None and changed and not original.loading and not original.deleted:
            result.append(original)
        for msg in self.followups:
            if msg not in result and not msg.deleted:
                result.append(msg)
        return result

    def _original_id(self) -> int | None:
        if self.original_message_id is not None:
            return self.original_message_id
        if self.callback is not None and self.callback.type in (
            CallbackType.DEFERRED_UPDATE_MESSAGE,
            CallbackType.UPDATE_MESSAGE,
        ):
            return self.source_message_id
        return None

    # -- waiting --------------------------------------------------------------------

    async def wait_until(
        self, predicate: Callable[[InteractionHandle], T], *, timeout: float = DEFAULT_TIMEOUT, what: str = ""
    ) -> T:
        """Wait until ``predicate(self)`` is truthy and return its value."""
        return await self.fake.wait_until(
            lambda: predicate(self), timeout=timeout, description=f"{what or 'condition'} for {self!r}"
        )

    async def wait_for_callback(self, *, timeout: float = DEFAULT_TIMEOUT) -> InteractionCallback:
        """Wait for the bot's interaction callback (its first answer) and return it."""
        return await self.wait_until(lambda h: h.callback, timeout=timeout, what="the interaction callback")

    async def wait_for_followup(self, count: int = 1, *, timeout: float = DEFAULT_TIMEOUT) -> FakeMessage:
        """Wait until at least ``count`` followups were sent; return the ``count``-th one."""

        def check(h: InteractionHandle) -> FakeMessage | None:
            return h.followups[count - 1] if len(h.followup_ids) >= count else None

        return await self.wait_until(check, timeout=timeout, what=f"followup #{count}")

    async def wait_for_original_edit(self, count: int = 1, *, timeout: float = DEFAULT_TIMEOUT) -> FakeMessage:
        """Wait until the original response was edited ``count`` times; return the message."""

        def check(h: InteractionHandle) -> FakeMessage | None:
            return h.original_message if len(h.original_edits) >= count else None

        return await self.wait_until(check, timeout=timeout, what=f"edit #{count} of the original response")

    async def wait_for_message(
        self, predicate: Callable[[FakeMessage], object] | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> FakeMessage:
        """Wait for a visible answer (original response or followup) matching ``predicate``.

        Works whatever way the bot answered: direct reply, deferral then edit, deferral then
        followup, or (for components) updating the clicked message.
        """

        def check(h: InteractionHandle) -> FakeMessage | None:
            for msg in h.messages:
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.wait_until(check, timeout=timeout, what="an answer message")
