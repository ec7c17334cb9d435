"""Benchmark of the card reader on real decks: held-out photos and deck designs it never saw.

1. The real photos' ``test`` part (``tests/data/real-cards`` or ``--real-cards DIR``,
   the last two bursts of the phone session, see ``vision.lab.dataset.BURST_SPLITS``;
   labels corrected by ``vision/lab/real_label_fixes.json``): precision and recall of
   the belote cards, and recall by kind (number cards 7-10, courts J/Q/K, aces); the
   ``cards/`` crops of the same bursts: accuracy.
2. Deck designs held out of training (``vision.lab.decks.HELD_OUT``, rasterised by
   ``belote-table vision decks``), drawn into table frames with the renderer's camera
   faults, half at bridge size and half at the narrow piquet size (seeds 9701...,
   never used by training); the same figures. Those of ``decks.BENCH_DESIGNS`` the model
   was trained on (``--trained``, e.g. a run that trains on the Paris pattern) apart
   (``trained_designs``; these frames never).
3. The Paris-pattern art printed as a French deck (its indices blanked and printed
   again: serif R/D/V, aces "1" or "A"); and the printed-French procedural styles (aces
   printed "1", serif R/D/V, frameless courts, glare), on unseen seeds.
4. The frames of 2 and 3 turned grey: no card may be misread (a card named that is not
   in the frame); missing it is allowed.
5. The held-out designs of 2 with their deck enrolled (``belote-table vision enroll``):
   each design enrolled from one clean picture of each of its 32 cards (its card art on
   a plain table), then the same frames read with the deck, in colour and grey; and the
   next held-out design's frames read with that deck (another design's cards must read
   as the general model reads them).
6. The first ``--synthetic`` frames of ``benchmarks/accuracy.py``'s random test scenes
   (``eval-fr``, ``eval-en``: seeds 9001 and 9002), so that a new model can be checked
   against the first styles quickly; ``accuracy.py`` gives the full sets.

Nothing here is tuned on: thresholds come from the ``calib`` split and synthetic frames.
Prints the figures and writes them to ``benchmarks/real_decks.json``.

``--choose N`` reads only the held-out designs, on other frames (each design's seed plus
N), in colour and grey, and writes nothing unless ``--out`` is given: the measure to choose
between trained models by, so that the frames reported above are never the ones chosen on.

    .venv/bin/python benchmarks/real_decks.py [--frames 40] [--model PATH] [--out FILE]
    .venv/bin/python benchmarks/real_decks.py --choose 50000 --frames 30 --model PATH
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from scorer.cards import CARD_CODES  # noqa: E402
from vision.lab import decks, render  # noqa: E402
from vision.lab.dataset import real_cards, split_of, use_real_cards  # noqa: E402
from vision.lab.evaluate import (  # noqa: E402
    as_saved,
    cards_in_sight,
    design_frames,
    design_styles,
    eval_card_folders,
    load_labels,
    synthetic_frames,
)
from vision.lab.labelfix import FIXES  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "real_decks.json"
KINDS = {"numbers": "789T", "courts": "JQK", "aces": "A"}
#: The Paris-pattern designs (the same art, two layouts).
PARIS_ART = decks.PARIS_ART


def seed_of(design: str) -> int:
    """The seed of a design's test frames: its place in ``decks.BENCH_DESIGNS`` (the same
    frames whether the model under test was trained on the design or not)."""
    return 9701 + decks.BENCH_DESIGNS.index(design)


_BELOTE = set(CARD_CODES)


class Tally:
    """Cards present, read right, missed and invented, overall and by kind."""

    def __init__(self) -> None:
        self.n = {k: [0, 0, 0] for k in ("all", *KINDS)}  # present, read, invented

    def add(self, truth: set[str], read: set[str]) -> None:
        for code in truth:
            for k in ("all", *[k for k, r in KINDS.items() if code[0] in r]):
                self.n[k][0] += 1
                self.n[k][1] += code in read
        for code in read - truth:
            for k in ("all", *[k for k, r in KINDS.items() if code[0] in r]):
                self.n[k][2] += 1

    def add_figures(self, figures: dict[str, Any]) -> None:
        """Count in another tally's :meth:`figures`."""
        for k, n in self.n.items():
            f = figures[k]
            n[0] += f["cards"]
            n[1] += f["read"]
            n[2] += f["invented"]

    def figures(self) -> dict[str, Any]:
        out = {}
        for k, (present, right, invented) in self.n.items():
            out[k] = {"cards": present, "read": right, "missed": present - right,
                      "invented": invented,
                      "recall": round(right / present, 4) if present else None,
                      "precision": round(right / (right + invented), 4)
                      if right + invented else None}
        return out


def _read(reader: CardReader, frame: np.ndarray) -> set[str]:
    return {d.code for d in reader.read(frame) if d.code is not None}


def real_photos(reader: CardReader) -> dict[str, Any]:
    folder = real_cards()
    labels, _ = load_labels(folder / "scenes", FIXES)
    names = [n for n in sorted(labels) if split_of(n) == "test"]
    tally = Tally()
    for name in names:
        frame = cv2.imread(str(folder / "scenes" / name), cv2.IMREAD_COLOR)
        truth = {c for c in labels[name] if c in _BELOTE}
        tally.add(truth, _read(reader, frame))
    cards = eval_card_folders(reader, folder / "cards", lambda n: split_of(n) == "test")
    return {"photos": len(names), "split": "test (bursts 4 and 5 of the session)",
            "figures": tally.figures(),
            "cards_folder": {"images": cards["images"], "accuracy": cards["accuracy"]}}


def synthetic_set(reader: CardReader, style_names: list[str], n: int, seed: int,
                  grey_too: bool = True) -> dict[str, Any]:
    colour, grey = Tally(), Tally()
    grey_misread = 0
    for frame, readable, present in design_frames(style_names, n, seed):
        read = _read(reader, frame)
        colour.add(readable, read & readable | (read - present))
        if not grey_too:
            continue
        g = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        gread = _read(reader, g)
        grey.add(readable, gread & readable | (gread - present))
        grey_misread += len(gread - present)
    out = {"frames": n, "seed": seed, "styles": style_names, "figures": colour.figures()}
    if grey_too:
        out["grey"] = {"figures": grey.figures(), "misread": grey_misread}
    return out


def enrolled_designs(reader: CardReader, designs: list[str], n: int) -> dict[str, Any]:
    """Each held-out design enrolled from one clean picture of each belote card (its art,
    as cached by ``belote-table vision decks``, on a plain table), then its frames (the
    seeds of the figures without a deck) read with the deck, and the next design's
    frames read with it too."""
    from vision.deck import DEFAULT_HEAD
    from vision.lab.deck_rules import enroll_design

    out: dict[str, Any] = {"designs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        made: dict[str, Path] = {}
        for design in designs:
            t0 = time.perf_counter()  # the pictures drawn, then the deck learnt from them
            deck = enroll_design(reader, design, Path(tmp), DEFAULT_HEAD)
            seconds = time.perf_counter() - t0
            made[design] = Path(tmp) / f"{design}.npz"
            deck.save(made[design])
            out["designs"][design] = {"enroll_seconds": round(seconds, 2),
                                      "cards_enrolled": len(deck.cards)}
        total = Tally()
        try:
            for k, design in enumerate(designs):
                reader.use_deck(made[design])
                own = synthetic_set(reader, design_styles(design), n, seed_of(design))
                j = (k + 1) % len(designs)
                other = synthetic_set(reader, design_styles(designs[j]), n, seed_of(designs[j]),
                                      grey_too=False)
                out["designs"][design].update(own)
                out["designs"][design]["other_design"] = {"design": designs[j],
                                                          "figures": other["figures"]}
                total.add_figures(own["figures"])
                print(f"{design}, deck enrolled: {json.dumps(own['figures']['all'])}; "
                      f"{designs[j]} with it: {json.dumps(other['figures']['all'])}")
        finally:
            reader.use_deck(None)
    out["total"] = total.figures()
    out["grey_misread"] = sum(d["grey"]["misread"] for d in out["designs"].values())
    return out


def first_styles(reader: CardReader, n: int) -> dict[str, Any]:
    out = {}
    for name, seed, kind in (("eval-fr", 9001, "french"), ("eval-en", 9002, "english")):
        tally = Tally()
        for _, frame, things, _ in synthetic_frames(n, seed, kind):
            readable, present = cards_in_sight(things)
            read = _read(reader, as_saved(frame))
            tally.add(readable, read & readable | (read - present))
        out[name] = {"frames": n, "seed": seed, "figures": tally.figures()}
    return out


def choose(reader: CardReader, held: list[str], args: argparse.Namespace) -> int:
    """``--choose``: the ``held`` designs on frames of other seeds, colour and grey."""
    colour, grey = Tally(), Tally()
    result: dict[str, Any] = {
        "benchmark": "held-out designs on frames not reported, to choose a model on",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": args.model or "shipped", "seed_offset": args.choose, "designs": {}}
    misread = 0
    for design in held:
        got = synthetic_set(reader, design_styles(design), args.frames,
                            seed_of(design) + args.choose)
        colour.add_figures(got["figures"])
        grey.add_figures(got["grey"]["figures"])
        misread += got["grey"]["misread"]
        result["designs"][design] = got
        print(f"{design}: {json.dumps(got['figures']['all'])}")
    result["total"] = colour.figures()
    result["grey_total"] = grey.figures()
    result["grey_misread"] = misread
    print(f"held out, other frames: {json.dumps(result['total']['all'])}; grey "
          f"{json.dumps(result['grey_total']['all'])}, misread {misread}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40, help="frames per held-out design")
    p.add_argument("--synthetic", type=int, default=60,
                   help="frames of each of accuracy.py's eval-fr and eval-en (0: none)")
    p.add_argument("--model", help="classifier .onnx (default: the shipped model)")
    p.add_argument("--no-enroll", dest="enroll", action="store_false",
                   help="skip the held-out designs read with their deck enrolled")
    p.add_argument("--trained", default="",
                   help="designs the model under test was trained on (comma-separated): "
                        "reported apart, not as held out")
    p.add_argument("--choose", type=int, default=0, metavar="N",
                   help="only the held-out designs, on the frames of their seed plus N "
                        "(to choose a model on); writes nothing unless --out")
    p.add_argument("--out", default=None)
    p.add_argument("--real-cards", metavar="DIR",
                   help="the real photos' folder, as tests/data/real-cards (default: "
                        "$BELOTE_REAL_CARDS, else tests/data/real-cards)")
    args = p.parse_args(argv)
    try:
        use_real_cards(args.real_cards)
    except ValueError as e:
        p.error(str(e))
    if args.frames < 1 or args.synthetic < 0 or args.choose < 0:
        p.error("--frames: expected a whole number from 1; --synthetic, --choose: from 0")
    manifest = decks.manifest_or_exit(p)
    trained = set(args.trained.split(",")) - {""}
    if trained - set(decks.BENCH_DESIGNS):
        p.error(f"--trained: expected designs of {', '.join(decks.BENCH_DESIGNS)}")
    if args.model and not Path(args.model).with_name("card_corner.onnx").is_file():
        # Without it single-card photos (``cards/``) are read by the index reader alone:
        # not the figure of the reader as it ships.
        p.error(f"{Path(args.model).parent}: no card_corner.onnx beside the model (copy "
                f"vision/models/card_corner.* there)")
    t0 = time.time()
    reader = CardReader(args.model)
    render.art_styles(held_out=None, french_art=True)
    held = [d for d in decks.BENCH_DESIGNS if d in manifest["held_out"] and d not in trained]
    if args.choose:
        return choose(reader, held, args)
    args.out = args.out or str(OUT)
    result: dict[str, Any] = {
        "benchmark": "the reader on real photos and on deck designs it never saw",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": args.model or "shipped",
        "real_photos": real_photos(reader), "held_out_designs": {}, "trained_designs": {}}
    print(f"real photos: {json.dumps(result['real_photos']['figures']['all'])}")
    seen = [d for d in decks.BENCH_DESIGNS if d in manifest["designs"] and d not in held]
    for key, designs in (("held_out_designs", held), ("trained_designs", seen)):
        for design in designs:
            result[key][design] = synthetic_set(reader, design_styles(design), args.frames,
                                                seed_of(design))
            print(f"{design}: {json.dumps(result[key][design]['figures']['all'])}")
    # The Paris-pattern art printed as a French deck (R/D/V, aces "1" or "A"): the
    # nearest of these sets to the decks clubs play with (these frames never trained on).
    styles = [f"art-{d}-fr" for d in PARIS_ART if d in manifest["designs"]]
    result["paris_french"] = synthetic_set(reader, styles, args.frames, 9761)
    print(f"Paris art, French indices: "
          f"{json.dumps(result['paris_french']['figures']['all'])}")
    styles = [st.name for st in render.PRINTED_FRENCH]
    result["printed_french"] = synthetic_set(reader, styles, args.frames, 9751)
    print(f"printed French: {json.dumps(result['printed_french']['figures']['all'])}")
    total = Tally()
    for d in result["held_out_designs"].values():
        total.add_figures(d["figures"])
    result["held_out_total"] = total.figures()
    sets = [*result["held_out_designs"].values(), *result["trained_designs"].values(),
            result["paris_french"],
            result["printed_french"]]
    result["grey_misread"] = sum(d["grey"]["misread"] for d in sets)
    if args.synthetic:
        result["first_styles"] = first_styles(reader, args.synthetic)
        for name, d in result["first_styles"].items():
            print(f"{name}: {json.dumps(d['figures']['all'])}")
    if args.enroll:
        result["with_enrollment"] = enrolled_designs(reader, held, args.frames)
        print(f"held out, deck enrolled: "
              f"{json.dumps(result['with_enrollment']['total']['all'])}; grey misread "
              f"{result['with_enrollment']['grey_misread']}")
    result["seconds"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"held out, all: {json.dumps(result['held_out_total']['all'])}; grey misread "
          f"{result['grey_misread']}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
