"""One card from the reads of its index boxes: a card prints its index at two opposite
corners, so two boxes a card's indices apart that name one card are that card, and two
doubtful ones together can name it surely (:func:`join_reads`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from vision.classify import Box
from vision.detection import Detection, box_quad, gap, overlap
from vision.settings import ReaderSettings, shipped_settings


class PairCandidate(NamedTuple):
    """Two doubtful boxes guessing the same card, as far apart as a card's two indices
    (``doubtful[a]``, ``doubtful[b]`` of :func:`sort_reads`)."""
    code: str
    a: int
    b: int
    chances: tuple[float, float]
    threshold: float  # the stricter of the two boxes' thresholds


def sort_reads(boxes: list[Box], probs: np.ndarray, thresholds: np.ndarray,
               classes: list[str], none_index: int
               ) -> tuple[dict[str, list[tuple[Box, float]]], list[tuple[Box, float, str, float]]]:
    """The boxes read surely, by card (box, chance), and the doubtful ones (box, chance,
    likeliest card, threshold); boxes likeliest ``none`` are in neither."""
    by_code: dict[str, list[tuple[Box, float]]] = {}
    doubtful: list[tuple[Box, float, str, float]] = []
    for box, p, threshold in zip(boxes, probs, thresholds, strict=True):
        k = int(p.argmax())
        if k == none_index:
            continue
        code = classes[k]
        if p[k] >= threshold:
            by_code.setdefault(code, []).append((box, float(p[k])))
        else:
            doubtful.append((box, float(p[k]), code, float(threshold)))
    return by_code, doubtful


def pair_candidates(by_code: dict[str, list[tuple[Box, float]]],
                    doubtful: list[tuple[Box, float, str, float]],
                    settings: ReaderSettings | None = None) -> list[PairCandidate]:
    """Every pair of doubtful boxes that could be one card's two indices: the same
    guess, read surely nowhere else, a card's two indices apart (``pair_span``)."""
    span = (settings or shipped_settings()).pair_span
    by_guess: dict[str, list[int]] = {}
    for i, (_, _, code, _) in enumerate(doubtful):
        if code not in by_code:
            by_guess.setdefault(code, []).append(i)
    out = []
    for code, ids in by_guess.items():
        for a_pos, a in enumerate(ids):
            for b in ids[a_pos + 1:]:
                (ba, pa, _, ta), (bb, pb, _, tb) = doubtful[a], doubtful[b]
                if indices_apart(ba, bb, span):
                    out.append(PairCandidate(code, a, b, (pa, pb), max(ta, tb)))
    return out


def join_reads(boxes: list[Box], probs: np.ndarray, thresholds: np.ndarray,
               classes: list[str], none_index: int, pair_exponent: float = 1.0,
               suit_exponents: dict[str, float] | None = None,
               settings: ReaderSettings | None = None) -> list[Detection]:
    """One detection per card from the reads of its index boxes, best first.

    ``probs[i]`` is box i's calibrated probabilities, ``thresholds[i]`` the
    confidence its read needs (the first read's or the second look's). A deck
    holds each card once, so the sure boxes of one code are its two indices.
    Two doubtful boxes naming the same card, as far apart as a card's two
    indices, are two separate readings of it: they name it surely when the
    chance that both are wrong, ``((1 - p1) * (1 - p2)) ** pair_exponent``, is
    within the stricter of their two thresholds. The two indices of one card are
    printed and lit alike, so their errors go together: an exponent under 1
    (calibrated per model on grey frames, ``CardClassifier.pair_exponent``)
    counts them as less than two independent readings; ``suit_exponents`` (suit letter:
    exponent) replaces it for the cards of a suit. Any other doubtful box
    becomes a ``code=None`` detection (a card the table waits on), unless its
    guess was read surely elsewhere (then it is most likely that card's other
    index, and places the card when that one was read at one index only), or it
    lies half inside a box read surely or a surer doubtful box (``overlap``: one
    index boxed twice, one card). ``settings``: the reader's (None: the shipped model's).
    """
    settings = settings or shipped_settings()
    by_code, doubtful = sort_reads(boxes, probs, thresholds, classes, none_index)
    paired: set[int] = set()
    best_of: dict[str, tuple[float, int, int]] = {}
    for pair in pair_candidates(by_code, doubtful, settings):
        exponent = (suit_exponents or {}).get(pair.code[-1], pair_exponent)
        joint = 1.0 - ((1.0 - pair.chances[0]) * (1.0 - pair.chances[1])) ** exponent
        best = best_of.get(pair.code)
        if joint >= pair.threshold and (best is None or joint > best[0]):
            best_of[pair.code] = (joint, pair.a, pair.b)
    for code, (joint, a, b) in best_of.items():
        paired.update((a, b))
        by_code[code] = [(doubtful[a][0], joint), (doubtful[b][0], joint)]
    out = []
    for code, hits in by_code.items():
        # One index boxed twice (a still picture's two levels, ``IndexDetector.detect``;
        # on any frame, a box lying half inside another) and read surely at both counts
        # once, the surer: the card's other index may be a doubtful box that places it.
        once: list[tuple[Box, float]] = []
        for hit in sorted(hits, key=lambda h: -h[1]):
            if all(overlap(hit[0], o[0]) < settings.overlap for o in once):
                once.append(hit)
        hits = once[:2]
        sure = max(h[1] for h in hits)
        if len(hits) == 1:
            # Read surely at one index only: a doubtful box guessing the same card, a card's
            # two indices away, is most likely its other index. It places the card (its
            # outline and centre) and adds nothing to how sure the read is.
            other = [(chance, box) for box, chance, guess, _ in doubtful
                     if guess == code and indices_apart(hits[0][0], box, settings.pair_span)]
            if other:
                hits.append(max(other)[::-1])
        # The card's centre lies halfway between its two indices.
        xs = [c for b, _ in hits for c in (b[0], b[2])]
        ys = [c for b, _ in hits for c in (b[1], b[3])]
        quad = box_quad((min(xs), min(ys), max(xs), max(ys)))
        center = (float(np.mean([(b[0] + b[2]) / 2 for b, _ in hits])),
                  float(np.mean([(b[1] + b[3]) / 2 for b, _ in hits])))
        out.append(Detection(code, sure, quad, center, indices=len(hits)))
    # The boxes read: one index boxed twice (a still picture's two levels, a crowded
    # part boxed again) and doubtful at one box is one card, told once: the sure read's,
    # or the surer doubtful box's.
    told = [box for hits in by_code.values() for box, _ in hits]
    for i in sorted(range(len(doubtful)), key=lambda i: -doubtful[i][1]):
        box, conf, code, _ = doubtful[i]
        if i in paired or code in by_code:
            continue
        if any(overlap(box, other) >= settings.overlap for other in told):
            continue
        told.append(box)
        quad = [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]
        out.append(Detection(None, conf, quad, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
                             guess=code))
    return sorted(out, key=lambda d: -d.confidence)


def indices_apart(a: Box, b: Box, span: tuple[float, float] | None = None) -> bool:
    """Whether boxes ``a`` and ``b`` lie as far apart as one card's two indices
    (``span``, in box sides; None: the shipped model's ``pair_span``)."""
    low, high = span or shipped_settings().pair_span
    return low <= gap(a, b) <= high
