"""Train the index classifier further on many fresh frames, on a machine with many cores
and a GPU (run 7 of the model card).

``vision train`` renders its frames in one process and trains on the CPU: 6,900 frames
and 3,000 steps take about an hour on this project's 2 cores. Here the frames are
rendered in worker processes, in shards of :data:`SHARD` frames with seeds of their own
(never those of ``vision train`` or of the benchmarks), and the batches are drawn and
distorted in worker processes while the GPU trains. The data mix is ``vision train``'s
with ``--decks``: patches at the index detector's boxes on frames of the whole training
mix (``more``) and of the French-printed styles alone (``printed``, the printed-French
styles and the training designs' art with French indices), jittered patches at true
boxes and random ones (``synth``), and the real photos' ``train`` bursts; with
``--spread``, that share of the shards draws cards spread overlapping (a fan, a row:
``spread``), boxed as the reader boxes crowded indices too; with ``--spread-full``, that
share of their frames takes its cards from a 52-card deck, the 2s to 6s taught as no
belote card (a hand of another game, fanned). Held-out designs are never
drawn. Writes the float classifier; make it 8-bit and calibrate it with
``vision train ... --only quantize --out DIR``.

    python -m vision.lab.bulk --init START.onnx [--init OTHER.onnx] --out DIR
        [--frames 8000] [--steps 8000] [--batch 256] [--workers 15] [--device cuda] [--seed 2]

With several ``--init``, each start is trained in turn on the same frames, the same steps
and the same batches, into ``DIR/<k>`` (1, 2, ... in the order given): a lent machine's
minutes go on drawing the frames once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np

SHARD = 100
# Shard i is of kind KINDS[i % len(KINDS)]: half detector boxes on the whole mix, three
# tenths on the French-printed styles, a fifth true and random boxes.
KINDS = ("more", "more", "printed", "synth", "more", "printed", "more", "synth", "more",
         "printed")
SEED_BASE = 20000  # render seeds SEED_BASE + 1000 * seed + shard: clear of all others


def parse_widths(text: str) -> tuple[int, ...]:
    """``--widths``: five channel counts separated by commas (an argparse ``type``)."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 5 or min(widths) < 1:
        raise argparse.ArgumentTypeError(
            f"five channel counts separated by commas, not {text!r}")
    return widths


def shard_kind(i: int, spread: float = 0.0) -> str:
    """Shard ``i``'s kind: ``spread`` for a ``spread`` share of the shards, evenly
    through them; otherwise :data:`KINDS` in turn."""
    if int((i + 1) * spread) > int(i * spread):
        return "spread"
    return KINDS[i % len(KINDS)]


def _shard(job: tuple[str, int, str, float, float, tuple[str, ...], int, float, float]
           ) -> tuple[np.ndarray, np.ndarray]:
    """Render one shard: its patches and their labels (``dataset``'s classes, HIDDEN
    marks included)."""
    from vision.lab import dataset as ds
    from vision.lab import render

    kind, seed, detector, art_mix, art_fonts, favour, times, full_deck, drawn_fonts = job
    if kind == "printed":
        added = render.use_extra_styles(art=False, printed=True, art_mix=art_mix,
                                        art_fonts=art_fonts, drawn_fonts=drawn_fonts)
    else:
        added = render.use_extra_styles(art_mix=art_mix, art_fonts=art_fonts,
                                        drawn_fonts=drawn_fonts)
    # The favoured designs' styles drawn ``times`` as often as the others.
    render.EXTRA_STYLES.extend([st for st in added if st.art in favour] * (times - 1))
    if kind == "synth":
        _, _, crops, labels = ds.synthetic_scenes(seed, SHARD)
        return crops, labels
    crops, labels, _, _ = ds.detector_samples(seed, SHARD, Path(detector),
                                              spread=kind == "spread", full_deck=full_deck)
    # The hard ``none`` cases (pips, pictures at the detector's boxes) weigh three times,
    # as in ``vision train``.
    hard = ds.taught(labels) == ds.NONE_INDEX
    return (np.concatenate([crops, crops[hard], crops[hard]]),
            np.concatenate([labels, labels[hard], labels[hard]]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--init", type=Path, required=True, action="append",
                   help="float classifier to start from (again: another start, same frames)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--frames", type=int, default=8000)
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--device", default="cpu")
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--max-lr", type=float, default=1e-3)
    p.add_argument("--detector", type=Path, default=None)
    p.add_argument("--art-mix", type=float, default=0.0,
                   help="share of French-printed faces drawn on another design's art "
                        "(vision.lab.render.use_extra_styles)")
    p.add_argument("--art-fonts", type=float, default=0.0,
                   help="share of the art mix's indices printed in any atlas's face")
    p.add_argument("--drawn-fonts", type=float, default=0.0,
                   help="share of the drawn styles' indices printed in another atlas face")
    p.add_argument("--favour", default="",
                   help="designs (comma-separated, e.g. paris,kde-gm-paris) drawn more often")
    p.add_argument("--favour-times", type=int, default=3,
                   help="how many times as often as the other styles")
    p.add_argument("--spread", type=float, default=0.0,
                   help="share of the shards drawn as cards spread overlapping (a fan, a "
                        "row), patches at the boxes the reader's crowded pass finds too")
    p.add_argument("--spread-full", type=float, default=0.0,
                   help="share of the spread frames whose cards come from a 52-card deck "
                        "(its 2s to 6s taught as no belote card)")
    p.add_argument("--recolour", type=float, default=0.15,
                   help="share of index patches lit warm or red or printed in one light ink "
                        "on black paper (vision.lab.train._desaturate; 0.15 turned grey "
                        "besides, so at most 0.85)")
    p.add_argument("--widths", type=parse_widths, default=None,
                   help="five channel counts (e.g. 16,24,32,48,128): train a classifier "
                        "that narrow, cut out of the start (vision.lab.train."
                        "prune_classifier) and taught by it (--distil)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="train a classifier that reads its patches brought down to this "
                        "share of their side (e.g. 0.75: 24 of 32 pixels, about half the "
                        "multiply-adds), from the start's weights and taught by it "
                        "(--distil)")
    p.add_argument("--teacher", type=Path, default=None,
                   help="with --widths or --scale, the float classifier that teaches "
                        "(default: the start), e.g. the shipped one while a smaller "
                        "classifier is trained further")
    p.add_argument("--distil", type=float, default=0.7,
                   help="with --widths or --scale, the share of the loss that follows the "
                        "start's answers (default 0.7)")
    p.add_argument("--render-seconds", type=float, default=None,
                   help="leave out the shards not rendered by then")
    args = p.parse_args(argv)
    widths: tuple[int, ...] | None = args.widths
    if not 0.0 <= args.distil <= 1.0:
        p.error("--distil: expected a share from 0 to 1")
    if not 0.0 < args.scale <= 1.0:
        p.error("--scale: expected a share of the patch's side, over 0 and at most 1")
    taught_by_start = bool(widths) or args.scale < 1.0
    if args.teacher is not None and not taught_by_start:
        p.error("--teacher: only with --widths or --scale")
    if args.frames < SHARD or args.steps < 1 or args.workers < 1:
        p.error(f"--frames: at least {SHARD}; --steps, --workers: at least 1")
    favour = tuple(d for d in args.favour.split(",") if d)
    if args.favour_times < 1:
        p.error("--favour-times: at least 1")
    if not all(0.0 <= v <= 1.0
               for v in (args.art_mix, args.art_fonts, args.drawn_fonts, args.spread,
                         args.spread_full)):
        p.error("--art-mix, --art-fonts, --drawn-fonts, --spread, --spread-full: expected a "
                "share from 0 to 1")
    if not 0.0 <= args.recolour <= 0.85:
        p.error("--recolour: expected a share from 0 to 0.85 (0.15 of the patches are "
                "turned grey besides)")

    import cv2

    from vision.classify import MODELS
    from vision.lab import dataset as ds
    from vision.lab import decks
    from vision.lab.labelfix import FIXES
    from vision.lab.train import (
        FLOAT_CLASSIFIER,
        classifier_from_onnx,
        classifier_widths,
        export_classifier,
        prune_classifier,
        rescaled,
        train_classifier,
    )

    # OpenCV's own thread pool does not survive a fork; the workers are the parallelism.
    cv2.setNumThreads(1)
    manifest = decks.manifest_or_exit(p)
    unknown = [d for d in favour if d not in manifest["designs"] or d in manifest["held_out"]]
    if unknown:
        p.error(f"--favour: {', '.join(unknown)}: no training design of the deck cache")
    missing = [str(f) for f in args.init if not f.is_file()]
    if missing:
        p.error(f"--init: {', '.join(missing)}: no such file")
    if args.teacher is not None:
        try:
            classifier_widths(args.teacher)
        except ValueError as e:
            p.error(f"--teacher: {e}")
    # A start too narrow for --widths is refused before any frame is rendered.
    for init in args.init:
        if widths is None:
            break
        try:
            start_widths = classifier_widths(init)
        except ValueError as e:
            p.error(f"--init: {e}")
        if any(w > o for w, o in zip(widths, start_widths, strict=True)):
            p.error(f"--widths: each at most {init.name}'s {start_widths}, not {widths}")
    detector = args.detector or MODELS / "index_detector.onnx"
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    n = args.frames // SHARD
    kinds = [shard_kind(i, args.spread) for i in range(n)]
    jobs = [(kind, SEED_BASE + 1000 * args.seed + i, str(detector), args.art_mix,
             args.art_fonts, favour, args.favour_times, args.spread_full, args.drawn_fonts)
            for i, kind in enumerate(kinds)]
    done: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    with get_context("fork").Pool(args.workers) as pool:
        pending = {i: pool.apply_async(_shard, (job,)) for i, job in enumerate(jobs)}
        # A lent machine's time is counted: shards not done by the deadline are left out
        # (the summary names those used, so that the data can be drawn again).
        while pending and (args.render_seconds is None or not done
                           or time.time() - t0 < args.render_seconds):
            for i in [i for i, r in pending.items() if r.ready()]:
                done[i] = pending.pop(i).get()
            time.sleep(0.2)
        pool.terminate()
    used = sorted(done)
    crops = np.concatenate([done[i][0] for i in used])
    labels = np.concatenate([done[i][1] for i in used])
    rng = np.random.default_rng(args.seed)
    _, _, rc, ry = ds.real_index_samples("train", rng, fixes=FIXES)
    real = np.concatenate([np.zeros(len(labels), bool), np.ones(len(ry), bool)])
    crops, labels = np.concatenate([crops, rc]), np.concatenate([labels, ry])
    rendered = time.time() - t0
    print(f"data: {len(used) * SHARD} frames, {len(crops)} patches ({len(ry)} real) in "
          f"{rendered:.0f}s", flush=True)
    pick = np.random.default_rng(args.seed + 7).choice(len(crops), size=min(1024, len(crops)),
                                                       replace=False)
    taught = ds.taught(labels)
    # What every start's summary shares: the frames drawn once and how they were drawn.
    drawn = {"frames": len(used) * SHARD, "shards": used if len(used) < n else f"0-{n - 1}",
             "seed_base": SEED_BASE, "patches": int(len(crops)), "real_patches": int(len(ry)),
             "steps": args.steps, "batch": args.batch, "max_lr": args.max_lr,
             "seed": args.seed, "device": args.device, "art_mix": args.art_mix,
             "art_fonts": args.art_fonts, "drawn_fonts": args.drawn_fonts,
             "favour": list(favour),
             "favour_times": args.favour_times, "held_out": list(manifest["held_out"]),
             "seconds_render": round(rendered, 1),
             "spread": args.spread, "spread_full": args.spread_full,
             "recolour": args.recolour,
             "widths": list(widths) if widths else None,
             "scale": args.scale,
             "distil": args.distil if taught_by_start else None,
             "teacher": (args.teacher.name if args.teacher is not None
                         else "the start" if taught_by_start else None),
             "kinds": {k: round(kinds.count(k) / n, 3) for k in sorted({*KINDS, "spread"})}}
    # One teacher for every start, when named; else each start teaches its own student.
    named = None if args.teacher is None else classifier_from_onnx(args.teacher, crops[pick])
    for run, init in enumerate(args.init, 1):
        out = args.out if len(args.init) == 1 else args.out / str(run)
        out.mkdir(parents=True, exist_ok=True)
        start = classifier_from_onnx(init, crops[pick])
        teacher = named if named is not None else start if taught_by_start else None
        if widths:
            start = prune_classifier(start, widths, crops[pick])
        if args.scale < 1.0:
            start = rescaled(start, args.scale)
        clf = train_classifier(crops, taught, args.steps, args.seed, len(ds.CLASSES),
                               rotate=True, real=real, init=start, max_lr=args.max_lr,
                               aspect=1.4, recolour=args.recolour, batch=args.batch,
                               device=args.device, workers=args.workers,
                               log=lambda m: print(m, flush=True), teacher=teacher,
                               distil=args.distil)
        diff = export_classifier(clf, out / FLOAT_CLASSIFIER)
        summary = {"init": init.name, **drawn, "seconds": round(time.time() - t0, 1),
                   "onnx_max_diff": diff}
        (out / "bulk_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
