"""Whole games filmed with a deck design the reader never saw, before and after the
club enrols it: what a club playing with its own cards gets at the table.

``benchmarks/real_decks.py`` counts cards read in single frames. Here the virtual table
(``vision.lab.virtual_table``) films whole 4-hand games (an injected renonce, 1280x720 at
10 frames a second, the recommended camera mount, camera faults on every frame:
``benchmarks/accuracy.py``'s games at the mount) dealt with the art of each design of the
benchmarks (``vision.lab.decks.BENCH_DESIGNS``: held out of training, but for the Paris
pattern, trained on since run 14), and runs them through the whole
pipeline (``benchmarks/pipeline.py``: reader, tracker, store) twice: with the general
model alone, then with the design enrolled from one clean picture of each card
(``vision.lab.deck_rules.enroll_design``, as ``real_decks.py`` does). For each game: the
cards the table stored of the simulator's, and the differences between the stored game
and the simulator's (``companion.pipeline.compare``; one card never named stops the
hand there, and every later card counts). Nothing here is tuned on. Prints the figures
and writes ``benchmarks/held_out_games.json``.

    .venv/bin/python benchmarks/held_out_games.py [--designs paris,...] [--seed 61]
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

OUT = ROOT / "benchmarks" / "held_out_games.json"
HANDS = 4


def film(reader: Any, design: str, seed: int, folder: Path) -> dict[str, Any]:
    """One game dealt with ``design``'s art at the recommended mount, through the whole
    pipeline: cards stored, differences from the simulator, the first of them."""
    from benchmarks import pipeline
    from benchmarks.accuracy import mount_table

    game = argparse.Namespace(seed=seed, hands=HANDS, size=(1280, 720), fps=10.0,
                              renonce=True, table=mount_table(seed), faults=1.0,
                              style=f"art-{design}")
    out = pipeline.run(game, reader, realtime=False, folder=folder)
    return {"cards": out["cards"], "differences": out["differences"],
            "first": out["problems"][:1]}


def main(argv: list[str] | None = None) -> int:
    from vision.lab import decks

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--designs", default=",".join(decks.BENCH_DESIGNS),
                   help="the benchmarks' designs, comma-separated (default: all six)")
    p.add_argument("--seed", type=int, default=61,
                   help="the first design's game seed; the next designs' follow")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    designs = [d for d in args.designs.split(",") if d]
    unknown = sorted(set(designs) - set(decks.BENCH_DESIGNS))
    if unknown or not designs:
        p.error(f"--designs: {', '.join(unknown) or 'none given'}; expected some of "
                f"{', '.join(decks.BENCH_DESIGNS)}")
    decks.manifest_or_exit(p)
    from vision.deck import DEFAULT_HEAD
    from vision.lab import render
    from vision.lab.deck_rules import enroll_design
    from vision.reader import CardReader

    render.art_styles(held_out=None, french_art=True)
    reader = CardReader()
    t0 = time.time()
    games: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-held-out-games-") as tmp:
        folder = Path(tmp)
        for k, design in enumerate(designs):
            seed = args.seed + k
            general = film(reader, design, seed, folder)
            deck = enroll_design(reader, design, folder, DEFAULT_HEAD)
            deck.save(folder / f"{design}.npz")
            reader.use_deck(folder / f"{design}.npz")
            try:
                enrolled = film(reader, design, seed, folder)
            finally:
                reader.use_deck(None)
            games[design] = {"seed": seed, "general": general, "deck_enrolled": enrolled}
            print(f"{design} (seed {seed}): general model {general['cards']} cards stored, "
                  f"{general['differences']} differences; deck enrolled "
                  f"{enrolled['cards']} cards, {enrolled['differences']} differences")
    result = {
        "benchmark": "4-hand games filmed with held-out deck designs at the recommended "
                     "mount, before and after enrolling the deck",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "model": reader.classifier.model_path.name, "hands": HANDS,
        "cards_per_game": 32 * HANDS, "games": games,
        "clean_games": {way: sum(g[way]["differences"] == 0 for g in games.values())
                        for way in ("general", "deck_enrolled")},
        "seconds": round(time.time() - t0, 1)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"games with no difference: general model {result['clean_games']['general']} of "
          f"{len(games)}, deck enrolled {result['clean_games']['deck_enrolled']} of "
          f"{len(games)}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
