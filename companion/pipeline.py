"""The table's data flow: frames in, events out.

    frame -> vision.reader (cards read) -> vision.tracker (plays confirmed)
          -> companion.service (checked by the scorer, stored, published on the bus)

``TablePipeline`` is that loop for one frame at a time; ``run_source`` drives it
from a frame source until the source ends. ``open_table`` opens the store and
the service a running table works on. ``compare`` tells a stored game from the
game a simulator played, card by card (the demo's check, the pipeline benchmark,
the end-to-end tests).

This module sits below the web page: what follows the service (the web page,
the score display) is started by ``cli.outputs``. The reader is passed in
(anything with ``read(frame) -> list[Detection]``), so this module imports no
vision code at load time.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.i18n import _, card_label, reason, seat_letter
from companion.store import StoreFaultError

if TYPE_CHECKING:
    from companion.service import TableService
    from companion.store import Store
    from vision.calibration import Calibration
    from vision.tracker import PlayTracker, TrackerOutput


log = logging.getLogger(__name__)

# A lost camera is looked for again after 1 s, then 2, 4... up to this.
CAMERA_RETRY_MAX_S = 30.0


@dataclass
class PlayRecord:
    """One play the pipeline sent to the service, with its timings (for the
    demo's check and the benchmark)."""

    seat: str
    card: str | None
    settled_at: float | None  # source clock: when the card had lain still for the settle time
    decided_at: float  # source clock: the frame in which the tracker decided
    published_wall: float  # time.monotonic() once stored and published
    seq: int


@dataclass
class PipelineLog:
    plays: list[PlayRecord] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    frames: int = 0
    # Seconds spent making each card's picture, and its size in bytes (the benchmark's).
    evidence_s: list[float] = field(default_factory=list)
    evidence_bytes: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why each bad frame was skipped


class TablePipeline:
    """Frames in, events out: reader -> tracker -> service.

    ``reader`` has ``read(frame) -> list[Detection]``; ``say`` prints a line
    for a person (the demo prints each event).
    """

    def __init__(self, service: TableService, reader: Any, tracker: PlayTracker,
                 say: Callable[[str], None] | None = None) -> None:
        self.service = service
        self.reader = reader
        self.tracker = tracker
        self.say = say or (lambda _line: None)
        self.log = PipelineLog()
        self._frame: Any = None
        self._detections: list[Any] = []
        # Cards named by the camera while their unknown card waited for its turn
        # (``pending``): named once it has its place in a trick.
        self._unnamed: list[TrackerOutput] = []
        from companion.evidence import warm_up

        warm_up()

    def _evidence(self, card: str | None) -> bytes | None:
        """The picture of ``card`` in the frame being handled (a few kB of JPEG):
        made once per card played, never per frame."""
        from companion.evidence import evidence

        start = time.perf_counter()
        picture = evidence(self._detections, self._frame, card)
        self.log.evidence_s.append(time.perf_counter() - start)
        if picture is not None:
            self.log.evidence_bytes.append(len(picture))
        return picture

    @property
    def camera_plays(self) -> int:
        """Cards this pipeline has played into the game so far."""
        return len(self.log.plays)

    def feed(self, ts: float, frame: Any) -> list[TrackerOutput]:
        """Process one frame taken at ``ts``; return what the tracker saw.

        While the organiser enters the cards by hand (the service's manual
        mode) the frame is left unread. A frame the reader cannot read is
        logged and skipped: one bad frame never stops the table."""
        # The latest frame stays within reach (a reference, no copy): calibrate
        # borrows it from the running table instead of opening the camera.
        self.service.camera_frame = frame
        if self.service.manual:
            self.log.frames += 1
            return []
        try:
            detections = self.reader.read(frame)
        except ValueError as exc:
            self.log.skipped.append(str(exc))
            log.warning(_("skipped a frame at %.2f s: %s"), ts, exc)
            return []
        self.log.frames += 1
        # The frame and its reads, for the picture kept with a card played now.
        self._frame, self._detections = frame, detections
        state = self.service.state_json()
        to_play = state.get("to_play")
        outputs = self.tracker.update(
            # The hand's cards as first stored, pending ones too (not the cards a
            # correction named in place of others: the camera may yet see those).
            ts, detections, to_play, state.get("put_down") or (),
            # After an unknown card the trick's winner, who leads next, is not known.
            any_seat=state.get("phase") == "play" and to_play is None)
        retry, self._unnamed = self._unnamed, []
        for out in [*outputs, *retry]:
            try:
                self._handle(ts, out)
            except (sqlite3.Error, StoreFaultError) as exc:
                # The service keeps what the disk refuses; anything the store
                # still raises (a damaged page, a locked file) costs this one
                # play, never the camera loop.
                self.log.refused.append(f"{out.seat}:{out.card}: {exc}")
                log.error(_("camera: %(seat)s %(card)s not stored: %(reason)s"),
                          {"seat": out.seat, "card": out.card, "reason": exc})
        return outputs

    def speak(self, spoken: list[tuple[int, Any]], source: str = "simulator",
              author: str | None = None,
              refused: Callable[[Any, ValueError], None] | None = None) -> None:
        """Submit what a simulated table says aloud (bids, belote), each event in its
        place between the cards: ``spoken`` holds (cards played before it, event), in
        order, and loses those whose place has come. A refused event raises, or is
        handed to ``refused`` when given (the demo prints it and goes on)."""
        while spoken and spoken[0][0] <= self.camera_plays:
            _cards, event = spoken.pop(0)
            try:
                self.service.submit(event, source=source, author=author)
            except ValueError as exc:
                if refused is None:
                    raise
                refused(event, exc)

    def _handle(self, ts: float, out: TrackerOutput) -> None:
        from scorer.events import CardCorrected, CardPlayed

        service = self.service
        if out.kind == "play":
            assert out.seat is not None
            try:
                # Stored whatever the turn: the rules engine plays it at its seat's turn.
                stored = service.submit(CardPlayed(seat=out.seat, card=out.card),
                                        source="camera", confidence=out.confidence,
                                        crop=self._evidence(out.card), reads=out.reads,
                                        frames=out.frames)
            except ValueError as exc:
                self.log.refused.append(f"{out.seat}:{out.card}: {exc}")
                self.say(_("camera: %(seat)s %(card)s refused: %(reason)s")
                         % {"seat": seat_letter(out.seat), "reason": exc,
                            "card": card_label(out.card) if out.card else "??"})
                return
            self.log.plays.append(PlayRecord(out.seat, out.card, out.settled_at, ts,
                                             time.monotonic(), stored.seq))
        elif out.kind == "out_of_turn":
            alert = {"seat": out.seat, "card": out.card, "to_play": out.to_play,
                     "message": f"{out.card} put down at {out.seat} out of turn,"
                                f" {out.to_play} to play"}
            self.log.alerts.append({"kind": "out_of_turn", **alert})
            service.alert("out_of_turn", **alert)
            self.say(_("alert: %(card)s put down at %(seat)s out of turn, %(to_play)s to play")
                     % {"card": card_label(out.card), "seat": seat_letter(str(out.seat)),
                        "to_play": seat_letter(str(out.to_play))})
        elif out.kind == "identified":
            assert out.seat is not None and out.card is not None
            unknown = [u for u in service.state_json().get("unknown") or []
                       if u.get("seat") == out.seat]
            if not unknown:
                if any(p.get("seat") == out.seat and p.get("card") is None
                       for p in service.state_json().get("pending") or []):
                    self._unnamed.append(out)  # its card waits for its turn: later
                return  # else a person named it already on the web page
            try:
                service.submit(CardCorrected(seat=out.seat, trick=int(unknown[-1]["trick"]),
                                             new=out.card),
                               source="camera", confidence=out.confidence,
                               crop=self._evidence(out.card), reads=out.reads,
                               frames=out.frames)
            except ValueError as exc:
                self.log.refused.append(f"{out.seat}:{out.card} (named): {exc}")
                self.say(_("camera: naming the unknown card at %(seat)s refused: %(reason)s")
                         % {"seat": seat_letter(out.seat), "reason": exc})
        elif out.kind == "gathered":
            self.say(_("camera: trick gathered"))


def open_table(db: Path, rules: str, say: Callable[[str], None] = print, start: bool = True
               ) -> tuple[Store, TableService]:
    """The store on ``db`` and a service on it: the store's open game goes on
    where it was; without one, a new game of ``rules`` starts (as if from the
    web page) when ``start``, else the table waits for one to be set up on
    the web page."""
    from companion.bus import Bus
    from companion.recovery import open_store
    from companion.service import TableService
    from scorer.events import GameStarted

    # A damaged store is recovered (every readable event) and set aside; a full
    # disk or a read-only folder leaves the store read-only until writing works.
    store, recovered = open_store(db, say=say)
    try:
        service = TableService(store, Bus())
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError):
            store.close()
            raise
        # The open game lies on a damaged page the start did not check.
        store.close()
        store, recovered = open_store(db, say=say, damage=str(exc))
        service = TableService(store, Bus())
    if recovered is not None:
        service.set_recovered(recovered.aside.name, recovered.events, recovered.lost)
    if store.fault is not None:
        say(_("the disk refuses to write (%(kind)s: %(detail)s): the table runs, the page says "
              "what to do, and the events are written once the disk takes them")
            % store.fault)
    if service.game_id is None and (not start or store.fault is not None):
        say(_("no game open in %(db)s: start one on the web page") % {"db": db})
    elif service.game_id is None:
        service.start_game(GameStarted(rules=rules), source="web")
        say(_("new game %(game)s in %(db)s") % {"game": service.game_id, "db": db})
    else:
        say(_("continuing game %(game)s from %(db)s (%(n)s events)")
            % {"game": service.game_id, "db": db, "n": len(service.events())})
    return store, service


def run_source(service: TableService, source: Iterable[tuple[float, Any]], reader: Any,
               calibration: Calibration | None, settle: float,
               say: Callable[[str], None] = print,
               stop: threading.Event | None = None) -> TablePipeline | None:
    """Feed every frame of ``source`` through a ``TablePipeline`` until the source
    ends or Ctrl-C; the camera's status shows on the web page meanwhile. The table's
    zones are ``calibration`` scaled to the frames (None: the whole frame, N at the
    top). Closes the source. Returns the pipeline (None when no frame came). A
    source that fails (``SourceError``, a camera unplugged) is closed and the error
    raised: ``keep_camera`` then looks for the camera again."""
    from vision.calibration import Calibration
    from vision.tracker import PlayTracker

    pipeline = None
    # Green on the page only once frames arrive: an opened camera may give none.
    service.set_status(camera="connecting")
    try:
        for ts, frame in source:
            if stop is not None and stop.is_set():
                break
            if pipeline is None:
                service.set_status(camera="ok")
                h, w = frame.shape[:2]
                cal = (calibration.scaled(w, h) if calibration else Calibration.default(w, h))
                pipeline = TablePipeline(service, reader, PlayTracker(cal, settle=settle),
                                         say=say)
            pipeline.feed(ts, frame)
    except KeyboardInterrupt:
        pass
    finally:
        service.set_status(camera="off")
        close_source = getattr(source, "close", None)
        if close_source:
            close_source()
    return pipeline


def camera_trouble(exc: BaseException) -> dict[str, Any] | None:
    """Why the camera is lost, for the page to say in the visitor's language: the
    English ``template`` of a source's refusal (``vision.errors.ExplainedError``)
    and the ``values`` that fill it, which the page looks up in its catalog
    (``web.i18n.camera_troubles``); None for another error (the system's own
    words, kept in ``camera_error``).

    >>> from vision.sources import SourceError
    >>> camera_trouble(SourceError("camera %(index)s: no frame (unplugged?)", index="7"))
    {'template': 'camera %(index)s: no frame (unplugged?)', 'values': {'index': '7'}}
    """
    template = getattr(exc, "template", None)
    if not isinstance(template, str):
        return None
    return {"template": template,
            "values": {k: str(v) for k, v in getattr(exc, "values", {}).items()}}


def keep_camera(service: TableService, open_source: Callable[[], Any], reader: Any,
                calibration: Calibration | None, settle: float,
                say: Callable[[str], None] = print, stop: threading.Event | None = None,
                first_retry_s: float = 1.0, max_retry_s: float = CAMERA_RETRY_MAX_S
                ) -> TablePipeline | None:
    """Run a live camera for as long as the table runs: a camera that cannot be
    opened, or stops giving frames, leaves the service, the web page, the
    display and hand entry working; its status says ``lost`` (with the reason
    in ``camera_error``, and in ``camera_trouble`` for the page to translate)
    and it is opened again after 1 s, 2 s, 4 s... up to ``max_retry_s``, until
    it comes back. Ends on Ctrl-C, when ``stop`` is
    set, or when the source itself ends. Returns the last pipeline."""
    from vision.sources import SourceError

    # picamera2 and V4L report a vanished device as RuntimeError or OSError.
    lost = (SourceError, RuntimeError, OSError)
    stop = stop or threading.Event()
    pipeline = None
    delay = first_retry_s
    # What was said of the camera's loss: said once, not at every try (the page
    # shows it meanwhile); said again only when the reason changes.
    said: str | None = None
    while not stop.is_set():
        try:
            source = open_source()
        except lost as exc:
            service.set_status(camera="lost", camera_error=str(exc),
                               camera_trouble=camera_trouble(exc))
            why = reason(exc)
            if why != said:
                say(_("camera lost (%(reason)s): looked for again every few seconds, "
                      "hand entry works meanwhile") % {"reason": why})
                said = why
            try:
                if stop.wait(delay):
                    break
            except KeyboardInterrupt:
                break
            delay = min(delay * 2, max_retry_s)
            continue
        delay = first_retry_s
        service.set_status(camera_error=None, camera_trouble=None)
        if said is not None:
            say(_("camera found again"))
            said = None
        try:
            pipeline = run_source(service, source, reader, calibration, settle, say=say,
                                  stop=stop)
        except lost as exc:
            service.set_status(camera="lost", camera_error=str(exc),
                               camera_trouble=camera_trouble(exc))
            said = reason(exc)
            say(_("camera lost (%(reason)s): trying again") % {"reason": said})
            continue
        return pipeline
    service.set_status(camera="off")
    return pipeline


def _plays(state: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(seat, card) of every play of a replayed game, corrections applied."""
    plays = [tuple(p.split(":")) for h in state["hands"] for p in h["record"].get("plays", [])]
    if state["phase"] == "play":  # the hand in progress
        plays += [(seat, card) for t in state["tricks"]
                  for seat, card in zip(t["seats"], t["cards"], strict=True)]
        plays += [(c["seat"], c["card"]) for c in state["current_trick"]["cards"]]
    # A hand record writes an unknown card as "?"; the replayed tricks as None.
    return [(seat, None if card == "?" else card) for seat, card in plays]


def compare(truth_events: list[Any], stored_events: list[Any]) -> list[str]:
    """Every difference between the simulator's game and the stored one: cards
    and seats, trick leaders and winners, hand results and scores.

    The stored game is compared as the store replays it: a card the camera
    played as unknown and named later (a ``CardCorrected``) counts as that
    card; one still unknown is a difference.
    """
    from scorer.events import CardCorrected
    from scorer.game import replay

    problems = []
    want_state, got_state = replay(truth_events).to_json(), replay(stored_events).to_json()
    true_plays, got_plays = _plays(want_state), _plays(got_state)
    for i, (want, got) in enumerate(zip(true_plays, got_plays, strict=False)):
        if want != got:
            problems.append(f"card {i + 1}: simulator {want[0]}:{want[1]}, "
                            f"stored {got[0]}:{got[1] or '??'}")
    if len(true_plays) != len(got_plays):
        problems.append(f"{len(true_plays)} cards played, {len(got_plays)} stored")

    def kinds(events: list[Any]) -> list[str]:
        return [type(e).__name__ for e in events if not isinstance(e, CardCorrected)]

    if kinds(truth_events) != kinds(stored_events):
        problems.append("the stored events are not the simulator's events")
    for k, (want, got) in enumerate(zip(want_state["hands"], got_state["hands"], strict=False)):
        wr, gr = want["result"], got["result"]
        for t, (wt, gt) in enumerate(zip(wr.get("tricks") or [], gr.get("tricks") or [],
                                         strict=False)):
            if (wt["leader"], wt["winner"], wt["points"]) != (gt["leader"], gt["winner"],
                                                             gt["points"]):
                problems.append(f"hand {k + 1} trick {t + 1}: simulator {wt}, stored {gt}")
        for key in ("contract", "points", "score", "made", "belote", "renonces"):
            if wr.get(key) != gr.get(key):
                problems.append(f"hand {k + 1} {key}: simulator {wr.get(key)}, "
                                f"stored {gr.get(key)}")
    if len(want_state["hands"]) != len(got_state["hands"]):
        problems.append(f"{len(want_state['hands'])} hands played, "
                        f"{len(got_state['hands'])} stored")
    if want_state["scores"] != got_state["scores"]:
        problems.append(f"final score: simulator {want_state['scores']}, "
                        f"stored {got_state['scores']}")
    return problems
