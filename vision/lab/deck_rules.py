"""The enrolled deck's rules (``vision.deck.HEADS``, ``COURT_RULES``), chosen on training
designs only.

For each development design (the deck designs the general model was trained on, less
the two ``benchmarks/enroll.py`` reports): the deck is enrolled from one clean picture
of each belote card (its art on a plain table), then frames of that design, and frames
of the next design, are read with the deck (the renderer's scenes and camera faults,
half at piquet size, seeds 9801... never used elsewhere). Every box the deck judges is
kept with what the rule looks at: the general model's best card and its chance, its
chance of 'none', the deck's best card, and its two best similarities. A box the deck
would name is right when that card is in the frame.

Two rules are chosen, each the loosest on a grid of the least similarity, the least
margin over the next card and the least chance the general model gives the card (the
most right boxes named that the general model left unsure) that names no wrong card on
these frames: one on the boxes the general model takes for a number card (7-10), one on
those it takes for a court or an ace (``vision.deck.COURT_RANKS``). Then the same frames
are read in full, without a deck and with each design's deck under the chosen rules:
the cards read and invented, on the design's own frames and on the next design's
(``cards``): a rule is kept only if it invents no card more than the general model.

The designs held out of training (``benchmarks/real_decks.py``) and those
``benchmarks/enroll.py`` reports are never used here. Prints the figures and writes
``benchmarks/deck_rules.json``.

    python -m vision.lab.deck_rules [--frames 16] [--head prototype] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer.cards import CARD_CODES
from vision.deck import Rule, is_court

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "deck_rules.json"
# Reported by benchmarks/enroll.py (as bellot.svgz, guyenne-classic.svgz): not chosen on.
REPORTED = ("bellot", "guyenne-classic")
SEED = 9801
ACCEPTS = tuple(round(0.50 + 0.02 * k, 2) for k in range(25))  # 0.50 ... 0.98
MARGINS = tuple(round(0.04 + 0.02 * k, 2) for k in range(24))  # 0.04 ... 0.50
GENERALS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95)
LINEAR_ACCEPTS = tuple(round(0.30 + 0.01 * k, 2) for k in range(70))  # 0.30 ... 0.99


def dev_designs(manifest: dict) -> list[str]:
    """The training designs with all 32 belote cards cached, less ``REPORTED``."""
    from vision.lab import decks

    out = []
    for design in manifest["designs"]:
        if design in manifest["held_out"] or design in REPORTED:
            continue
        if all((decks.DATA / design / f"{c}.png").is_file() for c in CARD_CODES):
            out.append(design)
    return out


def _whole_from_1(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text}")
    return value


def dev_design_options(parser: argparse.ArgumentParser, frames: int, out: Path) -> None:
    """The options of a command run over :func:`dev_designs`: ``--frames`` of each,
    ``--jobs`` processes (both whole numbers from 1), ``--out`` (its figures' JSON)."""
    parser.add_argument("--frames", type=_whole_from_1, default=frames,
                        help="frames per training design")
    parser.add_argument("--jobs", type=_whole_from_1, default=2, help="worker processes")
    parser.add_argument("--out", default=str(out))


def dev_record(benchmark: str, designs: list[str], frames: int, seed: int) -> dict[str, Any]:
    """The head of such a command's figures: what it measures, when, on which frames."""
    return {"benchmark": benchmark, "measured": time.strftime("%Y-%m-%d", time.gmtime()),
            "designs": designs, "frames_per_design": frames, "seed": seed}


def over_dev_designs(parser: argparse.ArgumentParser, job: Callable[[tuple[int, str, int]], Any],
                     frames: int, jobs: int) -> tuple[list[str], list[Any]]:
    """``job((k, design, frames))`` for the k-th of :func:`dev_designs`, in ``jobs``
    processes (as :func:`dev_design_options` checked them): the designs and each one's
    result, in order (``parser`` says why and exits when the deck designs are not
    rendered)."""
    from vision.lab import decks

    designs = dev_designs(decks.manifest_or_exit(parser))
    with ProcessPoolExecutor(jobs) as pool:
        return designs, list(pool.map(job, [(k, d, frames) for k, d in enumerate(designs)]))


def design_art(design: str) -> dict[str, np.ndarray]:
    """Each belote card of a cached deck design, as rasterised (BGR), by code; exits
    saying how to cache it again when a card is missing."""
    from vision.lab import decks

    art = {}
    for code in CARD_CODES:
        img = cv2.imread(str(decks.DATA / design / f"{code}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise SystemExit(f"{decks.DATA / design / code}.png: missing, run "
                             "belote-table vision decks again")
        art[code] = img
    return art


def enroll_design(reader, design: str, folder: Path, head: str):
    """The deck of ``design`` learnt from one clean picture of each card."""
    from vision.enroll import enroll_folder
    from vision.lab.enroll_bench import enrollment_pictures

    faces = {code: cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
             for code, img in design_art(design).items()}
    enrollment_pictures(faces, folder / design)
    return enroll_folder(reader, folder / design, head)


def judged_boxes(reader, deck, frames) -> list[dict]:
    """Every box ``deck`` judges while ``reader`` reads ``frames`` ((frame, present)...),
    with what the rule looks at and whether its best card is in the frame."""
    rows: list[dict] = []
    judge = deck.judge
    present: set[str] = set()
    # A first read judges a box's ``tta`` turns, a second look its looks' turns too: each
    # box is recorded with the threshold its read needs without the deck.
    first_threshold, look_threshold = reader.classifier.thresholds(False)
    first_views = int(reader.classifier.meta.get("tta", 1))

    def recording(probs: np.ndarray, views: np.ndarray) -> np.ndarray:
        sims = deck.similarities(views)
        needs = first_threshold if views.shape[1] <= first_views else look_threshold
        none = deck.classes.index("none")
        cards = [k for k in range(len(deck.classes)) if k != none]
        named, chance = (deck.linear.read(views) if deck.linear is not None
                         else (np.full(len(probs), -1), np.zeros(len(probs))))
        for p, s, ln, lq in zip(probs, sims, named, chance, strict=True):
            guess = cards[int(p[cards].argmax())]
            order = np.argsort(-s)
            rows.append({"guess": deck.classes[guess], "p": float(p[guess]),
                         "pmax": float(p.max()), "none": float(p[none]),
                         "best": deck.classes[int(order[0])], "s1": float(s[order[0]]),
                         "s2": float(s[order[1]]),
                         "linear": deck.classes[int(ln)] if ln >= 0 else None,
                         "lq": float(lq), "right": deck.classes[guess] in present,
                         "unsure_below": float(needs)})
        return judge(probs, views)

    deck.judge = recording  # this deck object only; the reader holds it for these frames
    reader.classifier.use_deck(deck)
    try:
        for frame, seen in frames:
            present.clear()
            present.update(seen)
            reader.read(frame)
    finally:
        reader.classifier.use_deck(None)
        del deck.judge  # the deck's own method again
    return rows


def _frames(design: str, n: int, seed: int):
    from vision.lab.evaluate import design_frames, design_styles

    for frame, _readable, present in design_frames(design_styles(design), n, seed):
        yield frame, present


def loosest(generals: tuple[float, ...],
            rules_at: Callable[[float], Iterable[tuple[dict, int, int]]]
            ) -> tuple[dict | None, dict[str, dict | None]]:
    """At each floor ``g`` of ``generals``, the rule of ``rules_at(g)`` ((rule, right,
    wrong)...) naming the most right boxes and none wrong (the first of equals); and the
    best of those over all floors (the lowest floor of equals)."""
    best: dict | None = None
    per_general: dict[str, dict | None] = {}
    for g in generals:
        here: dict | None = None
        for rule, right, wrong in rules_at(g):
            if wrong == 0 and (here is None or right > here["right"]):
                here = {**rule, "right": right, "wrong": 0}
        per_general[f"{g:.2f}"] = here
        if here is not None and (best is None or here["right"] > best["right"]):
            best = here
    return best, per_general


def choose(rows: list[dict], none_below: float, in_use: Rule,
           generals: tuple[float, ...] = GENERALS) -> dict:
    """The loosest (general, accept, margin) naming no wrong card among the boxes the
    general model leaves unsure (under the threshold each one's read needs, its row's
    ``unsure_below``); the best such rule at each ``general``, the right and
    wrong cards named at each (accept, margin) at the chosen ``general``, and at
    ``in_use``."""
    cand = [r for r in rows if r["guess"] == r["best"] and r["none"] < none_below
            and r["pmax"] < r["unsure_below"]]
    s1 = np.array([r["s1"] for r in cand])
    margin = np.array([r["s1"] - r["s2"] for r in cand])
    chance = np.array([r["p"] for r in cand])
    right = np.array([r["right"] for r in cand], bool)

    def named(g: float, a: float, m: float) -> tuple[int, int]:
        hit = (chance >= g) & (s1 >= a) & (margin >= m)
        return int(right[hit].sum()), int((~right[hit]).sum())

    best, per_general = loosest(generals, lambda g: (
        ({"general": g, "accept": a, "margin": m}, *named(g, a, m))
        for a in ACCEPTS for m in MARGINS))
    grid = {f"{a:.2f}/{m:.2f}": list(named(best["general"] if best else 0.0, a, m))
            for a in ACCEPTS for m in MARGINS}
    r, w = named(in_use.general, in_use.accept, in_use.margin)
    return {"unsure_boxes": len(cand), "unsure_right": int(right.sum()), "chosen": best,
            "rule_in_use": {"general": in_use.general, "accept": in_use.accept,
                            "margin": in_use.margin, "right": r, "wrong": w},
            "best_at_each_general": per_general, "grid_right_wrong": grid}


def choose_linear(rows: list[dict], none_below: float, in_use: Rule,
                  generals: tuple[float, ...] = GENERALS) -> dict:
    """The linear read's rule as :func:`choose` chooses the cosine's: the loosest (general,
    accept) naming no wrong card among the boxes the general model leaves unsure, where
    the linear read names the general model's guess."""
    cand = [r for r in rows if r["guess"] == r["linear"] and r["none"] < none_below
            and r["pmax"] < r["unsure_below"]]
    chance = np.array([r["p"] for r in cand])
    lq = np.array([r["lq"] for r in cand])
    right = np.array([r["right"] for r in cand], bool)

    def named(g: float, a: float) -> tuple[int, int]:
        hit = (chance >= g) & (lq >= a)
        return int(right[hit].sum()), int((~right[hit]).sum())

    best, per_general = loosest(generals, lambda g: (
        ({"general": g, "accept": a}, *named(g, a)) for a in LINEAR_ACCEPTS))
    grid = {f"{a:.2f}": list(named(best["general"] if best else 0.0, a))
            for a in LINEAR_ACCEPTS}
    r, w = named(in_use.general, in_use.accept)
    return {"unsure_boxes": len(cand), "unsure_right": int(right.sum()), "chosen": best,
            "rule_in_use": {"general": in_use.general, "accept": in_use.accept,
                            "right": r, "wrong": w},
            "best_at_each_general": per_general, "grid_right_wrong": grid}


def _boxes_of(job: tuple[list[str], int, int, str, str]) -> tuple[dict[str, list[dict]], float]:
    """Worker: enrol design ``k`` of ``designs`` (its deck saved into ``folder``), and judge
    the boxes of its frames and of the next design's; with the enrolment's seconds."""
    from vision.lab import render
    from vision.reader import CardReader

    designs, k, frames, head, folder = job
    design = designs[k]
    render.art_styles(held_out=False)
    reader = CardReader()
    t0 = time.perf_counter()
    deck = enroll_design(reader, design, Path(folder), head)
    seconds = round(time.perf_counter() - t0, 2)
    deck.save(Path(folder) / f"{design}.npz")
    j = (k + 1) % len(designs)
    rows = {"own": judged_boxes(reader, deck, _frames(design, frames, SEED + k)),
            "other": judged_boxes(reader, deck, _frames(designs[j], frames, SEED + j))}
    print(f"{design}: {len(rows['own'])} + {len(rows['other'])} boxes judged", file=sys.stderr)
    return rows, seconds


def _cards_of(job: tuple[list[str], int, int, str, list[float], list[float],
                         dict[str, list[float]] | None]
              ) -> dict[str, dict[str, list[int]]]:
    """Worker: read design ``start``'s frames and the next design's, without a deck and
    with the design's deck under the rules given (numbers, courts: accept, margin,
    general; the linear read's per kind: accept, general, or None to leave it out): cards
    present, read and invented."""
    from vision.deck import Deck
    from vision.lab import render
    from vision.lab.evaluate import design_frames, design_styles
    from vision.reader import CardReader

    designs, start, frames, folder, numbers, courts, linear = job
    render.art_styles(held_out=False)
    reader = CardReader()
    deck = Deck.load(Path(folder) / f"{designs[start]}.npz")
    deck.accept, deck.margin, deck.general = numbers
    deck.courts = Rule(courts[0], courts[1], deck.none_below, courts[2])
    if linear is None:
        deck.linear = deck.linear_rules = None
    elif deck.linear is not None:
        deck.linear_rules = {kind: Rule(a, 0.0, deck.none_below, g)
                             for kind, (a, g) in linear.items()}
    out: dict[str, dict[str, list[int]]] = {}
    j = (start + 1) % len(designs)
    for kind, design, seed in (("own", designs[start], SEED + start),
                               ("other", designs[j], SEED + j)):
        tally = {"general": [0, 0, 0], "deck": [0, 0, 0]}  # cards, read, invented
        for frame, readable, present in design_frames(design_styles(design), frames, seed):
            for way, use in (("general", None), ("deck", deck)):
                reader.classifier.use_deck(use)
                read = {d.code for d in reader.read(frame) if d.code}
                tally[way][0] += len(readable)
                tally[way][1] += len(read & readable)
                tally[way][2] += len(read - present)
        reader.classifier.use_deck(None)
        out[kind] = tally
    return out


def kind_of(code: str) -> str:
    return "courts" if is_court(code) else "numbers"


def main(argv: list[str] | None = None) -> int:
    from vision.deck import COURT_RULES, HEADS, LINEAR_RULES
    from vision.lab import decks

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    dev_design_options(p, 16, OUT)
    p.add_argument("--head", default="prototype", choices=sorted(HEADS))
    args = p.parse_args(argv)
    manifest = decks.manifest_or_exit(p)
    t0 = time.time()
    designs = dev_designs(manifest)
    rows: dict[str, list[dict]] = {"own": [], "other": []}
    rules = {"numbers": HEADS[args.head], "courts": COURT_RULES[args.head]}
    with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.jobs) as pool:
        jobs = [(designs, k, args.frames, args.head, tmp) for k in range(len(designs))]
        enroll_seconds = []
        for got, seconds in pool.map(_boxes_of, jobs):
            for k in rows:
                rows[k] += got[k]
            enroll_seconds.append(seconds)
        none_below = HEADS[args.head].none_below
        every = rows["own"] + rows["other"]
        of_kind = {kind: [r for r in every if kind_of(r["guess"]) == kind] for kind in rules}
        chosen = {"numbers": choose(of_kind["numbers"], none_below, rules["numbers"])}
        # Courts and aces at the number cards' floor on the general model's chance: the
        # deck's cosine tells ranks apart better than suits on a design never seen (a floor
        # of 0.80, the loosest here, confirmed a king of the wrong suit on two held-out
        # designs), and the suit is the general model's to tell.
        floor = (chosen["numbers"]["chosen"] or {"general": rules["numbers"].general})["general"]
        chosen["courts"] = choose(of_kind["courts"], none_below, rules["courts"], (floor,))
        courts_any = choose(of_kind["courts"], none_below, rules["courts"])
        picked = {kind: [c["chosen"][x] for x in ("accept", "margin", "general")]
                  if c["chosen"] else [rules[kind].accept, rules[kind].margin,
                                       rules[kind].general]
                  for kind, c in chosen.items()}
        # The linear read (whole decks, prototype head), each kind at any floor.
        linear_chosen = {kind: choose_linear(of_kind[kind], none_below, LINEAR_RULES[kind])
                         for kind in rules} if args.head == "prototype" else {}
        linear_picked = {kind: [c["chosen"]["accept"], c["chosen"]["general"]]
                         if c["chosen"] else [LINEAR_RULES[kind].accept,
                                              LINEAR_RULES[kind].general]
                         for kind, c in linear_chosen.items()} or None
        jobs2 = [(designs, k, args.frames, tmp, picked["numbers"], picked["courts"],
                  linear_picked) for k in range(len(designs))]
        cards = {kind: {way: [0, 0, 0] for way in ("general", "deck")}
                 for kind in ("own", "other")}
        for read in pool.map(_cards_of, jobs2):
            for kind, tallies in read.items():
                for way, t in tallies.items():
                    cards[kind][way] = [a + b for a, b in zip(cards[kind][way], t, strict=True)]
    result = {"benchmark": "the enrolled deck's rules, chosen on training designs",
              "measured": time.strftime("%Y-%m-%d", time.gmtime()), "head": args.head,
              "designs": designs, "frames_per_design": args.frames, "seed": SEED,
              "none_below": none_below,
              "boxes_judged": {k: len(v) for k, v in rows.items()},
              "rules": chosen,
              "courts_at_any_floor": {k: courts_any[k] for k in ("chosen",
                                                                  "best_at_each_general")},
              "cards": {kind: {way: dict(zip(("cards", "read", "invented"), t, strict=True))
                               for way, t in ways.items()} for kind, ways in cards.items()},
              "cards_rules": picked,
              "linear_rules": linear_chosen, "cards_linear_rules": linear_picked,
              "enroll_seconds_max": max(enroll_seconds)}
    extra = sum(cards[k]["deck"][2] - cards[k]["general"][2] for k in cards)
    result["invented_more_than_general"] = extra
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({"rules": {k: {x: v[x] for x in ("unsure_boxes", "unsure_right",
                                                      "chosen", "rule_in_use")}
                                for k, v in chosen.items()},
                      "linear": {k: {x: v[x] for x in ("unsure_boxes", "unsure_right",
                                                       "chosen", "rule_in_use")}
                                 for k, v in linear_chosen.items()},
                      "cards": result["cards"], "invented_more": extra}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
