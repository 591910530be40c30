"""The fake Discord refuses what Discord's own API description refuses (``openapi.py``), as Discord does.

Every other test checks the same on every request its bot sends: a body the description refuses fails the test
(``tests.fakediscord.fixtures.no_body_discord_refuses``). These check that the check works: a refused body is answered
400 / 50035 "Invalid Form Body" naming where and why, a multipart request's ``payload_json`` is checked too, a
snowflake sent as a JSON number is accepted (Discord and discord.py do that), and the check's shortcuts say what
jsonschema says."""

from __future__ import annotations

import copy
import json
from typing import Any

import aiohttp
import jsonschema

from tests.fakediscord import TINY_PNG, FakeDiscord, openapi


async def test_snowflakes_as_numbers_pass_and_a_body_discord_refuses_is_answered_as_discord_does(
        fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    channel = fake.default_channel.id
    # a snowflake as a JSON number, as discord.py sends some (allowed mentions, message references)
    status, _ = await fake.request_as_bot("POST", f"/channels/{channel}/messages",
                                          {"content": "hi", "allowed_mentions": {"users": [int(fake.default_user.id)]}})
    assert status == 200
    assert fake.refused_bodies == []
    # a snowflake that is no number, and a button without a style, are not
    status, error = await fake.request_as_bot("POST", f"/channels/{channel}/messages",
                                              {"content": "hi", "allowed_mentions": {"users": ["alice"]}})
    assert (status, error["code"]) == (400, 50035)
    assert "_errors" in error["errors"]["allowed_mentions"]["users"]["0"]
    row = {"type": 1, "components": [{"type": 2, "label": "x", "custom_id": "x"}]}
    status, error = await fake.request_as_bot("POST", f"/channels/{channel}/messages",
                                              {"content": "x", "components": [row]})
    assert (status, error["code"]) == (400, 50035)
    assert error["errors"]["components"]["0"]["components"]["0"]["style"]["_errors"][0]["code"] == "BASE_TYPE_REQUIRED"
    assert len(fake.take_refused_bodies()) == 2
    assert not fake.messages(channel)[1:], "nothing refused was posted"


async def test_a_multipart_payload_json_is_checked_too(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    channel = fake.default_channel.id
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps({"content": "x", "flags": "loud"}), content_type="application/json")
    form.add_field("files[0]", TINY_PNG, filename="a.png", content_type="image/png")
    async with aiohttp.ClientSession() as http, http.post(
            f"{fake.api_base}/channels/{channel}/messages", data=form,
            headers={"Authorization": f"Bot {fake.token}"}) as resp:
        assert resp.status == 400
        error = await resp.json()
    assert error["code"] == 50035 and "flags" in error["errors"]
    (refused,) = fake.take_refused_bodies()
    assert "flags" in refused


def test_the_quick_unions_and_refs_accept_and_refuse_as_jsonschemas_own() -> None:
    """The fake's shortcuts for ``oneOf``/``anyOf`` and ``$ref`` (every request is checked, so they are kept cheap)
    give the errors jsonschema's own keywords give, word for word, on valid bodies and on bodies broken in every
    union they meet: an enum of ``const``s, a nullable object, a union of JSON types, a component's type."""
    operation = openapi._operation("POST", "/channels/1/messages")
    assert operation is not None
    quick = openapi._validator(operation.method, operation.pattern.pattern)
    assert quick is not None
    plain_keywords = jsonschema.validators.extend(jsonschema.Draft202012Validator,
                                                  {openapi._BY_TYPE: openapi._by_type})
    plain = plain_keywords(quick.schema, registry=openapi._spec()[0])
    button = {"type": 2, "style": 1, "label": "Join", "custom_id": "sample:join"}
    menu = {"type": 3, "custom_id": "sample:pick", "options": [{"label": "A", "value": "a"}]}
    valid = {"content": "hi", "nonce": 12, "allowed_mentions": {"parse": ["users"]},
             "components": [{"type": 1, "components": [button]}, {"type": 1, "components": [menu]}]}
    broken: list[tuple[tuple[Any, ...], Any]] = [
        (("components", 0, "components", 0, "style"), 9), (("components", 0, "components", 0, "style"), True),
        (("components", 0, "components", 0, "style"), 2.0), (("components", 0, "components", 0, "style"), "1"),
        (("components", 0, "components", 0, "type"), 99), (("components", 1, "type"), 2),
        (("allowed_mentions",), None), (("allowed_mentions",), 5), (("allowed_mentions", "parse", 0), "all"),
        (("nonce",), "n" * 26), (("nonce",), True), (("nonce",), None), (("nonce",), 1.5), (("nonce",), [1]),
    ]
    bodies = [valid]
    for where, value in broken:
        body = copy.deepcopy(valid)
        node: Any = body
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value
        bodies.append(body)

    def said(validator: Any, body: Any) -> list[tuple[str, list[Any], list[Any]]]:
        return sorted((e.message, list(e.absolute_path), list(e.absolute_schema_path))
                      for e in openapi._leaves(validator.iter_errors(body)))

    refused = 0
    for body in bodies:
        assert said(quick, body) == said(plain, body), body
        refused += bool(said(plain, body))
    # all but the style 2.0 (JSON: 2) and a null allowed_mentions or nonce (both nullable)
    assert not said(plain, valid) and refused == len(broken) - 3
