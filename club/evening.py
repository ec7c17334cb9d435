"""The organiser's side of a concours on the club server: set it up, start
each round (draw the tables, send each table its game over MQTT), follow the
matches, rank the teams, export the evening.

The same ranking is made from the club's copy of the events
(``club_games``) and from a table's own store (``table_games``): the demo
checks that both agree.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from club.concours import (
    BYE,
    RANKINGS,
    ConcoursError,
    bye_result,
    default_bye_points,
    draw_round,
    match_result,
    ranking,
)
from club.server import ClubServer
from club.store import ClubStore, ClubStoreError
from common import spreadsheet
from companion.club_link import MATCH_AUTHOR
from scorer.game import GameState, replay
from scorer.rules import PRESETS, Rules

# (state, end time of each finished hand) of a match's game, or None if not started.
GameLookup = Callable[[dict[str, Any]], tuple[GameState, list[float]] | None]


def new_concours(store: ClubStore, name: str, rounds: int, hands: int | None = None,
                 target: int | None = None, minutes: int | None = None, rules: str = "ffb",
                 ranking_order: str = "wins-points", draw: str = "draw", seed: int = 1,
                 bye_points: int | None = None) -> int:
    """Check the settings and open a concours; return its id. ``rules``: one of
    the rules engine's presets; ``bye_points``: what an exempt team scores
    (``concours.default_bye_points`` when None)."""
    if sum(x is not None for x in (hands, target, minutes)) != 1:
        raise ConcoursError("a round ends after a number of hands, at a target or after a "
                            "time: choose one")
    for label, value in (("rounds", rounds), ("hands", hands), ("target", target),
                         ("minutes", minutes)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or not 1 <= value <= 100_000):
            raise ConcoursError(f"{label} {value!r}: a whole number from 1")
    if ranking_order not in RANKINGS:
        raise ConcoursError(f"ranking {ranking_order!r} is not one of {', '.join(RANKINGS)}")
    if draw not in ("draw", "rotate"):
        raise ConcoursError(f"draw {draw!r} is not draw or rotate")
    if bye_points is None:
        bye_points = default_bye_points(hands, target)
    if isinstance(bye_points, bool) or not isinstance(bye_points, int) or not (
            0 <= bye_points <= 100_000):
        raise ConcoursError(f"bye points {bye_points!r}: a whole number from 0")
    if rules not in PRESETS:
        raise ConcoursError(f"rules {rules!r} are not one of {', '.join(PRESETS)}")
    Rules.from_preset(rules, {"target": target} if target else None)
    return store.new_concours(name, rounds, hands, target, minutes, rules, ranking_order, draw,
                              seed, bye_points)


def next_games(store: ClubStore, concours_id: int, now: float | None = None
               ) -> list[tuple[int, dict[str, Any]]]:
    """Draw the next round, record it (sent at ``now``, the club server's clock),
    and return each table's game to send."""
    c = store.concours(concours_id)
    round_no = c["current"] + 1
    if round_no > c["rounds"]:
        raise ConcoursError(f"concours {c['name']!r}: all {c['rounds']} rounds were played")
    teams = store.teams(concours_id)
    by_id = {t["id"]: t for t in teams}
    met = {frozenset((m["team_ns"], m["team_ew"])) for m in store.matches(concours_id)}
    tables = store.own_tables()
    assignments = draw_round(sorted(by_id), tables, round_no, c["draw"], c["seed"], met)
    # Previous round's games are over or abandoned: the new one replaces them.
    ids = store.start_round(concours_id, round_no, assignments, _now() if now is None else now)
    out = []
    for match_id, (table, ns, ew) in zip(ids, assignments, strict=True):
        if ew is None:
            continue  # the exempt team plays no game
        pn, pe = by_id[ns]["players"], by_id[ew]["players"]
        settings = {"target": c["target"]} if c["target"] else {}
        out.append((table, {
            "match": match_id, "concours": c["name"], "round": round_no,
            "teams": {"NS": by_id[ns]["name"], "EW": by_id[ew]["name"]},
            "players": {"N": pn[0]["name"], "S": pn[1]["name"],
                        "E": pe[0]["name"], "W": pe[1]["name"]},
            "rules": c["rules"], "settings": settings, "dealer": "N",
            "hands": c["hands"], "minutes": c["minutes"]}))
    return out


def start_round(server: ClubServer, concours_id: int) -> list[tuple[int, dict[str, Any]]]:
    """Draw the next round and send every table its game."""
    games = next_games(server.store, concours_id, server.clock())
    for table, game in games:
        server.send_next(table, game)
    server._touch()
    return games


def _now() -> float:
    import time

    return time.time()


def club_game_ids(server: ClubServer) -> dict[tuple[int, int], tuple[int, int]]:
    """(table, match id) -> (the club table holding it, its game id) for every
    concours game the club holds. A table's second store kept under another
    number (a mix-up the organiser kept) still plays its own table's matches;
    when both stores started a match (a store replaced in the middle of it),
    the one the club heard from last counts."""
    topics = server.store.topic_numbers()
    out: dict[tuple[int, int], tuple[int, int]] = {}
    heard: dict[tuple[int, int], float] = {}
    for g in server.store.games():
        author = g["author"] or ""
        if author.startswith(MATCH_AUTHOR) and author[len(MATCH_AUTHOR):].isdigit():
            key = (topics.get(g["table"], g["table"]), int(author[len(MATCH_AUTHOR):]))
            if key not in out or g["received"] > heard[key]:
                out[key], heard[key] = (g["table"], g["game_id"]), g["received"]
    return out


def club_games(server: ClubServer) -> GameLookup:
    """Find a match's game in the club's copy of the tables' events. A hand's
    end is when the club stored its last event (the club server's clock: a
    table's own clock may be wrong, a Pi has no clock battery)."""
    started = club_game_ids(server)

    def find(match: dict[str, Any]) -> tuple[GameState, list[float]] | None:
        where = started.get((match["table"], match["id"]))
        if where is None:
            return None
        state = server.game_state(*where)
        if state is None:
            return None
        return state, _hand_ends(state, server.store.game_received(*where))

    return find


def table_games(stores: dict[int, Any]) -> GameLookup:
    """Find a match's game in the tables' own stores (``companion.store.Store``
    by table number)."""

    def find(match: dict[str, Any]) -> tuple[GameState, list[float]] | None:
        store = stores.get(match["table"])
        if store is None:
            return None
        author = f"{MATCH_AUTHOR}{match['id']}"
        game = next((g for g in store.games() if g["author"] == author), None)
        if game is None:
            return None
        events = store.events(game["id"])
        state = replay([e.event for e in events])
        return state, _hand_ends(state, [(e.hand_no, e.ts) for e in events])

    return find


def _hand_ends(state: GameState, stamped: list[tuple[int | None, float]]) -> list[float]:
    ends: dict[int, float] = {}
    for hand_no, ts in stamped:
        if hand_no is not None:
            ends[hand_no] = max(ends.get(hand_no, ts), ts)
    return [ends.get(h.hand_no, 0.0) for h in state.view().hands]


def results(store: ClubStore, concours_id: int, find: GameLookup,
            now: float | None = None) -> list[dict[str, Any]]:
    """Every match of the concours with its result so far."""
    c = store.concours(concours_id)
    manual = store.manual_results(concours_id)
    out = []
    for m in store.matches(concours_id):
        if m["team_ew"] is None:
            out.append({**m, "result": bye_result(c["bye_points"])})
            continue
        if m["id"] in manual:
            entered = manual[m["id"]]
            points = {"NS": entered["NS"], "EW": entered["EW"]}
            winner = (None if points["NS"] == points["EW"]
                      else "NS" if points["NS"] > points["EW"] else "EW")
            out.append({**m, "result": {"hands": 0, "points": points, "over": True,
                                        "winner": winner, "manual": True, "bye": False,
                                        "entered": entered["entered"]}})
            continue
        found = find(m)
        state, ends = found if found else (None, [])
        res = match_result(state, c["hands"], c["target"], c["minutes"], m["sent"], ends,
                           _now() if now is None else now)
        out.append({**m, "result": res})
    return out


def standings(store: ClubStore, concours_id: int, find: GameLookup,
              now: float | None = None, order: str | None = None) -> dict[str, Any]:
    """The concours, its teams, matches with results, and the ranking."""
    c = store.concours(concours_id)
    teams = store.teams(concours_id)
    matches = results(store, concours_id, find, now)
    return {"concours": c, "teams": teams, "matches": matches,
            "ranking": ranking(teams, matches, order or c["ranking"])}


def round_over(data: dict[str, Any]) -> bool:
    """Every match of the round in play is over (a new round may start)."""
    current = data["concours"]["current"]
    now = [m for m in data["matches"] if m["round"] == current]
    return bool(now) and all(m["result"]["over"] for m in now)


# -- exports -------------------------------------------------------------------------------

CSV_HEADERS = ("Manche", "Table", "Équipe NS", "Joueurs NS", "Équipe EO", "Joueurs EO",
               "Donnes", "Points NS", "Points EO", "Gagnant", "Terminée", "Résultat")
RANKING_HEADERS = ("Rang", "Équipe", "Joueur 1", "Joueur 2", "Parties jouées",
                   "Parties gagnées", "Points marqués", "Points encaissés", "Différence")


def export_csv(data: dict[str, Any]) -> bytes:
    """The evening for French Excel: semicolons, UTF-8 with a BOM, French headers;
    the ranking first, then every match by round and table."""
    teams = {t["id"]: t for t in data["teams"]}
    out = io.StringIO()
    w = spreadsheet.writer(out, delimiter=";", lineterminator="\r\n")
    w.writerow([f"Concours : {data['concours']['name']}"])
    w.writerow(RANKING_HEADERS)
    for r in data["ranking"]:
        p = r["team"]["players"]
        w.writerow([r["rank"], r["team"]["name"], p[0]["name"], p[1]["name"], r["played"],
                    r["won"], r["points"], r["against"], r["difference"]])
    w.writerow([])
    w.writerow(CSV_HEADERS)
    for m in data["matches"]:
        ns, res = teams[m["team_ns"]], m["result"]
        ew = teams.get(m["team_ew"]) or {"name": "exempt", "players": []}
        winner = {"NS": ns["name"], "EW": ew["name"]}.get(res["winner"] or "", "")
        how = ("exempt" if res.get("bye") else "saisi à la main" if res.get("manual")
               else "joué à la table")
        w.writerow([m["round"], "" if m["table"] == BYE else m["table"], ns["name"],
                    " et ".join(p["name"] for p in ns["players"]),
                    ew["name"], " et ".join(p["name"] for p in ew["players"]), res["hands"],
                    res["points"]["NS"], res["points"]["EW"], winner,
                    "oui" if res["over"] else "non", how])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def export_json(data: dict[str, Any]) -> dict[str, Any]:
    """The whole evening as JSON: the concours, teams, matches and ranking."""
    teams = {t["id"]: t for t in data["teams"]}
    return {
        "concours": data["concours"],
        "teams": data["teams"],
        "matches": [{**m, "teams": {"NS": teams[m["team_ns"]]["name"],
                                    "EW": (teams[m["team_ew"]]["name"]
                                           if m["team_ew"] is not None else None)}}
                    for m in data["matches"]],
        "ranking": [{"rank": r["rank"], "team": r["team"]["name"],
                     "players": [p["name"] for p in r["team"]["players"]],
                     "played": r["played"], "won": r["won"], "points": r["points"],
                     "against": r["against"], "difference": r["difference"],
                     "games": r["games"]} for r in data["ranking"]],
    }


__all__ = ["ClubStoreError", "ConcoursError", "club_game_ids", "club_games", "export_csv",
           "export_json",
           "new_concours", "next_games", "results", "round_over", "standings", "start_round",
           "table_games"]
