"""Training and evaluation crops for the corner classifier.

Every crop is cut exactly as the reader cuts it at run time (locator quad,
then :func:`vision.locate.corner_crops`), so what the model learns on is what
it will see. Sources:

* real photos (``scenes/`` of :func:`real_cards`): the locator's quads on each
  photo, labelled from the photo's corner-index boxes; each photo belongs to
  one split (``train``, ``calib`` or ``test``) by a hash of its name, so the
  held-out photos never reach training;
* the synthetic renderer (:mod:`vision.lab.render`): card faces in French and
  English styles with a jittered outline, and negatives (backs, 2-6 cards).

Labels are indices into :data:`CLASSES` (the 32 cards, then ``none``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import CARD_CODES
from vision.locate import CROP_H, CROP_W, INDEX_REGION, corner_crops, find_cards

CLASSES: tuple[str, ...] = (*CARD_CODES, "none")
NONE_INDEX = len(CARD_CODES)
CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}

ROOT = Path(__file__).resolve().parents[2]
# The real photos (CC BY 4.0, credited in the folder's README). The checkout holds the
# held-out photos, four trained-on ones, every card crop and all the labels; the whole
# set, which training needs, is laid out the same way, named by REAL_CARDS_ENV.
IN_REPO_REAL_CARDS = ROOT / "tests" / "data" / "real-cards"
REAL_CARDS_ENV = "BELOTE_REAL_CARDS"


def real_cards() -> Path:
    """The real photos' folder: the one REAL_CARDS_ENV names, else the checkout's part."""
    named = os.environ.get(REAL_CARDS_ENV)
    return Path(named) if named else IN_REPO_REAL_CARDS


def use_real_cards(folder: str | Path | None) -> Path:
    """Read the real photos from ``folder`` from now on (and in the worker processes this
    one starts); None keeps :func:`real_cards`. A folder without ``scenes/labels.json``
    is refused with a ValueError and changes nothing."""
    if folder is None:
        return real_cards()
    path = Path(folder).expanduser().resolve()
    if not (path / "scenes" / "labels.json").is_file():
        raise ValueError(f"{folder}: not a real-cards folder (no scenes/labels.json)")
    os.environ[REAL_CARDS_ENV] = str(path)
    return path

# The real photos are one phone session of five bursts of shots (a pause of more than
# BURST_GAP seconds between two shots starts a new burst: the cards were laid out again).
# Whole bursts go to one split, in the order they were taken: the first two train, the
# third calibrates (temperature, thresholds), the last two are the held-out "test" part
# behind the figures in the model card; nothing is tuned on them.
BURST_GAP = 20
BURST_SPLITS = ("train", "train", "calib", "test", "test")


def _shot_time(stem: str) -> int | None:
    """Seconds since midnight of a photo named IMG_<yyyymmdd>_<hhmmss>..., else None."""
    parts = stem.split("_")
    if len(parts) < 3 or not parts[2][:6].isdigit():
        return None
    t = parts[2][:6]
    return int(t[:2]) * 3600 + int(t[2:4]) * 60 + int(t[4:6])


@lru_cache(maxsize=4)
def _bursts(root: Path) -> tuple[int, ...]:
    """The first shot time of each burst of the real photos, in order: from the names in
    the labels, which list every photo of the set even where only a part is present."""
    labels = root / "scenes" / "labels.json"
    names = json.loads(labels.read_text()) if labels.is_file() else {}
    times = sorted(t for name in names
                   if name.startswith("IMG_") and (t := _shot_time(name)) is not None)
    starts: list[int] = []
    for i, t in enumerate(times):
        if i == 0 or t - times[i - 1] > BURST_GAP:
            starts.append(t)
    return tuple(starts)


def split_of(name: str) -> str:
    """The split a real photo belongs to: that of its burst (see BURST_SPLITS); a photo
    that is not part of the session falls to "test"."""
    stem = Path(name).name
    # cards/ and corners/ crops are named after their photo: IMG_<photo>[_n].jpg
    if stem.startswith("IMG_IMG_"):
        stem = stem[4:]
    t = _shot_time(stem)
    starts = _bursts(real_cards())
    if t is None or not starts or t < starts[0]:
        return "test"
    k = sum(1 for s in starts if s <= t) - 1
    return BURST_SPLITS[min(k, len(BURST_SPLITS) - 1)]


def _photos_of(root: Path, labels: dict[str, list[dict]], split: str) -> list[str]:
    """The names of ``split``'s photos in ``labels``, in order; says on stderr how many of
    them ``root`` lacks (the checkout's part holds the test split and a few others)."""
    names = [n for n in sorted(labels) if split_of(n) == split]
    missing = sum(not (root / "scenes" / n).is_file() for n in names)
    if missing:
        print(f"{missing} of the {len(names)} real photos of the {split} split are not in "
              f"{root}: name the whole set with {REAL_CARDS_ENV}=DIR", file=sys.stderr)
    return names


def label_index(label: str) -> int:
    """Class index of a label: a belote card's own, anything else ``none``."""
    return CLASS_INDEX.get(label, NONE_INDEX)


def _corner_polygon(quad: np.ndarray, region=INDEX_REGION, margin: float = 0.05) -> np.ndarray:
    card = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(card, np.array(quad, np.float32))
    x0, y0, x1, y1 = region
    pts = np.array([[x0 - margin, y0 - margin], [x1 + margin, y0 - margin],
                    [x1 + margin, y1 + margin], [x0 - margin, y1 + margin]], np.float32)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), m).reshape(4, 2)


def jitter_quad(quad: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Move each corner by up to ``amount`` of the card's short side, as a sloppy locator would."""
    quad = np.asarray(quad, np.float32)
    side = float(np.linalg.norm(quad[1] - quad[0]))
    return quad + rng.uniform(-amount, amount, size=(4, 2)).astype(np.float32) * side


def scene_labels(root: Path | None = None, fixes: Path | None = None) -> dict[str, list[dict]]:
    """The real photos' labels, corrected by ``fixes`` (see :mod:`vision.lab.labelfix`) if given."""
    root = real_cards() if root is None else root
    labels = json.loads((root / "scenes" / "labels.json").read_text())
    if fixes is None:
        return labels
    from vision.lab.labelfix import apply_fixes, load_fixes

    return apply_fixes(labels, load_fixes(fixes), objects=True, belote=set(CARD_CODES),
                       source=str(root / "scenes" / "labels.json"))


def real_scene_crops(split: str, rng: np.random.Generator, copies: int = 1,
                     jitter: float = 0.0, root: Path | None = None,
                     limit: int | None = None,
                     fixes: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Corner crops of the locator's quads on the real photos of one split.

    A crop is labelled with the card whose index box lies in that corner; a
    quad holding only non-belote boxes gives ``none`` crops; a corner with no
    box (a card's far corner off the photo, an unlabelled card) is skipped,
    except on quads with no box at all (pips, court-card frames, clutter),
    which give ``none``.
    """
    root = real_cards() if root is None else root
    labels = scene_labels(root, fixes)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    names = _photos_of(root, labels, split)
    for name in names[:limit]:
        frame = cv2.imread(str(root / "scenes" / name))
        if frame is None:
            continue
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        boxes = labels[name]
        for quad in find_cards(frame):
            centers = [((b["box"][0] + b["box"][2]) / 2, (b["box"][1] + b["box"][3]) / 2,
                        b["label"]) for b in boxes]
            inside = [c for c in centers
                      if cv2.pointPolygonTest(quad.reshape(-1, 1, 2), c[:2], False) >= 0]
            for corner in range(2):
                q = np.roll(quad, -2 * corner, axis=0)
                if inside:
                    poly = _corner_polygon(q).reshape(-1, 1, 2)
                    here = {c[2] for c in inside
                            if cv2.pointPolygonTest(poly, c[:2], False) >= 0}
                    if len(here) != 1:
                        continue
                    y = label_index(here.pop())
                else:
                    y = NONE_INDEX
                for k in range(copies):
                    qq = jitter_quad(q, rng, jitter) if k else q
                    xs.append(corner_crops(gray, qq)[0])
                    ys.append(y)
    if not xs:
        return np.zeros((0, CROP_H, CROP_W), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def card_folder(root: Path) -> Iterator[tuple[Path, str]]:
    """(image path, label) for a folder of ``<LABEL>/*.jpg|png``."""
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(sub.iterdir()):
            if path.suffix.lower() in (".jpg", ".jpeg", ".png"):
                yield path, sub.name


def face_crops(face: np.ndarray, rng: np.random.Generator, jitter: float) -> np.ndarray:
    """Both corner crops of an image that is a whole card face, outline jittered."""
    gray = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    quad = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    if w > h:
        quad = np.roll(quad, -1, axis=0)
    return np.stack([corner_crops(gray, jitter_quad(np.roll(quad, -2 * c, axis=0), rng, jitter))[0]
                     for c in range(2)])


def augment(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, contrast, blur, noise and JPEG-like damage on grey crops (N, H, W) uint8."""
    out = np.empty_like(crops)
    for i, crop in enumerate(crops):
        x = crop.astype(np.float32)
        if rng.random() < 0.3:
            k = rng.choice([3, 5])
            x = cv2.GaussianBlur(x, (int(k), int(k)), 0)
        gain = rng.uniform(0.5, 1.3)
        bias = rng.uniform(-40, 40)
        x = x * gain + bias
        # A gradient of light across the crop (a hand's shadow, a lamp).
        if rng.random() < 0.4:
            gx, gy = rng.uniform(-40, 40, size=2)
            yy, xx = np.mgrid[0:x.shape[0], 0:x.shape[1]]
            x = x + gx * (xx / x.shape[1] - 0.5) + gy * (yy / x.shape[0] - 0.5)
        x = x + rng.normal(0, rng.uniform(0, 8), size=x.shape)
        out[i] = np.clip(x, 0, 255).astype(np.uint8)
    return out


def real_box_crops(split: str, rng: np.random.Generator, copies: int = 4,
                   root: Path | None = None,
                   fixes: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops around the labelled corner-index boxes of the real photos of one split.

    These do not need the locator, so they also cover cards it misses. The box
    is placed in the crop where a card's index sits in the reader's corner
    region. Of a card's two boxes the upper-left one is taken as upright and
    the other as turned by half a turn (the photos are hand-held roughly
    upright); a lone box is used both ways up only when it is a ``none``.
    """
    root = real_cards() if root is None else root
    labels = scene_labels(root, fixes)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for name in _photos_of(root, labels, split):
        frame = cv2.imread(str(root / "scenes" / name), cv2.IMREAD_GRAYSCALE)
        if frame is None:
            continue
        by_label: dict[str, list[list[float]]] = {}
        for b in labels[name]:
            by_label.setdefault(b["label"], []).append(b["box"])
        for label, boxes in by_label.items():
            y = label_index(label)
            boxes = sorted(boxes, key=lambda b: b[0] + b[1])
            turns = [0, 2] if len(boxes) == 2 else ([0, 2] if y == NONE_INDEX else [0])
            if (len(boxes) > 2 or len(boxes) == 1) and y != NONE_INDEX:
                # Several copies of one label, or a lone box: its way up is unknown.
                continue
            for i, box in enumerate(boxes):
                for turn in ([turns[i]] if len(boxes) == 2 else turns):
                    for _ in range(copies):
                        xs.append(_box_crop(frame, box, turn, rng))
                        ys.append(y)
    if not xs:
        return np.zeros((0, CROP_H, CROP_W), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def _box_crop(gray: np.ndarray, box: list[float], turn: int,
              rng: np.random.Generator) -> np.ndarray:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    # Where the index box sits inside the corner region, with some play.
    fx0, fx1 = 0.08 + rng.uniform(-0.06, 0.06), 0.64 + rng.uniform(-0.08, 0.08)
    fy0, fy1 = 0.06 + rng.uniform(-0.05, 0.05), 0.76 + rng.uniform(-0.08, 0.08)
    rw, rh = bw / (fx1 - fx0), bh / (fy1 - fy0)
    if turn == 0:
        left, top = x1 - fx0 * rw, y1 - fy0 * rh
        src = np.array([[left, top], [left + rw, top], [left + rw, top + rh],
                        [left, top + rh]], np.float32)
    else:
        right, bottom = x2 + fx0 * rw, y2 + fy0 * rh
        src = np.array([[right, bottom], [right - rw, bottom], [right - rw, bottom - rh],
                        [right, bottom - rh]], np.float32)
    dst = np.array([[0, 0], [CROP_W, 0], [CROP_W, CROP_H], [0, CROP_H]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(gray, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


# --------------------------------------------------------------------------- design B data
DET_W, DET_H = 640, 360  # the detector's view of a 16:9 frame


def _box_jitter(box, rng: np.random.Generator, shift: float = 0.12, grow: float = 0.15):
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    s = max(w, h)
    dx, dy = rng.uniform(-shift, shift, size=2) * s
    f = 1 + rng.uniform(-grow, grow)
    cx, cy = (x1 + x2) / 2 + dx, (y1 + y2) / 2 + dy
    return (cx - w * f / 2, cy - h * f / 2, cx + w * f / 2, cy + h * f / 2)


def negative_boxes(shape: tuple[int, int], boxes: list, rng: np.random.Generator, n: int,
                   sizes: tuple[float, float]) -> list[tuple[float, float, float, float]]:
    """Random index-sized boxes well away from every true index (pips, art, table)."""
    h, w = shape
    centers = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, max(b[2] - b[0], b[3] - b[1]))
                        for b in boxes]) if boxes else np.zeros((0, 3))
    out = []
    for _ in range(n * 4):
        bh = rng.uniform(*sizes)
        bw = bh * rng.uniform(0.4, 1.0)
        if rng.random() < 0.5:
            bw, bh = bh, bw
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if len(centers):
            d = np.hypot(centers[:, 0] - cx, centers[:, 1] - cy)
            if (d < 0.9 * np.maximum(centers[:, 2], max(bw, bh))).any():
                continue
        out.append((cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        if len(out) == n:
            break
    return out


# An index showing too little of its rank or of its suit sign to be named by eye is
# taught as ``none`` (a guess from half an index is how a card gets invented), but its
# label keeps the card it shows, as HIDDEN + that card's class: calibration does not
# count naming that card as a mistake, only naming another one.
HIDDEN = NONE_INDEX + 1


def taught(y: np.ndarray) -> np.ndarray:
    """The classes the classifier learns for labels ``y``: a hidden index's is ``none``."""
    y = np.asarray(y)
    return np.where(y >= HIDDEN, NONE_INDEX, y)


def shown(y: np.ndarray) -> np.ndarray:
    """For each label, the card a hidden index shows (a read of it is no mistake), else -1."""
    y = np.asarray(y)
    return np.where(y >= HIDDEN, y - HIDDEN, -1)


def index_truth(annotation: dict) -> list[tuple[list[float], int]]:
    """The label of each seen index of a rendered thing: ``[(box, label), ...]``, the
    card's class, or ``HIDDEN`` + it for an index too hidden to name
    (``index_readable``; see :data:`HIDDEN`)."""
    y = label_index(annotation["code"])
    return [(box, y if ok or y == NONE_INDEX else HIDDEN + y)
            for box, ok in zip(annotation["index_boxes"], annotation["index_readable"],
                               strict=True)]


def _training_scene(rng: np.random.Generator):
    """One rendered table frame as training draws them: 1-12 cards, any overlap, 0-2 hands."""
    from vision.lab.render import render_scene

    return render_scene(rng, n_cards=int(rng.integers(1, 13)),
                        overlap=float(rng.uniform(0.0, 0.8)), hands=int(rng.integers(0, 3)))


def _spread_scene(rng: np.random.Generator, full_deck: float = 0.0):
    """One rendered frame of cards spread overlapping (a fan or a row), and 0-2 apart;
    with a ``full_deck`` chance, its cards drawn from a 52-card deck (2s to 6s too)."""
    from vision.lab.render import render_spread_scene

    full = full_deck > 0 and rng.random() < full_deck
    return render_spread_scene(rng, full_deck=full)


def synthetic_scenes(seed: int, n: int, crops_per_box: int = 3, negatives: int = 8,
                     spread: bool = False):
    """Render ``n`` table frames (``spread``: of cards spread overlapping, see
    :func:`vision.lab.render.render_spread_scene`); return detector frames, their boxes,
    and index crops.

    Returns ``(frames (n, DET_H, DET_W) uint8, boxes list of (k, 4) float32 arrays in
    detector pixels, crops (m, INDEX_CROP, INDEX_CROP, 3) uint8 BGR, labels (m,) int64)``.
    """
    from vision.locate import index_crop

    rng = np.random.default_rng(seed)
    frames, all_boxes, crops, labels = [], [], [], []
    for _ in range(n):
        frame, annotations = (_spread_scene if spread else _training_scene)(rng)
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        h, w = gray.shape
        boxes = []
        for ann in annotations:
            for box, y in index_truth(ann):
                boxes.append(box)
                for _ in range(crops_per_box):
                    # Colour patches: red or black halves what the suit's shape must tell.
                    crops.append(index_crop(frame, _box_jitter(box, rng)))
                    labels.append(y)
        sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [h * 0.08]
        for negative in negative_boxes((h, w), boxes, rng, negatives,
                                       (0.6 * min(sizes), 1.4 * max(sizes))):
            crops.append(index_crop(frame, negative))
            labels.append(NONE_INDEX)
        frames.append(cv2.resize(gray, (DET_W, DET_H), interpolation=cv2.INTER_AREA))
        sx, sy = DET_W / w, DET_H / h
        all_boxes.append(np.array([[b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy] for b in boxes],
                                  np.float32).reshape(-1, 4))
    return (np.stack(frames), all_boxes, np.stack(crops), np.array(labels, np.int64))


def real_index_samples(split: str, rng: np.random.Generator, crops_per_box: int = 4,
                       negatives: int = 6, root: Path | None = None, looks: bool = False,
                       fixes: Path | None = None, detector: Path | None = None):
    """Real photos of one split for design B: grey photos and boxes, colour index crops.

    ``fixes``: corrections to the photos' labels (:mod:`vision.lab.labelfix`).
    With ``looks`` a fifth item holds each crop's second-look patches (see
    :func:`vision.locate.look_crops`), cut at the same jittered box, or, given
    the index ``detector``, at the box it finds there on a closer look (as the
    reader does), and a sixth the class of what each closer box holds (see
    :func:`box_label`).
    """
    from vision.locate import index_crop, look_crops

    root = real_cards() if root is None else root
    labels = scene_labels(root, fixes)
    det = None
    if looks and detector is not None:
        from vision.classify import IndexDetector

        det = IndexDetector(detector)
    frames, all_boxes, crops, ys, seconds, second_ys = [], [], [], [], [], []
    for name in _photos_of(root, labels, split):
        colour = cv2.imread(str(root / "scenes" / name), cv2.IMREAD_COLOR)
        if colour is None:
            continue
        gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
        boxes = [b["box"] for b in labels[name]]
        truth = [(b["box"], label_index(b["label"])) for b in labels[name]]
        cut = [(_box_jitter(b["box"], rng), label_index(b["label"]))
               for b in labels[name] for _ in range(crops_per_box)]
        sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [60.0]
        cut += [(box, NONE_INDEX) for box in negative_boxes(
            gray.shape, boxes, rng, negatives, (0.6 * min(sizes), 1.4 * max(sizes)))]
        for box, y in cut:
            crops.append(index_crop(colour, box))
            ys.append(y)
            if looks:
                closer = det.refine(gray, box) if det is not None else None
                seconds.append(look_crops(colour, closer or box))
                second_ys.append(y if closer is None else box_label(closer, truth))
        frames.append(gray)
        all_boxes.append(np.array(boxes, np.float32).reshape(-1, 4))
    if looks:
        return (frames, all_boxes, np.stack(crops), np.array(ys, np.int64), np.stack(seconds),
                np.array(second_ys, np.int64))
    return frames, all_boxes, np.stack(crops), np.array(ys, np.int64)


def detector_samples(seed: int, n: int, detector: Path, spread: bool = False,
                     full_deck: float = 0.0):
    """Render ``n`` table frames and cut a patch at every box the index detector gives.

    ``spread``: frames of cards spread overlapping (:func:`_spread_scene`), boxed as the
    reader boxes crowded indices too: the whole frame again at twice the first level's
    scale (``IndexDetector.detect_closer``), where two indices side by side get a box
    each, and a box may hold part of its neighbour.

    A box on a true index (intersection over union at least 0.3) is labelled
    with its card; a box well clear of every index (a pip, a court card's
    picture, a hand, the table) is ``none``; boxes in between are left out.
    These are the patches the reader really meets after the detector, so they
    teach the classifier the hard ``none`` cases that random boxes rarely hit
    (a lone diamond pip read as a jack of diamonds), and they calibrate it on
    what it will see. Returns ``(crops (m, INDEX_CROP, INDEX_CROP, 3) uint8 BGR,
    labels (m,) int64, looks (m, len(LOOKS), INDEX_CROP, INDEX_CROP, 3))``: the
    patch the first read cuts, and those of the second look (see
    :data:`vision.locate.LOOKS`, cut at the box the detector gives on a closer
    look, :meth:`vision.classify.IndexDetector.refine`), which calibrate that
    second look, with ``look_labels`` (m,): what the closer box holds (it may
    have moved onto an index, or off one; :data:`AMBIGUOUS` when it half meets one).
    ``full_deck``: the chance that a spread frame's cards come from a 52-card deck, its
    2s to 6s labelled ``none`` as every other negative.
    """
    from vision.classify import IndexDetector
    from vision.locate import INDEX_CROP, LOOKS, index_crop, look_crops

    det = IndexDetector(detector)
    rng = np.random.default_rng(seed)
    crops, labels, looks, look_labels = [], [], [], []
    for _ in range(n):
        frame, annotations = (_spread_scene(rng, full_deck) if spread
                              else _training_scene(rng))
        truth = [t for a in annotations for t in index_truth(a)]
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found = det.detect(gray)
        if spread:
            h, w = gray.shape
            found += det.detect_closer(gray, (0.0, 0.0, float(w), float(h)),
                                       det.work_scale(w, h) * CLOSER_ZOOM)
        for box, _ in found:
            label = box_label(box, truth)
            if label == AMBIGUOUS:
                continue
            closer = det.refine(gray, box)
            crops.append(index_crop(frame, box))
            labels.append(label)
            looks.append(look_crops(frame, closer or box))
            look_labels.append(label if closer is None else box_label(closer, truth))
    if not crops:
        return (np.zeros((0, INDEX_CROP, INDEX_CROP, 3), np.uint8), np.zeros(0, np.int64),
                np.zeros((0, len(LOOKS), INDEX_CROP, INDEX_CROP, 3), np.uint8),
                np.zeros(0, np.int64))
    return (np.stack(crops), np.array(labels, np.int64), np.stack(looks),
            np.array(look_labels, np.int64))


# A box that half meets an index: neither that card nor ``none``.
AMBIGUOUS = -1
# Spread frames are boxed again at this many times the first level's scale, as the
# reader's crowded pass boxes them (the reader settings' ``crowd_zoom``).
CLOSER_ZOOM = 2.0


def box_label(box, truth) -> int:
    """The class of what a box holds, given the true index boxes ``[(box, class), ...]``:
    the card of an index it meets (IoU >= 0.3), ``none`` well clear of every index
    (IoU < 0.05), otherwise :data:`AMBIGUOUS`."""
    from vision.classify import iou

    best, y = max(((iou(tuple(box), tuple(t)), y) for t, y in truth),
                  default=(0.0, NONE_INDEX))
    if best >= 0.3:
        return y
    return NONE_INDEX if best < 0.05 else AMBIGUOUS


def cache_detector_samples(seed: int, n: int, detector: Path, out: Path) -> Path:
    """Render, detect and save a shard of :func:`detector_samples`."""
    crops, labels, looks, look_labels = detector_samples(seed, n, detector)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=crops, labels=labels, looks=looks, look_labels=look_labels)
    return out


def cache_synthetic(seed: int, n: int, out: Path, spread: bool = False) -> Path:
    """Render and save a shard of synthetic scenes (rendering is the slow part of training)."""
    frames, boxes, crops, labels = synthetic_scenes(seed, n, spread=spread)
    out.parent.mkdir(parents=True, exist_ok=True)
    offsets = np.cumsum([0] + [len(b) for b in boxes])
    np.savez_compressed(out, frames=frames, boxes=np.concatenate(boxes), offsets=offsets,
                        crops=crops, labels=labels)
    return out


def load_synthetic(path: Path):
    d = np.load(path)
    off = d["offsets"]
    boxes = [d["boxes"][off[i]:off[i + 1]] for i in range(len(off) - 1)]
    return list(d["frames"]), boxes, d["crops"], d["labels"]


if __name__ == "__main__":
    import sys

    # python -m vision.lab.dataset SEED N OUT: render one shard of synthetic scenes.
    print(cache_synthetic(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])))
