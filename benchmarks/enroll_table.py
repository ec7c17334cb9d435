"""Benchmark of a deck enrolled at the table (``belote-table enroll``) on the designs held out
of training.

``benchmarks/real_decks.py`` enrols each held-out design from one clean picture of each
card (``vision enroll DIR``). A club at its table uses ``belote-table enroll`` instead: the
organiser lays the cards four at a time under the camera and the command learns them from
the camera's own frames. Here that command's loop (``cli.cmd_enroll.TableEnrollment``)
is fed the renderer's camera frames: each group of cards asked for, laid apart on a table
(seeds 7301..., never used elsewhere), shown for as many frames as the command waits for,
then the table cleared. The organiser lays the cards in the order asked: the order asked
is the frame's, left to right. Each design's 32 cards are enrolled at both of its sizes
(bridge, then piquet: the test frames have both). Then the frames of ``real_decks.py``
(seeds 9701..., ``--frames`` a design) are read without the deck and with it, and the next
held-out design's frames with it (another design's cards must read as the general model
reads them). Nothing is tuned here. Prints the figures and writes
``benchmarks/enroll_table.json`` (``--count``'s under ``count``).

    .venv/bin/python benchmarks/enroll_table.py [--frames 40] [--out FILE]
    .venv/bin/python benchmarks/enroll_table.py --count 12  # the command's count, dev frames
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

import numpy as np  # noqa: E402

from benchmarks import write_figures  # noqa: E402
from benchmarks.real_decks import Tally, seed_of, synthetic_set  # noqa: E402
from scorer.cards import CARD_CODES  # noqa: E402
from vision.lab import decks, render  # noqa: E402
from vision.lab.evaluate import as_saved, design_styles  # noqa: E402
from vision.reader import CardReader  # noqa: E402

OUT = ROOT / "benchmarks" / "enroll_table.json"
SEED = 7301
PER = 4  # cards laid at a time (the command's default)
STEADY = 3  # frames the command waits for (its default)
TRIES = 5  # frames drawn for a group before it is given up


def camera_frame(rng: np.random.Generator, codes: list[str], style: str
                 ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """The renderer's frame of ``codes`` lying apart on a table, saved as the benchmarks
    save frames (JPEG), with its annotations."""
    frame, things = render.render_scene(rng, codes=codes, style=style, negatives=False,
                                        hands=0, overlap=0.0)
    return as_saved(frame), things


def enrol_at_table(reader: CardReader, styles: list[str], rng: np.random.Generator
                   ) -> tuple[Any, dict[str, Any]]:
    """The deck ``belote-table enroll``'s loop learns from camera frames of a design drawn
    at each of ``styles`` in turn (all 32 cards at each), and how it went."""
    from cli.cmd_enroll import TableEnrollment

    codes = [c for _ in styles for c in CARD_CODES]
    said: list[str] = []
    # No card passed over (``--confirm``): a group held by a card read as another is given
    # up after its tries, as before, whatever the time its frames take to read.
    table = TableEnrollment(reader, codes, PER, STEADY, "prototype", say=said.append,
                            confirm=float("inf"))
    groups = len(table.groups)
    frames = given_up = 0
    while not table.done:
        group = list(table.groups[0])
        past = groups - len(table.groups)  # groups learnt or given up so far
        style = styles[min(past * PER // len(CARD_CODES), len(styles) - 1)]
        for _ in range(TRIES):
            frame, things = camera_frame(rng, group, style)
            # The organiser lays the cards in the order asked: left to right in the frame.
            laid = sorted(things, key=lambda a: float(np.mean(np.asarray(a["quad"])[:, 0])))
            table.groups[0] = [a["code"] for a in laid]
            for _ in range(STEADY):
                table.feed(frame)
                frames += 1
            if table.done or table.groups[0] != [a["code"] for a in laid]:
                break
        else:
            given_up += 1  # never seen as asked: left to the general model
            table.groups.pop(0)
            if not table.done:
                table.ask()
            continue
        if not table.done:  # the table cleared: no card in sight
            table.feed(camera_frame(rng, [], styles[0])[0])
            frames += 1
    return table.enroller.deck(), {"groups": groups, "groups_given_up": given_up,
                                   "frames_shown": frames}


COUNT_SEED = 4242
COUNT_TABLES = ("felt", "felt", "wood", "cloth", "white", "stone")  # in turn, frame by frame


def count_cards_seen(reader: CardReader, designs: list[str], n: int) -> dict[str, Any]:
    """In how many frames of 4 cards lying apart the command sees exactly the 4 cards
    (``cli.cmd_enroll.cards_in_view``), by table, on ``designs`` (``n`` frames
    each, tables in turn, seed COUNT_SEED), with a card whose outline is not found
    counted by its two indices (as shipped) and without (outlines alone)."""
    from unittest import mock

    from cli import cmd_enroll

    frames = []
    rng = np.random.default_rng(COUNT_SEED)
    for design in designs:
        for i in range(n):
            table = COUNT_TABLES[i % len(COUNT_TABLES)]
            codes = [CARD_CODES[int(k)] for k in rng.choice(len(CARD_CODES), PER, replace=False)]
            frame, _ = render.render_scene(rng, codes=codes, style=f"art-{design}",
                                           negatives=False, hands=0, overlap=0.0,
                                           background=table)
            frames.append((table, as_saved(frame)))
    out: dict[str, Any] = {}
    for way in ("indices_too", "outlines_alone"):
        seen: dict[str, list[int]] = {}
        more = 0
        with mock.patch.object(cmd_enroll, "paired_indices",
                               cmd_enroll.paired_indices if way == "indices_too"
                               else lambda *_a: []):
            for table, frame in frames:
                count = len(cmd_enroll.cards_in_view(reader, frame))
                tally = seen.setdefault(table, [0, 0])
                tally[0] += count == PER
                tally[1] += 1
                more += count > PER
        out[way] = {"all_seen": {t: f"{a} of {b}" for t, (a, b) in seen.items()},
                    "all_seen_total": sum(a for a, _ in seen.values()),
                    "frames": len(frames), "more_seen": more}
    return out


def count_main(args: argparse.Namespace, manifest: dict[str, Any]) -> int:
    from vision.lab.deck_rules import dev_designs

    designs = dev_designs(manifest)
    t0 = time.time()
    reader = CardReader()
    render.art_styles(held_out=None, french_art=True)
    result = {"benchmark": "frames in which belote-table enroll sees the 4 cards laid apart, "
                           "on the training designs (dev frames, never a reported figure)",
              "measured": time.strftime("%Y-%m-%d", time.gmtime()), "seed": COUNT_SEED,
              "designs": len(designs), "frames_per_design": args.count,
              **count_cards_seen(reader, designs, args.count),
              "seconds": round(time.time() - t0, 1)}
    written = write_figures(args.out, OUT, result, part="count")
    for way in ("indices_too", "outlines_alone"):
        print(f"{way}: {json.dumps(result[way])}")
    print(f"written to {written}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=40, help="test frames per held-out design")
    p.add_argument("--count", type=int, default=0, metavar="N",
                   help="instead: count the frames in which the command sees the 4 cards, "
                        "N frames of each training design (written under count in "
                        "benchmarks/enroll_table.json)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.frames < 1 or args.count < 0:
        p.error("--frames: expected a whole number from 1; --count: from 0")
    manifest = decks.manifest_or_exit(p)
    if args.count:
        return count_main(args, manifest)
    held = [d for d in decks.BENCH_DESIGNS if d in manifest["held_out"]]
    t0 = time.time()
    reader = CardReader()
    render.art_styles(held_out=None, french_art=True)
    result: dict[str, Any] = {
        "benchmark": "held-out designs enrolled at the table (belote-table enroll's loop)",
        "measured": time.strftime("%Y-%m-%d", time.gmtime()), "model": "shipped",
        "seed": SEED, "per": PER, "steady": STEADY, "frames_per_design": args.frames,
        "designs": {}}
    totals = {way: Tally() for way in ("general", "enrolled", "next_design_with_it")}
    with tempfile.TemporaryDirectory() as tmp:
        for k, design in enumerate(held):
            styles = design_styles(design)
            started = time.perf_counter()
            deck, how = enrol_at_table(reader, styles, np.random.default_rng(SEED + k))
            how["enroll_seconds"] = round(time.perf_counter() - started, 1)
            how["cards_enrolled"] = len(deck.cards)
            path = Path(tmp) / f"{design}.npz"
            deck.save(path)
            general = synthetic_set(reader, styles, args.frames, seed_of(design), grey_too=False)
            reader.use_deck(path)
            try:
                own = synthetic_set(reader, styles, args.frames, seed_of(design),
                                    grey_too=False)
                j = (k + 1) % len(held)
                other = synthetic_set(reader, design_styles(held[j]), args.frames,
                                      seed_of(held[j]), grey_too=False)
            finally:
                reader.use_deck(None)
            for way, got in (("general", general), ("enrolled", own),
                             ("next_design_with_it", other)):
                totals[way].add_figures(got["figures"])
            result["designs"][design] = {
                **how, "general": general["figures"]["all"], "enrolled": own["figures"]["all"],
                "next_design": held[j], "next_design_with_it": other["figures"]["all"]}
            print(f"{design}: {json.dumps(result['designs'][design])}", flush=True)
    result["total"] = {way: t.figures()["all"] for way, t in totals.items()}
    result["seconds"] = round(time.time() - t0, 1)
    written = write_figures(args.out, OUT, result, parts=("count",))
    print(f"total: {json.dumps(result['total'])}; written to {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
