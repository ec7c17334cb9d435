"""``belote-table club``: the club server, its broker files, and its demo.

    belote-table club --tables 16 --password-file club.pw     the club server
    belote-table club setup --tables 16 --out DIR             Mosquitto's files
    belote-table club demo --tables 4 --hands 3 --seed 1      the whole evening, simulated

The club server receives every table's events from the broker (``--broker``,
``mqtt://HOST:PORT``), keeps them in its own SQLite file (``--db``) and serves
the club's pages: all tables live on one screen, the concours, the ranking,
the exports and the season's statistics.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.i18n import _, located, reason


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="belote-table club",
        description=_("the club server: every table's events over MQTT, the concours, the "
                      "ranking, the season's statistics"),
        epilog=_("also: 'belote-table club setup --help' (Mosquitto's files and the tables' "
                 "passwords), 'belote-table club demo --help' (a whole evening, simulated)"))
    p.add_argument("--db", default="belote-club.db", metavar=_("FILE"),
                   help=_("club file (default: %(default)s)"))
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL",
                   help=_("the club's Mosquitto broker (default: %(default)s)"))
    p.add_argument("--club", default="club", metavar=_("NAME"),
                   help=_("club name in the topics (default: %(default)s)"))
    p.add_argument("--tables", type=_count, default=16, metavar="N",
                   help=_("tables of the club (1..N)"))
    p.add_argument("--password-file", metavar=_("FILE"), required=True,
                   help=_("the broker password of user 'club' (belote-table club setup "
                          "writes it)"))
    p.add_argument("--port", type=_port, default=8100,
                   help=_("web page port (default: %(default)s)"))
    p.add_argument("--host", default="0.0.0.0", metavar=_("ADDRESS"),
                   help=_("web page address (default: %(default)s, the club's network)"))
    p.add_argument("--pin", type=_organiser_pin,
                   help=_("organiser PIN, 6 to 8 digits (default: read from --pin-file, or "
                          "the one kept from before, or made up and printed)"))
    p.add_argument("--pin-file", metavar=_("FILE"), help=_("a file holding the organiser PIN"))
    return p


def _whole(text: str, low: int, high: int, out_of_range: str) -> int:
    """``text`` as a whole number from ``low`` to ``high``; else argparse's refusal."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(value)r is not a whole number")
                                         % {"value": text}) from None
    if not low <= n <= high:
        raise argparse.ArgumentTypeError(out_of_range % {"n": n})
    return n


def _count(text: str) -> int:
    return _whole(text, 1, 999, _("%(n)s: from 1 to 999"))


def _port(text: str) -> int:
    # The system would take 70000 as another port.
    return _whole(text, 0, 65535, _("%(n)s: a port from 0 to 65535"))


def _organiser_pin(text: str) -> str:
    """The organiser's PIN, under the table's rules: 6 to 8 digits."""
    from web.entries import PIN_RE

    if not PIN_RE.match(text.strip()):
        raise argparse.ArgumentTypeError(_("the organiser PIN must be 6 to 8 digits"))
    return text.strip()


def _read_secret(path: str, what: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SystemExit(located("belote-table club", located(f"{what} {path}", exc.strerror))
                         ) from None
    if not text:
        raise SystemExit(_("belote-table club: %(what)s %(file)s is empty")
                         % {"what": what, "file": path})
    return text


def serve_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    import secrets

    from club.app import create_app
    from club.server import ClubServer
    from club.store import ClubStore, ClubStoreError
    from common.topics import check_club, parse_url
    from web import serve

    # Every option is checked before the club's file is made: a refused start
    # leaves nothing behind.
    try:
        parse_url(args.broker)
        check_club(args.club)
    except ValueError as exc:
        print(located("belote-table club", reason(exc)), file=sys.stderr)
        return 2
    password = _read_secret(args.password_file, _("password file"))
    pin = args.pin
    if pin is None and args.pin_file:
        try:
            pin = _organiser_pin(_read_secret(args.pin_file, _("PIN file")))
        except argparse.ArgumentTypeError as exc:
            print(located("belote-table club", located(args.pin_file, exc)), file=sys.stderr)
            return 2
    db = Path(args.db)
    kept = False
    if pin is None:
        from web.access import PinBook, pin_files

        kept = db.exists() and PinBook(pin_files(db)[0]).has("organiser")
        if not kept:  # made up, 6 digits, as the table suggests one
            pin = f"{secrets.randbelow(10 ** 6):06d}"
    new_file = not db.exists()
    try:
        store = ClubStore(db)
    except ClubStoreError as exc:
        print(located("belote-table club", reason(exc)), file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    server = ClubServer(store, args.club, args.broker, password)
    server.add_tables(list(range(1, args.tables + 1)))
    server.connect()
    try:
        web = serve(create_app(server, {"ORGANISER_PIN": pin} if pin else {}),
                    host=args.host, port=args.port)
    except OSError as exc:
        print(_("belote-table club: web page on %(host)s:%(port)s: %(reason)s")
              % {"host": args.host, "port": args.port, "reason": exc.strerror},
              file=sys.stderr)
        server.close()
        store.close()
        if new_file:  # only a port in use is known by trying: the files made for it go
            from web.access import pin_files

            for made in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), *pin_files(db),
                         *(Path(f"{f}-{end}") for f in pin_files(db) for end in ("wal", "shm"))):
                made.unlink(missing_ok=True)
        return 2
    print(_("club server: %(n)s tables, broker %(broker)s, file %(db)s")
          % {"n": len(server.tables), "broker": args.broker, "db": args.db})
    if kept:
        print(_("club pages: %(url)s  (organiser PIN: the one kept from before; --pin "
                "to choose another)") % {"url": web.url})
    else:
        print(_("club pages: %(url)s  (organiser PIN %(pin)s)") % {"url": web.url, "pin": pin})
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        web.close()
        server.close()
        store.close()
    return 0


def setup_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="belote-table club setup",
                                description=_("write Mosquitto's password file, access list "
                                              "and settings, and each table's password"))
    p.add_argument("--tables", type=_count, required=True, metavar="N",
                   help=_("tables of the club (1..N)"))
    p.add_argument("--club", default="club", metavar=_("NAME"),
                   help=_("club name in the topics"))
    p.add_argument("--out", required=True, metavar=_("DIR"),
                   help=_("folder to write into (e.g. /etc/mosquitto/belote)"))
    p.add_argument("--port", type=int, default=1883,
                   help=_("broker port (default: %(default)s)"))
    p.add_argument("--listen", default="0.0.0.0", metavar=_("ADDRESS"),
                   help=_("broker address (default: %(default)s)"))
    args = p.parse_args(argv)
    from club.broker import (
        BrokerError,
        give_to_service,
        make_passwords,
        service_settings,
        write_files,
    )
    from common.topics import check_club

    try:
        check_club(args.club)
    except ValueError as exc:
        p.error(reason(exc))
    out = Path(args.out).resolve()
    tables = list(range(1, args.tables + 1))
    passwords = make_passwords(tables)
    try:
        pw_file, acl_file = write_files(out, args.club, tables, passwords)
    except (BrokerError, OSError) as exc:
        print(located("belote-table club setup", reason(exc)), file=sys.stderr)
        return 2
    give_to_service(pw_file, acl_file)
    conf = out / "belote.conf"
    conf.write_text("# The belote club's broker (belote-table club setup).\n"
                    + "\n".join(service_settings(pw_file, acl_file, args.port, args.listen))
                    + "\n", encoding="utf-8")
    secrets_dir = out / "secrets"
    secrets_dir.mkdir(exist_ok=True)
    secrets_dir.chmod(0o700)
    for user, pw in passwords.items():
        f = secrets_dir / f"{user}.pw"
        f.write_text(pw + "\n", encoding="utf-8")
        f.chmod(0o600)
    print(_("wrote %(conf)s, %(passwords)s (hashed), %(acl)s")
          % {"conf": conf, "passwords": pw_file, "acl": acl_file})
    print(_("passwords: %(dir)s/club.pw for the club server, %(dir)s/tableN.pw for table N")
          % {"dir": secrets_dir})
    print(_("Debian's mosquitto: %(command)s")
          % {"command": f"sudo ln -s {conf} /etc/mosquitto/conf.d/belote.conf && "
                        "sudo systemctl restart mosquitto"})
    return 0


# -- the demo ------------------------------------------------------------------------------

FIRST_NAMES = ("Amélie", "Bernard", "Chantal", "Didier", "Élise", "Fabrice", "Gisèle", "Hervé",
               "Irène", "Jacques", "Karine", "Lucien", "Martine", "Noël", "Odile", "Pascal",
               "Raymonde", "Serge", "Thérèse", "Yves")
FAMILY = ("Martin", "Bernard", "Dubois", "Durand", "Lefebvre", "Moreau", "Laurent", "Simon",
          "Michel", "Garnier")


def demo_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="belote-table club demo",
        description=_("a club evening with no hardware: a Mosquitto broker, the club server "
                      "and simulated tables playing a concours; exit 0 only if the club holds "
                      "exactly what every table stored"))
    p.add_argument("--tables", type=_count, default=4, metavar="N",
                   help=_("simulated tables (default: %(default)s)"))
    p.add_argument("--hands", type=_count, default=3, metavar="N",
                   help=_("hands per round (default: %(default)s)"))
    p.add_argument("--rounds", type=_count, default=2, metavar="N",
                   help=_("rounds (default: %(default)s)"))
    p.add_argument("--seed", type=int, default=1, metavar="N", help=_("simulator and draw seed"))
    p.add_argument("--port", type=int, default=0,
                   help=_("club page port (default: any free port; the broker takes a free "
                          "one)"))
    p.add_argument("--pace", type=float, default=0.005, metavar=_("SECONDS"),
                   help=_("seconds between two events at a table (default: %(default)s)"))
    p.add_argument("--keep", action="store_true", help=_("keep the pages up until Ctrl-C"))
    return p


def demo_main(argv: list[str]) -> int:
    args = demo_parser().parse_args(argv)
    from club.broker import Broker, BrokerError

    with tempfile.TemporaryDirectory(prefix="belote-club-") as tmp:
        folder = Path(tmp)
        tables = list(range(1, args.tables + 1))
        try:
            broker = Broker(folder / "broker", "demo", tables).start()
        except BrokerError as exc:
            print(located("belote-table club demo", reason(exc)), file=sys.stderr)
            return 2
        try:
            return run_evening(folder, broker, tables, args.hands, args.rounds, args.seed,
                               args.pace, web_port=args.port, keep=args.keep, say=print)
        finally:
            broker.stop()


def run_evening(folder: Path, broker: Any, tables: list[int], hands: int, rounds: int,
                seed: int, pace: float, web_port: int | None = None, keep: bool = False,
                say: Any = print, timeout: float = 240.0) -> int:
    """Play a concours on simulated tables through ``broker``, restart the broker
    in the middle, cut one table off a while; 0 if the club's copy and ranking
    equal the tables' own."""
    from club import evening
    from club.server import ClubServer
    from club.simtable import SimTable
    from club.store import ClubStore

    store = ClubStore(folder / "club.db")
    server = ClubServer(store, broker.club, broker.url, broker.passwords["club"])
    server.add_tables(tables)
    server.connect()
    web = None
    if web_port is not None:
        from club.app import create_app
        from web import serve

        pin = "000000"  # a demo's: printed, so a new organiser's trial goes on
        web = serve(create_app(server, {"ORGANISER_PIN": pin}), port=web_port)
        say(_("club pages: %(url)s  (organiser PIN %(pin)s)") % {"url": web.url, "pin": pin})
    sims = {n: SimTable(folder, n, broker.url, broker.passwords[f"table{n}"], broker.club,
                        seed=seed, pace=pace).start() for n in tables}
    try:
        players = [store.add_player(f"{FIRST_NAMES[i % len(FIRST_NAMES)]} "
                                    f"{FAMILY[(3 * i + i // len(FIRST_NAMES)) % len(FAMILY)]}")
                   for i in range(4 * len(tables))]
        cid = evening.new_concours(store, "Concours de démonstration", rounds, hands=hands,
                                   seed=seed)
        for i in range(2 * len(tables)):
            store.add_team(cid, f"Équipe {i + 1}", players[2 * i], players[2 * i + 1])
        cut = sims[tables[-1]]
        deadline = time.monotonic() + timeout
        for round_no in range(1, rounds + 1):
            evening.start_round(server, cid)
            say(_("round %(n)s: games sent to %(tables)s tables")
                % {"n": round_no, "tables": len(tables)})
            if round_no == 1:
                _wait(lambda: server.stored_count >= 4 * len(tables), deadline)
                cut.link.pause()
                say(_("table %(n)s cut off from the club") % {"n": cut.table})
                broker.kill()
                say(_("broker killed"))
                time.sleep(0.5)
                broker.start()
                say(_("broker restarted"))
            if round_no == 1:
                _wait(lambda: all(len(s.played) >= 1 for s in sims.values()), deadline)
                cut.link.resume()
                say(_("table %(n)s back on the network") % {"n": cut.table})
            _wait(lambda: evening.round_over(evening.standings(store, cid,
                                                               evening.club_games(server))),
                  deadline)
        _wait(lambda: all(server.last_seq(n) == sims[n].stored() for n in tables), deadline)
        ok = True
        for n in tables:
            club_copy = [e.to_json() for e in store.table_events(n)]
            own = sims[n].record()
            if club_copy != own:
                ok = False
                say(_("table %(n)s: the club holds %(club)s events, the table %(own)s; "
                      "they differ") % {"n": n, "club": len(club_copy), "own": len(own)})
        club_rank = evening.standings(store, cid, evening.club_games(server))
        table_rank = evening.standings(store, cid,
                                       evening.table_games({n: s.store for n, s in sims.items()}))
        if _ranking_view(club_rank) != _ranking_view(table_rank):
            ok = False
            say(_("the ranking from the club's copy differs from the tables' own"))
        say(_("club: %(events)s events stored from %(tables)s tables, %(refused)s refused")
            % {"events": sum(server.last_seq(n) for n in tables), "tables": len(tables),
               "refused": server.refused_count})
        say(_("ranking:"))
        for row in club_rank["ranking"]:
            names = " & ".join(p["name"] for p in row["team"]["players"])
            say(f"  {row['rank']:>2}. {row['team']['name']:<10} ({names}): "
                + _("%(won)s won, %(points)s points")
                % {"won": row["won"], "points": row["points"]})
        say(_("the club's record equals every table's: OK") if ok else _("MISMATCH"))
        if keep and web is not None:
            say(_("Ctrl-C to stop"))
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return 0 if ok else 1
    except TimeoutError as exc:
        say(located("belote-table club demo", exc))
        return 1
    finally:
        for s in sims.values():
            s.stop()
        if web is not None:
            web.close()
        server.close()
        store.close()


def _ranking_view(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(r["rank"], r["team"]["id"], r["played"], r["won"], r["points"], r["against"])
            for r in data["ranking"]]


def _wait(test: Any, deadline: float) -> None:
    while not test():
        if time.monotonic() > deadline:
            raise TimeoutError(_("the evening did not finish in time"))
        time.sleep(0.1)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "demo":
        return demo_main(argv[1:])
    if argv and argv[0] == "setup":
        return setup_main(argv[1:])
    return serve_main(argv)
