"""The generated OpenAPI description says what the server does (issue 28, defect 8):
404s documented where the server answers them, 403 (no or wrong PIN) apart
from 429 (the table refusing every PIN), and request bodies whose schema
accepts exactly what the server reads: a body the schema allows is never
refused as malformed (400), and one it forbids is.

The schema check is a small reader of the OpenAPI 3.0 keywords these
schemas use, written here so the test needs nothing more.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.conftest import PIN

AUTH = {"X-Table-PIN": PIN}
JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def allows(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` meets ``schema`` (OpenAPI 3.0 subset)."""
    if value is None:
        return bool(schema.get("nullable"))
    if "oneOf" in schema:
        return sum(allows({**s, "nullable": schema.get("nullable")}, value)
                   for s in schema["oneOf"]) == 1
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return False
    elif kind in JSON_TYPES and not isinstance(value, JSON_TYPES[kind]):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            return False
        if value % schema.get("multipleOf", 1):
            return False
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
        if len(value) > schema.get("maxLength", len(value)):
            return False
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            return False
        return all(allows(schema.get("items", {}), v) for v in value)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        if any(k not in value for k in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(props):
            return False
        return all(allows(props[k], v) for k, v in value.items() if k in props)
    return True


def _body_schema(spec: dict[str, Any], path: str) -> dict[str, Any]:
    return spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]


@pytest.fixture
def spec(client: Any) -> dict[str, Any]:
    return client.get("/api/openapi.json").json


READS = ["/api/games/{game_id}", "/api/games/{game_id}/hands/{hand_no}",
         "/api/games/{game_id}/hands/{hand_no}/record.json",
         "/api/games/{game_id}/scores.csv", "/api/games/{game_id}/events"]


def test_read_views_document_the_404_they_answer(spec: dict[str, Any], client: Any) -> None:
    for path in READS:
        assert "404" in spec["paths"][path]["get"]["responses"], path
        r = client.get(path.format(game_id=999, hand_no=1))
        assert r.status_code == 404 and r.json["error"], path


def test_writes_document_403_and_429_apart_and_the_server_agrees(
        spec: dict[str, Any], client: Any) -> None:
    responses = spec["paths"]["/api/bid"]["post"]["responses"]
    assert "no PIN" in responses["403"]["description"]
    assert "Retry-After" in responses["429"]["headers"]
    client.post("/api/games", json={"pin": PIN})
    assert client.post("/api/bid", json={"bid": "pass"}).status_code == 403
    codes = [client.post("/api/bid", json={"bid": "pass"},
                         headers={"X-Table-PIN": "000000"}).status_code for _ in range(6)]
    assert codes == [403] * 5 + [429]
    # No PIN at all is still 403: nothing was guessed.
    assert client.post("/api/bid", json={"bid": "pass"}).status_code == 403


START_BODIES = [
    {"pin": PIN}, {"pin": "1234"}, {"pin": PIN, "target": 0}, {"pin": PIN, "target": 1500},
    {"pin": PIN, "target": 10 ** 6}, {"pin": PIN, "rules": "club"},
    {"pin": PIN, "rules": "nope"}, {"pin": PIN, "settings": {"min_bid": 100}},
    {"pin": PIN, "settings": {"min_bid": 85}}, {"pin": PIN, "settings": {"taget": 1}},
    {"pin": PIN, "settings": {"belote": "auto"}}, {"pin": PIN, "settings": {"belote": "x"}},
    {"pin": PIN, "teams": {"NS": "x" * 41}}, {"pin": PIN, "dealer": "Q"},
    {"pin": PIN, "dealer": "E", "clockwise": True},
]


@pytest.mark.parametrize("body", START_BODIES, ids=[str(i) for i in range(len(START_BODIES))])
def test_start_body_schema_matches_the_server(spec: dict[str, Any], client: Any,
                                              body: dict[str, Any]) -> None:
    allowed = allows(_body_schema(spec, "/api/games"), body)
    status = client.post("/api/games", json=body).status_code
    assert (status == 201) == allowed, (body, status)


PLAY_BODIES = [
    ("/api/bid", {"bid": "80H"}), ("/api/bid", {"bid": "85H"}), ("/api/bid", {"bid": 80}),
    ("/api/bid", {"bid": "capotNT"}), ("/api/bid", {"bid": "pass", "seat": "X"}),
    ("/api/contract", {"taker": "N", "value": 90, "trump": "S"}),
    ("/api/contract", {"taker": "N", "value": 95, "trump": "S"}),
    ("/api/contract", {"taker": "N", "value": "capot", "trump": "AT", "double": 4}),
    ("/api/contract", {"taker": "N", "value": 90, "trump": "S", "double": 3}),
    ("/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 3}}),
    ("/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 9}}),
    ("/api/tally", {"points": {"NS": 100}, "tricks": {"NS": 5, "EW": 3}}),
    ("/api/tally", {"points": {"NS": 100, "EW": 62}, "tricks": {"NS": 5, "EW": 3},
                    "belote": ["NS", "EW", "NS", "EW", "NS"]}),
    ("/api/correct", {"seat": "N", "trick": 9, "card": "TH"}),
    ("/api/correct", {"seat": "N", "trick": 1, "card": "5H"}),
    ("/api/play", {"card": None}), ("/api/play", {"card": "XX"}),
]


@pytest.mark.parametrize("path,body", PLAY_BODIES, ids=[str(i) for i in range(len(PLAY_BODIES))])
def test_entry_body_schemas_match_the_server(spec: dict[str, Any], client: Any, path: str,
                                             body: dict[str, Any]) -> None:
    client.post("/api/games", json={"pin": PIN})
    if path in ("/api/tally", "/api/play", "/api/correct"):
        client.post("/api/contract", json={"taker": "N", "value": 80, "trump": "H"},
                    headers=AUTH)
    allowed = allows(_body_schema(spec, path), body)
    status = client.post(path, json=body, headers=AUTH).status_code
    # Allowed: accepted, or refused by the rules of the game now (409), never 400.
    assert (status != 400) == allowed, (path, body, status)
