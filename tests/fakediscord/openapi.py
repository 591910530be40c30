"""Discord's own description of its HTTP API (``discord-api-spec/openapi.json``), as the fake's check of request bodies.

Discord publishes the schema of every route's request body in an OpenAPI 3.1 document (the repository
``discord/discord-api-spec``, MIT; the copy beside this module names its commit in its README). :func:`body_errors`
checks a JSON body, or a multipart body's ``payload_json``, against the ``application/json`` schema of the route's
operation and lists what Discord would refuse: where (the dotted path of Discord's "Invalid Form Body" errors), why,
and the keyword of JSON Schema the body breaks.

One relaxation: the description types every snowflake as a string of digits, while Discord accepts a snowflake sent as
a JSON number too (and discord.py sends some that way); a non-negative integer is allowed in its place.

The fake checks every request, so the check is kept cheap: the document is read once per process; each operation's
validator is compiled the first time a request meets it; each ``$ref`` is looked up once; a body met before is
answered as before; a union (``oneOf``/``anyOf``) accepts a valid body without trying each of its branches (a refused
body still gets jsonschema's own words).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema

SPEC_FILE = Path(__file__).with_name("discord-api-spec") / "openapi.json"
_URI = "urn:discord-api-spec"

SNOWFLAKE = {"type": ["string", "integer"], "pattern": r"^(0|[1-9][0-9]*)$", "minimum": 0, "format": "snowflake"}
"""The description's ``SnowflakeType`` (a string of digits) with a non-negative JSON number allowed as well."""


@dataclass(frozen=True)
class _Operation:
    method: str
    pattern: re.Pattern[str]
    literal_segments: int
    schema: dict[str, Any] | None


@functools.cache
def _spec() -> tuple[referencing.Registry[Any], tuple[_Operation, ...]]:
    document = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    document["components"]["schemas"]["SnowflakeType"] = SNOWFLAKE
    _dispatch_unions(document, document["components"]["schemas"])
    resource = referencing.jsonschema.DRAFT202012.create_resource(document)
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(_URI, resource).crawl()
    operations = []
    for template, item in document["paths"].items():
        segments = template.strip("/").split("/")
        regex = "/".join("[^/]+" if s.startswith("{") else re.escape(s) for s in segments)
        literal = sum(not s.startswith("{") for s in segments)
        for method, operation in item.items():
            if method == "parameters":
                continue
            content = (operation.get("requestBody") or {}).get("content") or {}
            schema = (content.get("application/json") or {}).get("schema")
            operations.append(_Operation(method.upper(), re.compile("/" + regex), literal, schema))
    # A literal segment beats a parameter (``/messages/@original`` before ``/messages/{message_id}``).
    operations.sort(key=lambda op: -op.literal_segments)
    return registry, tuple(operations)


def _dispatch_unions(node: Any, schemas: dict[str, Any]) -> None:
    """Rewrite, in place, each union (``oneOf``/``anyOf``) whose branches are objects told apart by their ``type``
    (components, command options, interaction callbacks) into the keyword :func:`_by_type`, which goes straight to
    the branch of the body's ``type``.

    It accepts and refuses exactly what the union does (every branch requires ``type``, and no two share a value), but
    validates a component against its own branch only, instead of against every kind of component, and its errors are
    those of the branch the body chose."""
    if isinstance(node, list):
        for item in node:
            _dispatch_unions(item, schemas)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _dispatch_unions(value, schemas)
    for keyword in ("oneOf", "anyOf"):
        branches = node.get(keyword)
        keys = [_type_values(branch, schemas) for branch in branches or ()]
        if not keys or any(k is None for k in keys):
            continue
        values = [v for k in keys for v in k or ()]
        if len(values) != len(set(values)):
            continue
        del node[keyword]
        node[_BY_TYPE] = [[k, branch] for k, branch in zip(keys, branches, strict=True)]


def _by_type(validator: Any, branches: list[list[Any]], instance: Any, schema: Any) -> Iterator[Any]:
    """The keyword :func:`_dispatch_unions` writes: the instance is checked against the branch its ``type`` selects
    (an object without a known ``type`` is refused as the union refuses it)."""
    if not validator.is_type(instance, "object"):
        yield jsonschema.ValidationError(f"{instance!r} is not of type 'object'", validator="type")
        return
    if "type" not in instance:
        yield jsonschema.ValidationError("'type' is a required property", validator="required",
                                         validator_value=["type"])
        return
    for index, (values, branch) in enumerate(branches):
        if instance["type"] in values and not isinstance(instance["type"], bool):
            yield from validator.descend(instance, branch, schema_path=index)
            return
    known = [v for values, _ in branches for v in values]
    yield jsonschema.ValidationError(f"{instance['type']!r} is not one of {known}", validator="enum", path=["type"])


@dataclass(frozen=True)
class _Union:
    """What a union's branches say without looking at an instance: the JSON types each branch declares (``None``:
    any), and, for a union of ``const``s only (Discord's enums: component types, button styles), their values."""
    branches: list[Any]
    types: tuple[tuple[str, ...] | None, ...]
    consts: frozenset[Any] | None


_unions: dict[int, _Union] = {}
"""Each union of the description met, by the identity of its list of branches (kept alive here with it)."""


def _union(branches: list[Any]) -> _Union:
    known = _unions.get(id(branches))
    if known is not None and known.branches is branches:
        return known
    types = tuple(((b["type"],) if isinstance(b["type"], str) else tuple(b["type"]))
                  if isinstance(b, dict) and "type" in b else None for b in branches)
    values = [b["const"] for b in branches if isinstance(b, dict) and set(b) <= {"const", "title", "description"}
              and "const" in b]
    plain = len(values) == len(branches) and all(type(v) in (int, str) for v in values)
    consts = frozenset(values) if plain and len(set(values)) == len(values) else None
    _unions[id(branches)] = known = _Union(branches, types, consts)
    return known


def _fast_union(keyword: Any, exactly_one: bool) -> Any:
    """``oneOf`` or ``anyOf`` (``keyword``: jsonschema's own) answering a valid instance without trying every branch:
    a value of an enum of ``const``s is looked up; otherwise the branches whose declared ``type`` refuses the
    instance are left out (they fail), and when one branch is left and it accepts the instance, so does the union.
    Every other case (and every refusal, so its errors are word for word jsonschema's) goes to ``keyword``."""
    def check(validator: Any, branches: list[Any], instance: Any, schema: Any) -> Iterator[Any]:
        union = _union(branches)
        if union.consts is not None and type(instance) in (int, str, float) and instance in union.consts:
            return  # the values are distinct, so exactly one branch holds it (bool is never taken for 0 or 1)
        candidates = [branch for branch, types in zip(branches, union.types, strict=True)
                      if types is None or any(validator.is_type(instance, t) for t in types)]
        decided = len(candidates) == 1 or not exactly_one  # oneOf: another candidate might accept it too
        if decided and any(validator.evolve(schema=branch).is_valid(instance) for branch in candidates):
            return
        yield from keyword(validator, branches, instance, schema)
    return check


@functools.cache
def _target(ref: str) -> Any:
    """The schema a ``$ref`` of the description names (its refs all point into the one document, which has no
    ``$id`` of its own, so a ref names the same schema wherever it stands)."""
    return _spec()[0].resolver(_URI).lookup(ref).contents


def _ref(validator: Any, ref: str, instance: Any, schema: Any) -> Iterator[Any]:
    """``$ref`` with each target looked up once (jsonschema's walks the document's pointer at every use)."""
    yield from validator.descend(instance, _target(ref))


_BY_TYPE = "x-santacruz-by-type"
_Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {
    _BY_TYPE: _by_type,
    "$ref": _ref,
    "oneOf": _fast_union(jsonschema.Draft202012Validator.VALIDATORS["oneOf"], exactly_one=True),
    "anyOf": _fast_union(jsonschema.Draft202012Validator.VALIDATORS["anyOf"], exactly_one=False),
})


def _type_values(branch: dict[str, Any], schemas: dict[str, Any]) -> list[Any] | None:
    """The values of ``type`` that select this branch of a union (an object that requires ``type``), else None."""
    while "$ref" in branch:
        branch = schemas[branch["$ref"].rsplit("/", 1)[-1]]
    kind = (branch.get("properties") or {}).get("type")
    if kind is None or "type" not in (branch.get("required") or ()):
        return None
    while "$ref" in kind:
        kind = schemas[kind["$ref"].rsplit("/", 1)[-1]]
    if "const" in kind:
        return [kind["const"]]
    return list(kind["enum"]) if "enum" in kind else None


def _operation(method: str, path: str) -> _Operation | None:
    return next((op for op in _spec()[1] if op.method == method and op.pattern.fullmatch(path)), None)


@functools.cache
def _validator(method: str, template: str) -> jsonschema.protocols.Validator | None:
    registry, operations = _spec()
    operation = next(op for op in operations if op.method == method and op.pattern.pattern == template)
    if operation.schema is None:
        return None
    # The body's own refs ("#/components/...") point into the document, which the registry holds under _URI.
    schema = json.loads(json.dumps(operation.schema).replace('"$ref": "#/', f'"$ref": "{_URI}#/'))
    return _Validator(schema, registry=registry)


def known_route(method: str, path: str) -> bool:
    """Whether Discord's description has this method on this path (below ``/api/v10``)."""
    return _operation(method.upper(), path) is not None


def body_errors(method: str, path: str, body: Any) -> list[tuple[str, str, str]]:
    """What Discord's description refuses in ``body`` (the decoded JSON, or a multipart request's ``payload_json``;
    ``None`` for no body) sent as ``method`` to ``path``: ``(dotted path, message, keyword)`` triples (the keyword of
    JSON Schema the body breaks, e.g. ``maxLength``), none when it is valid or the route takes no body."""
    operation = _operation(method.upper(), path)
    if operation is None or operation.schema is None or body is None:
        return []
    try:  # the same body to the same route has the same answer (each bot start syncs the same command tree)
        key = (operation.method, operation.pattern.pattern, json.dumps(body, sort_keys=True, allow_nan=False))
    except (TypeError, ValueError):  # not JSON data (raw bytes): checked each time
        return _errors(operation, body)
    known = _answers.get(key)
    if known is None:
        if len(_answers) >= ANSWERS_KEPT:
            _answers.clear()
        known = _answers[key] = _errors(operation, body)
    return list(known)


ANSWERS_KEPT = 2000
"""How many bodies' answers :func:`body_errors` keeps (all are forgotten at once when full)."""

_answers: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}


def _errors(operation: _Operation, body: Any) -> list[tuple[str, str, str]]:
    validator = _validator(operation.method, operation.pattern.pattern)
    assert validator is not None
    found = []
    for error in _leaves(validator.iter_errors(body)):
        where = [str(p) for p in error.absolute_path]
        if error.validator == "required":  # Discord names the missing field itself
            found += [(".".join([*where, name]), "This field is required", "required")
                      for name in error.validator_value if name not in error.instance]
        else:
            found.append((".".join(where), _message(error), str(error.validator)))
    return list(dict.fromkeys(found))  # a field missing from one object is named once


def _leaves(errors: Iterable[jsonschema.ValidationError]) -> Iterator[jsonschema.ValidationError]:
    """The most precise errors: for a failed union (``anyOf``, ``oneOf``), those of the branch that went deepest
    into the body before failing (the branch whose ``type`` matched, in Discord's unions of components)."""
    for error in errors:
        if not error.context:
            yield error
            continue
        branches: dict[Any, list[jsonschema.ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        yield from _leaves(max(branches.values(), key=_reach))


def _reach(found: list[jsonschema.ValidationError]) -> tuple[int, int]:
    """How far a union's branch got: the depth of its shallowest error, then fewer errors of a wrong JSON type (a
    number refused by ``{"type": "null"}`` says less than the same number over a ``maximum``)."""
    return min(len(e.absolute_path) for e in found), -sum(e.validator == "type" for e in found)


def _message(error: jsonschema.ValidationError) -> str:
    if len(error.message) <= 200:
        return error.message
    return f"{error.validator} {error.validator_value!r} refuses {repr(error.instance)[:60]}..."
