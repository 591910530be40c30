"""Files: reading a request's body (JSON, or multipart with ``payload_json`` and ``files[n]`` parts), the
attachments a message keeps or gains on an edit, a person's upload for an ATTACHMENT option, and serving them back
(attachment URLs, and a tiny PNG for every avatar and icon)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import aiohttp
from aiohttp import web

from .message import TINY_PNG, FakeAttachment, UploadedFile, guess_content_type


class Uploads:
    """The part of :class:`~tests.fakediscord.server.FakeDiscord` that receives and serves files."""

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            files: list[UploadedFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, aiohttp.BodyPartReader):
                    continue
                raw = await part.read(decode=True)
                if part.name == "payload_json":
                    payload = json.loads(raw.decode())
                else:
                    files.append(
                        UploadedFile(
                            field_name=part.name or "",
                            filename=part.filename or "",
                            content_type=part.headers.get("Content-Type"),
                            data=bytes(raw),
                        )
                    )
            return payload, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw.decode()), []
        except (UnicodeDecodeError, json.JSONDecodeError):
            return raw, []

    def make_attachment(self, filename: str, data: bytes, *, content_type: str | None = None) -> FakeAttachment:
        """A user-uploaded attachment (for ATTACHMENT options); served at its ``url``."""
        aid = self.snowflakes.next()
        attachment = FakeAttachment(
            id=aid,
            filename=filename,
            data=data,
            url=f"{self.base_url}/attachments/0/{aid}/{filename}",
            content_type=content_type or guess_content_type(filename, data),
        )
        self._loose_attachments[aid] = attachment
        return attachment

    def _attachments(
        self, body: dict[str, Any], files: list[UploadedFile], channel_id: int, existing: list[FakeAttachment]
    ) -> list[FakeAttachment]:
        by_field = {f.field_name: f for f in files}
        used: set[str] = set()
        listed = body.get("attachments")
        result: list[FakeAttachment] = []
        if listed is None:
            result = list(existing)
        else:
            kept = {a.id: a for a in existing}
            for entry in listed:
                try:
                    aid = int(entry.get("id"))
                except (TypeError, ValueError):
                    continue
                upload = by_field.get(f"files[{aid}]")
                if upload is not None and aid not in kept:
                    used.add(upload.field_name)
                    result.append(self._new_attachment(upload, channel_id, entry))
                elif aid in kept:
                    result.append(kept[aid])
        for upload in files:
            if upload.field_name not in used:
                result.append(self._new_attachment(upload, channel_id, {}))
        return result

    def _new_attachment(self, upload: UploadedFile, channel_id: int, entry: dict[str, Any]) -> FakeAttachment:
        aid = self.snowflakes.next()
        filename = str(entry.get("filename") or upload.filename)
        return FakeAttachment(
            id=aid,
            filename=filename,
            data=upload.data,
            url=f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}",
            content_type=guess_content_type(filename, upload.data),
            description=entry.get("description"),
        )

    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["attachment_id"])
        for attachment in self._iter_attachments():
            if attachment.id == aid:
                return web.Response(
                    body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
                )
        return web.Response(status=404)

    async def _cdn_handler(self, request: web.Request) -> web.StreamResponse:
        # Avatars and icons (discord.Asset URLs, pointed here by patch_discord): a 1x1 PNG.
        return web.Response(body=TINY_PNG, content_type="image/png")

    def _iter_attachments(self) -> Iterable[FakeAttachment]:
        yield from self._loose_attachments.values()
        for msg in self._messages.values():
            yield from msg.attachments
