"""Deck enrollment: the reader with and without an enrolled deck, for each head.

Per design held out (``vision.lab.enroll_bench.HELD_OUT``: Debian's SVG card
themes, rasterised with rsvg-convert): the deck is enrolled from one clean
picture of each of the 32 cards, then scenes of that design (6 belote cards
and 2 of the deck's 2-6 each, camera faults on) are read without the deck and
with it, for each head (``prototype``, ``template``). "other design" reads
the next held-out design's scenes with this deck: it must read them no worse
than the general model does.

The real photos (the whole set, named by ``--real-cards DIR`` or ``BELOTE_REAL_CARDS``:
the checkout's part lacks most scenes of the trained-on bursts, and without the whole set
the file keeps the last figures of this part; labels corrected by
``vision/lab/real_label_fixes.json``): the deck is enrolled from the first picture in
``cards/<CARD>/`` of each card (crops of scene photos), and read on the ``scenes/``
photos none of those came from, and on the other ``cards/`` photos (``cards_others``: each
a card alone, warped flat, read by ``read_face`` as ``vision eval DIR --deck DECK`` reads
it: accuracy, and what each wrong or missed picture was read as).

Prints the figures and writes ``benchmarks/enroll.json``: precision, recall,
cards invented and missed, enrollment seconds (one thread), and the read
time per card with and without the deck (``time``: five frames read both
ways in turn, the best of three; the other ``ms_per_card`` figures include
the machine's load of the moment).

    .venv/bin/python benchmarks/enroll.py [--scenes N] [--designs a,b]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import write_figures  # noqa: E402
from vision.deck import COURT_RULES, HEADS  # noqa: E402
from vision.enroll import enroll_folder  # noqa: E402
from vision.lab import enroll_bench as eb  # noqa: E402
from vision.lab.dataset import real_cards, use_real_cards  # noqa: E402
from vision.lab.evaluate import evaluate  # noqa: E402
from vision.lab.labelfix import FIXES  # noqa: E402  (the cards the labels leave out)
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "enroll.json"


def _timed_eval(reader: CardReader, scenes_dir: Path, keep) -> dict:
    t0 = time.perf_counter()
    result = evaluate(reader, scenes_dir, keep, FIXES)
    seconds = time.perf_counter() - t0
    out = {k: result[k] for k in ("images", "precision", "recall") if k in result}
    out["ms_per_image"] = round(1000 * seconds / max(int(result["images"]), 1), 2)
    return out


def _scene_of(card_picture: str) -> str:
    """cards/<C>/IMG_IMG_x.jpg is a crop of scenes/IMG_x.jpg."""
    return card_picture.replace("IMG_IMG_", "IMG_", 1)


def whole_set(folder: Path) -> bool:
    """Whether ``folder`` holds every photo its labels name (not the checkout's part)."""
    labels = folder / "scenes" / "labels.json"
    return labels.is_file() and all((folder / "scenes" / name).is_file()
                                    for name in json.loads(labels.read_text()))


def real_photos(reader: CardReader, heads: list[str], cache: Path, real: Path) -> dict:
    """Enrol from one crop of each card, read the scene photos none of them came from."""
    used: set[str] = set()
    pictures = cache / "real-enroll"
    shutil.rmtree(pictures, ignore_errors=True)
    for card in sorted(p for p in (real / "cards").iterdir() if p.is_dir()):
        first = sorted(card.iterdir())[0]
        (pictures / card.name).mkdir(parents=True)
        shutil.copy(first, pictures / card.name / first.name)
        used.add(_scene_of(first.name))

    def keep(name: str) -> bool:
        return name not in used

    def other_card(name: str) -> bool:
        return _scene_of(name) not in used

    reader.use_deck(None)
    out: dict = {"enrolled_from": "cards/<CARD>/ first picture (32)",
                 "labels": "corrected by vision/lab/real_label_fixes.json",
                 "scenes_left_out": len(used), "general": _timed_eval(reader, real / "scenes",
                                                                      keep),
                 "cards_others": {"general": evaluate(reader, real / "cards", other_card)}}
    for head in heads:
        t0 = time.perf_counter()
        deck = enroll_folder(reader, pictures, head)
        seconds = time.perf_counter() - t0
        path = cache / f"real-{head}.npz"
        deck.save(path)
        reader.use_deck(path)
        out[head] = {"enroll_seconds": round(seconds, 2), "deck_kib": path.stat().st_size // 1024,
                     **_timed_eval(reader, real / "scenes", keep)}
        out["cards_others"][head] = evaluate(reader, real / "cards", other_card)
        reader.use_deck(None)
    return out


def designs(reader: CardReader, names: list[str], heads: list[str], n: int, cache: Path
            ) -> dict:
    scenes = {d: eb.design_scenes(d, cache, n, seed=100 + i) for i, d in enumerate(names)}
    out: dict = {}
    for i, design in enumerate(names):
        other = names[(i + 1) % len(names)]
        reader.use_deck(None)
        row: dict = {"general": eb.score(reader, scenes[design])}
        for head in heads:
            path = cache / f"{design}-{head}.npz"
            seconds = eb.enroll_design(reader, design, cache, head, path)
            reader.use_deck(path)
            own = eb.score(reader, scenes[design])
            row[head] = {"enroll_seconds": round(seconds, 2),
                         "deck_kib": path.stat().st_size // 1024, **own,
                         "other_design": {"design": other, **eb.score(reader, scenes[other])},
                         "time": eb.extra_read_ms(reader, path, scenes[design][:5])}
            reader.use_deck(None)
        row["other_design_general"] = {"design": other, **eb.score(reader, scenes[other])}
        out[design] = row
        print(design, json.dumps(row), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenes", type=int, default=20, help="scenes per design")
    p.add_argument("--designs", help="comma-separated (default: the held-out designs)")
    p.add_argument("--heads", default=",".join(HEADS))
    p.add_argument("--out", help="the figures alone to this file (default: "
                                 "benchmarks/enroll.json)")
    p.add_argument("--real-cards", metavar="DIR",
                   help="the real photos' folder, the whole set (default: "
                        "$BELOTE_REAL_CARDS, else tests/data/real-cards)")
    args = p.parse_args(argv)
    try:
        use_real_cards(args.real_cards)
    except ValueError as e:
        p.error(str(e))
    if args.scenes < 1:
        p.error("--scenes must be 1 or more")
    heads = args.heads.split(",")
    names = args.designs.split(",") if args.designs else list(eb.HELD_OUT)
    reader = CardReader(threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        result: dict = {"heads": {h: v._asdict() for h, v in HEADS.items()},
                        "court_rules": {h: v._asdict() for h, v in COURT_RULES.items()},
                        "rules_chosen_on": {
                            "prototype": "the training designs less bellot and guyenne-classic "
                                         "(python -m vision.lab.deck_rules)",
                            "template": list(eb.DEV_DESIGNS)},
                        "scenes_per_design": args.scenes,
                        "threads": 1,
                        "designs": designs(reader, names, heads, args.scenes, cache)}
        kept: tuple[str, ...] = ()
        if whole_set(real_cards()):
            result["real_photos"] = real_photos(reader, heads, cache, real_cards())
            print("real photos", json.dumps(result["real_photos"]), flush=True)
        else:
            kept = ("real_photos",)
            print(f"real photos left out (their last figures kept): {real_cards()} is not "
                  "the whole set (--real-cards DIR)", file=sys.stderr)
    written = write_figures(args.out, OUT, result, parts=kept, indent=2)
    print(f"written to {written}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
