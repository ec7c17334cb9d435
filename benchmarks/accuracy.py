"""Benchmark of the card reader's accuracy, and of whole filmed games.

1. The shipped reader (``belote-table vision eval``'s code) on the held-out
   real photos (``test`` split of ``tests/data/real-cards/scenes`` and ``cards/``,
   or of the folder ``--real-cards`` names) and on unseen synthetic table frames,
   French and English
   (``vision/data/eval-fr``, ``eval-en``: seeds 9001 and 9002, 150 frames each;
   ``eval2-fr``, ``eval2-en``: seeds 9401 and 9402, 300 each; written by
   ``vision.lab.evaluate.make_synthetic_set`` when missing), and on unseen frames of
   games in play (``table-fr``, ``table-en``: seeds 9201 and 9202, 300 frames each,
   ``vision.lab.evaluate.make_table_set``; ``mount-fr``, ``mount-en``: seeds 9211 and
   9212, ``mount2-fr``, ``mount2-en``: seeds 9411 and 9412, and ``mount3-fr``,
   ``mount3-en``: seeds 9511 and 9512, the cards' size of the recommended camera
   mount). Each group of sets is summed in ``totals``: cards, missed, invented,
   the share read right, and the same over the cards a person could read.
2. Filmed games: the virtual table (the end-to-end test's film: 4 hands, an
   injected renonce) for several seeds, then games filmed at the recommended
   camera mount (1280x720, a card 22-30 % of the frame's height, varied tables,
   camera faults on every frame), through the whole pipeline
   (``benchmarks/pipeline.py``'s run), and games filmed with the camera a little
   high (a card 16-23 % of the frame's height: what ``belote-table calibrate``
   calls SMALL); for each, the number of differences
   from the simulator (``companion.pipeline.compare``: cards, tricks, scores;
   one early slip drags the later cards along).

Prints the figures and writes them to ``benchmarks/accuracy.json``.

    .venv/bin/python benchmarks/accuracy.py [--seeds 4 5 6 7] [--hands 4]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.card_size import CARD_SHARE, GOOD_FROM  # noqa: E402
from vision.lab.dataset import real_cards, split_of, use_real_cards  # noqa: E402
from vision.lab.evaluate import evaluate, make_synthetic_set, make_table_set  # noqa: E402
from vision.lab.labelfix import FIXES  # noqa: E402
from vision.reader import CardReader  # noqa: E402

SYNTHETIC = (("eval-fr", 9001, "french", 150), ("eval-en", 9002, "english", 150),
             ("eval2-fr", 9401, "french", 300), ("eval2-en", 9402, "english", 300))
# Frames of games in play (vision.lab.evaluate.make_table_set): 300 of each deck, cards of
# every size the reader was made for (17-36 % of the frame's height), then at the
# recommended mount (hardware/camera-mount.md: 24 %, 22-30 % for a camera a little off).
TABLE = (("table-fr", 9201, "french", (0.17, 0.36)), ("table-en", 9202, "english", (0.17, 0.36)),
         ("mount-fr", 9211, "french", (0.22, 0.30)), ("mount-en", 9212, "english", (0.22, 0.30)),
         ("mount2-fr", 9411, "french", (0.22, 0.30)),
         ("mount2-en", 9412, "english", (0.22, 0.30)),
         ("mount3-fr", 9511, "french", (0.22, 0.30)),
         ("mount3-en", 9512, "english", (0.22, 0.30)))
# The totals the README and the model card quote, each over a group of the sets above.
GROUPS = {"random scenes": ("eval-fr", "eval-en", "eval2-fr", "eval2-en"),
          "games in play, cards 17-36 %": ("table-fr", "table-en"),
          "games in play at the recommended mount, cards 22-30 %": (
              "mount-fr", "mount-en", "mount2-fr", "mount2-en", "mount3-fr", "mount3-en")}
KEYS = ("images", "cards", "precision", "recall", "perfect_images", "invented", "missed",
        "readable",
        "accuracy")


MOUNT_SHARE = (0.22, 0.30)
# What `belote-table calibrate` calls SMALL: the camera a little high.
HIGH_SHARE = (CARD_SHARE[0], GOOD_FROM)


def mount_table(seed: int, share: tuple[float, float] = MOUNT_SHARE) -> dict:
    """A table and camera for a filmed game: any cloth, light and slight tilt, a card
    ``share`` of the frame's height (by default 22-30 %, the recommended mount:
    hardware/camera-mount.md)."""
    import numpy as np

    from vision.lab.virtual_table import random_table

    table = random_table(np.random.default_rng([seed, 2026]), share)
    return {"background": table["background"], "light": round(table["light"], 3),
            "tilt": round(table["tilt"], 4), "card_height": round(table["card_height"], 3)}


def totals(by_folder: dict[str, dict], groups: dict[str, tuple[str, ...]] = GROUPS) -> dict:
    """Each group's sets summed: cards, missed, invented and the share read right, over
    all cards and over the cards a person could read (``vision eval``'s ``readable``; a
    set without that key has no card a person could not read). Tested in
    ``tests/vision/test_accuracy_totals.py``.
    """
    def summed(figures: list[dict]) -> dict:
        cards = sum(f["cards"] for f in figures)
        missed = sum(f["missed"] for f in figures)
        return {"cards": cards, "missed": missed,
                "invented": sum(f["invented"] for f in figures),
                "read_right": round((cards - missed) / cards, 4) if cards else 1.0}

    out = {}
    for group, folders in groups.items():
        present = [f for f in folders if f in by_folder]
        if present:
            found = [by_folder[f] for f in present]
            out[group] = {"sets": present, **summed(found),
                          "readable": summed([r.get("readable", r) for r in found])}
    return out


#: The parts of the result a run may leave out (``--no-sets``, no seeds of a kind).
PARTS = ("sets", "games", "games_at_the_mount", "games_camera_high")


def keep_unmeasured(result: dict, before: dict | None, measured: set[str]) -> dict:
    """``result`` with each of :data:`PARTS` not measured this time taken from ``before``
    (the file's last figures: a partial run must not wipe them; the sets bring their
    totals); ``measured_at`` says when each part was last measured."""
    before = before or {}
    stamps = dict(before.get("measured_at", {}))
    for part in PARTS:
        if part in measured:
            stamps[part] = result["measured"]
        elif part in before:
            result[part] = before[part]
            if part == "sets":
                result["totals"] = before.get("totals", {})
            stamps.setdefault(part, before.get("measured"))
    result["measured_at"] = stamps
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="*", default=[4, 5, 6, 7, 8, 9, 10, 11])
    p.add_argument("--mount-seeds", type=int, nargs="*", default=[21, 22, 23, 24, 25, 26],
                   help="games filmed at the recommended mount, on varied tables, with "
                        "camera faults (none: skip)")
    p.add_argument("--high-seeds", type=int, nargs="*", default=[41, 42, 43, 44, 45, 46],
                   help="games filmed with the camera a little high (cards 16-23 %% of the "
                        "frame's height), with camera faults (none: skip)")
    p.add_argument("--hands", type=int, default=4)
    p.add_argument("--model", help="card reader model (default: the shipped one)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "accuracy.json"))
    p.add_argument("--real-cards", metavar="DIR",
                   help="the real photos' folder, as tests/data/real-cards (default: "
                        "$BELOTE_REAL_CARDS, else tests/data/real-cards)")
    p.add_argument("--no-sets", action="store_true",
                   help="film the games only; the file keeps the sets' last figures")
    args = p.parse_args(argv)
    try:
        use_real_cards(args.real_cards)
    except ValueError as e:
        p.error(str(e))
    reader = CardReader(args.model)
    sets: dict[str, dict] = {}
    by_folder: dict[str, dict] = {}  # the synthetic sets' figures by folder, for the totals

    def test_split(name: str) -> bool:
        return split_of(name) == "test"

    for name in () if args.no_sets else ("scenes", "cards"):
        found = evaluate(reader, real_cards() / name, test_split)
        sets[f"real {name} (test split)"] = {k: found[k] for k in KEYS if k in found}
        if name == "scenes":
            # The same photos with the cards their labels leave out put back
            # (vision/lab/real_label_fixes.json: each one checked by eye).
            found = evaluate(reader, real_cards() / name, test_split, FIXES)
            sets[f"real {name} (test split, labels corrected)"] = {
                k: found[k] for k in KEYS if k in found}
    for folder, seed, decks, frames in () if args.no_sets else SYNTHETIC:
        path = ROOT / "vision" / "data" / folder
        if not (path / "labels.json").is_file():
            make_synthetic_set(path, frames, seed, decks)
        found = evaluate(reader, path)
        by_folder[folder] = found
        sets[f"synthetic {decks} ({folder}, seed {seed})"] = {k: found[k] for k in KEYS
                                                               if k in found}
    for folder, seed, decks, share in () if args.no_sets else TABLE:
        path = ROOT / "vision" / "data" / folder
        if not (path / "labels.json").is_file():
            make_table_set(path, 300, seed, decks, card_share=share)
        found = evaluate(reader, path)
        by_folder[folder] = found
        cards = f"cards {100 * share[0]:.0f}-{100 * share[1]:.0f} % of the frame's height"
        sets[f"synthetic games in play, {decks}, {cards} ({folder}, seed {seed})"] = {
            k: found[k] for k in KEYS if k in found}
    from benchmarks import pipeline  # the whole pipeline: imported only when games are filmed

    games = {}
    mount_games: dict[str, dict] = {}
    high_games: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-accuracy-") as tmp:
        for seed in args.seeds:
            game = argparse.Namespace(seed=seed, hands=args.hands, size=(960, 540), fps=10.0,
                                      renonce=True)
            out = pipeline.run(game, reader, realtime=False, folder=Path(tmp))
            games[str(seed)] = {"differences": out["differences"],
                                "first": out["problems"][:1]}
        for seeds, share, found in ((args.mount_seeds, MOUNT_SHARE, mount_games),
                                    (args.high_seeds, HIGH_SHARE, high_games)):
            for seed in seeds:
                game = argparse.Namespace(seed=seed, hands=args.hands, size=(1280, 720),
                                          fps=10.0, renonce=True,
                                          table=mount_table(seed, share), faults=1.0)
                out = pipeline.run(game, reader, realtime=False, folder=Path(tmp))
                found[str(seed)] = {"table": game.table, "cards": out["cards"],
                                    "differences": out["differences"],
                                    "first": out["problems"][:1]}
    result = {"benchmark": "accuracy", "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                 time.gmtime()),
              "model": reader.classifier.model_path.name, "sets": sets,
              "totals": totals(by_folder),
              "games": {"hands": args.hands, "renonce": True, "seeds": games,
                        "differences": sum(g["differences"] for g in games.values())},
              "games_at_the_mount": {
                  "hands": args.hands, "renonce": True, "size": [1280, 720],
                  "camera_faults": 1.0, "seeds": mount_games,
                  "differences": sum(g["differences"] for g in mount_games.values())},
              "games_camera_high": {
                  "hands": args.hands, "renonce": True, "size": [1280, 720],
                  "card_share": list(HIGH_SHARE), "camera_faults": 1.0, "seeds": high_games,
                  "differences": sum(g["differences"] for g in high_games.values())}}
    measured = {part for part, done in zip(PARTS, (not args.no_sets, args.seeds,
                                                    args.mount_seeds, args.high_seeds),
                                            strict=True) if done}
    try:
        before = json.loads(Path(args.out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = None  # no figures yet, or a file not of this benchmark: nothing to keep
    result = keep_unmeasured(result, before if isinstance(before, dict) else None, measured)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    # What the file now holds, the parts kept from before included (``measured_at``).
    for name, figures in result["sets"].items():
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    for group, t in result["totals"].items():
        print(f"{group}, all {len(t['sets'])} sets: {t['cards']} cards, {t['missed']} missed, "
              f"{t['invented']} invented, {100 * t['read_right']:.2f} % read right; "
              f"of the {t['readable']['cards']} a person could read: "
              f"{t['readable']['missed']} missed, {t['readable']['invented']} invented, "
              f"{100 * t['readable']['read_right']:.2f} % read right")
    for key, what in (("games", "filmed games, differences from the simulator"),
                      ("games_at_the_mount", "filmed games at the recommended mount, with "
                                             "camera faults, differences"),
                      ("games_camera_high", "filmed games with the camera a little high "
                                            "(cards 16-23 %), differences")):
        seeds = result[key]["seeds"]
        print(f"{what}: " + ", ".join(f"seed {s} {g['differences']}" for s, g in seeds.items())
              + f" (total {result[key]['differences']})")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
