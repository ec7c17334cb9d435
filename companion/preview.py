"""What an entry would change, said before it is applied (issue 72).

A correction (or an undo) folds the whole game again: a card corrected in
trick 1 may change who won it, who led every trick after it, which renonces
the cards prove and the score. :func:`changes` compares the game before and
after, both as ``GameState.to_json()`` gives them (with the service's
``pending``), and says, in data the pages put in words:

* ``winners``: the tricks whose winner changes (``hand_no``, ``trick``,
  ``before``, ``after``; None for a trick whose winner is not known);
* ``renonces``: those that would ``appear`` and those that would ``go``
  (``hand_no``, ``seat``, ``trick``, ``rule``, ``proof``);
* ``scores``: each team's total ``before`` and ``after``; ``hands``: the
  finished hands whose score changes; ``points``: the hand in play's card
  points before and after;
* ``pending``: how many cards would wait for their turn, before and after.

>>> a = {"hand_no": 1, "phase": "play", "scores": {"NS": 0, "EW": 0}, "hands": [],
...      "tricks": [{"winner": "N"}], "renonces": [], "card_points": {"NS": 10, "EW": 0},
...      "pending": []}
>>> b = dict(a, tricks=[{"winner": "E"}], card_points={"NS": 0, "EW": 10})
>>> changes(a, b)["winners"]
[{'hand_no': 1, 'trick': 1, 'before': 'N', 'after': 'E'}]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def _renonces(state: Mapping[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Every renonce of the game (the finished hands' and the hand in play's), keyed."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}

    def add(hand_no: Any, items: Iterable[Mapping[str, Any]]) -> None:
        for r in items:
            proof = dict(r.get("proof") or {})
            key = (hand_no, r.get("seat"), r.get("trick"), r.get("rule"),
                   proof.get("trick"), proof.get("card"))
            out[key] = {"hand_no": hand_no, "seat": r.get("seat"), "trick": r.get("trick"),
                        "rule": r.get("rule"), "proof": proof}

    for hand in state.get("hands") or []:
        add(hand.get("hand_no"), (hand.get("result") or {}).get("renonces") or [])
    if state.get("phase") != "over":
        add(state.get("hand_no"), state.get("renonces") or [])
    return out


def _winners(state: Mapping[str, Any]) -> dict[tuple[Any, int], Any]:
    """(hand_no, trick) -> winner, for every trick of the game played so far."""
    out: dict[tuple[Any, int], Any] = {}
    for hand in state.get("hands") or []:
        for k, trick in enumerate((hand.get("result") or {}).get("tricks") or [], start=1):
            out[(hand.get("hand_no"), k)] = trick.get("winner")
    if state.get("phase") != "over":
        for k, trick in enumerate(state.get("tricks") or [], start=1):
            out[(state.get("hand_no"), k)] = trick.get("winner")
    return out


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What differs between two states of one game (see the module's text)."""
    won_before, won_after = _winners(before), _winners(after)
    winners = [{"hand_no": hand_no, "trick": trick, "before": won_before.get(key),
                "after": won_after.get(key)}
               for key in sorted(set(won_before) | set(won_after), key=repr)
               for hand_no, trick in (key,)
               if won_before.get(key) != won_after.get(key)]
    winners.sort(key=lambda w: (int(w["hand_no"] or 0), w["trick"]))
    r_before, r_after = _renonces(before), _renonces(after)
    hands_before = {h.get("hand_no"): (h.get("result") or {}).get("score")
                    for h in before.get("hands") or []}
    hands = [{"hand_no": h.get("hand_no"), "before": hands_before.get(h.get("hand_no")),
              "after": (h.get("result") or {}).get("score")}
             for h in after.get("hands") or []
             if hands_before.get(h.get("hand_no")) != (h.get("result") or {}).get("score")]
    out: dict[str, Any] = {
        "winners": winners,
        "renonces": {"appear": [r_after[k] for k in sorted(set(r_after) - set(r_before),
                                                           key=repr)],
                     "go": [r_before[k] for k in sorted(set(r_before) - set(r_after),
                                                        key=repr)]},
        "scores": {"before": dict(before.get("scores") or {}),
                   "after": dict(after.get("scores") or {})},
        "hands": hands,
        "points": {"before": dict(before.get("card_points") or {}),
                   "after": dict(after.get("card_points") or {})},
        "pending": {"before": len(before.get("pending") or []),
                    "after": len(after.get("pending") or [])},
    }
    out["changes"] = bool(winners or out["renonces"]["appear"] or out["renonces"]["go"]
                          or hands or out["scores"]["before"] != out["scores"]["after"]
                          or out["points"]["before"] != out["points"]["after"]
                          or out["pending"]["before"] != out["pending"]["after"])
    return out
