"""The club's pages: all tables live on one screen, the concours (players,
teams, rounds), the printable ranking, the exports and the season's
statistics. The organiser's changes need the organiser PIN."""

from __future__ import annotations

import hmac
import json
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
from web.stats import TEMPLATES, by_kind, charts

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
        pin = str(current_app.config.get("ORGANISER_PIN") or "")
        if pin and hmac.compare_digest(request.form.get("pin", ""), pin):
            session["organiser"] = True
            target = request.args.get("next") or ""
            return redirect(target if target.startswith("/") and not target.startswith("//")
                            else url_for("club.concours_list"))
        flash(_("wrong PIN"))
        return Response(_render("club_login.html"), status=403)
    return _render("club_login.html")


# -- all tables live -----------------------------------------------------------------------

def live_tables() -> list[dict[str, Any]]:
    server = _server()
    out = []
    for table in server.tables:
        game_id, state = server.current_state(table)
        row: dict[str, Any] = {"table": table, "online": server.online.get(table),
                               "seq": server.last_seq(table), "game_id": game_id}
        if state is not None:
            # Read the few fields the screen shows (to_json would build every
            # finished hand of every table, at each refresh).
            renonces = [dict(r) for r in state.renonces]
            finished = state.hands
            if finished:
                last = finished[-1]
                renonces += [{**r, "hand_no": last["hand_no"]}
                             for r in last["result"].get("renonces") or []]
            row.update(teams=dict(state.teams), players=dict(state.players),
                       phase=state.phase, hand_no=state.hand_no,
                       contract=dict(state.contract) if state.contract else None,
                       scores=dict(state.scores), target=state.rules.target,
                       renonces=renonces, winner=state.winner, trick_no=state.trick_no)
        out.append(row)
    return out


@bp.get("/")
def live() -> str:
    server = _server()
    version = server.version
    return _render("club_live.html", tables=live_tables(), refused=list(server.refused)[-5:],
                   connected=server.connected, version=version)


@bp.get("/fragment/tables")
def fragment_tables() -> str:
    """The tables' grid alone: what the club screen's script swaps in. Every
    screen asks for it after each change: drawn once per change and language."""
    version = _server().version
    key = (version, str(get_locale()))
    cache: dict[tuple[int, str], str] = current_app.extensions.setdefault("club_grid", {})
    html = cache.get(key)
    if html is None:
        html = _render("_club_tables.html", tables=live_tables(), version=version)
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
    store = _server().store
    return _render("club_concours_list.html", all_concours=store.all_concours(),
                   players=store.players())


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
        label = {"rounds": _("Rounds"), "amount": _("Hands, target or minutes")}.get(name, name)
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
            draw=f.get("draw", "draw"), seed=_int_or_none("seed") or 1)
    except (ValueError, ClubStoreError) as exc:
        flash(refusal(exc))
        return redirect(url_for("club.concours_list"))
    return redirect(url_for("club.concours", cid=cid))


def _standings(cid: int, order: str | None = None) -> dict[str, Any]:
    server = _server()
    try:
        return evening.standings(server.store, cid, evening.club_games(server), order=order)
    except (ClubStoreError, ConcoursError):
        abort(404)


@bp.get("/concours/<int:cid>")
def concours(cid: int) -> str:
    data = _standings(cid)
    teams = {t["id"]: t for t in data["teams"]}
    used = {p["id"] for t in data["teams"] for p in t["players"]}
    free = [p for p in _server().store.players() if p["id"] not in used]
    return _render("club_concours.html", data=data, teams=teams, free=free,
                   round_over=evening.round_over(data), tables=_server().tables)


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
                   order=order or data["concours"]["ranking"])


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
    season = club_season()
    return _render("stats_page.html", season=season, charts=charts(season), by_kind=by_kind)
