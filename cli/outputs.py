"""What follows the table service, and the running table that starts it.

``start_outputs`` starts the web page (given the service: the web app never
builds its own) and the score display's driver (a Pico, or the display
emulator). ``run_table`` is ``belote-table run`` once its options are read:
the store and service (``companion.pipeline.open_table``), the outputs, then
the frame source through the pipeline (``companion.pipeline.run_source``).
``run_virtual_table`` is ``belote-table demo``'s: a simulated table (the lab's
virtual table, made by the command) filmed through the same pipeline, checked
against the simulator at the end.

This is the one module below the commands that imports ``web``: it sits above
the web page, which sits above the service and the pipeline (docs/INTERFACES.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.i18n import (
    _,
    alert_line,
    bid_label,
    card_label,
    decimal,
    ngettext,
    reason,
    seat_letter,
    team_code,
)

if TYPE_CHECKING:
    from companion.service import TableService
    from vision.calibration import Calibration


def start_outputs(service: TableService, port: int | None, host: str = "127.0.0.1",
                  display: str | None = None, emulator: bool = False,
                  say: Callable[[str], None] = print,
                  search_display: bool = False,
                  pin: str | None = None) -> list[Callable[[], None]]:
    """Start what follows the service, when those parts are installed: the web
    page on ``port`` (None: no web page) and the display driver on ``display``
    (a serial port; with ``emulator`` the display emulator's pty, unless a Pico
    is plugged in; with ``search_display`` and no port the driver looks for the
    Pico by itself, and keeps looking); ``pin``: the organiser's PIN of a game
    the caller starts (the demo's), said with the page's address. Returns the
    functions that stop them, in the order to call."""
    closers: list[Callable[[], None]] = []
    if port is not None:
        try:
            import web
            create_app, serve = web.create_app, web.serve
        except (ImportError, AttributeError):
            say(_("web page: not installed, skipped"))
        else:
            server = serve(create_app(service, {"PIN": pin} if pin else None),
                           host=host, port=port)
            say(_("web page: %(url)s") % {"url": server.url})
            if pin:
                say(_("organiser's PIN (Organiser page, %(url)s/control): %(pin)s")
                    % {"url": server.url, "pin": pin})
            closers.append(server.close)
    if emulator or display or search_display:
        try:
            from companion.display import DisplayDriver, find_port
        except ImportError:
            say(_("score display: driver not installed, skipped"))
            return closers
        if emulator and not display:
            # A real Pico plugged in beats the emulator.
            found = find_port()
            if found is not None:
                say(_("score display: Pico on %(port)s") % {"port": found})
                display, emulator = found, False
        if emulator:
            try:
                from companion.display_emulator import Emulator
            except ImportError:
                say(_("score display emulator: not installed, skipped"))
                return closers
            emu = Emulator()
            display = emu.start()
            say(_("score display emulator on %(port)s") % {"port": display})

        def on_status(status: dict[str, Any]) -> None:
            service.set_status(display=status.get("link"))

        driver = DisplayDriver(service.bus, port=display, on_status=on_status).start()
        closers.insert(0, driver.stop)
        if emulator:
            closers.append(emu.stop)
    return closers


def run_table(db: Path, rules: str, open_source: Callable[[], Any], model: str | None,
              calibration: Calibration | None, settle: float, port: int | None,
              host: str = "127.0.0.1", display: str | None = None,
              search_display: bool = True, say: Callable[[str], None] = print,
              fail: Callable[[str], None] = print,
              problem: dict[str, str] | None = None,
              stop: threading.Event | None = None, live: bool = False,
              club: Callable[[Any], Callable[[], None]] | None = None,
              deck: str | None = None) -> int:
    """Run the table on the store ``db`` from the frames of ``open_source()``
    until they end or Ctrl-C; the web page on ``port`` (None: none) and the
    score display on ``display`` (None: found by its USB id when
    ``search_display``); ``club`` starts the link to the club server on the
    service and returns what stops it; the card reader reads through the club's
    enrolled ``deck`` (``vision.deck``) when given.

    A ``live`` source (a camera) that cannot be opened or stops giving frames
    leaves the table running without it and is looked for again
    (``companion.pipeline.keep_camera``). A file source, a model or a deck that cannot
    be opened, or a store written by a newer program, is told to ``fail`` and
    gives exit status 2, with the outputs stopped and the store closed; a
    corrupt store is set aside and a new one started. 0 otherwise, once the
    score is said.

    A bad setting (``problem``: ``{"code", "detail"}``, or a model that cannot
    be loaded) with the web page on does not stop the table: the page says
    what to fix, in the visitor's language, and the cards are entered by hand
    until ``stop`` is set or Ctrl-C (a service restarting in a loop would take
    the page down for everyone). Without a web page it is told to ``fail``
    (exit status 2). No game is started: the page leads to a new one."""
    from companion.pipeline import keep_camera, open_table, run_source
    from companion.store import StoreCorruptError, StoreError
    from vision.reader import CardReader

    try:
        store, service = open_table(db, rules, say=say, start=False)
    except StoreCorruptError as exc:
        aside = set_aside(db)
        say(_("unreadable database (%(reason)s): set aside as %(aside)s, new database %(db)s")
            % {"reason": exc, "aside": aside.name, "db": db})
        store, service = open_table(db, rules, say=say, start=False)
        service.set_status(store=f"set aside: {aside.name}")
    except StoreError as exc:
        fail(_("%(reason)s (this program cannot open the database)") % {"reason": exc})
        return 2
    closers = start_outputs(service, port, host, display=display,
                            search_display=search_display, say=say)
    if club is not None:
        closers.insert(0, club(service))
    reader = None
    told = False  # the reader's refusal is said once, here, not again below
    if problem is None:
        from vision.classify import ReaderCheckError
        from vision.deck import DeckError

        try:
            reader = CardReader(model, deck=deck)
        except DeckError as exc:  # the enrolled deck's file: missing, damaged, another model's
            problem = {"code": "other", "detail": reason(exc)}
            fail(reason(exc))
            told = True
        except ReaderCheckError as exc:  # the reader cannot read on this computer
            problem = {"code": "model", "detail": reason(exc)}
            fail(reason(exc))
            told = True
        except (ValueError, FileNotFoundError, OSError) as exc:
            problem = {"code": "model", "detail": str(model or exc)}
            fail(str(exc))
            told = True
    if problem is not None and port is not None:
        say(_("bad setting (%(code)s: %(detail)s): the web page says so, cards by hand")
            % problem)
        service.set_status(camera="error", mode="manual", problem=problem)
        wait = stop or threading.Event()
        try:
            while not wait.wait(1.0):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            for close in closers:
                close()
            service.close()  # a last try at what the disk refused, then no more tries
            store.close()
        return 0
    try:
        if problem is not None or reader is None:
            raise ValueError(problem["detail"] if problem else "no card reader")
        source = None if live else open_source()
    except (ValueError, FileNotFoundError) as exc:  # SourceError, DeckError: ValueErrors
        if not told:
            fail(reason(exc))
        for close in closers:
            close()
        service.close()
        store.close()
        return 2
    try:
        if source is None:
            keep_camera(service, open_source, reader, calibration, settle, say=say)
        else:
            run_source(service, source, reader, calibration, settle, say=say)
    finally:
        for close in closers:
            close()
        service.close()
        store.close()
    say(_("score: %(NS)s %(ns)s - %(EW)s %(ew)s") % _scores(service.view().scores))
    return 0


def run_virtual_table(table: Any, reader: Any, db: Path, port: int | None,
                      host: str = "127.0.0.1", emulator: bool = True,
                      say: Callable[[str], None] = print, banner: str = "",
                      stay_up: bool = False, pin: str | None = None) -> int:
    """Film ``table`` (a ``vision.lab.virtual_table.VirtualTable``: frames, the
    simulator's events and what it says aloud) through the card reader ``reader``,
    the play tracker and a table service on the store ``db``, with the web page on
    ``port`` (None: none) and the score display's emulator; ``say`` tells each
    event. Prints the final score and whether every card, seat, trick and score
    matched the simulator: 0 if all did, 1 otherwise. With ``stay_up`` the web
    page stays up afterwards until Ctrl-C. ``pin`` is the organiser's PIN of the
    game, said with the page's address."""
    from companion.bus import Bus
    from companion.pipeline import TablePipeline, compare
    from companion.service import TableService
    from companion.store import Store
    from scorer.events import GameStarted
    from vision.tracker import PlayTracker

    store = Store(db)
    bus = Bus()
    service = TableService(store, bus)
    events_sub = bus.subscribe(maxsize=100_000)
    news = _News(events_sub, say)
    closers = start_outputs(service, port, host, emulator=emulator, say=say, pin=pin)
    tracker = PlayTracker(table.calibration)
    pipeline = TablePipeline(service, reader, tracker, say=say)
    if banner:
        say(banner)
    started = time.monotonic()
    rc = 0
    try:
        started_event = table.events[0]
        assert isinstance(started_event, GameStarted)  # a simulated game opens with one
        service.start_game(started_event, source="simulator", author="demo")
        service.set_status(camera="virtual table")
        spoken = list(table.spoken)
        for ts, frame in table:
            pipeline.speak(spoken, author="demo", refused=lambda event, exc: say(
                _("simulator: %(event)s refused: %(reason)s") % {"event": event, "reason": exc}))
            pipeline.feed(ts, frame)
            news.print()
        news.print()
        elapsed = time.monotonic() - started
        stored = [s.event for s in service.events()]
        truth = table.events
        problems = compare(truth, stored)
        view = service.view()
        print(_("final score: %(NS)s %(ns)s - %(EW)s %(ew)s after %(hands)s; "
                "%(frames)s frames in %(seconds)s s (%(fps)s frames/s)")
              % {**_scores(view.scores), "hands": _hands(len(view.hands)),
                 "frames": table.frames, "seconds": decimal(elapsed, 1),
                 "fps": decimal(table.frames / max(elapsed, 1e-9), 1)})
        if problems:
            print(_("MISMATCH with the simulator (%(n)s):") % {"n": len(problems)})
            for line in problems[:20]:
                print("  " + line)
            rc = 1
        else:
            print(_("every card, seat, trick and score matched the simulator "
                    "(%(cards)s cards, %(hands)s)")
                  % {"cards": len(pipeline.log.plays), "hands": _hands(len(view.hands))})
        if stay_up and port is not None and closers:
            print(_("the web page stays up: Ctrl-C to stop"))
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        events_sub.close()
        for close in closers:
            close()
        service.close()
        store.close()
    return rc


def _describe(msg_data: dict[str, Any]) -> str:
    """One line of the demo's log: the event's number, who gave it (and how sure the
    camera was), and what it says, in the players' words."""
    event = msg_data["event"]
    kind = event["type"]
    conf = msg_data.get("confidence")
    sources = {"camera": _("camera"), "simulator": _("simulator"), "web": _("web page")}
    source = sources.get(msg_data["source"], msg_data["source"]) + (
        f" {decimal(conf, 2)}" if conf is not None else "")
    seat = seat_letter(event.get("seat", ""))
    if kind == "CardPlayed":
        text = _("%(seat)s plays %(card)s") % {
            "seat": seat,
            "card": card_label(event["card"]) if event["card"] else _("?? (unknown card)")}
    elif kind == "BidMade":
        text = _("%(seat)s bids %(bid)s") % {"seat": seat, "bid": bid_label(event["bid"])}
    elif kind == "BeloteAnnounced":
        text = _("%(seat)s announces belote") % {"seat": seat}
    elif kind == "CardCorrected":
        text = _("%(seat)s's card in trick %(trick)s is %(card)s") % {
            "seat": seat, "trick": event["trick"], "card": card_label(event["new"])}
    elif kind == "GameStarted":
        text = _("new game: rules %(rules)s, first dealer %(dealer)s") % {
            "rules": event["rules"], "dealer": seat_letter(event["dealer"])}
    elif kind == "CardTurned":
        text = _("turned card: %(card)s") % {"card": card_label(event["card"])}
    elif kind == "ContractSet":
        doubled = {2: " " + _("contré"), 4: " " + _("surcontré")}.get(event["double"], "")
        text = _("contract: %(taker)s %(contract)s") % {
            "taker": seat_letter(event["taker"]),
            "contract": bid_label(f"{event['value']}{event['trump']}") + doubled}
    elif kind == "TallyEntered":
        text = _("tally: %(NS)s %(ns)s points, %(EW)s %(ew)s points") % _scores(event["points"])
    elif kind == "EntryUndone":
        text = _("entry %(n)s undone") % {"n": event["index"]}
    elif kind == "GameEnded":
        text = _("game ended early (%(reason)s)") % {
            "reason": {"organiser": _("by the organiser"), "time": _("time is up")}.get(
                event["reason"], event["reason"])}
    else:
        # An event this log does not know yet: as stored, for whoever reads the log closely.
        text = kind + " " + " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"#{msg_data['seq']:<4} [{source}] {text}"


class _News:
    """Prints what the bus carries: each event, each alert, each hand's result."""

    def __init__(self, sub: Any, say: Any) -> None:
        self.sub = sub
        self.say = say
        self.hands_seen = 0
        self.tricks_seen = 0

    def print(self) -> None:
        while (msg := self.sub.get(timeout=0)) is not None:
            if msg.topic == "event":
                self.say(_describe(msg.data))
            elif msg.topic == "alert" and msg.data.get("kind") != "out_of_turn":
                # As the pages say it (the pipeline says a card out of turn itself).
                self.say(_("ALERT: %(message)s") % {"message": alert_line(msg.data)})
            elif msg.topic == "state" and len(msg.data.get("tricks") or []) > self.tricks_seen:
                trick = msg.data["tricks"][-1]
                pts = msg.data.get("card_points") or {}
                self.say("  " + _("trick %(n)s to %(winner)s (%(points)s points); this hand "
                                  "%(NS)s %(hand_ns)s - %(EW)s %(hand_ew)s; score %(NS)s %(ns)s"
                                  " - %(EW)s %(ew)s")
                         % {**_scores(msg.data["scores"]), "n": len(msg.data["tricks"]),
                            "winner": seat_letter(str(trick.get("winner"))),
                            "points": trick.get("points"), "hand_ns": pts.get("NS", 0),
                            "hand_ew": pts.get("EW", 0)})
            if msg.topic == "state":
                self.tricks_seen = len(msg.data.get("tricks") or [])
            if msg.topic == "state" and len(msg.data.get("hands") or []) > self.hands_seen:
                self.hands_seen = len(msg.data["hands"])
                last = msg.data["hands"][-1]
                score = last["result"].get("score", {})
                self.say(_("hand %(n)s over: %(NS)s +%(add_ns)s %(EW)s +%(add_ew)s; running "
                           "score %(NS)s %(ns)s - %(EW)s %(ew)s")
                         % {**_scores(msg.data["scores"]), "n": last["hand_no"],
                            "add_ns": score.get("NS", 0), "add_ew": score.get("EW", 0)})


def _hands(n: int) -> str:
    return ngettext("%(n)s hand", "%(n)s hands", n) % {"n": n}


def _scores(scores: Mapping[str, int]) -> dict[str, Any]:
    """The teams' codes (NS, EO in French) and their scores, for the messages."""
    return {"NS": team_code("NS"), "EW": team_code("EW"), "ns": scores["NS"],
            "ew": scores["EW"]}


def set_aside(db: Path) -> Path:
    """Rename a database the store cannot read (and its WAL files) out of the
    way, keeping it for a look later; return its new name."""
    import os

    aside = db.with_name(f"{db.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(db, aside)
    for suffix in ("-wal", "-shm"):
        extra = db.with_name(db.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    return aside
