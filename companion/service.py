"""The table service: the one place where events enter a game.

Camera (through the play tracker), web page and simulator all call
``TableService.submit``. The service asks the rules engine whether the event
may happen now (``scorer.game.verify_event``): a refused event raises with the
reason and nothing is stored. An accepted event is appended to the store (one
transaction), folded into the game state, and published on the bus:

* ``event``: the stored event with its source, time, confidence and author;
* ``state``: ``GameState.to_json()`` plus the service's extras;
* ``alert``: a renonce proved, a card put down out of turn, an unknown card;
* ``status``: camera and display health.

On start the service replays the open game from the store, so after a crash
or a restart it goes on with the open hand exactly where it was.

A disk that refuses to write (full, read-only, failing: ``StoreFaultError``)
never stops the table: the event is kept in memory, folded in and published
as usual, and marked unsaved (``storage`` in the state); the kept events are
written in order, with their time and place, before the next event and every
few seconds, as soon as the disk takes them again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.bus import Bus
from companion.store import Store, StoredEvent, StoreError, StoreFaultError
from scorer.events import CardPlayed, Event, GameEnded, GameStarted
from scorer.game import GameState, replay, verify_event, verify_seen
from scorer.view import GameView, Renonce

ALERT_KINDS = ("renonce", "out_of_turn", "unknown_card")

log = logging.getLogger(__name__)


@dataclass
class _Unsaved:
    """An event accepted while the disk refused it (``stored`` as it will be
    stored), or the end of its game (``stored`` None), waiting to be written."""

    game_id: int
    stored: StoredEvent | None
    crop: bytes | None = None
    reads: Sequence[Any] | None = None
    frames: int | None = None


class ServiceError(ValueError):
    """A request the service cannot carry out (no game open, wrong kind of event)."""


class NoGameError(ServiceError):
    """No game is open: start one first."""


def _alert_order(r: Renonce) -> str:
    """The order of the alerts of renonces proved by one event."""
    return repr((r.hand_no, r.seat, r.trick, r.rule, r.proof_trick, r.proof_card))


class TableService:
    """Events in, state out, for one table. Thread-safe (one lock).

    ``store`` keeps the events, ``bus`` carries what happens to the web page
    and the display. ``game_id`` picks a game to continue; by default the
    store's open game (``Store.current_game``), if any.
    """

    # Seconds between two tries at writing the events kept while the disk refused them.
    RETRY_S = 5.0

    def __init__(self, store: Store, bus: Bus, game_id: int | None = None) -> None:
        self.store = store
        self.bus = bus
        self._lock = threading.RLock()
        # Events accepted while the disk refused them, in order (see the module's doc).
        self._unsaved: list[_Unsaved] = []
        self._retrier: threading.Thread | None = None
        self._closed = threading.Event()
        # What the page says of the store besides a fault: a damaged file
        # recovered at start (``set_recovered``).
        self._recovered: dict[str, Any] | None = None
        # mode: "camera" (cards come from the camera) or "manual" (the organiser
        # enters them; the pipeline leaves the table alone).
        self._status: dict[str, Any] = {"camera": "off", "display": "off", "mode": "camera"}
        self.game_id: int | None = None
        # The camera's latest frame, set by the pipeline (calibrate borrows it).
        self.camera_frame: Any = None
        self._created: float | None = None  # when the open game started (store clock)
        self._events: list[Event] = []
        self._state: GameState = replay([])
        self._json: dict[str, Any] = self._state.to_json()  # what the bus and the API carry
        self._view: GameView = GameView.from_json(self._json)  # what the service reads
        # The unread cards filled from the deal and the camera's reads (companion.fill):
        # never stored, worked out again as the facts change (``_refill``).
        self._filler: Any = None
        self._fill: dict[str, Any] = {"filled": [], "questions": []}
        self._filled_json: dict[str, Any] | None = None
        chosen = store.current_game() if game_id is None else game_id
        if chosen is not None:
            self._load(chosen)
        if store.fault is not None:
            self._start_retrying()  # the fault clears by itself once the disk writes
        self.bus.publish("state", self.state_json())

    # -- loading ----------------------------------------------------------------------

    def _load(self, game_id: int) -> None:
        stored = self.store.events(game_id)
        events = [s.event for s in stored]
        state = replay(events)
        created = next((g["created"] for g in self.store.games() if g["id"] == game_id), None)
        with self._lock:
            self.game_id = game_id
            self._created = created
            self._events = events
            self._state = state
            self._json = state.to_json()
            self._view = GameView.from_json(self._json)
            self._refill()

    # -- reading ----------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current game state (the fold of the game's events)."""
        with self._lock:
            return self._state

    def view(self) -> GameView:
        """The frozen view of the current game (``scorer.view``): what the pages read."""
        with self._lock:
            return self._view

    def state_json(self, filled: bool = True) -> dict[str, Any]:
        """``GameState.to_json()`` plus ``game_id``, ``events`` (how many are stored)
        and ``status``. With ``filled`` (the pages' view), the tricks and scores hold
        the unread cards the deal and the reads fill (``filled``: those cards,
        ``questions``: the others, for the organiser; ``companion.fill``)."""
        with self._lock:
            out = dict(self._json)
            if filled and self._filled_json is not None:
                from companion.fill import FILLED_KEYS

                out.update({k: self._filled_json[k] for k in FILLED_KEYS})
            out["filled"] = self._fill["filled"]
            out["questions"] = self._fill["questions"]
            out["game_id"] = self.game_id
            out["events"] = len(self._events)
            out["status"] = dict(self._status)
            # The time limit's end, for the pages' countdown (None without one).
            out["ends_at"] = self._ends_at(self._view)
            state = self._state
            # Cards stored that wait for their seat's turn (put down out of turn),
            # those whose hand ended first, and the hand's cards as first stored
            # (the camera must not play them again): ``scorer.fold``.
            out["pending"] = [{"seat": e.seat, "card": e.card, "seq": i}
                              for e, i, _ in state.pending]
            out["unplaced"] = [dict(u, seq=u["index"]) for u in state.unplaced]
            out["put_down"] = list(state.put_down)
            out["storage"] = self.storage()
            out["status"]["storage"] = out["storage"]  # the page's banner reads the status
            return out

    def storage(self) -> dict[str, Any]:
        """How the store is doing, for the page and ``/api/state``: ``fault``
        (None, or ``full``, ``readonly``, ``io``: the disk refuses to write),
        ``detail`` (the system's words), ``unsaved`` (events shown but not
        written yet), ``path`` (the store's file), ``recovered`` (None, or the
        damaged file set aside at start: ``{"aside", "events", "lost_pages"}``)."""
        with self._lock:
            fault = self.store.fault
            return {"fault": None if fault is None else fault["kind"],
                    "detail": None if fault is None else fault["detail"],
                    "unsaved": sum(1 for u in self._unsaved if u.stored is not None),
                    "path": self.store.path,
                    "recovered": None if self._recovered is None else dict(self._recovered)}

    def set_recovered(self, aside: str, events: int, lost: int | None = None) -> None:
        """Say on the page that the store was damaged and recovered at start:
        the damaged file was set aside as ``aside``, ``events`` events were
        read back from it (``lost``: events known missing, when known)."""
        with self._lock:
            self._recovered = {"aside": aside, "events": events, "lost": lost}
        self.set_status()

    def to_play(self) -> str | None:
        """The seat whose turn it is to play a card (None outside the play)."""
        with self._lock:
            seat: str | None = self._state.to_play
            return seat

    def events(self) -> list[StoredEvent]:
        """The open game's events (empty when no game is open): those stored,
        then those kept while the disk refuses them."""
        with self._lock:
            return [] if self.game_id is None else self._game_events(self.game_id)

    def _game_events(self, game_id: int) -> list[StoredEvent]:
        """A game's stored events and its unsaved ones. Called with the lock held."""
        return self.store.events(game_id) + [
            u.stored for u in self._unsaved if u.game_id == game_id and u.stored is not None]

    def preview(self, event: Event) -> dict[str, Any]:
        """What ``event`` (a correction, an undo...) would change, without storing
        anything (``companion.preview.changes``): the tricks whose winner changes,
        the renonces that would appear or go, the scores before and after. Raises
        as ``submit`` would when the event is refused."""
        from companion.preview import changes

        if not isinstance(event, Event) or isinstance(event, GameStarted):
            raise ServiceError(f"preview: {event!r} is not an entry")
        with self._lock:
            if self.game_id is None:
                raise NoGameError("preview: no game is open; start a game first")
            state = self._state  # never changed in place: folded outside the lock
            before = self.state_json(filled=False)
        verify_event(state, event)
        new_state = state.apply(event)
        after = new_state.to_json()
        after["pending"] = [{"seat": e.seat, "card": e.card, "seq": i}
                            for e, i, _ in new_state.pending]
        return changes(before, after)

    def camera_cards(self, hand_no: int | None = None) -> list[dict[str, Any]]:
        """The cards the camera stored in hand ``hand_no`` (default: the hand in
        play), in the order stored, each with what it saw: ``seq`` (the event),
        ``seat``, ``card`` (as read; None unread), ``trick`` (where the game has
        it now; None while it waits for its turn), ``confidence``, ``reads``
        (``[{"card", "p", "frames"}]``, its likeliest cards over every frame it
        was seen in, likeliest first; None for a card stored before they were
        kept), ``frames`` and ``crop`` (whether a picture is kept)."""
        with self._lock:
            if self.game_id is None:
                return []
            state = self._state
            hand = state.hand_no if hand_no is None else hand_no
            stored = self._game_events(self.game_id)
            kept = self.store.evidence(self.game_id)
            placed = {index: k // 4 + 1
                      for k, index in enumerate(state._plays_by_hand.get(hand, []))}
        out = []
        for s in stored:
            if (s.source != "camera" or not isinstance(s.event, CardPlayed)
                    or s.hand_no != hand):
                continue
            seen = kept.get(s.seq, {})
            out.append({"seq": s.seq, "seat": s.event.seat, "card": s.event.card,
                        "trick": placed.get(s.seq), "confidence": s.confidence,
                        "reads": seen.get("reads"), "frames": seen.get("frames"),
                        "crop": bool(seen.get("crop"))})
        return out

    def status(self) -> dict[str, Any]:
        """Camera and display health, and where the game stands."""
        with self._lock:
            return {**self._status, "game_id": self.game_id, "events": len(self._events),
                    "phase": self._view.phase, "storage": self.storage()}

    # -- writing ----------------------------------------------------------------------

    def set_status(self, **parts: Any) -> None:
        """Update camera/display health (``set_status(camera="ok")``) and publish it."""
        with self._lock:
            self._status.update(parts)
            status = self.status()
        self.bus.publish("status", status)

    MODES = ("camera", "manual")

    def set_mode(self, mode: str) -> None:
        """Cards from the camera, or entered by hand ("manual": the camera's
        reads are ignored until the mode is "camera" again)."""
        if mode not in self.MODES:
            raise ServiceError(f"mode: {mode!r} is not camera or manual")
        self.set_status(mode=mode)

    @property
    def manual(self) -> bool:
        """True while the organiser enters the cards by hand."""
        with self._lock:
            return self._status.get("mode") == "manual"

    def alert(self, kind: str, **data: Any) -> None:
        """Publish an alert (``renonce``, ``out_of_turn``, ``unknown_card``)."""
        if kind not in ALERT_KINDS:
            raise ServiceError(f"alert: kind {kind!r} is not one of {', '.join(ALERT_KINDS)}")
        with self._lock:
            payload = {"kind": kind, "game_id": self.game_id,
                       "hand_no": self._view.hand_no, **data}
        self.bus.publish("alert", payload)

    def start_game(self, started: GameStarted, source: str = "web",
                   author: str | None = None) -> int:
        """Open a new game (the previous open game, if any, is closed); return its id."""
        if not isinstance(started, GameStarted):
            raise ServiceError(f"start_game: expected GameStarted, not {started!r}")
        state = replay([started])  # raises on unknown rules or settings: nothing stored
        with self._lock:
            self._flush_locked()
            if self._unsaved:
                # The open game's last events are not written yet: a new game waits
                # for the disk (the page says what is wrong).
                fault = self.store.fault or {"kind": "io", "detail": "unsaved events"}
                raise StoreFaultError(fault["kind"], fault["detail"], self.store.path)
            if self.game_id is not None and self.store.current_game() == self.game_id:
                self.store.end_game(self.game_id)
            game_id = self.store.new_game(started, source=source, author=author)
            self.game_id = game_id
            self._created = self.store.now()
            self._events = [started]
            self._state = state
            self._json = state.to_json()
            self._view = GameView.from_json(self._json)
            self._refill()
            stored = self.store.events(game_id)[0]
            state_json = self.state_json()
        self.bus.publish("event", stored.to_json())
        self.bus.publish("state", state_json)
        return game_id

    def submit(self, event: Event, source: str = "web", confidence: float | None = None,
               author: str | None = None, crop: bytes | None = None,
               reads: Sequence[Any] | None = None, frames: int | None = None) -> StoredEvent:
        """Verify ``event`` with the rules engine, store it, fold it in, publish it.

        ``crop``: the JPEG the camera read (camera events), kept as evidence;
        ``reads`` and ``frames``: the card's likeliest cards over every frame it
        was seen in, (card, probability, frames) each, and how many frames.
        A card the camera saw (``source="camera"``) is stored whatever the turn
        (``scorer.verify.verify_seen``): the rules engine plays it when its
        seat's turn comes. People's entries are refused out of turn.
        Raises a ``ValueError`` subclass saying why when the event is refused
        (``IllegalEventError`` from the scorer, ``StoreError``, ``ServiceError``);
        then nothing is stored and the state is unchanged.
        """
        if not isinstance(event, Event):
            raise ServiceError(f"submit: {event!r} is not an event")
        if isinstance(event, GameStarted):
            raise ServiceError("submit: a GameStarted opens a new game (use start_game)")
        with self._lock:
            if self.game_id is None:
                raise NoGameError("submit: no game is open; start a game first")
            flushed = self._flush_locked()
            old = self._view
            if source == "camera" and isinstance(event, CardPlayed):
                verify_seen(self._state, event)
            else:
                verify_event(self._state, event)
            new_state = self._state.apply(event)
            new_json = new_state.to_json()
            new = GameView.from_json(new_json)
            try:
                if self._unsaved:
                    # Events wait already: this one goes after them, in order.
                    raise StoreFaultError("io", "events wait to be written", self.store.path)
                stored = self.store.append(self.game_id, event, source, confidence, author,
                                           hand_no=old.hand_no, crop=crop, reads=reads,
                                           frames=frames)
            except StoreFaultError as exc:
                # The disk refused it (full, read-only...): kept, shown, written later.
                stored = self._keep_unsaved(event, source, confidence, author, old.hand_no,
                                            crop, reads, frames, exc)
            except BaseException:
                # apply may fold in place: rebuild the state from what is stored.
                self._state = replay(self._events)
                self._json = self._state.to_json()
                self._view = GameView.from_json(self._json)
                raise
            self._events.append(event)
            self._state = new_state
            self._json = new_json
            self._view = new
            self._refill(event, old)
            self._after(old, new)
            alerts = self._alerts(old, new_state.proven, event)
            state_json = self.state_json()
            status = self.status() if flushed or self._unsaved else None
        if status is not None:
            self.bus.publish("status", status)
        self.bus.publish("event", stored.to_json())
        for alert in alerts:
            self.bus.publish("alert", alert)
        self.bus.publish("state", state_json)
        if self._time_is_up(old, new):
            # The game's time limit passed during the hand that just ended.
            self.submit(GameEnded(reason="time"), source=source, author=author)
        return stored

    def _refill(self, event: Event | None = None, old: GameView | None = None) -> None:
        """Work out the fill of the unread cards again (``companion.fill``) when the
        facts it rests on may have changed: any entry but a card, a card unread, a
        trick or a hand ended. A card seen in the middle of a trick waits for the
        trick's end (the frame loop stays cheap). Called with the lock held."""
        from companion.fill import Filler, filled_state, has_unknown, reads_by_hand

        state = self._state
        if not has_unknown(state):
            self._fill = {"filled": [], "questions": []}
            self._filled_json = None
            return
        if (isinstance(event, CardPlayed) and event.card is not None and old is not None
                and old.hand_no == self._view.hand_no and old.trick_no == self._view.trick_no):
            return
        try:
            if self._filler is None:
                self._filler = Filler()
            reads = {hand: reads_by_hand(self.camera_cards(hand))
                     for hand in self._filler.hands(state)}
            fill = self._filler.fill(state, reads)
            folded, fill = filled_state(self._events, state, fill)
        except (ValueError, OSError, KeyError, IndexError, TypeError) as exc:
            # The fill is a help, never a reason to stop: the cards stay unread.
            log.error("the unread cards could not be filled: %s", exc)
            self._fill = {"filled": [], "questions": []}
            self._filled_json = None
            return
        self._fill = fill.to_json()
        self._filled_json = None if folded is None else folded.to_json()

    def _time_is_up(self, old: GameView, new: GameView) -> bool:
        """A hand has just ended, the game is not over, and it has run past its
        time limit (rules ``minutes``)."""
        ends_at = self._ends_at(new)
        if ends_at is None or new.phase == "over":
            return False
        if len(new.hands) == len(old.hands):
            return False
        return self.store.now() >= ends_at

    def _ends_at(self, view: GameView) -> float | None:
        """When the game's time limit ends (None without one)."""
        minutes = view.rules.minutes
        if not minutes or self._created is None:
            return None
        return self._created + minutes * 60

    def submit_many(self, events: Iterable[Event], source: str = "web",
                    author: str | None = None) -> list[StoredEvent]:
        """Submit events one by one (each its own transaction); stop at the first refused."""
        return [self.submit(e, source=source, author=author) for e in events]

    def _after(self, old: GameView, new: GameView) -> None:
        """Close a game that is over."""
        assert self.game_id is not None
        if new.phase == "over" and old.phase != "over":
            if self._unsaved:
                self._unsaved.append(_Unsaved(self.game_id, None))
                return
            try:
                self.store.end_game(self.game_id)
            except StoreFaultError as exc:
                self._unsaved.append(_Unsaved(self.game_id, None))
                self._start_retrying(exc)

    # -- the disk refusing to write ---------------------------------------------------

    def _keep_unsaved(self, event: Event, source: str, confidence: float | None,
                      author: str | None, hand_no: int | None, crop: bytes | None,
                      reads: Sequence[Any] | None, frames: int | None,
                      exc: StoreFaultError) -> StoredEvent:
        """Keep ``event`` in memory as it will be stored (its place and time
        now). Called with the lock held."""
        assert self.game_id is not None
        stored = StoredEvent(self.game_id, len(self._events), event, source, self.store.now(),
                             None if confidence is None else float(confidence), author,
                             hand_no)
        self._unsaved.append(_Unsaved(self.game_id, stored, crop, reads, frames))
        self._start_retrying(exc)
        return stored

    def _start_retrying(self, exc: StoreFaultError | None = None) -> None:
        """Say the fault once, and keep trying to write in the background."""
        if self._retrier is None or not self._retrier.is_alive():
            if exc is not None:
                log.error("%s: the events are kept in memory and written as soon as the "
                          "disk takes them", exc)
            self._retrier = threading.Thread(target=self._retry, name="store-retry",
                                             daemon=True)
            self._retrier.start()

    def _retry(self) -> None:
        while not self._closed.wait(self.RETRY_S):
            try:
                remaining = self.flush()
                if remaining == 0 and (self.store.fault is None or self.store.probe()):
                    self.set_status()
                    return
            except Exception:  # noqa: BLE001 - the retries must outlive a surprise
                if self._closed.is_set():
                    return  # the store closed under the last try: the table stops
                log.exception("writing the kept events failed; trying again")

    def flush(self) -> int:
        """Write the events kept while the disk refused them, in order, with
        their time and place; return how many are still waiting. The page hears
        of it (``status`` and ``state``) when some were written."""
        with self._lock:
            wrote = self._flush_locked()
            left = len(self._unsaved)
            if not wrote:
                return left
            status, state_json = self.status(), self.state_json()
        self.bus.publish("status", status)
        self.bus.publish("state", state_json)
        return left

    def _flush_locked(self) -> int:
        """Write what waits, in order, until the disk refuses; return how many
        were written. Called with the lock held."""
        wrote = 0
        while self._unsaved:
            item = self._unsaved[0]
            try:
                if item.stored is None:
                    if any(g["id"] == item.game_id and g["ended"] is None
                           for g in self.store.games()):
                        self.store.end_game(item.game_id)
                else:
                    s = item.stored
                    self.store.append(s.game_id, s.event, s.source, s.confidence, s.author,
                                      hand_no=s.hand_no, crop=item.crop, reads=item.reads,
                                      frames=item.frames, ts=s.ts, seq=s.seq)
            except StoreFaultError:
                break
            except StoreError as exc:
                # Cannot happen while this service alone writes the store; said loudly.
                log.error("an unsaved event could not be written and is dropped: %s", exc)
            self._unsaved.pop(0)
            wrote += 1
        if wrote:
            log.warning("the disk takes writes again: %d kept events written, %d wait",
                        wrote, len(self._unsaved))
        return wrote

    def close(self) -> None:
        """Stop trying in the background (the store is closed after this).
        The last try at writing what waits is made now."""
        self._closed.set()
        left = self.flush()
        if left:
            log.error("the table stops with %d events the disk refused: they are lost", left)

    def _alerts(self, old: GameView, proven: Iterable[Renonce],
                event: Event) -> list[dict[str, Any]]:
        """The alerts of ``event``: an unknown card, the renonces it proved
        (``GameState.apply``'s ``proven``)."""
        base = {"game_id": self.game_id}
        alerts: list[dict[str, Any]] = []
        if isinstance(event, CardPlayed) and event.card is None:
            alerts.append({**base, "kind": "unknown_card", "seat": event.seat,
                           "hand_no": old.hand_no, "trick": old.trick_no,
                           "message": f"unknown card at seat {event.seat}"})
        for r in sorted(proven, key=_alert_order):
            alerts.append({**base, "kind": "renonce", "hand_no": r.hand_no, "seat": r.seat,
                           "trick": r.trick, "rule": r.rule,
                           "proof": {"trick": r.proof_trick, "card": r.proof_card},
                           "message": f"renonce by {r.seat} in trick {r.trick} ({r.rule}),"
                                      f" proved by {r.proof_card} in trick {r.proof_trick}"})
        return alerts
