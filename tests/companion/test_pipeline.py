"""The frame loop between the tracker and the service, fed with scripted reads:
a card put down out of turn raises an alert, is stored with its reads and waits
for its seat's turn (issue 72: what the camera saw is never lost), an unreadable
card becomes an "unknown card at seat X" play while the game goes on, and is
corrected once it can be read; a card already played is not played again."""

from __future__ import annotations

from dataclasses import dataclass

from companion.bus import Bus
from companion.pipeline import TablePipeline
from companion.service import TableService
from companion.store import Store
from scorer.cards import next_seat
from scorer.events import CardCorrected, CardPlayed
from scorer.simulate import simulate_game
from vision.calibration import Calibration
from vision.tracker import PlayTracker

FPS = 10
CAL = Calibration.default(640, 480)
SPOT = {"N": (320, 110), "S": (320, 370), "W": (110, 240), "E": (530, 240)}


@dataclass
class Det:
    code: str | None
    confidence: float
    center: tuple[float, float]


class ScriptedReader:
    """Reads what the test says lies on the table in each frame."""

    def __init__(self) -> None:
        self.table: dict[str, Det] = {}

    def read(self, frame):
        return list(self.table.values())


def setup(tmp_path):
    events = simulate_game(9, hands=1)
    first = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    store = Store(tmp_path / "p.db")
    bus = Bus()
    service = TableService(store, bus)
    service.start_game(events[0], source="simulator")
    for e in events[1:first]:
        service.submit(e, source="simulator")
    reader = ScriptedReader()
    pipeline = TablePipeline(service, reader, PlayTracker(CAL))
    return events[first:], store, bus, service, reader, pipeline


def run(pipeline, start, seconds):
    for i in range(round(seconds * FPS)):
        pipeline.feed(start + i / FPS, None)
    return start + round(seconds * FPS) / FPS


def test_out_of_turn_unknown_card_and_its_correction(tmp_path):
    plays, store, bus, service, reader, pipeline = setup(tmp_path)
    pipeline.tracker.unknown_after = 2.0  # time enough for the out-of-turn alert first
    sub = bus.subscribe(maxsize=1000)
    a, b = plays[0], plays[1]
    assert b.seat == next_seat(a.seat)
    # B puts a card down first; A's card lies there but cannot be read.
    reader.table = {b.seat: Det(b.card, 0.95, SPOT[b.seat]),
                    a.seat: Det(None, 0.2, SPOT[a.seat])}
    t = run(pipeline, 0.0, 1.2)
    alerts = [m.data for m in iter(lambda: sub.get(timeout=0), None) if m.topic == "alert"]
    assert [(x["kind"], x["seat"], x["card"], x["to_play"]) for x in alerts] == [
        ("out_of_turn", b.seat, b.card, a.seat)]
    # B's card is stored as the camera saw it, and waits for B's turn.
    [early] = [e for e in service.events() if isinstance(e.event, CardPlayed)]
    assert early.event == CardPlayed(b.seat, b.card) and early.source == "camera"
    state = service.state_json()
    assert state["current_trick"]["cards"] == [] and state["to_play"] == a.seat
    assert state["pending"] == [{"seat": b.seat, "card": b.card, "seq": early.seq}]
    assert store.evidence(service.game_id)[early.seq]["reads"][0]["card"] == b.card
    # After 2 s unread, A's card is an unknown card; B's card follows in turn.
    t = run(pipeline, t, 1.2)
    stored = [s for s in service.events() if isinstance(s.event, CardPlayed)]
    assert [s.event for s in stored] == [CardPlayed(b.seat, b.card), CardPlayed(a.seat, None)]
    assert {s.source for s in stored} == {"camera"}
    assert service.state_json()["pending"] == []
    msgs = list(iter(lambda: sub.get(timeout=0), None))
    assert any(m.topic == "alert" and m.data["kind"] == "unknown_card"
               and m.data["message"] == f"unknown card at seat {a.seat}" for m in msgs)
    # The glare goes: A's card is read and named.
    reader.table[a.seat] = Det(a.card, 0.9, SPOT[a.seat])
    run(pipeline, t, 1.0)
    last = service.events()[-1].event
    assert last == CardCorrected(seat=a.seat, trick=1, new=a.card)
    trick = service.state_json()["current_trick"]["cards"]
    assert trick == [{"seat": a.seat, "card": a.card}, {"seat": b.seat, "card": b.card}]
    assert service.state_json()["unknown"] == []
    assert pipeline.log.refused == []
    store.close()


def test_a_card_already_played_this_hand_is_not_played_again(tmp_path):
    plays, store, _, service, reader, pipeline = setup(tmp_path)
    a = plays[0]
    before = len(service.events())
    # A's card was entered on the web page; then it is seen in the next seat's zone.
    service.submit(CardPlayed(a.seat, a.card), source="web")
    nxt = service.to_play()
    reader.table = {nxt: Det(a.card, 0.95, SPOT[nxt])}
    run(pipeline, 0.0, 1.0)
    assert len(service.events()) == before + 1  # only the web's play
    assert pipeline.log.plays == []
    store.close()


def test_spoken_events_wait_for_their_place_and_a_refused_one_is_handed_over(tmp_path):
    events = simulate_game(9, hands=1)
    first = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    with Store(tmp_path / "s.db") as store:
        service = TableService(store, Bus())
        service.start_game(events[0], source="simulator")
        pipeline = TablePipeline(service, ScriptedReader(), PlayTracker(CAL))
        bids = events[1:first]
        # The last bid is said after one card: it waits while no card has been played.
        spoken = [(0, e) for e in bids[:-1]] + [(1, bids[-1])]
        pipeline.speak(spoken, author="test")
        assert spoken == [(1, bids[-1])]
        assert [s.event for s in service.events()][1:] == bids[:-1]
        assert {s.author for s in service.events()[1:]} == {"test"}
        # Said again out of its place (a bid already made): refused, handed over, dropped.
        refused = []
        again = [(0, bids[0])]
        pipeline.speak(again, refused=lambda event, exc: refused.append((event, str(exc))))
        assert again == [] and [e for e, _ in refused] == [bids[0]] and refused[0][1]
        assert len(service.events()) == len(bids)  # nothing stored


def test_a_card_named_while_it_waits_for_its_turn_is_named_once_placed(tmp_path):
    """Issue 72: the camera's naming of an unknown card is not lost when a correction
    has sent that card back to wait for its turn; it is made once the card is placed
    again (here, once the correction is undone)."""
    from scorer.events import EntryUndone
    from scorer.game import replay

    plays, store, _, service, reader, pipeline = setup(tmp_path)
    t = 0.0
    for play in plays[:4]:  # trick 1, in turn, read surely
        reader.table[play.seat] = Det(play.card, 0.95, SPOT[play.seat])
        t = run(pipeline, t, 0.6)
    reader.table = {}
    t = run(pipeline, t, 1.5)  # gathered
    lead = plays[4]
    assert service.to_play() == lead.seat
    # Trick 2's lead cannot be read: an unknown card, in its place.
    reader.table = {lead.seat: Det(None, 0.2, SPOT[lead.seat])}
    t = run(pipeline, t, 1.3)
    assert service.state_json()["unknown"] == [{"seat": lead.seat, "trick": 2}]
    # A correction of trick 1 gives the trick to another seat: the card waits.
    events = [s.event for s in service.events()]
    played = set(service.state_json()["played"])
    winner = replay(events).tricks[0][3]
    fix = next(CardCorrected(seat=p.seat, trick=1, new=c)
               for c in (r + s for s in "SHDC" for r in "789TJQKA")
               if c not in played and c != lead.card for p in plays[:4]
               if replay([*events, CardCorrected(seat=p.seat, trick=1, new=c)]
                         ).tricks[0][3] != winner)
    seq = service.submit(fix, source="web", author="test").seq
    assert service.state_json()["pending"] == [
        {"seat": lead.seat, "card": None, "seq": events.index(CardPlayed(lead.seat, None))}]
    # The glare goes: the camera names the card while it waits; nothing is lost.
    reader.table[lead.seat] = Det(lead.card, 0.95, SPOT[lead.seat])
    t = run(pipeline, t, 1.0)
    assert not any(isinstance(s.event, CardCorrected) and s.source == "camera"
                   for s in service.events())
    # The correction undone, the card is in its place again and named at once.
    service.submit(EntryUndone(index=seq), source="web", author="test")
    run(pipeline, t, 0.2)
    last = service.events()[-1]
    assert last.event == CardCorrected(seat=lead.seat, trick=2, new=lead.card)
    assert last.source == "camera"
    state = service.state_json()
    assert state["unknown"] == [] and state["pending"] == []
    assert state["current_trick"]["cards"] == [{"seat": lead.seat, "card": lead.card}]
    store.close()
