"""Name a card from its two corner indices with the shipped ONNX model.

The model sees one corner crop (see :mod:`vision.locate`; colour for the
shipped index classifier, grey for design A's corner model) and scores the
32 belote cards plus ``none`` (a back, a 2-6, a joker, a pip, the table).
Its logits are divided by a temperature fitted on held-out crops, so that the
softmax is a calibrated probability; a read below the calibrated threshold is
reported as unknown (code ``None``) and the table waits for a better frame.

Only onnxruntime and numpy are needed here: torch stays in the training code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.deck import Deck, template_vectors
from vision.errors import ExplainedError
from vision.scores import FEATURES as FEATURES  # their place before: re-exported
from vision.scores import NONE as NONE
from vision.scores import softmax as softmax
from vision.settings import ReaderSettings, shipped_settings

MODELS = Path(__file__).with_name("models")
# Reference index patches beside the index classifier, one per belote card, with their
# codes in a JSON of the same name (``python -m vision.lab.selfcheck``).
CHECK_FILE = "index_check.png"
# The shipped reader (design B, see the model card); design A's corner model
# stays beside it for comparison.
DEFAULT_MODEL = MODELS / "index_classifier.onnx"
CORNER_MODEL = MODELS / "card_corner.onnx"


def model_input(crops: np.ndarray, turns: int = 1) -> np.ndarray:
    """uint8 crops (N, H, W) grey or (N, H, W, 3) BGR as the classifier takes them:
    float32 in [0, 1], N x C x H x W, each crop at ``turns`` quarter turns (the first
    N rows upright, the next N turned once, ...)."""
    pixels = np.asarray(crops)
    pixels = pixels.transpose(0, 3, 1, 2) if pixels.ndim == 4 else pixels[:, None, :, :]
    n = len(pixels)
    x = np.empty((turns * n, *pixels.shape[1:]), np.float32)
    for k in range(turns):
        x[k * n:(k + 1) * n] = np.rot90(pixels, k, axes=(2, 3))
    # In place: the same values as dividing a copy, without a second full-size temporary.
    x /= 255.0
    return x


@dataclass(frozen=True)
class CardRead:
    """What the classifier says about one card (both corners together)."""

    code: str | None  # a card code, or None when unknown or not a belote card
    confidence: float  # calibrated probability of ``code`` (of ``none`` when not a card)
    is_card: bool  # False when both corners say "no belote card"


def calibration_path(model_path: Path) -> Path:
    """The JSON beside a model: classes, temperature, threshold, crop geometry."""
    return model_path.with_suffix(".json")


def make_session(path: Path, threads: int) -> Any:  # an onnxruntime.InferenceSession
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class CardClassifier:
    """The ONNX corner classifier with its calibration."""

    #: The most crops read in one run of the model (see :meth:`_read_turns`).
    BATCH = 1024
    #: A club's enrolled deck (vision.deck), judged on top of the general reads (use_deck).
    deck: Deck | None = None
    def __init__(self, model_path: str | Path | None = None, threads: int = 1) -> None:
        #: How sure an upright read must be that a box is no belote card for the first
        #: read to leave its other turns unread (:meth:`first_probabilities`): the
        #: settings' ``none_first`` (the shipped model's until the reader gives its own).
        self.NONE_FIRST = shipped_settings().none_first
        #: The chance a box read through the enrolled deck gets: the settings' ``deck_sure``.
        self.deck_sure = shipped_settings().deck_sure
        self.model_path = Path(model_path) if model_path else DEFAULT_MODEL
        if not self.model_path.is_file():
            raise FileNotFoundError(f"{self.model_path}: no such model file")
        cal_path = calibration_path(self.model_path)
        if not cal_path.is_file():
            raise FileNotFoundError(f"{cal_path}: the model's calibration file is missing")
        self.meta: dict[str, Any] = json.loads(cal_path.read_text())
        self.design: str = self.meta.get("design", "A")
        self.classes: list[str] = list(self.meta["classes"])
        self.temperature = float(self.meta["temperature"])
        self.threshold = float(self.meta["threshold"])
        self.none_index = self.classes.index(NONE)
        self.session = make_session(self.model_path, threads)
        self.input_name = self.session.get_inputs()[0].name

    @property
    def output_names(self) -> list[str]:
        """The model's outputs by name: the logits first, then ``features`` when it has it."""
        return [o.name for o in self.session.get_outputs()]

    @property
    def has_features(self) -> bool:
        """Whether the model gives its penultimate embedding (output ``features``)."""
        return FEATURES in self.output_names

    def use_deck(self, deck: Deck | None, where: str = "deck") -> None:
        """Read boxes of an enrolled deck through it (None: the general model alone)."""
        if deck is not None:
            deck.check_model(self, where)
        self.deck = deck

    @contextmanager
    def general_only(self, on: bool = True) -> Iterator[None]:
        """Within the block (when ``on``), read with the general model alone, the enrolled
        deck set aside; it is back afterwards, whatever happens."""
        deck = self.deck
        if on:
            self.deck = None
        try:
            yield
        finally:
            self.deck = deck

    def features(self, crops: np.ndarray) -> np.ndarray:
        """The penultimate embedding of uint8 crops (N, H, W, 3), upright: (N, D)."""
        if not self.has_features:
            raise ValueError(f"{self.model_path.name}: the model has no '{FEATURES}' output")
        feats = self._run_turns(np.asarray(crops), 1, features=True)[1]
        assert feats is not None
        first: np.ndarray = feats[0]
        return first

    @property
    def crop_size(self) -> tuple[int, int]:
        """Design A's corner crop (width, height)."""
        return int(self.meta["crop_w"]), int(self.meta["crop_h"])

    @property
    def region(self) -> tuple[float, float, float, float]:
        """Design A's index region on the card, as fractions (x0, y0, x1, y1)."""
        x0, y0, x1, y1 = self.meta["region"]
        return float(x0), float(y0), float(x1), float(y1)

    @property
    def channels(self) -> int:
        """3 when the model reads colour (BGR) patches, 1 when it reads grey ones."""
        return int(self.meta.get("channels", 1))

    def logits(self, crops: np.ndarray) -> np.ndarray:
        """Raw logits for crops (N, H, W) grey or (N, H, W, 3) BGR, uint8.

        With ``tta`` in the metadata (design B) the patch is read at that many
        of its quarter turns and the logits summed: an index may lie any way
        up, and the readings together are surer than any one.
        """
        summed: np.ndarray = self._read_turns(crops, int(self.meta.get("tta", 1))).sum(axis=0)
        return summed

    def _read_turns(self, crops: np.ndarray, turns: int) -> np.ndarray:
        """Raw outputs of uint8 crops (N, H, W[, 3]) each read at ``turns`` quarter turns,
        in one run of the model: shape (turns, N, classes)."""
        return self._run_turns(np.asarray(crops), turns)[0]

    def _run_turns(self, crops: np.ndarray, turns: int, features: bool = False
                   ) -> tuple[np.ndarray, np.ndarray | None]:
        """Logits (turns, N, classes) of uint8 crops, and with ``features`` their
        embeddings (turns, N, D), read by output name."""
        channels = crops.shape[3] if crops.ndim == 4 else 1
        if channels != self.channels:
            raise ValueError(f"{self.model_path.name} reads {self.channels}-channel crops, "
                             f"got {channels}")
        names = [self.output_names[0]] + ([FEATURES] if features else [])
        if len(crops) == 0:
            widths = [o.shape[1] for o in self.session.get_outputs()
                      if o.name in names]
            empty = [np.zeros((turns, 0, w if isinstance(w, int) else 33), np.float32)
                     for w in widths]
            return empty[0], (empty[1] if features else None)
        # At most BATCH crops per run: a frame has far fewer, but calibration reads tens of
        # thousands, and one run over them all holds every layer's output for all at once.
        runs: list[list[np.ndarray]] = [[] for _ in names]
        for i in range(0, len(crops), self.BATCH):
            part = crops[i:i + self.BATCH]
            outs = self.session.run(names, {self.input_name: model_input(part, turns)})
            for run, out in zip(runs, outs, strict=True):
                run.append(out.reshape(turns, len(part), -1))
        joined = [np.concatenate(run, axis=1) for run in runs]
        return joined[0], (joined[1] if features else None)

    def _deck_probabilities(self, crops: np.ndarray, turns: int, temperature: float,
                            looks: int = 1) -> np.ndarray:
        """Calibrated probabilities of boxes given as ``looks`` patches each (N * looks
        crops, a box's looks together), pooled as the general model pools them, then
        judged by the enrolled deck on all of a box's patches and turns."""
        assert self.deck is not None
        want = self.deck.head == "prototype"
        logits, feats = self._run_turns(crops, turns, features=want)
        n = len(crops) // looks
        pooled = logits.reshape(turns, n, looks, -1)
        pooled = pooled.mean(axis=(0, 2)) if looks > 1 else pooled[:, :, 0].sum(axis=0)
        probs = softmax(pooled / temperature)
        views: np.ndarray
        if want:
            assert feats is not None
            by_box = feats.reshape(turns, n, looks, -1).transpose(1, 0, 2, 3)
            views = self.deck.unit(by_box.reshape(n, turns * looks, -1))
        else:
            views = template_vectors(crops).reshape(n, looks, -1)
        return self.deck.judge(probs, views, self.deck_sure)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities for crops (see :meth:`logits`); with an
        enrolled deck, the boxes surely of it read as its cards (:meth:`Deck.judge`)."""
        if self.deck is not None and self.channels == 3 and len(crops):
            return self._deck_probabilities(np.asarray(crops), int(self.meta.get("tta", 1)),
                                            self.temperature)
        return softmax(self.logits(crops) / self.temperature)

    def first_probabilities(self, crops: np.ndarray) -> np.ndarray:
        """:meth:`probabilities` of index boxes as the reader's first read takes them: a box
        whose upright read alone says no belote card (``NONE_FIRST`` sure, counted as
        if its other turns agreed) is not read at its other turns, and keeps that
        upright guess; every other box is read at all its turns, as :meth:`probabilities`
        reads it. With an enrolled deck every box is read in full (the deck judges the
        turns together)."""
        crops = np.asarray(crops)
        turns = int(self.meta.get("tta", 1))
        if self.deck is not None or turns < 2 or len(crops) == 0:
            return self.probabilities(crops)
        upright = self._read_turns(crops, 1)[0]
        guess = softmax(turns * upright / self.temperature)
        rest = np.nonzero(guess[:, self.none_index] < max(self.NONE_FIRST, self.threshold))[0]
        if len(rest):
            # The other turns of a box are its upright patch turned once more, then read
            # at one turn fewer; the sum runs in the order :meth:`logits` sums in.
            turned = np.rot90(crops[rest], 1, axes=(1, 2))
            others = self._read_turns(turned, turns - 1)
            summed = np.concatenate([upright[None, rest], others]).sum(axis=0)
            guess[rest] = softmax(summed / self.temperature)
        return guess

    @property
    def second_look(self) -> dict[str, Any] | None:
        """The second look's calibration (``temperature``, ``threshold``, ``turns``), if any."""
        look = self.meta.get("second_look")
        return look if isinstance(look, dict) else None

    def thresholds(self, grey: bool = False) -> tuple[float, float]:
        """The confidence a first read and a second look need to name a card: on a grey
        picture those calibrated on patches turned grey (the ``grey`` entry), where the
        model has them, else the colour ones. The second look's is ``inf`` without one."""
        look = self.second_look
        first = self.threshold
        second = float(look["threshold"]) if look is not None else float("inf")
        extra = self._grey_entry() if grey else None
        if extra is not None:
            first = max(first, float(extra["threshold"]))
            second = max(second, float(extra.get("look_threshold", second)))
        return first, second

    def pair_exponent(self, grey: bool = False) -> float:
        """How much two doubtful indices of one card count together (``join_reads``):
        1 as two independent readings, less where the model's calibration says their
        errors go together (``pair_exponent`` of its ``grey`` entry on a grey picture,
        ``python -m vision.lab.pair_rule``)."""
        entry = self._grey_entry() if grey else self.meta
        value = entry.get("pair_exponent", 1.0) if entry is not None else 1.0
        return float(value)

    def _grey_entry(self) -> dict[str, Any] | None:
        """The model's calibration for grey pictures (its ``grey`` entry), if it has one."""
        extra = self.meta.get("grey")
        return extra if isinstance(extra, dict) else None

    def look_logits(self, looks: np.ndarray, turns: int) -> np.ndarray:
        """Pooled logits of second-look patches (N, K, H, W, 3) uint8: the mean of the
        K patches of each box read at ``turns`` quarter turns each."""
        n, k = looks.shape[:2]
        if n == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        out = self._read_turns(looks.reshape(n * k, *looks.shape[2:]), turns)
        pooled: np.ndarray = out.reshape(turns, n, k, -1).mean(axis=(0, 2))
        return pooled

    def look_probabilities(self, looks: np.ndarray, grey: bool = False) -> np.ndarray:
        """Calibrated probabilities of the second look (see :meth:`look_logits`); on a
        grey picture at the grey frames' look temperature, where the model has one (fitted
        at their rule, :func:`vision.lab.train.calibrate_index_classifier`)."""
        look = self.second_look
        if look is None:
            raise ValueError(f"{self.model_path.name}: this model has no second-look calibration")
        extra = (self._grey_entry() if grey else None) or {}
        temperature = float(extra.get("look_temperature", look["temperature"]))
        if self.deck is not None and len(looks):
            n, k = looks.shape[:2]
            return self._deck_probabilities(looks.reshape(n * k, *looks.shape[2:]),
                                            int(look["turns"]), temperature, k)
        return softmax(self.look_logits(looks, int(look["turns"])) / temperature)

    def read_pairs(self, crops: np.ndarray) -> list[CardRead]:
        """Read cards from their corner pairs: crops of shape (N, 2, H, W)."""
        n = len(crops)
        if n == 0:
            return []
        probs = self.probabilities(crops.reshape(n * 2, *crops.shape[2:])).reshape(n, 2, -1)
        return [self.fuse(pair) for pair in probs]

    def fuse(self, pair: np.ndarray) -> CardRead:
        """One answer from the two corners' probabilities (shape (2, classes)).

        A card lying under another shows one index only, so one corner saying
        "none" does not veto the other; two corners naming different cards do.
        """
        best = pair.argmax(axis=1)
        cards = [int(b) for b in best if b != self.none_index]
        if not cards:
            return CardRead(None, float(pair[:, self.none_index].min()), False)
        if len(set(cards)) > 1:
            # The corners disagree: only a clear winner on both together counts.
            joint = pair[0] * pair[1]
            joint /= joint.sum()
            k = int(joint.argmax())
            conf = float(joint[k])
        else:
            k = cards[0]
            conf = float(pair[:, k].max())
        if k == self.none_index:
            return CardRead(None, conf, False)
        code = self.classes[k] if conf >= self.threshold else None
        return CardRead(code, conf, True)


# The finest level a frame is boxed at, as a share of its own size: the camera's frames
# (what the thresholds were calibrated on) from the settings' ``camera_finest``; a still
# picture (``vision read``, ``vision eval``: a webcam's or a phone's picture, one exported
# square) from ``still_finest``, where its smaller cards' indices are. The shipped
# model's, for the benchmarks that name them; a detector reads its own settings.
CAMERA_FINEST = shipped_settings().camera_finest
STILL_FINEST = shipped_settings().still_finest


class IndexDetector:
    """Design B's detector: boxes around every corner index in a grey frame.

    The net marks index centres on a grid of 8-pixel cells, with each box's
    size and offset. It runs on a small pyramid (the frame at most 640 pixels
    wide, then halved twice) so that indices from 10 to about 250 pixels tall
    all fall in the range it was trained on; a photo larger than the camera's
    frames gets one level more, twice as large (``fine_scale``), and so does any still
    picture (``finest``). Its tuned sizes come from the reader's settings
    (:class:`vision.settings.ReaderSettings`, ``detector_*``, ``fine_side``,
    ``min_read_side``, ``merge_overlap``, ``refine_*``; None: the shipped model's).
    """

    def __init__(self, model_path: Path, threads: int = 1, heat_threshold: float = 0.3,
                 stride: int = 8, levels: int = 3, work_width: int = 640,
                 settings: ReaderSettings | None = None) -> None:
        if not model_path.is_file():
            raise FileNotFoundError(f"{model_path}: no such detector model")
        self.use_settings(settings or shipped_settings())
        self.session = make_session(model_path, threads)
        self.heat_threshold = heat_threshold
        self.stride = stride
        self.levels = levels
        self.work_width = work_width
        self.fine = True  # False: a photo larger than the camera's is boxed as a frame is
        # The finest level's scale at most: the settings' ``camera_finest`` for the
        # camera's frames, ``still_finest`` for a still picture (``CardReader(still=True)``).
        self.finest = self.camera_finest
        # True: a picture whose first level is at least ``calibrated`` (a still picture up
        # to 1280 x 720) gives too the first level's boxes that gave way to the finer
        # level's, after the others (``detect``). False: one box an index.
        self.both_levels = True

    def use_settings(self, tuned: ReaderSettings) -> None:
        """Take the tuned sizes of ``tuned`` (the reader's settings)."""
        # The index sizes (pixels, at one level) the detector answers for.
        self.MIN_SIDE, self.MAX_SIDE = tuned.detector_min_side, tuned.detector_max_side
        # A box a coarser level gives with a side under FINE_SIDE pixels (at that level)
        # is an index the level below sees twice as large, in the middle of its range,
        # and boxes tighter: where two such boxes overlap, the finer level's is kept,
        # however sure the coarser one is (the coarser level's box is often the surer of
        # the two, and the looser around the index).
        self.FINE_SIDE = tuned.fine_side
        # The smallest index box (longer side, in pixels of the first level: the frame
        # at most 640 pixels wide) whose read may be sure: a little under the smallest
        # index of the cards the reader was trained and calibrated on. Smaller indices
        # come from a camera too high above the table, outside what the thresholds were
        # calibrated on, where sure reads would be wrong more often; below the floor the
        # card waits unread instead (``benchmarks/card_size.py`` measures it).
        self.MIN_READ_SIDE = tuned.min_read_side
        # Two boxes overlapping this much (intersection over union) box one index.
        self.merge_overlap = tuned.merge_overlap
        # The closer look at an unsure box (``refine``): the box's surroundings,
        # ``refine_window`` pixels square, scaled so that the index is ``refine_side``
        # pixels tall.
        self.refine_side, self.refine_window = tuned.refine_side, tuned.refine_window
        # The finest level's scale at most, for the camera's frames and a still picture.
        self.camera_finest, self.still_finest = tuned.camera_finest, tuned.still_finest
        # The scale at which an index must reach MIN_READ_SIDE for the calibrated
        # thresholds (``under_calibrated``): the first level of the frames they were
        # calibrated on.
        self.calibrated = tuned.camera_finest

    def detect(self, gray: np.ndarray) -> list[tuple[tuple[float, float, float, float], float]]:
        """``[(box (x1, y1, x2, y2) in frame pixels, score), ...]``, best first, overlaps merged.

        A frame with more pixels than the camera's (a photo: see ``fine_scale``), and a
        still picture, are boxed at one level more, finer than the first, before the
        others. A picture whose first level is calibrated (``both_levels``) also gives,
        after those, the first level's boxes that gave way to the finer level's."""
        h, w = gray.shape
        scale = self.work_scale(w, h)
        scales = [scale / (2 ** level) for level in range(self.levels)]
        fine = self.fine_scale(w, h)
        if fine is not None:
            scales.insert(0, fine)
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for level, s in enumerate(scales):
            boxes, scores, side = self._boxes_at(gray, s)
            if fine is not None and level == 0:
                # The finer level is for the indices the first sees too small: an index
                # the first level boxes at FINE_SIDE or more keeps that box, as on the
                # camera's frames, whose boxes the thresholds were calibrated on; the
                # finer level's box of it gives way.
                rank = np.full(len(boxes), 1)
            else:
                rank = np.where((side < self.FINE_SIDE) & (level > 0), 2, 0)
            found.append((boxes, scores, rank))
        every = np.concatenate([f[0] for f in found])
        scores = np.concatenate([f[1] for f in found])
        kept = _merge_order(every, scores, np.concatenate([f[2] for f in found]),
                            self.merge_overlap)
        out = [_as_found(every[i], scores[i]) for i in kept]
        if fine is None or not self.both_levels or scale < self.calibrated:
            return out
        # A still picture at most the camera's size is boxed at its first level as the
        # calibration frames were (half of 1280 x 720, or finer). The finer level's box
        # of an index is tighter than that level's, and where indices crowd (a fan) it
        # is often read less surely. So the first level's boxes that gave way to a finer
        # box are given too, after the others, overlaps among them merged: the reader
        # reads both, and one index read surely twice counts once (``join_reads``).
        # (A larger photo's first level is coarser than the calibration frames': there
        # the finer level is the calibrated one, and its box alone is read.)
        n_fine = len(found[0][0])
        first = np.arange(n_fine, n_fine + len(found[1][0]))
        kept_fine = [i for i in kept if i < n_fine]
        gave_way = first[~np.isin(first, kept)]
        if not kept_fine or len(gave_way) == 0:
            return out
        gave_way = gave_way[(_iou_matrix(every[gave_way], every[kept_fine])
                             >= self.merge_overlap).any(axis=1)]
        again = _merge_order(every[gave_way], scores[gave_way], np.zeros(len(gave_way), int),
                             self.merge_overlap)
        return out + [_as_found(every[gave_way[i]], scores[gave_way[i]]) for i in again]

    def detect_closer(self, gray: np.ndarray, region: Box, scale: float
                      ) -> list[tuple[Box, float]]:
        """The boxes of the indices in ``region`` (x1, y1, x2, y2, frame pixels) of ``gray``,
        the detector run on that part alone, brought to ``scale`` (its pixels per frame
        pixel): indices lying so close together that the whole frame's heat map marks one
        peak for two are told apart there. Boxes in frame pixels whose centre lies inside
        the region, best first, overlaps merged."""
        h, w = gray.shape
        x1, y1 = max(int(np.floor(region[0])), 0), max(int(np.floor(region[1])), 0)
        x2, y2 = min(int(np.ceil(region[2])), w), min(int(np.ceil(region[3])), h)
        if x2 - x1 < 2 or y2 - y1 < 2:
            return []
        boxes, scores, _ = self._boxes_at(gray[y1:y2, x1:x2], scale)
        boxes = boxes + np.array([x1, y1, x1, y1], np.float64)
        cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
        inside = (cx >= x1) & (cx < x2) & (cy >= y1) & (cy < y2)
        return _merge_boxes(boxes[inside], scores[inside], np.zeros(int(inside.sum()), bool),
                            self.merge_overlap)

    def _boxes_at(self, gray: np.ndarray, s: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The net run once on ``gray`` brought to ``s`` times its size: the boxes of its
        heat map's peaks (N, 4) in ``gray``'s pixels, their scores, and their longer sides
        at that size (only sides the detector answers for, MIN_SIDE to MAX_SIDE)."""
        import cv2

        h, w = gray.shape
        lw, lh = max(int(round(w * s)), 16), max(int(round(h * s)), 16)
        # The grid needs sides that are multiples of the stride.
        lw8, lh8 = -(-lw // self.stride) * self.stride, -(-lh // self.stride) * self.stride
        small = cv2.resize(gray, (lw, lh),
                           interpolation=cv2.INTER_AREA if s <= 1.0 else cv2.INTER_LINEAR)
        if (lw8, lh8) != (lw, lh):
            small = cv2.copyMakeBorder(small, 0, lh8 - lh, 0, lw8 - lw, cv2.BORDER_REPLICATE)
        out = self.session.run(None, {"image": _unit_float(small)[None, None]})[0][0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & \
            (heat > self.heat_threshold)
        iy, ix = np.nonzero(peaks)
        cx, cy, bw, bh = self._cell_boxes(out, iy, ix)
        side = np.maximum(bw, bh)
        ok = (side >= self.MIN_SIDE) & (side <= self.MAX_SIDE)
        cx, cy, bw, bh, side = cx[ok], cy[ok], bw[ok], bh[ok], side[ok]
        boxes = np.stack([(cx - bw / 2) / s, (cy - bh / 2) / s,
                          (cx + bw / 2) / s, (cy + bh / 2) / s], axis=1)
        return boxes, heat[iy[ok], ix[ok]].astype(np.float64), side

    def work_scale(self, width: int, height: int) -> float:
        """The first level's size over the frame's: its long side at most ``work_width``
        pixels, a frame squarer than 16:9 counted as if it were 16:9 at its short side.
        Cards are sized against the short side, so a photo taken upright (a phone held
        in portrait) is read at the scale of the same photo turned a quarter."""
        long, short = max(width, height), min(width, height)
        return min(1.0, self.work_width / max(long, short * 16 / 9))

    def fine_scale(self, width: int, height: int) -> float | None:
        """The scale of the level a frame larger than the camera's gets before the
        first, or None. The camera's 1280 x 720 frames are boxed from half their size
        (640 pixels wide); a photo with more pixels (a phone's, 4000 x 3000) brought
        down that far loses the indices of its smaller cards, which its own pixels
        still show: it is boxed at twice the first level's size too, at most half its
        own, as the camera's frames are (a picture is sharp at half its size). A still
        picture (``finest``: ``still_finest``) is boxed down to its own size: a 1280 x 720
        or 640 x 640 picture gets that level too."""
        scale = self.work_scale(width, height)
        fine = min(2 * scale, self.finest)
        return fine if self.fine and fine > scale else None

    def floor_scale(self, width: int, height: int) -> float:
        """The scale at which an index must be MIN_READ_SIDE pixels to be read surely:
        the finest level's the frame is boxed at."""
        return self.fine_scale(width, height) or self.work_scale(width, height)

    def too_small(self, box: tuple[float, float, float, float], width: int,
                  height: int) -> bool:
        """True when ``box`` is an index too small for a sure read (see MIN_READ_SIDE):
        under the floor at the finest level the frame is boxed at."""
        side = max(box[2] - box[0], box[3] - box[1]) * self.floor_scale(width, height)
        return side < self.MIN_READ_SIDE

    def under_calibrated(self, box: tuple[float, float, float, float], width: int,
                         height: int) -> bool:
        """True when ``box`` is smaller than any index the thresholds were calibrated on:
        under the floor at the first level, and in the picture's own pixels under the
        floor at the calibration frames' first level (``calibrated``): a 640 x 480
        picture's first level is three quarters of it, and an index that fills the floor
        there has fewer pixels of its own than any the thresholds were calibrated on.
        Where it is not too small to read at all (``too_small``), its read has to meet
        the strictest threshold the model has."""
        side = max(box[2] - box[0], box[3] - box[1]) * self.calibrated_scale(width, height)
        return side < self.MIN_READ_SIDE

    def calibrated_scale(self, width: int, height: int) -> float:
        """The scale at which an index must be MIN_READ_SIDE pixels for the calibrated
        thresholds (``under_calibrated``): the first level, at most ``calibrated``."""
        return min(self.work_scale(width, height), self.calibrated)

    def floors_differ(self, width: int, height: int) -> bool:
        """True when an index can be under the calibrated floor (``under_calibrated``)
        and still not too small to read (``too_small``): the camera's 1280 x 720 frames
        have one floor."""
        return self.floor_scale(width, height) > self.calibrated_scale(width, height)

    def _cell_boxes(self, out: np.ndarray, iy: np.ndarray, ix: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The boxes the net's output marks at grid cells (rows ``iy``, columns ``ix``):
        arrays of centre x, y and width, height, in pixels of the picture the net ran on."""
        cells = out[:, iy, ix]
        cx = (ix + 0.5 + cells[3].astype(np.float64)) * self.stride
        cy = (iy + 0.5 + cells[4].astype(np.float64)) * self.stride
        return (cx, cy, 32 * np.exp(cells[1]).astype(np.float64),
                32 * np.exp(cells[2]).astype(np.float64))

    def refine(self, gray: np.ndarray, box: tuple[float, float, float, float],
               side: float | None = None, window: int | None = None,
               heat_threshold: float = 0.1) -> tuple[float, float, float, float] | None:
        """A tighter box for one index: the detector run again on the box's surroundings
        alone, brought to the scale it boxes best (the index ``side`` pixels tall).

        On the whole frame an index of a far card is a few cells of the coarse
        grid, and its box comes out loose; here it fills several. Returns the
        surest box of the window centred inside ``box`` and overlapping it (IoU >= 0.2),
        or None.
        """
        import cv2

        side = self.refine_side if side is None else side
        window = self.refine_window if window is None else window
        x1, y1, x2, y2 = box
        scale = side / max(x2 - x1, y2 - y1, 4.0)
        cut = max(int(round(window / scale)), 8)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        patch = cv2.getRectSubPix(gray, (cut, cut), (cx, cy))
        small = cv2.resize(patch, (window, window),
                           interpolation=cv2.INTER_AREA if cut > window else cv2.INTER_LINEAR)
        out = self.session.run(None, {"image": _unit_float(small)[None, None]})[0][0]
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        k = window / cut  # window pixels per frame pixel (the scale, once cut is rounded)
        iy, ix = np.nonzero(heat > heat_threshold)
        px, py, bw, bh = self._cell_boxes(out, iy, ix)
        fx, fy = cx + (px - window / 2) / k, cy + (py - window / 2) / k
        found = np.stack([fx - bw / k / 2, fy - bh / k / 2, fx + bw / k / 2, fy + bh / k / 2],
                         axis=1)
        # The same index, not a neighbour's: its centre lies in the first box.
        same = (x1 <= fx) & (fx <= x2) & (y1 <= fy) & (fy <= y2) & \
            (_iou_matrix(found, np.array([box], np.float64))[:, 0] >= 0.2)
        if not same.any():
            return None
        scores = np.where(same, heat[iy, ix], -np.inf)
        best = found[int(scores.argmax())]  # the first of the surest, as the cells come
        return float(best[0]), float(best[1]), float(best[2]), float(best[3])


def box_intersection(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The area two ``(x1, y1, x2, y2)`` boxes share (0 when apart)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Intersection over union of two boxes ``(x1, y1, x2, y2)``."""
    inter = box_intersection(a, b)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


Box = tuple[float, float, float, float]


def _merge_boxes(boxes: np.ndarray, scores: np.ndarray, rank: np.ndarray,
                 overlap: float | None = None) -> list[tuple[Box, float]]:
    """Greedy non-maximum suppression: the surest box of each overlapping group.

    ``boxes`` (N, 4), ``scores`` (N,), ``rank`` (N,) int or bool: a box gives way to any
    box of a lower rank it overlaps, however sure (``IndexDetector.detect``: a coarse
    box, see ``FINE_SIDE``, to any that is not).
    The boxes kept come back surest first, as ``(box, score)``. ``overlap``: the
    intersection over union that makes two boxes one index (None: the shipped
    settings' ``merge_overlap``).
    """
    return [_as_found(boxes[i], scores[i]) for i in _merge_order(boxes, scores, rank, overlap)]


def _as_found(box: np.ndarray, score: float) -> tuple[Box, float]:
    """A box and its score as :meth:`IndexDetector.detect` gives them (plain floats)."""
    return (float(box[0]), float(box[1]), float(box[2]), float(box[3])), float(score)


def _merge_order(boxes: np.ndarray, scores: np.ndarray, rank: np.ndarray,
                 overlap: float | None = None) -> list[int]:
    """:func:`_merge_boxes`'s boxes as their places in ``boxes``, surest first.
    The overlaps of all pairs are worked out at once (:func:`_iou_matrix`)."""
    if len(boxes) == 0:
        return []
    if overlap is None:
        overlap = shipped_settings().merge_overlap
    # Lower ranks first, each rank surest first; ties keep the order found (stable).
    order = np.lexsort((-scores, rank))
    b, sc = boxes[order], scores[order]
    near = _iou_matrix(b, b) >= overlap
    keep: list[int] = []
    gone = np.zeros(len(b), bool)
    for i in range(len(b)):
        if not gone[i]:
            keep.append(i)
            gone |= near[i]
    return [int(order[i]) for i in sorted(keep, key=lambda i: -sc[i])]


def _iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`iou` of every box of ``a`` (N, 4) with every box of ``b`` (M, 4): (N, M),
    in the same float64 arithmetic, in the same order, so the same to the last bit."""
    ix = np.maximum(0.0, np.minimum(a[:, None, 2], b[None, :, 2])
                    - np.maximum(a[:, None, 0], b[None, :, 0]))
    iy = np.maximum(0.0, np.minimum(a[:, None, 3], b[None, :, 3])
                    - np.maximum(a[:, None, 1], b[None, :, 1]))
    inter = ix * iy
    union = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]))[:, None] \
        + ((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(union > 0, inter / union, 0.0)
    return out


def _unit_float(image: np.ndarray) -> np.ndarray:
    """uint8 pixels as float32 in [0, 1], divided in place: a second full-size
    temporary costs more than the division itself."""
    x = image.astype(np.float32)
    x /= 255.0
    return x


class ReaderCheckError(ExplainedError):
    """The index classifier does not name its reference patches on this computer."""


def check_reads(classifier: CardClassifier) -> int | None:
    """Read the reference patches beside ``classifier`` (:data:`CHECK_FILE`); returns how
    many it names right, None when it has none. An 8-bit model can read nothing on a CPU
    it was never run on (full 8-bit weights overflow on x86 with AVX2 and no VNNI):
    fewer right than the file's ``min_right`` raises :class:`ReaderCheckError`, so that a
    table never starts blind."""
    import cv2

    path = classifier.model_path.with_name(CHECK_FILE)
    if not path.is_file():
        return None
    meta = json.loads(path.with_suffix(".json").read_text())
    codes, size = list(meta["codes"]), int(classifier.meta["crop"])
    strip = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if strip is None or strip.shape[:2] != (size, size * len(codes)):
        raise ReaderCheckError("%(path)s: not a strip of %(n)d reference patches",
                               path=str(path), n=len(codes))
    patches = strip.reshape(size, len(codes), size, 3).transpose(1, 0, 2, 3)
    named = classifier.logits(np.ascontiguousarray(patches)).argmax(axis=1)
    right = sum(1 for k, c in zip(named, codes, strict=True) if classifier.classes[int(k)] == c)
    if right < int(meta["min_right"]):
        import platform

        import onnxruntime

        raise ReaderCheckError(
            "%(model)s names %(right)d of %(n)d reference cards on this computer "
            "(%(cpu)s, onnxruntime %(ort)s): the card reader cannot run here",
            model=classifier.model_path.name, right=right, n=len(codes),
            cpu=platform.processor() or platform.machine(), ort=onnxruntime.__version__)
    return right
