"""The JSON API: the table's state, the entries the organiser makes, the history.

Every write needs the table's PIN (``X-Table-PIN`` header, or the organiser's
session with its CSRF token), is read by ``web.entries`` and then checked by
the rules engine through ``TableService.submit``: a bad request is answered
4xx with ``{"error": "field: reason"}`` and changes nothing. The OpenAPI
description (``/api/openapi.json``) is generated from the ``@doc`` notes on
these views.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from companion.store import StoreError
from scorer.bidding import DOUBLES
from scorer.cards import CARD_PATTERN, SEATS, TEAMS, TRUMPS
from scorer.events import EntryUndone, Event
from scorer.validate import InvalidInputError, read_json
from scorer.view import GameView
from web import access, entries, gamebook, i18n, messages

bp = Blueprint("api", __name__, url_prefix="/api")

ERROR = {"type": "object", "properties": {"error": {"type": "string"},
                                          "field": {"type": "string"}},
         "required": ["error"]}
SEAT = {"type": "string", "enum": list(SEATS)}
CARD = {"type": "string", "pattern": CARD_PATTERN, "example": "TH"}
STATE = {"type": "object", "description": "GameState.to_json() plus game_id, events, status",
         "properties": {"phase": {"type": "string"}, "teams": {"type": "object"},
                        "scores": {"type": "object"}, "contract": {"type": "object",
                                                                   "nullable": True},
                        "current_trick": {"type": "object"}, "renonces": {"type": "array"}}}
NOT_FOUND = {"404": {"description": "no such game or hand", "content": {
    "application/json": {"schema": ERROR}}}}


def _read(description: str, schema: dict[str, Any] | None = None,
          media: str = "application/json") -> dict[str, Any]:
    """The responses of a read view that names a game or a hand."""
    ok: dict[str, Any] = {"description": description}
    if schema is not None:
        ok["content"] = {media: {"schema": schema}}
    return {"200": ok, **NOT_FOUND}


WRITE_RESPONSES = {
    "200": {"description": "accepted", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"seq": {"type": "integer"}, "state": STATE}}}}},
    "400": {"description": "malformed request", "content": {
        "application/json": {"schema": ERROR}}},
    "403": {"description": "no PIN (none given) or a wrong PIN (counted against the table)",
            "content": {"application/json": {"schema": ERROR}}},
    "409": {"description": "refused by the rules (out of turn, card already played...)",
            "content": {"application/json": {"schema": ERROR}}},
    "413": {"description": "body larger than the server reads"},
    "429": {"description": "too many wrong PINs for this table: every PIN is refused for "
                           "the seconds of Retry-After (the message says how long)",
            "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            "content": {"application/json": {"schema": ERROR}}},
}


def doc(method: str, summary: str, body: dict[str, Any] | None = None,
        responses: dict[str, Any] | None = None, write: bool = False
        ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Note how a view is called, for the generated OpenAPI description."""
    def wrap(view: Callable[..., Any]) -> Callable[..., Any]:
        operation: dict[str, Any] = {"summary": summary, "description": view.__doc__ or ""}
        if body is not None:
            operation["requestBody"] = {"required": True, "content": {
                "application/json": {"schema": body}}}
        operation["responses"] = responses or (
            WRITE_RESPONSES if write else {"200": {"description": "OK"}})
        if write:
            operation["security"] = [{"tablePin": []}]
        notes = getattr(view, "openapi", {})
        notes[method.lower()] = operation
        view.openapi = notes  # type: ignore[attr-defined]
        return view
    return wrap


def _error(status: int, message: str | BaseException, field: str | None = None
           ) -> tuple[Response, int]:
    # People read these on the organiser's page: in their language, codes as
    # the page shows them; programs read ``field``.
    body: dict[str, Any] = {"error": messages.human(message, field)}
    if field:
        body["field"] = field
    return jsonify(body), status


@bp.errorhandler(entries.EntryError)
def _bad_entry(exc: entries.EntryError) -> tuple[Response, int]:
    return _error(400, exc, exc.field)


@bp.errorhandler(access.AccessDenied)
def _denied(exc: access.AccessDenied) -> tuple[Response, int]:
    return _error(403, str(exc))


@bp.errorhandler(access.PinLocked)
def _locked(exc: access.PinLocked) -> tuple[Response, int]:
    response, status = _error(429, exc.message())
    response.headers["Retry-After"] = str(exc.seconds)
    return response, status


@bp.errorhandler(CSRFError)
def _csrf(exc: CSRFError) -> tuple[Response, int]:
    return _error(400, _("CSRF: the page is out of date, reload it (%(why)s)")
                  % {"why": exc.description})


@bp.errorhandler(HTTPException)
def _http(exc: HTTPException) -> tuple[Response, int]:
    return _error(exc.code or 500, messages.http_reason(exc.code))


def _service() -> Any:
    return current_app.config["SERVICE"]


def _body() -> dict[str, Any]:
    """The request's JSON object (or form fields), read through the one JSON
    validator: depth and numbers bounded, so no body can make a 500."""
    if request.form:
        return request.form.to_dict()
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        data = read_json(raw)
    except InvalidInputError as exc:
        raise entries.EntryError("body", exc.reason) from None
    if not isinstance(data, dict):
        raise entries.EntryError("body", "expected a JSON object")
    return data


def _submit(build: Callable[[dict[str, Any], GameView], Event]) -> tuple[Response, int]:
    """Check the PIN, read the entry, hand it to the service (which asks the rules)."""
    author = access.authorise()
    service = _service()
    if service.game_id is None:
        return _error(409, "no game is open: start a game first")
    event = build(_body(), service.view())
    try:
        stored = service.submit(event, source="web", author=author)
    except ValueError as exc:
        return _error(409, exc)
    said = i18n.entry_sentence(event, stored.source, stored.confidence)
    if isinstance(event, EntryUndone):
        target = service.events()[event.index]
        said = _("Undone: %(entry)s") % {"entry": i18n.entry_sentence(
            target.event, target.source, target.confidence)}
    return jsonify({"seq": stored.seq, "event": event.to_json(), "message": said,
                    "state": service.state_json()}), 200


# -- reading -----------------------------------------------------------------------------

@bp.get("/state")
@doc("get", "The table now", responses={"200": {"description": "the state", "content": {
    "application/json": {"schema": STATE}}}})
def state() -> Response:
    """Teams, scores, target, dealer, contract, the trick in progress, whose turn,
    tricks won, card points, renonces with proof, unknown cards, camera and display."""
    return jsonify(_service().state_json())


@bp.get("/games")
@doc("get", "Every game, oldest first")
def games() -> Response:
    """Each game with its teams, scores, winner and number of hands."""
    return jsonify(gamebook.list_games(_service()))


@bp.get("/games/<int:game_id>")
@doc("get", "One game and its hands", responses=_read("the game"))
def game(game_id: int) -> Any:
    """The game's settings, final or running scores, and each hand's score."""
    try:
        return jsonify(gamebook.game(_service(), game_id))
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))


@bp.get("/games/<int:game_id>/hands/<int:hand_no>")
@doc("get", "One hand in full", responses=_read("the hand"))
def hand(game_id: int, hand_no: int) -> Any:
    """The auction, the eight tricks (leader, cards, winner, points), the score
    step by step, renonces with proof, and every correction with who and when."""
    try:
        return jsonify(gamebook.hand(_service(), game_id, hand_no))
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))


@bp.get("/games/<int:game_id>/hands/<int:hand_no>/record.json")
@doc("get", "A hand record (docs/design.md exchange format)",
     responses=_read("the record", {"type": "object"}))
def hand_record(game_id: int, hand_no: int) -> Any:
    """The hand as a record that ``belote-table score`` reads."""
    try:
        detail = gamebook.hand(_service(), game_id, hand_no)
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))
    response = jsonify(detail["record"])
    response.headers["Content-Disposition"] = (
        f'attachment; filename="game{game_id}-hand{hand_no}.json"')
    return response


@bp.get("/games/<int:game_id>/hands/<int:hand_no>/evidence")
@doc("get", "The camera's evidence for each card of a hand (the hand in play too)",
     responses=_read("each card played", {"type": "object"}))
def hand_evidence(game_id: int, hand_no: int) -> Any:
    """Each card played: trick, seat, the card as it stands, what the camera
    read and how sure it was, the address of the picture it read, whether the
    read is unsure, and the correction that replaced it."""
    try:
        plays = gamebook.evidence(_service(), game_id, hand_no)
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))
    return jsonify({"game_id": game_id, "hand_no": hand_no, "unsure": gamebook.UNSURE,
                    "plays": plays})


@bp.get("/camera/frame.jpg")
@doc("get", "The camera's latest frame (JPEG), for the Pi itself", responses={
    "200": {"description": "JPEG", "content": {"image/jpeg": {"schema": {
        "type": "string", "format": "binary"}}}},
    "403": {"description": "asked from another computer", "content": {
        "application/json": {"schema": ERROR}}},
    "404": {"description": "no frame yet", "content": {"application/json": {"schema": ERROR}}}})
def camera_frame() -> Any:
    """What ``belote-table calibrate --service`` borrows while the table runs:
    the camera stays with the service. Answered only on the Pi itself
    (loopback): the camera sees more of the table than the page shows."""
    if request.remote_addr not in ("127.0.0.1", "::1"):
        return _error(403, "only on the table's own computer")
    frame = _service().camera_frame
    if frame is None:
        return _error(404, "no frame from the camera yet")
    import cv2

    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        return _error(500, "the frame could not be encoded")
    return Response(data.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/evening.zip")
@doc("get", "The evening in one download (zip)", responses={
    "200": {"description": "the store's copy, each game's spreadsheet and JSON",
            "content": {"application/zip": {"schema": {"type": "string",
                                                        "format": "binary"}}}}})
def evening() -> Response:
    """'Télécharger la soirée': a consistent copy of the event store (taken
    while the table plays) and, for each game of the evening, its spreadsheet
    (CSV for French Excel) and its JSON document."""
    from companion.backup import evening_zip
    from companion.export import game_document

    service = _service()
    table = gamebook.table_name(current_app)
    words = i18n.csv_words()
    name, data = evening_zip(
        service.store, lambda g: gamebook.club_csv(service, g, table, words),
        lambda g: game_document(service.store, g, table),
        {"evening": _("evening"), "game": _("game")})
    return Response(data, mimetype="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/games/<int:game_id>/chart.svg")
@doc("get", "The game's score hand by hand (SVG chart)", responses={
    "200": {"description": "SVG", "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
    "404": {"description": "no such game", "content": {"application/json": {"schema": ERROR}}}})
def chart(game_id: int) -> Any:
    """Each team's total after each hand, with the target, drawn on the server."""
    try:
        svg = gamebook.chart(_service(), game_id, _("The score, hand by hand"), _("hands"))
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


@bp.get("/games/<int:game_id>/crops/<int:seq>.jpg")
@doc("get", "The picture the camera read for one card (JPEG)", responses={
    "200": {"description": "JPEG", "content": {"image/jpeg": {"schema": {
        "type": "string", "format": "binary"}}}},
    "404": {"description": "no picture", "content": {"application/json": {"schema": ERROR}}}})
def crop(game_id: int, seq: int) -> Any:
    """The small JPEG kept with a card the camera played."""
    data = _service().store.crop(game_id, seq)
    if data is None:
        return _error(404, "no picture")
    return Response(data, mimetype="image/jpeg",
                    headers={"Cache-Control": "public, max-age=86400"})


@bp.get("/games/<int:game_id>/scores.csv")
@doc("get", "The game's scores for a spreadsheet, one line per hand (CSV)", responses={
    "200": {"description": "CSV: semicolons, UTF-8 with a byte order mark (French Excel)",
            "content": {"text/csv": {"schema": {"type": "string"}}}},
    "404": {"description": "no such game", "content": {"application/json": {"schema": ERROR}}}})
def scores_csv(game_id: int) -> Any:
    """Date, time, table, game, hand, dealer, teams and players, taker,
    contract, trump, contre, result, belote, renonces, points, each team's score
    and the running totals, with French headers (English with ``?lang=en``)."""
    try:
        text = gamebook.club_csv(_service(), game_id, gamebook.table_name(current_app),
                                 i18n.csv_words())
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))
    name = _("game") + f"-{game_id}.csv"
    return Response(text.encode("utf-8"), mimetype="text/csv", headers={
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/games/<int:game_id>/game.json")
@doc("get", "The whole game as one JSON document", responses={
    "200": {"description": "teams, players, rules, every event, each hand's record and "
            "result, the scores"},
    "404": {"description": "no such game", "content": {"application/json": {"schema": ERROR}}}})
def game_json(game_id: int) -> Any:
    """Everything stored about the game: replaying its ``events`` gives the game
    back; each hand's ``record`` is what ``belote-table score`` reads."""
    from companion.export import game_document

    try:
        document = game_document(_service().store, game_id, gamebook.table_name(current_app))
    except (StoreError, LookupError) as exc:
        return _error(404, str(exc))
    response = jsonify(document)
    response.headers["Content-Disposition"] = (
        f'attachment; filename="{_("game")}-{game_id}.json"')
    return response


@bp.get("/games/<int:game_id>/events")
@doc("get", "A game's stored events with source, time, confidence and author",
     responses=_read("the events", {"type": "array", "items": {"type": "object"}}))
def game_events(game_id: int) -> Any:
    """Every event as stored, in order (corrections and undos included)."""
    try:
        return jsonify([s.to_json() for s in _service().store.events(game_id)])
    except StoreError as exc:
        return _error(404, str(exc))


# -- writing -----------------------------------------------------------------------------

def settings_schema() -> dict[str, Any]:
    """Every rule setting with its type, choices and range, from ``scorer.rules``."""
    import dataclasses

    from scorer.rules import CHOICES, RANGES, Rules

    props: dict[str, Any] = {}
    for f in dataclasses.fields(Rules):
        default = getattr(Rules(), f.name)
        if isinstance(default, bool):
            props[f.name] = {"type": "boolean"}
        elif isinstance(default, int):
            low, high, step = RANGES.get(f.name, (0, 10 ** 6, 1))
            props[f.name] = {"type": "integer", "minimum": low, "maximum": high}
            if step > 1:
                props[f.name]["multipleOf"] = step
        else:
            props[f.name] = {"type": "string", "enum": list(CHOICES[f.name])}
    return {"type": "object", "properties": props, "additionalProperties": False,
            "description": "overrides of the preset's settings (min_bid <= max_bid)"}


def _start_schema() -> dict[str, Any]:
    from scorer.rules import PRESETS, RANGES

    name = {"type": "string", "maxLength": entries.NAME_MAX}
    low, high, _ = RANGES["target"]
    return {"type": "object", "properties": {
        "teams": {"type": "object", "properties": {t: name for t in TEAMS}},
        "players": {"type": "object", "properties": {s: name for s in SEATS}},
        "target": {"type": "integer", "minimum": low, "maximum": high, "example": 1000},
        "rules": {"type": "string", "enum": list(PRESETS), "example": "ffb"},
        "settings": settings_schema(),
        "clockwise": {"type": "boolean"}, "dealer": SEAT,
        "pin": {"type": "string", "pattern": entries.PIN_RE.pattern,
                "description": "the table's new PIN; left out, the new game keeps the "
                               "table's (needed on a table without one)"}}}


BID = {"type": "string", "example": "80H", "pattern": (
    "^(pass|contre|surcontre|take|take:[SHDC]|"
    "(80|90|100|110|120|130|140|150|160|capot)(S|H|D|C|NT|AT))$")}
TEAM = {"type": "string", "enum": list(TEAMS)}


def _per_team(high: int) -> dict[str, Any]:
    count = {"type": "integer", "minimum": 0, "maximum": high}
    return {"type": "object", "required": list(TEAMS),
            "properties": {t: count for t in TEAMS}}


@bp.post("/games")
@doc("post", "Start a game (needs the table's PIN if it has one)", _start_schema(),
     write=True)
def start_game() -> tuple[Response, int]:
    """Team and player names, target, rule preset and settings, direction,
    first dealer and the table's new PIN (left out: the table keeps its PIN).
    A table keeps its PIN from game to game and across restarts: only
    ``belote-table pin reset``, at the Pi, clears it."""
    author = access.authorise()
    previous = access.table_game()
    started, pin = entries.read_start(_body(), keep_pin=previous is not None)
    try:
        game_id = _service().start_game(started, source="web", author=author)
    except ValueError as exc:
        return _error(409, exc)
    access.set_new_game_pin(game_id, pin, previous)
    return jsonify({"game_id": game_id, "state": _service().state_json()}), 201


@bp.post("/bid")
@doc("post", "One bid of the auction", {"type": "object", "required": ["bid"], "properties": {
    "seat": SEAT, "bid": BID}}, write=True)
def bid() -> tuple[Response, int]:
    """``pass``, ``80H``...``160H``, ``capotH``, ``contre``, ``surcontre``; classic:
    ``take``, ``take:S``. The seat defaults to whoever is to speak."""
    return _submit(entries.read_bid)


@bp.post("/contract")
@doc("post", "The final contract, without the auction", {
    "type": "object", "required": ["taker", "value", "trump"], "properties": {
        "taker": SEAT, "value": {"oneOf": [
            {"type": "integer", "minimum": 80, "maximum": 500, "multipleOf": 10},
            {"type": "string", "enum": ["capot"]}]},
        "trump": {"type": "string", "enum": list(TRUMPS)},
        "double": {"type": "integer", "enum": list(DOUBLES)}}}, write=True)
def contract() -> tuple[Response, int]:
    """Taker, value (or capot), trump, and 2 for contré, 4 for surcontré."""
    return _submit(lambda data, _state: entries.read_contract(data))


@bp.post("/belote")
@doc("post", "Belote announced", {"type": "object", "required": ["seat"],
                                  "properties": {"seat": SEAT}}, write=True)
def belote() -> tuple[Response, int]:
    """The seat that announced belote (and rebelote)."""
    return _submit(lambda data, _state: entries.read_belote(data))


@bp.post("/turned")
@doc("post", "Classic belote: the turned card", {"type": "object", "required": ["card"],
                                                 "properties": {"card": CARD}}, write=True)
def turned() -> tuple[Response, int]:
    """The card turned up after the deal."""
    return _submit(lambda data, _state: entries.read_turned(data))


@bp.post("/play")
@doc("post", "A card put down (hand entry when the camera is off)", {
    "type": "object", "properties": {"seat": SEAT, "card": {**CARD, "nullable": True}}},
    write=True)
def play() -> tuple[Response, int]:
    """The seat defaults to whoever is to play; a null card is an unknown card,
    to be named later with a correction."""
    return _submit(entries.read_play)


@bp.post("/correct")
@doc("post", "Confirm or correct a card played this hand", {
    "type": "object", "required": ["seat", "trick", "card"], "properties": {
        "seat": SEAT, "trick": {"type": "integer", "minimum": 1, "maximum": 8}, "card": CARD,
        "hand": {"type": "integer", "minimum": 1, "maximum": 10000}}}, write=True)
def correct() -> tuple[Response, int]:
    """The card ``seat`` played in ``trick`` was ``card``; everything after is re-derived."""
    return _submit(entries.read_correction)


CHANGES = {"type": "object", "description": "what the entry would change", "properties": {
    "changes": {"type": "boolean", "description": "whether anything would change"},
    "winners": {"type": "array", "description": "the tricks whose winner would change",
                "items": {"type": "object", "properties": {
                    "hand_no": {"type": "integer"}, "trick": {"type": "integer"},
                    "before": {**SEAT, "nullable": True}, "after": {**SEAT, "nullable": True}}}},
    "renonces": {"type": "object", "description": "renonces that would appear or go",
                 "properties": {"appear": {"type": "array"}, "go": {"type": "array"}}},
    "scores": {"type": "object", "description": "each team's total, before and after"},
    "hands": {"type": "array", "description": "finished hands whose score would change"},
    "points": {"type": "object", "description": "the hand in play's card points"},
    "pending": {"type": "object", "description": "cards waiting for their turn"},
    "lines": {"type": "array", "items": {"type": "string"},
              "description": "the same, said in the visitor's language"}}}


@bp.post("/corrections/preview")
@doc("post", "What a correction would change, before it is made", {
    "type": "object", "required": ["seat", "trick", "card"], "properties": {
        "seat": SEAT, "trick": {"type": "integer", "minimum": 1, "maximum": 8}, "card": CARD,
        "hand": {"type": "integer", "minimum": 1, "maximum": 10000}}}, responses={
    "200": {"description": "what would change; nothing is stored",
            "content": {"application/json": {"schema": CHANGES}}},
    **{k: v for k, v in WRITE_RESPONSES.items() if k != "200"}}, write=True)
def correction_preview() -> tuple[Response, int]:
    """The same body as ``POST /api/correct``: the tricks whose winner would
    change, the renonces that would appear or go, the scores before and after.
    Nothing is stored; the organiser then confirms (``POST /api/correct``) or
    cancels."""
    access.authorise()
    service = _service()
    if service.game_id is None:
        return _error(409, "no game is open: start a game first")
    event = entries.read_correction(_body(), service.view())
    try:
        found = service.preview(event)
    except ValueError as exc:
        return _error(409, exc)
    return jsonify({**found, "event": event.to_json(),
                    "lines": i18n.change_lines(found, service.state_json())}), 200


@bp.post("/tally")
@doc("post", "The hand's outcome as a tally", {
    "type": "object", "required": ["points", "tricks"], "properties": {
        "points": _per_team(500), "tricks": _per_team(8),
        "belote": {"nullable": True, "oneOf": [
            TEAM, {"type": "array", "items": TEAM, "maxItems": 4}]}}}, write=True)
def tally() -> tuple[Response, int]:
    """Card points and tricks of each team (the tricks add up to 8), and the
    team with belote (a list, one team per belote, at Tout Atout), for scoring alone."""
    return _submit(lambda data, _state: entries.read_tally(data))


def _undoer() -> str | None:
    """Whose entries an undo may take back: the organiser logged in on this
    browser, or the API client named by ``X-Author`` (``api`` by default)."""
    if request.headers.get(access.PIN_HEADER) is not None:
        return str(request.headers.get("X-Author") or "api")[:40]
    return access.session_author()


@bp.get("/undo")
@doc("get", "What an undo would take back now")
def undo_preview() -> Response:
    """The caller's own last entry that an undo would cancel (``index``, and the
    entry said in a sentence), or ``index`` null when there is none. Cards the
    camera read are never undone: they are corrected. With ``?changes=1``, also
    what the undo would change (``changes``, as ``POST /api/corrections/preview``
    gives it, and ``lines``, the same in words)."""
    stored = _service().events()
    index = entries.last_entry(stored, _undoer())
    if index is None:
        return jsonify({"index": None, "entry": None})
    s = stored[index]
    answer = {"index": index, "entry": i18n.entry_sentence(
        s.event, s.source, s.confidence), "event": s.event.to_json()}
    if request.args.get("changes"):
        # What the undo would change (trick winners, renonces, scores): asked
        # when the organiser is about to confirm, not at every card.
        service = _service()
        try:
            found = service.preview(EntryUndone(index=index))
        except ValueError:
            found = None
        answer["changes"] = found
        answer["lines"] = i18n.change_lines(found, service.state_json()) if found else []
    return jsonify(answer)


@bp.post("/undo")
@doc("post", "Undo your own last entry", {"type": "object", "properties": {
    "index": {"type": "integer", "description": "the entry the page named (GET /api/undo); "
              "refused if it is no longer the last"}}}, write=True)
def undo() -> tuple[Response, int]:
    """Cancels the caller's own latest entry not yet undone: not a card the
    camera read (correct it instead), not the game's start."""
    who = _undoer()
    return _submit(lambda data, _state: entries.read_undo(_service().events(), who, data))


@bp.post("/end")
@doc("post", "End the game now", {"type": "object"}, write=True)
def end() -> tuple[Response, int]:
    """The game stops before its target: the hand in play is not scored, the
    higher total wins (equal totals: a draw)."""
    from scorer.events import GameEnded

    return _submit(lambda _data, _state: GameEnded(reason="organiser"))


@bp.post("/games/again")
@doc("post", "A new game with the same teams", {"type": "object"}, write=True)
def again() -> tuple[Response, int]:
    """Starts a game with the last game's teams, players, rules and settings
    and the same PIN; the deal moves on to the next dealer."""
    author = access.authorise()
    service = _service()
    if service.game_id is None:
        return _error(409, "no game is open: start a game first")
    access.ensure_pin()
    last_game = service.game_id
    was_logged_in = access.logged_in()
    game_id = service.start_game(next_game(service), source="web", author=author)
    # The same PIN: its hash is copied (the PIN itself is not kept).
    access.pins().copy(last_game, game_id)
    if was_logged_in:
        # The organiser's browser stays logged in to the new game.
        access.keep_session(game_id, author)
    return jsonify({"game_id": game_id, "message": _("New game, same teams."),
                    "state": service.state_json()}), 201


def next_game(service: Any) -> Any:
    """The last game's start with the next dealer: 'mêmes équipes'."""
    from scorer.events import GameStarted

    first = service.events()[0].event
    dealer = service.view().dealer or first.dealer
    return GameStarted(rules=first.rules, settings=dict(first.settings), dealer=dealer,
                       teams=dict(first.teams), players=dict(first.players))


@bp.post("/mode")
@doc("post", "Cards from the camera or by hand", {"type": "object", "required": ["mode"],
                                                  "properties": {"mode": {
                                                      "type": "string",
                                                      "enum": ["camera", "manual"]}}},
     write=True)
def mode() -> tuple[Response, int]:
    """``manual``: the camera's reads are ignored and the organiser enters the
    hand (cards or a tally); ``camera``: back to the camera."""
    access.authorise()
    data = _body()
    wanted = str(data.get("mode", "")).strip().lower()
    if wanted not in _service().MODES:
        raise entries.EntryError("mode", f"{wanted!r} is not camera or manual")
    _service().set_mode(wanted)
    message = _("Manual entry: the camera's reads are ignored.") if wanted == "manual" else _(
        "Back to the camera.")
    return jsonify({"mode": wanted, "message": message, "state": _service().state_json()}), 200


# -- description ---------------------------------------------------------------------------

@bp.get("/openapi.json")
@doc("get", "This description")
def openapi() -> Response:
    """The OpenAPI 3 description of this API, generated from the views."""
    return jsonify(build_spec(current_app).to_dict())


_CONVERTER_TYPES = {"integer": "integer", "float": "number"}


def build_spec(app: Any) -> Any:
    """An ``apispec.APISpec`` with every view that carries ``@doc`` notes."""
    import re

    from apispec import APISpec

    spec = APISpec(title="Belote Table", version="1", openapi_version="3.0.3",
                   info={"description": __doc__})
    spec.components.security_scheme(
        "tablePin", {"type": "apiKey", "in": "header", "name": access.PIN_HEADER})
    paths: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        view = app.view_functions.get(rule.endpoint)
        notes = getattr(view, "openapi", None)
        if not notes:
            continue
        path = re.sub(r"<(?:(\w+):)?(\w+)>", r"{\2}", rule.rule)
        parameters = [{"in": "path", "name": name, "required": True, "schema": {
            "type": _CONVERTER_TYPES.get(type(conv).__name__.replace("Converter", "").lower(),
                                         "string")}}
            for name, conv in rule._converters.items()]
        operations, _ = paths.setdefault(path, ({}, parameters))
        operations.update(notes)
    for path, (operations, parameters) in paths.items():
        spec.path(path=path, operations=operations, parameters=parameters or None)
    return spec
