"""Hand records (the JSON exchange format of docs/design.md) to events and scores,
and a finished hand back to a record.

>>> rec = {"dealer": "N", "bids": ["80H", "pass", "pass", "pass"],
...        "plays": ["W:7H", "S:AH", "E:8H", "N:TH", "W:7S"]}
>>> score_record(rec)
Traceback (most recent call last):
...
scorer.record.InvalidRecordError: plays[4]: W played out of turn, S to play
"""

from __future__ import annotations

import json
from typing import Any, Final

from scorer.bidding import InvalidBidError
from scorer.cards import SEATS, TEAMS, InvalidCardError, next_seat, read_card, team_of
from scorer.deal import OUTCOME_KEYS
from scorer.deal import complete as complete_deal
from scorer.errors import ScorerError
from scorer.events import (
    BeloteAnnounced,
    BidMade,
    CardPlayed,
    CardTurned,
    ContractSet,
    Event,
    GameStarted,
    InvalidEventError,
    TallyEntered,
)
from scorer.game import GameState, IllegalEventError, verify_event
from scorer.rules import PRESETS, Rules, UnknownSettingError

#: Folds the deal may spend on a record's unread cards (``scorer.deal``).
RECORD_SEARCH_LIMIT: Final = 10000
_KEYS = {"rules", "dealer", "bids", "plays", "belote", "turned", "tally", "contract"}


class InvalidRecordError(ScorerError):
    """A hand record that is malformed or breaks the rules; the message names
    the place (``plays[7]``) and the reason."""


def _rules_of(record: dict[str, Any], rules: str | None,
              overrides: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    spec = record.get("rules", "ffb")
    settings: dict[str, Any] = {}
    if isinstance(spec, str):
        preset = spec
    elif isinstance(spec, dict):
        preset = spec.get("preset", "ffb")
        if not isinstance(preset, str):
            raise InvalidRecordError("record.preset_name", places=("rules.preset",), value=preset)
        settings = {k: v for k, v in spec.items() if k != "preset"}
    else:
        raise InvalidRecordError("record.rules_kind", places=("rules",), value=spec)
    if rules is not None:
        preset = rules
    settings.update(overrides or {})
    if preset not in PRESETS:
        raise InvalidRecordError("record.unknown_preset", places=("rules",), value=preset,
                                 known=", ".join(PRESETS))
    try:
        Rules.from_preset(preset, settings)
    except UnknownSettingError as exc:
        raise InvalidRecordError.wrap(exc, "rules") from None
    return preset, settings


def _list(record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key, [])
    if not isinstance(value, list):
        raise InvalidRecordError("record.not_list", places=(key,), kind=type(value).__name__)
    return value


def record_to_events(record: Any, rules: str | None = None,
                     overrides: dict[str, Any] | None = None) -> list[Event]:
    """The events of one hand record, each checked against the rules on the way.

    Raises ``InvalidRecordError`` naming the first bad place.
    """
    events, _ = _fold_record(record, rules, overrides)
    return events


def _fold_record(record: Any, rules: str | None, overrides: dict[str, Any] | None
                 ) -> tuple[list[Event], GameState]:
    if not isinstance(record, dict):
        raise InvalidRecordError("record.not_object", kind=type(record).__name__)
    extra = set(record) - _KEYS
    if extra:
        raise InvalidRecordError("record.unknown_key", places=(sorted(extra)[0],),
                                 known=", ".join(sorted(_KEYS)))
    preset, settings = _rules_of(record, rules, overrides)
    dealer = record.get("dealer", "N")
    if dealer not in SEATS:
        raise InvalidRecordError("seat.not_seat", places=("dealer",), value=dealer)
    # One hand is scored alone: the game target must not stop it early.
    state = GameState()
    events: list[Event] = []

    def add(place: str, event: Event) -> None:
        nonlocal state
        try:
            verify_event(state, event)
        except IllegalEventError as exc:
            raise InvalidRecordError.wrap(exc, place) from None
        events.append(event)
        state._fold(event)

    add("rules", GameStarted(rules=preset, settings=settings, dealer=dealer))
    classic = state.rules.game == "classic"
    if classic:
        if "turned" not in record:
            raise InvalidRecordError("record.turned_missing", places=("turned",))
        try:
            turned = record["turned"]
            add("turned", CardTurned(card=_card(turned) if isinstance(turned, str) else turned))
        except (InvalidEventError, InvalidCardError) as exc:
            raise InvalidRecordError.wrap(exc, "turned") from None
    elif "turned" in record:
        raise InvalidRecordError("record.turned_contree", places=("turned",))
    bids = _list(record, "bids")
    if "contract" in record:
        c = record["contract"]
        if bids:
            raise InvalidRecordError("record.bids_and_contract", places=("contract",))
        if not isinstance(c, dict) or not {"taker", "value", "trump"} <= set(c):
            raise InvalidRecordError("record.contract_kind", places=("contract",))
        try:
            add("contract", ContractSet(taker=c["taker"], value=c["value"], trump=c["trump"],
                                        double=c.get("double", 1)))
        except InvalidEventError as exc:
            raise InvalidRecordError.wrap(exc, "contract") from None
    for i, bid in enumerate(bids):
        if state.phase != "bidding" or state.hand_no != 1:
            raise InvalidRecordError("record.auction_over", places=(f"bids[{i}]",))
        seat = state.to_speak
        assert seat is not None
        if not isinstance(bid, str):
            raise InvalidRecordError("bid.not_bid", places=(f"bids[{i}]",), value=bid)
        try:
            add(f"bids[{i}]", BidMade(seat=seat, bid=bid))
        except InvalidBidError as exc:
            raise InvalidRecordError.wrap(exc, f"bids[{i}]") from None
    passed_out = state.hand_no > 1
    if state.phase == "bidding" and not passed_out:
        raise InvalidRecordError("record.auction_open", places=("bids",), seat=state.to_speak)
    plays = _list(record, "plays")
    belote = _list(record, "belote")
    if passed_out:
        if plays or "tally" in record:
            raise InvalidRecordError("record.passed_out", places=("plays",))
        return events, state
    for i, seat in enumerate(belote):
        try:
            add(f"belote[{i}]", BeloteAnnounced(seat=seat))
        except InvalidEventError as exc:
            raise InvalidRecordError.wrap(exc, f"belote[{i}]") from None
    if "tally" in record:
        if plays:
            raise InvalidRecordError("record.plays_and_tally", places=("tally",))
        add("tally", _tally(record["tally"]))
        return events, state
    # Who played each card, and in which trick: a card written twice is said as such,
    # not as the turn it breaks.
    played: dict[str, tuple[str, int]] = {}
    for i, play in enumerate(plays):
        if state.hand_no != 1:
            raise InvalidRecordError("record.hand_over", places=(f"plays[{i}]",))
        if not isinstance(play, str) or play.count(":") != 1:
            raise InvalidRecordError("record.play_form", places=(f"plays[{i}]",), value=play)
        seat, card = play.split(":")
        try:
            # "?" is a card the camera could not read (exported as such)
            event = CardPlayed(seat=seat.strip().upper(),
                               card=None if card.strip() == "?" else _card(card))
        except InvalidEventError as exc:
            raise InvalidRecordError.wrap(exc, f"plays[{i}]", drop=1) from None
        except InvalidCardError as exc:
            raise InvalidRecordError.wrap(exc, f"plays[{i}]") from None
        if event.card is not None and event.card in played:
            first, trick = played[event.card]
            raise InvalidRecordError("record.card_again", places=(f"plays[{i}]",),
                                     card=event.card, first=first, trick=trick,
                                     seat=event.seat)
        if i == 0 and "dealer" not in record and event.seat != state.to_play:
            # The first card tells who dealt: the player before its seat.
            dealer = event.seat
            for _turn in range(3):
                dealer = next_seat(dealer, clockwise=state.rules.clockwise)
            raise InvalidRecordError("record.dealer_missing", seat=event.seat, dealer=dealer)
        trick_no = state.trick_no
        add(f"plays[{i}]", event)
        if event.card is not None:
            played[event.card] = (event.seat, trick_no)
    if state.hand_no == 1:
        raise InvalidRecordError("record.play_count", places=("plays",), count=len(plays))
    return events, state


def _card(text: Any) -> str:
    """A card of a record in the notation, written as people write it (``V♥``, ``10♦``,
    ``1♠``: ``scorer.cards.read_card``)."""
    return str(read_card(text))


def _tally(data: Any) -> TallyEntered:
    if not isinstance(data, dict):
        raise InvalidRecordError("record.tally_kind", places=("tally",),
                                 example="{'NS': 117, 'EW': 45, 'tricks': {'NS': 6, 'EW': 2}}")
    try:
        points = {t: data[t] for t in TEAMS}
        tricks = data["tricks"]
    except KeyError as exc:
        raise InvalidRecordError("record.missing", places=(f"tally.{exc.args[0]}",)) from None
    for name, group in (("", points), ("tricks.", tricks)):
        if not isinstance(group, dict):
            raise InvalidRecordError("record.not_object_part",
                                     places=(f"tally.{name.rstrip('.')}",))
        for team in TEAMS:
            v = group.get(team)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise InvalidRecordError("record.tally_number", places=(f"tally.{name}{team}",),
                                         value=v)
    belote = data.get("belote")
    if not (belote is None or belote in TEAMS or isinstance(belote, list) and len(belote) <= 4
            and all(t in TEAMS for t in belote)):
        raise InvalidRecordError("record.tally_belote", places=("tally.belote",))
    return TallyEntered(points=dict(points), tricks={t: tricks[t] for t in TEAMS},
                        belote=belote)


def score_record(record: Any, rules: str | None = None,
                 overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score one hand record: the result object of docs/design.md.

    ``rules`` replaces the record's preset, ``overrides`` goes on top of its settings.
    """
    try:
        _, state = _fold_record(record, rules, overrides)
    except InvalidCardError as exc:  # pragma: no cover - events report card errors first
        raise InvalidRecordError.wrap(exc) from None
    result = dict(state.hands[0]["result"])
    tricks = result.get("tricks", [])
    last = tricks[-1]["winner"] if len(tricks) == 8 else None
    result["dix_de_der"] = team_of(last) if last else None
    result["inferred"], result["undetermined"] = [], []
    if any(card is None for t in tricks for card in t["cards"]):
        _complete(result, record, state, rules, overrides)
    return result


def _complete(result: dict[str, Any], record: dict[str, Any], state: GameState,
              rules: str | None, overrides: dict[str, Any] | None) -> None:
    """A hand with unread cards (``"W:?"``): the cards the deal determines are
    named (``inferred``), the others listed with their candidates
    (``undetermined``); the tricks are shown with the inferred cards in place.
    Each score-making key (``scorer.deal.OUTCOME_KEYS``: score, points, made...)
    is the full deal's when every consistent assignment of the undetermined
    cards gives it the same value, else null, with ``score_reason`` saying why
    the score is not given. The renonces stay those the cards read prove."""
    done = complete_deal(state, 1, RECORD_SEARCH_LIMIT)
    order = {u.key: n for n, u in enumerate(done.unknowns)}
    inferred = sorted(done.determined.items(), key=lambda kv: order[kv[0]])
    result["inferred"] = [{"seat": seat, "trick": trick, "card": card}
                          for (trick, seat), card in inferred]
    result["undetermined"] = [{"seat": u.seat, "trick": u.trick, "candidates": list(u.candidates)}
                              for u in done.unknowns if u.key not in done.determined]
    if inferred and done.legal:
        # The tricks as the record reads with the inferred cards in place.
        named = dict(done.determined)
        plays = list(record["plays"])
        for i, play in enumerate(plays):
            seat = play.split(":")[0].strip().upper()
            card = named.get((i // 4 + 1, seat))
            if card is not None and play.split(":")[1].strip() == "?":
                plays[i] = f"{seat}:{card}"
        try:
            _, filled = _fold_record({**record, "plays": plays}, rules, overrides)
        except InvalidRecordError:  # pragma: no cover - a consistent assignment folds
            pass
        else:
            result["tricks"] = filled.hands[0]["result"]["tricks"]
    reason: dict[str, Any] | None = None
    if not done.legal:
        reason = {"code": "deal.no_legal_completion", "values": {}}
    elif done.capped:
        reason = {"code": "deal.capped",
                  "values": {"limit": RECORD_SEARCH_LIMIT, "found": len(done.assignments)}}
    scores = {json.dumps(o["score"], sort_keys=True) for o in done.outcomes}
    if reason is None and len(scores) > 1:
        reason = {"code": "deal.score_depends",
                  "values": {"scores": [json.loads(s) for s in sorted(scores)],
                             "assignments": len(done.assignments)}}
    trusted = reason is None or reason["code"] == "deal.score_depends"
    for key in OUTCOME_KEYS:
        values = {json.dumps(o.get(key), sort_keys=True) for o in done.outcomes}
        if trusted and len(values) == 1:
            if key in done.outcomes[0]:
                result[key] = done.outcomes[0][key]
            else:
                result.pop(key, None)
        elif key in result:
            result[key] = None
    if reason is not None:
        result["score_reason"] = reason


def hand_record(state: GameState, hand_no: int | None = None) -> dict[str, Any]:
    """The docs/design.md record of a finished hand of ``state`` (the last one by default)."""
    if not state.hands:
        raise InvalidRecordError("record.no_hand")
    if hand_no is None:
        return dict(state.hands[-1]["record"])
    for h in state.hands:
        if h["hand_no"] == hand_no:
            return dict(h["record"])
    raise InvalidRecordError("record.no_hand_number", hand_no=hand_no)
