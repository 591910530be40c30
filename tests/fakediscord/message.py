"""Messages and their files, as the fake stores them: :class:`FakeMessage` (with the JSON Discord sends for it and
what tests read of it: text, buttons, menus, custom ids), :class:`FakeAttachment` (a stored file, its bytes kept
for assertions), :class:`UploadedFile` (one file part of a multipart request), and the helpers around them
(:func:`walk_components`, :func:`guess_content_type`, :data:`TINY_PNG`). No I/O."""

from __future__ import annotations

import mimetypes
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .kinds import EPHEMERAL, LOADING, ComponentType, iso_now


@dataclass
class UploadedFile:
    """One file part of a multipart request (``files[n]``)."""

    field_name: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass(eq=False)
class FakeAttachment:
    """A file attached to a message; ``data`` keeps the uploaded bytes for assertions."""

    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        """Size of the file in bytes."""
        return len(self.data)

    def to_payload(self) -> dict[str, Any]:
        """The attachment object."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            payload["content_type"] = self.content_type
        if self.description is not None:
            payload["description"] = self.description
        if self.content_type and self.content_type.startswith("image/"):
            size = _image_size(self.data)
            if size:
                payload["width"], payload["height"] = size
        return payload


def _png(width: int, height: int, rgba: tuple[int, int, int, int]) -> bytes:
    """A solid-colour RGBA PNG, without Pillow."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 6, 0, 0, 0])
    row = b"\x00" + bytes(rgba) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


#: A 1x1 grey PNG: what the fake serves for avatars and guild icons.
TINY_PNG = _png(1, 1, (128, 128, 128, 255))


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG from its IHDR chunk, else ``None``."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def guess_content_type(filename: str, data: bytes) -> str | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    return mimetypes.guess_type(filename)[0]


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Yield every component in a component tree, depth first (rows, containers, sections...)."""
    for component in components:
        yield component
        children = list(component.get("components") or [])
        if isinstance(component.get("component"), dict):  # label
            children.append(component["component"])
        if isinstance(component.get("accessory"), dict):  # section
            children.append(component["accessory"])
        yield from walk_components(children)


@dataclass(eq=False)
class FakeMessage:
    """A message stored by the fake, as the bot (or a simulated user) created it.

    Fields keep the JSON shapes the bot sent (``embeds``, ``components``,
    ``allowed_mentions``); edits update them in place and push the previous state onto
    ``history``.
    """

    id: int
    channel_id: int
    author: dict[str, Any]
    guild_id: int | None = None
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    flags: int = 0
    tts: bool = False
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    nonce: str | int | None = None
    deleted: bool = False
    #: Unicode emoji (or ``name:id``) the bot reacted with.
    reactions: list[str] = field(default_factory=list)
    #: Snapshots (``to_payload()``) of the message before each edit, oldest first.
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def author_id(self) -> int:
        """Id of the author."""
        return int(self.author["id"])

    @property
    def ephemeral(self) -> bool:
        """Whether only the invoking user can see it (flag 64)."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """Whether it is still a deferred "thinking..." placeholder (flag 128)."""
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        """Whether the message was edited at least once."""
        return bool(self.history)

    @property
    def text(self) -> str:
        """Content plus the visible text of embeds and text-display components, newline joined.

        Handy for "does the answer mention X" assertions that should not care whether the
        bot used plain content or an embed.
        """
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields") or []:
                parts.extend([str(fld.get("name", "")), str(fld.get("value", ""))])
            if (embed.get("footer") or {}).get("text"):
                parts.append(str(embed["footer"]["text"]))
            if (embed.get("author") or {}).get("name"):
                parts.append(str(embed["author"]["name"]))
        for component in walk_components(self.components):
            if component.get("type") == ComponentType.TEXT_DISPLAY and component.get("content"):
                parts.append(str(component["content"]))
        return "\n".join(parts)

    # -- components -------------------------------------------------------------------

    def iter_components(self) -> Iterator[dict[str, Any]]:
        """Every component of the message, depth first."""
        return walk_components(self.components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """All button components."""
        return [c for c in self.iter_components() if c.get("type") == ComponentType.BUTTON]

    @property
    def selects(self) -> list[dict[str, Any]]:
        """All select menu components (string, user, role, mentionable, channel)."""
        kinds = {3, 5, 6, 7, 8}
        return [c for c in self.iter_components() if c.get("type") in kinds]

    @property
    def custom_ids(self) -> list[str]:
        """The ``custom_id`` of every interactive component, in order."""
        return [c["custom_id"] for c in self.iter_components() if c.get("custom_id")]

    def component(self, custom_id: str | None = None, *, label: str | None = None) -> dict[str, Any]:
        """The component with this ``custom_id`` or (for buttons) this ``label``; ``KeyError`` if none."""
        for comp in self.iter_components():
            if custom_id is not None and comp.get("custom_id") == custom_id:
                return comp
            if label is not None and comp.get("label") == label:
                return comp
        raise KeyError(
            f"message {self.id} has no component with custom_id={custom_id!r} label={label!r}; "
            f"custom_ids: {self.custom_ids}"
        )

    # -- payload ----------------------------------------------------------------------

    def to_payload(self, *, created: bool = False) -> dict[str, Any]:
        """The message object; its nonce only as the answer to its creation and in its MESSAGE_CREATE (``created``):
        Discord does not store nonces, so a message read later has none."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
        if created and self.nonce is not None:
            payload["nonce"] = self.nonce
        return payload


MessageRef = FakeMessage | int
"""A message as tests name one: the object or its id."""
