"""The club's pages: all tables live on one screen, the concours (players,
teams, rounds), the printable ranking, the exports and the season's
statistics. The organiser's changes need the organiser PIN."""

from __future__ import annotations

import json
import math
from datetime import datetime
from functools import wraps
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _

from club import evening
from club.concours import RANKINGS, ConcoursError
from club.server import ClubServer
from club.store import ClubStoreError
from common.season import season as count_season
from scorer.events import event_from_json
from web import messages
from web.i18n import choose_language
from web.stats import TEMPLATES, by_kind, charts, shown

# The season page (``stats_page.html``) is the table's own (``web.stats``), shown
# here in the club's frame (its ``base.html`` comes first).
bp = Blueprint("club", __name__, static_folder="static", static_url_path="/club-static",
               template_folder=str(TEMPLATES))


def _server() -> ClubServer:
    server: ClubServer = current_app.config["CLUB"]
    return server


def _render(template: str, **extra: Any) -> str:
    from web import i18n

    return render_template(template, lang=str(get_locale()), trumps=i18n.trump_names(),
                           seats=i18n.seat_names(), organiser=bool(session.get("organiser")),
                           rankings=ranking_names(), **extra)


def ranking_names() -> dict[str, str]:
    return {"wins-points": _("games won, then points scored"),
            "points": _("points scored"),
            "wins-difference": _("games won, then points difference")}


def refusal(exc: Exception) -> str:
    """A refusal of the club's file or concours (English in the code) in the
    visitor's language, by the pages' patterns (``companion.reasons``)."""
    return messages.human(str(exc))


def organiser_only(view: Any) -> Any:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not session.get("organiser"):
            flash(_("Enter the organiser PIN first."))
            return redirect(url_for("club.login", next=request.path))
        return view(*args, **kwargs)

    return wrapped


bp.add_url_rule("/lang/<code>", "choose_language", choose_language)


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if request.method == "POST":
        from web.access import PinLocked

        try:
            right = current_app.extensions["club_organiser_pin"].check(
                request.form.get("pin", ""))
        except PinLocked as exc:
            flash(exc.message())
            return Response(_render("club_login.html"), status=429,
                            headers={"Retry-After": str(exc.seconds)})
        if right:
            session["organiser"] = True
            target = request.args.get("next") or ""
            return redirect(target if target.startswith("/") and not target.startswith("//")
                            else url_for("club.concours_list"))
        flash(_("wrong PIN"))
        return Response(_render("club_login.html"), status=403)
    return _render("club_login.html")


# -- all tables live -----------------------------------------------------------------------

def live_tables() -> list[dict[str, Any]]:
    from web import i18n

    server = _server()
    out = []
    topics = server.store.topic_numbers()
    for table in server.tables:
        game_id, state = server.current_state(table)
        topic = topics.get(table, table)
        row: dict[str, Any] = {"table": table, "online": server.online.get(topic),
                               "seq": server.last_seq(table), "game_id": game_id,
                               "topic": topics.get(table)}
        if state is not None:
            # Read the few fields the screen shows (to_json would build every
            # finished hand of every table, at each refresh).
            renonces = [dict(r) for r in state.renonces]
            finished = state.hands
            if finished:
                last = finished[-1]
                renonces += [{**r, "hand_no": last["hand_no"]}
                             for r in last["result"].get("renonces") or []]
            row.update(teams={t: i18n.team_name(state.teams, t) for t in ("NS", "EW")},
                       players=dict(state.players),
                       phase=state.phase, hand_no=state.hand_no,
                       contract=dict(state.contract) if state.contract else None,
                       scores=dict(state.scores), target=state.rules.target,
                       renonces=renonces, winner=state.winner, trick_no=state.trick_no)
        out.append(row)
    return out


def open_mixups() -> list[dict[str, Any]]:
    """The mix-ups the organiser has not decided yet (the screens' banners)."""
    return [m for m in _server().mixups() if m["decision"] is None]


@bp.get("/")
def live() -> str:
    server = _server()
    version = server.version
    return _render("club_live.html", tables=live_tables(),
                   refused=[refusal(Exception(r)) for r in list(server.refused)[-5:]],
                   connected=server.connected, version=version, mixups=open_mixups(),
                   set_aside=[m for m in server.mixups() if m["decision"] == "set-aside"])


# -- the wall screen -----------------------------------------------------------------------

def wall_data(cid: int | None = None) -> dict[str, Any]:
    """What the club's wall screen shows: every table (with its match of the
    round in play, if any), the concours' round, the time left by the club
    server's clock, and the ranking."""
    server = _server()
    store = server.store
    concours_all = store.all_concours()
    chosen = next((c for c in concours_all if c["id"] == cid), None) if cid else None
    if chosen is None:
        playing = [c for c in concours_all if c["current"] > 0]
        chosen = playing[-1] if playing else (concours_all[-1] if concours_all else None)
    data = None
    left = None
    by_table: dict[int, dict[str, Any]] = {}
    teams: dict[int, dict[str, Any]] = {}
    bye = None
    if chosen is not None:
        data = evening.standings(store, chosen["id"], evening.club_games(server),
                                 now=server.clock())
        teams = {t["id"]: t for t in data["teams"]}
        current = [m for m in data["matches"] if m["round"] == chosen["current"]]
        for m in current:
            if m["team_ew"] is None:
                bye = teams[m["team_ns"]]
            else:
                by_table[m["table"]] = m
        if chosen["minutes"] and current:
            start = min(m["sent"] for m in current)
            left = max(0, int(start + 60 * chosen["minutes"] - server.clock()))
    tables = live_tables()
    games = evening.club_game_ids(server) if by_table else {}
    for t in tables:
        m = by_table.get(t["table"]) if not t["topic"] else None
        if m is not None:
            # The table's game in play is this match's (not still the last round's).
            live = games.get((t["table"], m["id"])) == (t["table"], t["game_id"])
            t["match"] = {"NS": teams[m["team_ns"]]["name"], "EW": teams[m["team_ew"]]["name"],
                          "result": m["result"], "live": live and not m["result"].get("manual")}
    n = max(1, len(tables))
    cols = min(8, math.ceil(math.sqrt(n)))
    rows = min(8, math.ceil(n / cols))
    return {"concours": chosen, "data": data, "tables": tables, "left": left, "bye": bye,
            "cols": cols, "rows": rows, "mixups": open_mixups(), "version": server.version,
            "connected": server.connected}


WALL_RANKING_ROWS = 14  # what fits beside 20 tables at 1080 pixels high


@bp.get("/mur")
def wall() -> str:
    """The club's wall screen: every table, the ranking, the round and the time
    left, in type read from across the room (1920x1080, up to 20 tables and more)."""
    return _render("club_wall.html", wall=wall_data(request.args.get("concours", type=int)),
                   ranking_rows=WALL_RANKING_ROWS)


@bp.get("/fragment/mur")
def fragment_wall() -> str:
    """The wall screen's body alone, what its script swaps in after each change:
    drawn once per change, language, concours and second (the time left)."""
    server = _server()
    cid = request.args.get("concours", type=int)
    key = (server.version, str(get_locale()), cid, int(server.clock()))
    cache: dict[tuple[Any, ...], str] = current_app.extensions.setdefault("club_wall", {})
    html = cache.get(key)
    if html is None:
        html = _render("_club_wall.html", wall=wall_data(cid), ranking_rows=WALL_RANKING_ROWS)
        if len(cache) > 8:
            cache.clear()
        cache[key] = html
    return html


# -- mix-ups: the organiser decides --------------------------------------------------------

@bp.get("/melanges/<int:mid>")
def mixup(mid: int) -> str:
    found = next((m for m in _server().mixups() if m["id"] == mid), None)
    if found is None:
        abort(404)
    return _render("club_mixup.html", m=found, free_number=free_table_number())


@bp.post("/melanges/<int:mid>")
@organiser_only
def decide_mixup(mid: int) -> Any:
    server = _server()
    decision = request.form.get("decision", "")
    try:
        if decision == "keep":
            number = _int_or_none("table")
            server.decide(mid, "keep", number)
            flash(_("Kept as table %(n)s.", n=number))
        elif decision == "set-aside":
            server.decide(mid, "set-aside")
            flash(_("Set aside: the events stay kept in the club's file."))
        else:
            flash(_("choose what to do with these events"))
    except (ValueError, ClubStoreError) as exc:
        flash(refusal(exc))
    return redirect(url_for("club.mixup", mid=mid))


def free_table_number() -> int:
    """A number no club table has, for a second store the organiser keeps."""
    used = set(_server().tables)
    return next(n for n in range(101, 1000) if n not in used) if len(used) < 899 else 0


@bp.get("/fragment/tables")
def fragment_tables() -> str:
    """The tables' grid alone: what the club screen's script swaps in. Every
    screen asks for it after each change: drawn once per change and language."""
    version = _server().version
    key = (version, str(get_locale()))
    cache: dict[tuple[int, str], str] = current_app.extensions.setdefault("club_grid", {})
    html = cache.get(key)
    if html is None:
        html = _render("_club_tables.html", tables=live_tables(), version=version,
                       mixups=open_mixups())
        if len(cache) > 8:
            cache.clear()
        cache[key] = html
    return html


LONG_POLL_S = 20.0


@bp.get("/api/live")
def api_live() -> Response:
    """Every table's live state. With ``after=V`` the answer waits (up to
    20 s) until something changed since version V: the club screen waits here
    rather than asking again and again."""
    server = _server()
    after = request.args.get("after", type=int)
    if after is not None:
        stop = current_app.extensions["belote_stop"]
        deadline = LONG_POLL_S
        version = server.version
        while version == after and deadline > 0 and not stop.is_set():
            version = server.wait_change(after, min(1.0, deadline))
            deadline -= 1.0
    version = server.version
    return jsonify({"version": version, "tables": live_tables()})


# -- concours ------------------------------------------------------------------------------

@bp.get("/concours")
def concours_list() -> str:
    from web import i18n

    store = _server().store
    return _render("club_concours_list.html", all_concours=store.all_concours(),
                   players=store.players(), presets=i18n.preset_names())


@bp.post("/players")
@organiser_only
def add_players() -> Any:
    names = [n for n in request.form.get("names", "").splitlines() if n.strip()]
    try:
        for name in names:
            _server().store.add_player(name)
    except ClubStoreError as exc:
        flash(refusal(exc))
    return redirect(request.form.get("back") or url_for("club.concours_list"))


def _int_or_none(name: str) -> int | None:
    text = request.form.get(name, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        label = {"rounds": _("Rounds"), "amount": _("Hands, target or minutes"),
                 "bye_points": _("Points of the exempt team"), "points_ns": _("Points NS"),
                 "points_ew": _("Points EO"), "table": _("Table number")}.get(name, name)
        raise ConcoursError(_("%(field)s: a whole number, please", field=label)) from None


@bp.post("/concours")
@organiser_only
def new_concours() -> Any:
    f = request.form
    try:
        end = f.get("end", "hands")
        amount = _int_or_none("amount")
        cid = evening.new_concours(
            _server().store, f.get("name", ""), _int_or_none("rounds") or 0,
            hands=amount if end == "hands" else None,
            target=amount if end == "target" else None,
            minutes=amount if end == "minutes" else None,
            rules=f.get("rules", "ffb"), ranking_order=f.get("ranking", "wins-points"),
            draw=f.get("draw", "draw"), seed=_int_or_none("seed") or 1,
            bye_points=_int_or_none("bye_points"))
    except (ValueError, ClubStoreError) as exc:
        flash(refusal(exc))
        return redirect(url_for("club.concours_list"))
    return redirect(url_for("club.concours", cid=cid))


def _standings(cid: int, order: str | None = None) -> dict[str, Any]:
    server = _server()
    try:
        return evening.standings(server.store, cid, evening.club_games(server),
                                 now=server.clock(), order=order)
    except (ClubStoreError, ConcoursError):
        abort(404)


@bp.get("/concours/<int:cid>")
def concours(cid: int) -> str:
    data = _standings(cid)
    teams = {t["id"]: t for t in data["teams"]}
    used = {p["id"] for t in data["teams"] for p in t["players"]}
    free = [p for p in _server().store.players() if p["id"] not in used]
    from web import i18n

    return _render("club_concours.html", data=data, teams=teams, free=free,
                   round_over=evening.round_over(data), tables=_server().topic_tables,
                   games=evening.club_game_ids(_server()),
                   rules_name=i18n.preset_label(data["concours"]["rules"]))


@bp.post("/concours/<int:cid>/teams")
@organiser_only
def add_team(cid: int) -> Any:
    store = _server().store
    try:
        p1, p2 = int(request.form["player1"]), int(request.form["player2"])
        names = {p["id"]: p["name"] for p in store.players()}
        if p1 not in names or p2 not in names:
            raise ClubStoreError(_("pick two players from the list"))
        name = request.form.get("name", "").strip() or f"{names[p1]} – {names[p2]}"
        store.add_team(cid, name, p1, p2)
    except (KeyError, ValueError, ClubStoreError) as exc:
        flash(refusal(exc) if isinstance(exc, ClubStoreError)
              else _("pick two players from the list"))
    return redirect(url_for("club.concours", cid=cid))


@bp.post("/concours/<int:cid>/teams/<int:tid>")
@organiser_only
def edit_team(cid: int, tid: int) -> Any:
    """Rename a team, or take it out (``remove``), before its first round."""
    server = _server()
    try:
        if request.form.get("remove"):
            server.store.remove_team(cid, tid)
            flash(_("The team is out of the concours."))
        else:
            server.store.rename_team(cid, tid, request.form.get("name", ""))
        server._touch()
    except ClubStoreError as exc:
        flash(refusal(exc))
    return redirect(url_for("club.concours", cid=cid))


@bp.post("/concours/<int:cid>/matches/<int:mid>/result")
@organiser_only
def manual_result(cid: int, mid: int) -> Any:
    """A match's result entered on the club server (its table could not send it)."""
    server = _server()
    try:
        match = server.store.match(mid)
        if match is None or match["concours_id"] != cid:
            raise ClubStoreError(f"no match {mid}")
        ns, ew = _int_or_none("points_ns"), _int_or_none("points_ew")
        if ns is None or ew is None:
            raise ConcoursError(_("enter both teams' points"))
        server.store.add_manual_result(mid, ns, ew, server.clock())
        server._touch()
        flash(_("Result of table %(n)s entered by hand.", n=match["table"]))
    except (ValueError, ClubStoreError) as exc:
        flash(refusal(exc))
    return redirect(url_for("club.concours", cid=cid) + f"#match-{mid}")


@bp.post("/concours/<int:cid>/round")
@organiser_only
def next_round(cid: int) -> Any:
    try:
        games = evening.start_round(_server(), cid)
        flash(_("Round %(n)s: each table has its game.", n=games[0][1]["round"]))
    except (ValueError, ClubStoreError) as exc:
        flash(refusal(exc))
    return redirect(url_for("club.concours", cid=cid))


@bp.get("/concours/<int:cid>/ranking")
def ranking(cid: int) -> str:
    order = request.args.get("order")
    if order not in RANKINGS:
        order = None
    data = _standings(cid, order)
    return _render("club_ranking.html", data=data,
                   teams={t["id"]: t for t in data["teams"]},
                   order=order or data["concours"]["ranking"],
                   games=evening.club_game_ids(_server()))


@bp.get("/concours/<int:cid>/feuille")
def ranking_sheet(cid: int) -> str:
    """The ranking on one A4 sheet, to print and pin up."""
    from flask_babel import format_datetime

    data = _standings(cid)
    return _render("club_sheet.html", data=data, teams={t["id"]: t for t in data["teams"]},
                   printed=format_datetime(datetime.fromtimestamp(_server().clock()),
                                           "d MMMM y, HH:mm"))


@bp.get("/tables/<int:table>/parties/<int:game_id>")
def table_game(table: int, game_id: int) -> str:
    """One table's game as the club holds it: every hand, its contract, result
    and score, and each hand's play (no script)."""
    from web import i18n

    server = _server()
    state = server.game_state(table, game_id)
    if state is None:
        abort(404)
    totals = {"NS": 0, "EW": 0}
    hands = []
    for h in state.view().hands:
        result = h.result
        for team in totals:
            totals[team] += result.score[team]
        # The hand record (the exchange format): its plays and bids as written.
        record = h.record
        plays = [p.split(":", 1) for p in record.get("plays") or []]
        tricks = [plays[i:i + 4] for i in range(0, len(plays), 4)]
        hands.append({"hand_no": h.hand_no, "dealer": h.dealer,
                      "contract": result.contract.to_json() if result.contract else None,
                      "made": result.made, "score": dict(result.score),
                      "totals": dict(totals), "renonces": len(result.renonces),
                      "bids": [i18n.bid_label(b) for b in record.get("bids") or []],
                      "tricks": [[(seat, i18n.card_label(card)) for seat, card in t]
                                 for t in tricks]})
    topic = server.store.topic_numbers().get(table)
    return _render("club_game.html", table=table, topic=topic, game_id=game_id,
                   state=state, hands=hands,
                   names={t: i18n.team_name(state.teams, t) for t in ("NS", "EW")},
                   rules_name=i18n.preset_label(state.preset))


@bp.post("/concours/<int:cid>/ranking")
@organiser_only
def set_ranking(cid: int) -> Any:
    order = request.form.get("order")
    if order in RANKINGS:
        _server().store.set_ranking(cid, order)
    return redirect(url_for("club.ranking", cid=cid))


@bp.get("/concours/<int:cid>/export.csv")
def export_csv(cid: int) -> Response:
    data = _standings(cid)
    return Response(evening.export_csv(data), mimetype="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="concours-{cid}.csv"'})


@bp.get("/concours/<int:cid>/export.json")
def export_json(cid: int) -> Response:
    body = json.dumps(evening.export_json(_standings(cid)), ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition":
                             f'attachment; filename="concours-{cid}.json"'})


# -- the season ----------------------------------------------------------------------------

def club_season() -> dict[str, Any]:
    """The season from every game the club holds, counted again only after a change
    (a season is many games to replay)."""
    server = _server()
    version = server.version
    cached = current_app.extensions.get("club_season")
    if cached is not None and cached[0] == version:
        season: dict[str, Any] = cached[1]
        return season
    store = server.store
    games = [[event_from_json(e.event) for e in store.game_events(g["table"], g["game_id"])]
             for g in store.games()]
    season = count_season(games)
    current_app.extensions["club_season"] = (version, season)
    return season


@bp.get("/stats")
def season_stats() -> str:
    season = shown(club_season())
    return _render("stats_page.html", season=season, charts=charts(season), by_kind=by_kind)
