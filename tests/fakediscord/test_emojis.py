"""The application's own emojis as the fake Discord serves them (``tests/fakediscord/emojis.py``), over its REST API:
list, get, create (201), rename and delete (204), with Discord's refusals (a name taken, a bad name, a bad image, one
over 256 KiB, the 2,001st emoji, an unknown id) and a message whose button shows an emoji the bot may not use refused
whole."""

from __future__ import annotations

import base64

import aiohttp

from tests.fakediscord import TINY_PNG, FakeDiscord

PNG = TINY_PNG
"""A picture, as an emoji's image."""


def data(png: bytes, kind: str = "png") -> str:
    return f"data:image/{kind};base64,{base64.b64encode(png).decode()}"


async def test_the_fake_serves_application_emojis_as_discord_documents_them(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    emojis = f"{fake.api_base}/applications/{fake.application_id}/emojis"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {fake.token}"}) as http:
        async with http.post(emojis, json={"name": "sc1_ship", "image": data(PNG)}) as resp:
            made = await resp.json()
            assert resp.status == 201 and made["name"] == "sc1_ship" and made["user"]["id"] == str(fake.bot_user.id)
            assert {"id", "roles", "require_colons", "managed", "animated", "available"} <= set(made)
        one = f"{emojis}/{made['id']}"
        async with http.get(emojis) as resp:
            assert [e["id"] for e in (await resp.json())["items"]] == [made["id"]]
        refusals = [({"name": "sc1_ship", "image": data(PNG)}, "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"),
                    ({"name": "sc1-ship", "image": data(PNG)}, "BASE_TYPE_INVALID"),
                    ({"name": "sc1_road", "image": data(b"not a picture")}, "IMAGE_INVALID")]
        for body, code in refusals:
            async with http.post(emojis, json=body) as resp:
                error = await resp.json()
                assert resp.status == 400 and error["code"] == 50035, error
                assert code in str(error["errors"]), error
        large = PNG + b"\0" * (256 * 1024)
        async with http.post(emojis, json={"name": "sc1_large", "image": data(large)}) as resp:
            assert resp.status == 400 and "code" not in await resp.json()  # "but not a JSON status code"
        async with http.patch(one, json={"name": "sc1_boat"}) as resp:
            assert resp.status == 200 and (await resp.json())["name"] == "sc1_boat"
        async with http.delete(one) as resp:
            assert resp.status == 204
        async with http.get(one) as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 10014
        for i in range(2000):
            fake.application_emojis.add(f"other_{i}")
        async with http.post(emojis, json={"name": "sc1_ship", "image": data(PNG)}) as resp:
            assert resp.status == 400 and (await resp.json())["code"] == 30008
        # a button may show only an emoji the bot may use: Discord refuses the message
        button = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Ship", "custom_id": "x",
                                             "emoji": {"id": "1234", "name": "sc1_ship"}}]}
        async with http.post(f"{fake.api_base}/channels/{fake.default_channel.id}/messages",
                             json={"content": "x", "components": [button]}) as resp:
            error = await resp.json()
            assert resp.status == 400 and "BUTTON_COMPONENT_INVALID_EMOJI" in str(error["errors"]), error


