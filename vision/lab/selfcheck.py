"""Write the reader's reference patches: one clear index of each belote card, which the
shipped classifier must name at start-up (``vision.classify.check_reads``).

An 8-bit model can read nothing on a CPU it was not checked on (full 8-bit weights
overflowed on x86 CPUs with AVX2 and no VNNI, see the model card). The patches are cut
at the true index boxes of frames of the first drawn styles (seeds 9901..., never used
by training or benchmarks), upright, and kept where the float classifier names the card
with probability 0.999 or more; the strip is written beside the models.

    python -m vision.lab.selfcheck [--out vision/models]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

SURE = 0.999


def reference_patches(seed: int = 9901, frames: int = 400) -> tuple[np.ndarray, list[str]]:
    """One patch (INDEX_CROP square, BGR) per belote card, in ``CARD_CODES`` order."""
    from scorer.cards import CARD_CODES
    from vision.classify import MODELS, CardClassifier, make_session, softmax
    from vision.lab import render
    from vision.lab.train import FLOAT_CLASSIFIER
    from vision.locate import index_crop

    clf = CardClassifier(MODELS / "index_classifier.onnx")
    clf.session = make_session(MODELS / FLOAT_CLASSIFIER, 1)  # the float model picks them
    found: dict[str, np.ndarray] = {}
    rng = np.random.default_rng(seed)
    styles = [st.name for st in render.STYLES]
    for i in range(frames):
        frame, things = render.render_scene(rng, n_cards=8, style=styles[i % len(styles)],
                                            hands=0, negatives=False, degrade_strength=0.3)
        for thing in things:
            code = thing["code"]
            if code not in CARD_CODES or code in found:
                continue
            for box, readable in zip(thing["index_boxes"], thing["index_readable"],
                                     strict=True):
                if not readable:
                    continue
                patch = index_crop(frame, tuple(box))
                p = softmax(clf.logits(patch[None]) / clf.temperature)[0]
                if clf.classes[int(p.argmax())] == code and p.max() >= SURE:
                    found[code] = patch
                    break
        if len(found) == len(CARD_CODES):
            return np.stack([found[c] for c in CARD_CODES]), list(CARD_CODES)
    raise RuntimeError(f"only {len(found)} cards found surely in {frames} frames")


def main(argv: list[str] | None = None) -> int:
    from vision.classify import CHECK_FILE, MODELS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=MODELS)
    args = p.parse_args(argv)
    patches, codes = reference_patches()
    strip = np.concatenate(list(patches), axis=1)
    if not cv2.imwrite(str(args.out / CHECK_FILE), strip):
        raise OSError(f"cannot write {args.out / CHECK_FILE}")
    (args.out / CHECK_FILE).with_suffix(".json").write_text(json.dumps(
        {"codes": codes, "min_right": len(codes) - 4,
         "made": "python -m vision.lab.selfcheck"}, indent=1) + "\n")
    print(f"{len(codes)} reference patches written to {args.out / CHECK_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
