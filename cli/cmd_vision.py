"""``belote-table vision``: read, eval, bench and train the card reader.

    belote-table vision read IMAGE [--model PATH] [--deck DECK] [--unknown]
    belote-table vision eval DIR [--model PATH] [--deck DECK] [--split train|calib|test]
                             [--fixes FILE]
    belote-table vision enroll DIR --out DECK [--model PATH] [--head prototype|template]
    belote-table vision bench [--model PATH] [--frames N] [--out PATH]
    belote-table vision decks [--out DIR]
    belote-table vision train [--seed S] [--steps N] [--out PATH] [--fixes FILE]

Heavy libraries (numpy, OpenCV, onnxruntime, torch) are imported inside each
subcommand. Bad input exits with status 2 and says which file and why. It speaks
French, or English with ``--lang en`` (``companion.i18n``), the reader's own
refusals included (``vision.errors``): they are English in the runtime and said
again here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.i18n import N_, _, card_label, language, located, ngettext, reason

PROG = "belote-table vision"
SHIPPED = N_("classifier .onnx (default: the shipped model)")
DECK = N_("the club's enrolled deck (belote-table vision enroll)")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=_("the card reader"))
    sub = p.add_subparsers(dest="command", required=True, metavar=_("COMMAND"))

    r = sub.add_parser("read", help=_("print the belote cards found in an image, as JSON"),
                       description=_("Print the belote cards found in an image, as JSON."))
    r.add_argument("image", metavar=_("IMAGE"), help=_("a photo of the table (JPEG, PNG...)"))
    r.add_argument("--model", metavar=_("FILE"), help=_(SHIPPED))
    r.add_argument("--deck", metavar=_("DECK"), help=_(DECK))
    r.add_argument("--unknown", action="store_true",
                   help=_("also list cards seen but not read surely (code null)"))

    e = sub.add_parser("eval", help=_("score the reader on a labelled folder, as JSON"))
    e.add_argument("dir", metavar=_("FOLDER"))
    e.add_argument("--model", metavar=_("FILE"), help=_(SHIPPED))
    e.add_argument("--deck", metavar=_("DECK"), help=_(DECK))
    e.add_argument("--split", choices=("train", "calib", "test"),
                   help=_("only the real photos of this split (see vision.lab.dataset.split_of)"))
    e.add_argument("--fixes", metavar=_("FILE"),
                   help=_("corrections to FOLDER/labels.json "
                          "(e.g. vision/lab/real_label_fixes.json)"))

    n = sub.add_parser("enroll", help=_("learn a club's deck from FOLDER/<CARD>/*.jpg|png "
                                        "(one card per picture) and write DECK"),
                       description=_("Learn a club's deck from FOLDER/<CARD>/*.jpg|png (one "
                                     "card per picture) and write DECK."))
    n.add_argument("dir", metavar=_("FOLDER"),
                   help=_("one folder per card, named in the notation (TH, QS...)"))
    n.add_argument("--out", required=True, metavar=_("DECK"),
                   help=_("the deck file to write (.npz)"))
    n.add_argument("--model", metavar=_("FILE"), help=_(SHIPPED))
    n.add_argument("--head", choices=("prototype", "template"), default="prototype",
                   help=_("how looks are compared (default: %(default)s; see the model card)"))

    b = sub.add_parser("bench", help=_("time the reader (benchmarks/vision.py); write "
                                       "benchmarks/vision.json"))
    b.add_argument("--model", metavar=_("FILE"), help=_(SHIPPED))
    b.add_argument("--frames", type=int, default=10, metavar="N",
                   help=_("frames to time (default: %(default)s)"))
    b.add_argument("--out", metavar=_("FILE"),
                   help=_("where to write the JSON (default benchmarks/vision.json)"))

    t = sub.add_parser("train", help=_("train, export and calibrate the models (needs torch)"))
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--steps", type=int, default=20000, help=_("classifier steps"))
    t.add_argument("--det-steps", type=int, default=6000, help=_("detector steps"))
    t.add_argument("--scenes", type=int, default=1800, help=_("synthetic frames to render"))
    t.add_argument("--detector-scenes", type=int, default=600,
                   help=_("frames whose detector boxes add hard 'none' patches (0: none)"))
    t.add_argument("--look-scenes", type=int, default=600,
                   help=_("frames whose detector boxes calibrate the second look "
                          "(0: no second look)"))
    t.add_argument("--init", metavar="ONNX",
                   help=_("train this exported float index classifier further instead of a "
                          "fresh one (index_classifier_fp32.onnx)"))
    t.add_argument("--fixes", metavar=_("FILE"),
                   help=_("corrections to the real photos' labels "
                          "(vision/lab/real_label_fixes.json)"))
    t.add_argument("--aspect", type=float, default=1.0,
                   help=_("stretch training patches by up to this ratio of width to height "
                          "(1: none, as the first models; 1 to 2)"))
    t.add_argument("--decks", action="store_true",
                   help=_("also draw the printed-French styles and the cached real deck "
                          "designs (belote-table vision decks), but the held-out ones"))
    t.add_argument("--more-scenes", type=int, default=0,
                   help=_("more frames cut at the detector's boxes (3/4 train, 1/4 calibrate)"))
    t.add_argument("--printed-scenes", type=int, default=0,
                   help=_("as --more-scenes, the printed-French styles as the only extra ones"))
    t.add_argument("--spread-scenes", type=int, default=0,
                   help=_("frames of cards spread overlapping (a fan or a row) beside the "
                          "others"))
    t.add_argument("--det-init", metavar="ONNX",
                   help=_("train this exported index detector further instead of a fresh one"))
    t.add_argument("--recolour", type=float, default=0.0,
                   help=_("share of index patches lit red or printed gold on black (0 to 0.5)"))
    t.add_argument("--out", help=_("output folder (default: vision/models)"))
    t.add_argument("--threads", type=int, default=2,
                   help=_("torch threads (the shipped model: 2)"))
    # The train module needs torch: its list of parts is not imported at start.
    d = sub.add_parser("decks", help=_("rasterise the real deck designs for training "
                                       "(needs gnome-cards-data and librsvg2-bin)"))
    d.add_argument("--out", metavar=_("FOLDER"),
                   help=_("cache folder (default: vision/lab/data/decks)"))
    t.add_argument("--only", choices=("classifier", "detector", "corner", "quantize",
                                      "calibrate"),
                   action="append",
                   help=_("retrain only this model (repeatable; the data are drawn the same "
                          "way); 'quantize' makes the 8-bit classifier again from the float "
                          "one in the output folder, and calibrates it; 'calibrate' calibrates "
                          "it alone"))
    t.add_argument("--max-error", type=float,
                   help=_("the colour thresholds' rule: at most this share of the "
                          "calibration's sure reads wrong (default 0.0001; grey frames: at "
                          "most 0.001)"))
    return p


def _fail(message: object) -> int:
    """``belote-table vision: why`` on stderr, the why in the language spoken (a
    refusal of the reader's runtime said by its template), and status 2."""
    print(located(PROG, reason(message)), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    if args.command not in ("read", "enroll"):
        missing = _lab_missing()
        if missing:
            return _fail(missing)
    try:
        if args.command == "read":
            return _read(args)
        if args.command == "eval":
            return _eval(args)
        if args.command == "enroll":
            return _enroll(args)
        if args.command == "bench":
            return _bench(args)
        if args.command == "decks":
            return _decks(args)
        return _train(args)
    except (ValueError, FileNotFoundError, RuntimeError) as e:
        return _fail(e)


def _lab_missing() -> str | None:
    """Why the lab (vision/lab: evaluation, rendering, training) cannot be used here, or
    None. The table's Pi is installed without it: only ``read`` and ``enroll`` work there."""
    try:
        import vision.lab  # noqa: F401
    except ImportError as exc:
        return _("the lab (vision/lab) is not installed here, as on the table's Pi: "
                 "%(reason)s") % {"reason": exc}
    return None


def _read(args: argparse.Namespace) -> int:
    from vision.reader import CardReader, load_image

    frame = load_image(args.image)
    reader = CardReader(args.model, deck=args.deck, still=True)
    found = [d.to_json() for d in reader.read(frame) if args.unknown or d.code is not None]
    print(json.dumps(found, indent=2))
    return 0


def _eval(args: argparse.Namespace) -> int:
    from vision.lab.evaluate import evaluate
    from vision.reader import CardReader

    keep = None
    if args.split:
        from vision.lab.dataset import split_of

        def keep(name: str) -> bool:
            return bool(split_of(name) == args.split)

    result = evaluate(CardReader(args.model, deck=args.deck, still=True), Path(args.dir), keep,
                      args.fixes)
    if args.deck:
        result["deck"] = args.deck
    if args.split:
        result["split"] = args.split
    if args.fixes:
        result["fixes"] = args.fixes
    print(json.dumps(result, indent=2))
    return 0


def _enroll(args: argparse.Namespace) -> int:
    import time

    from vision.enroll import enroll_folder
    from vision.reader import CardReader

    out = Path(args.out)
    if not out.parent.is_dir():
        return _fail(_("%(dir)s: no such folder, nothing written") % {"dir": out.parent})
    t0 = time.monotonic()
    misread: list[str] = []

    def read_as(path: Path, code: str, other: str) -> None:
        misread.append(code)
        print(_("%(path)s: the reader takes this picture for %(other)s (%(other_name)s), "
                "not %(card)s: check that it is in the right folder; if it is, this card "
                "of the deck may be misread at the table, enrolled or not")
              % {"path": path, "other": other, "other_name": _card_name(other),
                 "card": code})

    deck = enroll_folder(CardReader(args.model), args.dir, args.head, learnt=_say_learnt,
                         read_as=read_as)
    deck.save(out)
    print(ngettext("%(file)s: %(n)s card learnt in %(seconds)s s",
                   "%(file)s: %(n)s cards learnt in %(seconds)s s", len(deck.cards))
          % {"file": out, "n": len(deck.cards),
             "seconds": _decimal(time.monotonic() - t0)})
    missing = [c for c in deck.classes if c != "none" and c not in deck.cards]
    if missing:
        print(_("not enrolled, read by the general model: %(cards)s")
              % {"cards": " ".join(missing)})
    if misread:
        print(_("taken for another card by the reader: %(cards)s")
              % {"cards": " ".join(sorted(set(misread)))})
    return 0


def _card_name(code: str) -> str:
    from vision.deck import card_name_fr

    return card_name_fr(code) if language() == "fr" else card_label(code)


def _say_learnt(code: str) -> None:
    print(_("%(card)s (%(name)s): learnt") % {"card": code, "name": _card_name(code)})


def _decimal(seconds: float) -> str:
    """One decimal, with the language's separator (2,5 in French)."""
    text = f"{seconds:.1f}"
    return text.replace(".", ",") if language() == "fr" else text


def _bench(args: argparse.Namespace) -> int:
    from vision.lab import speed

    out = Path(args.out) if args.out else speed.OUT
    result = speed.run(args.model, frames=args.frames, out=out)
    print(json.dumps(result, indent=2))
    print(_("written to %(file)s") % {"file": out}, file=sys.stderr)
    return 0


def _train(args: argparse.Namespace) -> int:
    try:
        from vision.lab import train
    except ImportError as e:
        return _fail(_("training needs the train extra (pip install -e '.[train]'): "
                       "%(reason)s") % {"reason": e})
    parts = tuple(args.only) if args.only else train.PARTS
    train.run(seed=args.seed, steps=args.steps, det_steps=args.det_steps, scenes=args.scenes,
              out=Path(args.out) if args.out else None, threads=args.threads, parts=parts,
              detector_scenes=args.detector_scenes, look_scenes=args.look_scenes,
              init=Path(args.init) if args.init else None,
              label_fixes=Path(args.fixes) if args.fixes else None, aspect=args.aspect,
              decks=args.decks, det_init=Path(args.det_init) if args.det_init else None,
              recolour=args.recolour, more_scenes=args.more_scenes,
              printed_scenes=args.printed_scenes, max_error=args.max_error,
              spread_scenes=args.spread_scenes)
    return 0


def _decks(args: argparse.Namespace) -> int:
    from vision.lab import decks

    manifest = decks.build(Path(args.out) if args.out else decks.DATA,
                           log=lambda m: print(m, file=sys.stderr))
    print(json.dumps({"designs": len(manifest["designs"]), "held_out": manifest["held_out"]}))
    return 0
