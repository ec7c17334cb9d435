"""A game: the fold over its events, its verification and its hand view.

The names of ``scorer.fold`` (``GameState``, ``replay``), ``scorer.verify``
(``verify_event``, ``can_apply``, the one legality question ``verify_play`` /
``can_play`` / ``legal_plays``, ``IllegalEventError``) and ``scorer.handview``
gathered in one place, as the rest of the project imports them.

>>> from scorer.events import GameStarted, BidMade, CardPlayed
>>> s = replay([GameStarted(dealer="N"), BidMade("W", "80H"), BidMade("S", "pass"),
...             BidMade("E", "pass"), BidMade("N", "pass")])
>>> s.phase, s.to_play, s.contract
('play', 'W', {'taker': 'W', 'value': 80, 'trump': 'H', 'double': 1})
>>> verify_event(s, CardPlayed("N", "7S"))
Traceback (most recent call last):
...
scorer.verify.IllegalEventError: N played out of turn, W to play
"""

from __future__ import annotations

from scorer.fold import GameState, replay
from scorer.handview import FinishedHand, Trick
from scorer.verify import (
    IllegalEventError,
    can_apply,
    can_play,
    legal_plays,
    verify_event,
    verify_play,
    verify_seen,
)

__all__ = ["FinishedHand", "GameState", "IllegalEventError", "Trick", "can_apply", "can_play",
           "legal_plays", "replay", "verify_event", "verify_play", "verify_seen"]
