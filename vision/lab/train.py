"""Train the card reader's models with torch, export them to ONNX, and calibrate them.

Two small networks make up the shipped reader (design B in the model card):

* ``index_detector.onnx``: a fully-convolutional net over a grey frame that
  marks the centre and size of every corner index (rank + suit) at stride 8;
* ``index_classifier.onnx``: a small CNN that names a 32x32 grey patch around
  one index: the 32 belote cards, or ``none``.

Design A (card outlines + perspective warp, see :mod:`vision.locate`) only
needs a corner classifier, ``card_corner.onnx``, trained here too, so that
``belote-table vision eval`` can compare both on the same photos.

Everything is seeded: ``belote-table vision train --seed 0`` renders the same
synthetic frames, draws the same batches and gives the same weights (on the
same torch build). The held-out real photos (:func:`vision.lab.dataset.split_of`
``== "test"``) never reach training; the ``calib`` ones fit the temperature and
the threshold only. Torch is imported here and nowhere at run time.
"""

from __future__ import annotations

import json
import math
import time
import zlib
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from scorer.cards import CARD_CODES
from vision.classify import MODELS, model_input, softmax
from vision.lab import dataset as ds
from vision.locate import CROP_H, CROP_W, INDEX_CROP, INDEX_PAD, INDEX_REGION
from vision.settings import shipped_settings

DET_STRIDE = 8
# The reader's detector threshold, written to the classifier's JSON: centres from 0.2 up
# are read (the classifier says "none" of what is no index). Training data are boxed at
# IndexDetector's default, 0.3; at 0.3 the reader lost 2 more readable validation cards
# (33 against 31 of 5469).
READ_HEAT = 0.2
TTA_TURNS = 2  # the index classifier reads each patch upright and at a quarter turn
LOOK_TURNS = 2  # the second look reads each of its patches upright and at a quarter turn
# The index classifier's thresholds: at most 1 sure card read in 10000 wrong on the held-out
# crops. A card read wrong at the table is a wrong score; one left unknown only waits for
# the next frame (or the organiser), so the reader leans to "unknown".
INDEX_MAX_ERROR = 0.0001
# Grey frames (a black-and-white camera, a lamp's light brought back to white, a frame
# showing a black deck) keep a rule of their own whatever ``INDEX_MAX_ERROR`` a run takes: their
# suits are told by shape alone, and a grey frame is never to be misread.
GREY_MAX_ERROR = 0.001
DET_PATCH = 256
# The index classifier as trained (float); the reader runs its 8-bit version,
# ``index_classifier.onnx``, made from it with QUANT_SAMPLES training patches.
FLOAT_CLASSIFIER = "index_classifier_fp32.onnx"
QUANT_SAMPLES = 1024
DATA = Path(__file__).with_name("data")
# The extra detector-box frames (``run``'s ``more_scenes``, ``printed_scenes``): render
# seeds (plus 100 x the run's seed) and frames per cached shard.
MORE_SEED, PRINTED_SEED, MORE_SHARD = 9071, 9171, 1200
# The share of the second look's sure and right reads that its floor may give up
# (``look_floor``).
LOOK_SKIP_LOSS = 0.01
# The models ``run`` can (re)train. ``run`` also takes "quantize" (the 8-bit classifier made
# again from the float one in the output folder, and calibrated) and "calibrate" alone.
PARTS = ("classifier", "detector", "corner")


# --------------------------------------------------------------------------- networks
def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Standardize(nn.Module):
    """Per-image contrast normalisation inside the model, so callers pass raw [0, 1] pixels.

    One mean and one spread over all channels: the balance between red and
    black (what tells the suits' colours apart) survives. With a ``scale`` under 1 the
    patch is first brought down to that share of its side (bilinear): the convolutions
    after it then cost about ``scale`` squared as much, while the reader still cuts and
    passes its patches at their size (an ONNX Resize at the model's start).
    """

    def __init__(self, scale: float = 1.0) -> None:
        super().__init__()
        if not 0.0 < scale <= 1.0:
            raise ValueError(f"scale: a share of the patch's side, over 0 and at most 1, "
                             f"not {scale}")
        self.scale = float(scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.scale < 1.0:
            x = F.interpolate(x, scale_factor=self.scale, mode="bilinear",
                              align_corners=False, recompute_scale_factor=False)
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True)
        return (x - mean) / (std + 0.05)


class Classifier(nn.Module):
    """A few conv blocks and a linear layer.

    ``channels`` 3 reads colour patches (design B's index classifier, about
    340 k weights); 1 reads grey ones (design A's corner model, about 70 k).
    """

    def __init__(self, n_classes: int, channels: int = 1,
                 widths: tuple[int, ...] | None = None, scale: float = 1.0) -> None:
        super().__init__()
        w = widths or ((32, 64, 96, 128, 128) if channels == 3 else (16, 32, 48, 64, 64))
        if len(w) != 5 or min(w) < 1:
            raise ValueError(f"widths: five channel counts expected, not {w}")
        self.widths = tuple(w)
        self.net = nn.Sequential(
            Standardize(scale),
            _conv(channels, w[0]), nn.MaxPool2d(2),
            _conv(w[0], w[1]), nn.MaxPool2d(2),
            _conv(w[1], w[2]), _conv(w[2], w[3]), nn.MaxPool2d(2),
            _conv(w[3], w[4]),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(w[4], n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class Detector(nn.Module):
    """Index centres (heat), box size (log w, log h) and centre offset (dx, dy), stride 8."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            Standardize(),
            _conv(1, 8, 2), _conv(8, 16, 2), _conv(16, 16), _conv(16, 32, 2),
            _conv(32, 32), _conv(32, 32, dilation=2), _conv(32, 32, dilation=4))
        self.head = nn.Conv2d(32, 5, 1)
        bias = self.head.bias
        assert bias is not None  # Conv2d has one unless told otherwise
        nn.init.constant_(bias, 0.0)
        with torch.no_grad():
            bias[0] = -4.0  # few cells hold an index: start the heat low

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


# --------------------------------------------------------------------------- training data
def _photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur, exposure, uneven light, noise; for colour images a white-balance shift too."""
    x: np.ndarray = img.astype(np.float32)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.5))
    x = x * rng.uniform(0.5, 1.3) + rng.uniform(-40, 40)
    h, w = x.shape[:2]
    if x.ndim == 3:
        x = x * rng.uniform(0.8, 1.2, size=3).astype(np.float32)
    if rng.random() < 0.4:
        gx, gy = rng.uniform(-50, 50, size=2)
        ramp = gx * (np.arange(w)[None, :] / w - 0.5) + gy * (np.arange(h)[:, None] / h - 0.5)
        x = x + (ramp[..., None] if x.ndim == 3 else ramp)
    x = x + rng.normal(0, rng.uniform(0, 8), size=x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def _stretch(rng: np.random.Generator, aspect: float) -> float:
    """Half the time, a factor ``a`` for the width (``1 / a`` for the height) whose ratio
    ``a * a`` lies between ``1 / aspect`` and ``aspect``; otherwise 1. Draws nothing when
    ``aspect`` is 1."""
    if aspect > 1.0 and rng.random() < 0.5:
        return float(np.exp(rng.uniform(-np.log(aspect), np.log(aspect)) / 2))
    return 1.0


def _aspect_matrix(rng: np.random.Generator, aspect: float, c: float) -> np.ndarray:
    """A 2x3 affine map stretching about (c, c) by :func:`_stretch` (the identity when it
    gives 1)."""
    a = _stretch(rng, aspect)
    return np.array([[a, 0, c * (1 - a)], [0, 1 / a, c * (1 - 1 / a)]], np.float64)


def _rotate_crop(crop: np.ndarray, rng: np.random.Generator,
                 aspect: float = 1.0) -> np.ndarray:
    """Any quarter turn, then sometimes a small tilt, zoom and shift about the patch's centre.

    The zoom and shift stand for the detector's loose boxes: on unseen frames a
    box meets its index at an IoU of 0.4-0.6 as often as not, and a patch cut
    from such a box shows the index smaller, larger or off-centre. ``aspect``
    above 1 also stretches the patch, half the time, by up to that ratio of
    width to height or back: a photo squeezed to a square by its export, a card
    seen at a slant.
    """
    crop = np.rot90(crop, int(rng.integers(4))).copy()
    if aspect > 1.0:
        c = crop.shape[0] / 2
        crop = cv2.warpAffine(crop, _aspect_matrix(rng, aspect, c), (crop.shape[1], crop.shape[0]),
                              borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.6:
        angle = rng.uniform(-20, 20) if rng.random() < 0.7 else 0.0
        zoom = float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
        c = crop.shape[0] / 2
        m = cv2.getRotationMatrix2D((c, c), angle, zoom)
        m[:, 2] += rng.uniform(-0.1, 0.1, size=2) * crop.shape[0]
        crop = cv2.warpAffine(crop, m, (crop.shape[1], crop.shape[0]),
                              borderMode=cv2.BORDER_REPLICATE)
    return crop


def _desaturate(crop: np.ndarray, rng: np.random.Generator, share: float = 0.15,
                recolour: float = 0.0) -> np.ndarray:
    """A colour patch turned grey now and then: a black-and-white camera, a washed-out
    lamp. Without it the suits' colour does all the work and a grey diamond reads as a
    spade. ``recolour`` is the share of patches given a light whose colour says nothing of
    the suit: a warm or red-lit room, or a black deck printed in one gold or silver ink."""
    if crop.ndim != 3:
        return crop
    u = rng.random()
    if u < share:
        grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if u < share + recolour / 2:
        # Warm or red light: blue and green fall, red stays; the red suits go pale.
        gain = np.array([rng.uniform(0.25, 0.7), rng.uniform(0.45, 0.85), 1.0], np.float32)
        return np.clip(crop.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    if u < share + recolour:
        # A black deck with its signs in one light ink: dark paper, the ink lifted.
        grey = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2GRAY).astype(np.float32)
        ink = np.clip(1.0 - grey / max(float(np.percentile(grey, 90)), 1.0), 0, 1)[..., None]
        ink = np.clip(ink * 1.6, 0, 1)
        paper = np.float32(rng.uniform(10, 45, size=3))
        gold = np.array([rng.uniform(40, 120), rng.uniform(150, 210), rng.uniform(180, 240)]
                        if rng.random() < 0.7 else [rng.uniform(170, 220)] * 3, np.float32)
        return np.clip(paper * (1 - ink) + gold * ink, 0, 255).astype(np.uint8)
    return crop


def _det_sample(frame: np.ndarray, boxes: np.ndarray, rng: np.random.Generator,
                real: bool, aspect: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A DET_PATCH square patch of a frame, rescaled, and its boxes (``aspect``: see
    :func:`_rotate_crop`; the width and the height are then scaled apart)."""
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) if len(boxes) else None
    if real and sizes is not None:
        # Real photos are close-ups: bring their indices to table-frame sizes.
        scale = rng.uniform(14, 64) / float(np.median(sizes))
    else:
        scale = rng.uniform(0.6, 1.6)
    a = _stretch(rng, aspect)
    sx, sy = scale * a, scale / a
    img = cv2.resize(frame, None, fx=sx, fy=sy, interpolation=cv2.INTER_AREA)
    b = boxes * np.array([sx, sy, sx, sy], np.float32)
    h, w = img.shape
    ph = max(DET_PATCH - h, 0)
    pw = max(DET_PATCH - w, 0)
    if ph or pw:
        img = cv2.copyMakeBorder(img, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        h, w = img.shape
    x0 = int(rng.integers(0, w - DET_PATCH + 1))
    y0 = int(rng.integers(0, h - DET_PATCH + 1))
    img = img[y0:y0 + DET_PATCH, x0:x0 + DET_PATCH]
    b = b - np.array([x0, y0, x0, y0], np.float32)
    k = int(rng.integers(4))
    if k:
        # Turn patch and boxes together by k quarter turns (anticlockwise on screen).
        for _ in range(k):
            img = np.rot90(img)
            b = np.stack([b[:, 1], DET_PATCH - b[:, 2], b[:, 3], DET_PATCH - b[:, 0]], axis=1) \
                if len(b) else b
        img = img.copy()
    return _photometric(img, rng), b


def _det_targets(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heat map (Gaussian per index), regression targets and their mask at stride 8."""
    g = DET_PATCH // DET_STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g]
    for x1, y1, x2, y2 in boxes:
        cx, cy = (x1 + x2) / 2 / DET_STRIDE, (y1 + y2) / 2 / DET_STRIDE
        if not (0 <= cx < g and 0 <= cy < g):
            continue
        bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
        sigma = max(0.6, 0.15 * min(bw, bh) / DET_STRIDE)
        heat = np.maximum(heat, np.exp(-((xx + 0.5 - cx) ** 2 + (yy + 0.5 - cy) ** 2)
                                       / (2 * sigma ** 2)))
        ix, iy = int(cx), int(cy)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (math.log(bw / 32), math.log(bh / 32), cx - ix - 0.5, cy - iy - 0.5)
        mask[iy, ix] = 1.0
    return heat, reg, mask


def _focal(pred: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the heat map."""
    p = torch.sigmoid(pred).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


# --------------------------------------------------------------------------- loops
def train_classifier(x: np.ndarray, y: np.ndarray, steps: int, seed: int, n_classes: int,
                     rotate: bool, log=print, batch: int = 128,
                     real: np.ndarray | None = None, init: Classifier | None = None,
                     max_lr: float = 3e-3, aspect: float = 1.0, grey: float = 0.15,
                     recolour: float = 0.0, device: str = "cpu",
                     workers: int = 0, teacher: Classifier | None = None,
                     distil: float = 0.7, distil_temperature: float = 2.0) -> Classifier:
    """Train a crop classifier on uint8 crops (N, H, W) with labels (N,).

    Crops are grey (N, H, W) or colour (N, H, W, 3). Batches are drawn so that
    each card is equally likely, ``none`` (the last
    class: backs, 2-6, pips, table, hands...) makes up a third of them, being
    far more varied than any card, and the few real crops (``real`` mask) a
    quarter. ``init`` is a model to train further instead of a fresh one;
    ``aspect``: see :func:`_rotate_crop`. ``device`` is torch's ("cuda" on a GPU
    machine). With ``workers`` the batches are drawn and distorted in that many
    processes, each batch from a generator seeded by (seed, step), so that the
    weights do not depend on how many workers there are; 0 keeps one generator for
    the whole run (the first runs were trained so). With a ``teacher`` (a model of the
    same classes, as for a pruned start, :func:`prune_classifier`), ``distil`` of the
    loss is the divergence from the teacher's answers softened at
    ``distil_temperature`` (Hinton et al.'s distillation), the rest the labels' loss.
    """
    if teacher is not None and not 0.0 <= distil <= 1.0:
        raise ValueError(f"distil: a share from 0 to 1, not {distil}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    channels = 3 if x.ndim == 4 else 1
    model = (init if init is not None else Classifier(n_classes, channels)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=max(steps, 1))
    weights = _sampling_weights(y, n_classes, real)
    model.train()
    if teacher is not None:
        teacher = teacher.to(device).eval()
    t0 = time.time()
    spec = (x, y, weights, batch, rotate, aspect, grey, recolour, seed)
    batches: Iterator[tuple[np.ndarray, np.ndarray]]
    if workers > 0:
        import multiprocessing

        # Forked workers share the crops with this process instead of copying them.
        _BATCH_SPEC.append(spec)
        pool = multiprocessing.get_context("fork").Pool(workers)
        batches = _ahead(pool, steps, 4 * workers)
    else:
        pool, batches = None, (_batch(spec, rng) for _ in range(steps))
    try:
        for step, (xb, yb) in enumerate(batches):
            xt = torch.from_numpy(xb).to(device)
            logits = model(xt)
            loss = F.cross_entropy(logits, torch.from_numpy(yb).to(device), label_smoothing=0.05)
            if teacher is not None:
                with torch.no_grad():
                    soft = F.log_softmax(teacher(xt) / distil_temperature, dim=1)
                kd = F.kl_div(F.log_softmax(logits / distil_temperature, dim=1), soft,
                              log_target=True, reduction="batchmean")
                loss = (1 - distil) * loss + distil * distil_temperature ** 2 * kd
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            if step % 100 == 0 or step == steps - 1:
                log(f"classifier step {step}/{steps} loss {loss.item():.4f} "
                    f"({time.time() - t0:.0f}s)")
    finally:
        if pool is not None:
            pool.terminate()
            _BATCH_SPEC.clear()
    model.eval()
    return model.to("cpu")


# The training data of the running ``train_classifier``, for its forked batch workers.
_BATCH_SPEC: list[tuple] = []


def _batch(spec: tuple, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One training batch: crops drawn by the sampling weights, turned, tilted, recoloured
    and lit anew (``model_input``'s layout), with their labels."""
    x, y, weights, batch, rotate, aspect, grey, recolour, _ = spec
    idx = rng.choice(len(x), size=batch, p=weights)
    crops = [x[i] for i in idx]
    if rotate:
        crops = [_desaturate(_rotate_crop(c, rng, aspect), rng, grey, recolour) for c in crops]
    return model_input(np.stack([_photometric(c, rng) for c in crops])), y[idx]


def _ahead(pool, steps: int, window: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The batches of steps 0, 1, ... from ``pool``'s workers, at most ``window`` drawn
    ahead of the step being trained. (``Pool.imap`` draws every batch as fast as the
    workers can: on a CPU they then take the cores the training needs, and a long run's
    batches waiting in memory can fill it: 12,000 steps of 128 colour patches are 18 GB.)"""
    pending: deque = deque()
    for step in range(steps):
        pending.append(pool.apply_async(_seeded_batch, (step,)))
        if len(pending) > window:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def _seeded_batch(step: int) -> tuple[np.ndarray, np.ndarray]:
    spec = _BATCH_SPEC[-1]
    return _batch(spec, np.random.default_rng([spec[-1], step]))


def classifier_from_onnx(path: Path, x: np.ndarray) -> Classifier:
    """The index classifier exported at ``path``, as a torch model to train further.

    The export folds each batch norm into its convolution. The norm is put back
    with the statistics of the folded convolution's outputs on ``x`` (uint8
    colour patches, N x H x W x 3, a batch of training data), set so that it
    gives back exactly the folded convolution's output with its bias: the model
    computes the exported function in evaluation mode, and very nearly so in
    training mode, where each batch brings statistics of its own.
    """
    from onnx import numpy_helper

    graph = _onnx_graph(path)
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [(weights[n.input[1]], weights[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    # The widths are read off the file: a pruned classifier (``prune_classifier``) loads too.
    widths = _conv_widths(graph)
    model = Classifier(len(ds.CLASSES), channels=3, widths=widths if len(widths) == 5 else None,
                       scale=_input_scale(graph))
    conv_layers = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    linear = next(m for m in model.modules() if isinstance(m, nn.Linear))
    if len(convs) != len(conv_layers) or any(
            w.shape != tuple(c.weight.shape) for (w, _), c in zip(convs, conv_layers, strict=True)):
        raise ValueError(f"{path}: not an index classifier of this shape")
    h = torch.from_numpy(model_input(x))
    with torch.no_grad():
        h = model.net[0](h)  # Standardize
        for (w, b), conv, norm in zip(convs, conv_layers, norms, strict=True):
            z = _unfold_norm(conv, norm, w, b, h)
            # The input of the next convolution: this block's output, pooled as the net does.
            h = _through_block(model, conv, z)
        linear.weight.copy_(torch.tensor(weights[gemm.input[1]]))
        linear.bias.copy_(torch.tensor(weights[gemm.input[2]]))
    model.eval()
    return model


def _conv_widths(graph) -> tuple[int, ...]:
    """The output channels of each convolution of an ONNX graph, in order."""
    shapes = {i.name: tuple(i.dims) for i in graph.initializer}
    return tuple(int(shapes[n.input[1]][0]) for n in graph.node if n.op_type == "Conv")


def _input_scale(graph) -> float:
    """The share of the patch's side an exported classifier brings its input down to
    (:class:`Standardize`'s ``scale``: the scales of its Resize), 1 with none."""
    from onnx import numpy_helper

    resize = [n for n in graph.node if n.op_type == "Resize"]
    if not resize:
        return 1.0
    consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for n in graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    scales = consts.get(resize[0].input[2]) if len(resize[0].input) > 2 else None
    if len(resize) > 1 or scales is None or scales.shape != (4,) \
            or scales[2] != scales[3] or not 0.0 < scales[2] <= 1.0:
        raise ValueError("not an index classifier of this shape (its Resize)")
    return float(scales[2])


def rescaled(model: Classifier, scale: float) -> Classifier:
    """A copy of ``model`` reading its patches brought down to ``scale`` of their side
    (:class:`Standardize`): the same weights, a start to train on at that size (with
    ``train_classifier``'s ``teacher``, the model as it was)."""
    import copy

    first = Standardize(scale)  # it refuses a scale that is no share of the side
    student = copy.deepcopy(model)
    assert isinstance(student.net[0], Standardize)
    student.net[0] = first
    return student


def classifier_widths(path: Path) -> tuple[int, ...]:
    """The widths of the index classifier exported at ``path``, read off the file without
    loading its weights; ``ValueError`` when it is not an index classifier."""
    widths = _conv_widths(_onnx_graph(path))
    if len(widths) != 5:
        raise ValueError(f"{path}: not an index classifier of this shape")
    return widths


def prune_classifier(model: Classifier, widths: tuple[int, ...], x: np.ndarray) -> Classifier:
    """A narrower index classifier cut out of ``model``: each convolution keeps the
    ``widths`` output channels whose outputs (after the norm and the ReLU) are largest on
    average over ``x`` (uint8 colour patches, N x H x W x 3), the next convolution (or the
    linear layer) keeping the inputs that match. The result computes a cut-down version of
    the same function, a start to train on (with ``train_classifier``'s ``teacher``), not a
    model to use as it is."""
    if len(widths) != 5 or any(not 1 <= w <= o for w, o in zip(widths, model.widths,
                                                                  strict=True)):
        raise ValueError(f"widths: five channel counts, each at most {model.widths}, "
                         f"not {tuple(widths)}")
    model = model.eval()
    linear = model.net[-1]
    assert isinstance(linear, nn.Linear)
    first = model.net[0]
    assert isinstance(first, Standardize)
    student = Classifier(linear.out_features, 3, widths=tuple(widths), scale=first.scale)
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    new_convs = [m for m in student.modules() if isinstance(m, nn.Conv2d)]
    new_norms = [m for m in student.modules() if isinstance(m, nn.BatchNorm2d)]
    h = torch.from_numpy(model_input(x))
    keep_in = torch.arange(3)
    with torch.no_grad():
        h = model.net[0](h)
        for conv, norm, new_conv, new_norm, width in zip(convs, norms, new_convs, new_norms,
                                                          widths, strict=True):
            z = norm(conv(h))
            keep = torch.argsort(torch.relu(z).mean(dim=(0, 2, 3)),
                                 descending=True)[:width].sort().values
            new_conv.weight.copy_(conv.weight[keep][:, keep_in])
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(new_norm, name).copy_(getattr(norm, name)[keep])
            h = _through_block(model, conv, z)
            keep_in = keep
        new_linear = student.net[-1]
        assert isinstance(new_linear, nn.Linear)
        new_linear.weight.copy_(linear.weight[:, keep_in])
        new_linear.bias.copy_(linear.bias)
    student.eval()
    return student


def _unfold_norm(conv: nn.Conv2d, norm: nn.BatchNorm2d, w: np.ndarray, b: np.ndarray,
                 h: torch.Tensor) -> torch.Tensor:
    """Give ``conv`` the exported weights ``w`` and ``norm`` the statistics of ``conv(h)``
    and an affine part such that ``norm(conv(h))`` is the exported ``conv(h) + b`` (the
    export folded the norm into the bias); returns that output."""
    conv.weight.copy_(torch.tensor(w))
    z = conv(h)
    mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3))
    assert norm.running_mean is not None and norm.running_var is not None
    norm.running_mean.copy_(mean)
    norm.running_var.copy_(var)
    norm.weight.copy_(torch.sqrt(var + norm.eps))
    norm.bias.copy_(torch.tensor(b) + mean)
    return z + torch.tensor(b)[None, :, None, None]


def detector_from_onnx(path: Path, x: np.ndarray) -> Detector:
    """The index detector exported at ``path``, as a torch model to train further; its batch
    norms are put back as :func:`classifier_from_onnx` does, from ``x`` (uint8 grey
    patches, N x H x W)."""
    from onnx import numpy_helper

    graph = _onnx_graph(path)
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [(weights[n.input[1]], weights[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    model = Detector()
    conv_layers = [m for m in model.body.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in model.body.modules() if isinstance(m, nn.BatchNorm2d)]
    if len(convs) != len(conv_layers) + 1 or any(
            w.shape != tuple(c.weight.shape)
            for (w, _), c in zip(convs, conv_layers, strict=False)):
        raise ValueError(f"{path}: not an index detector of this shape")
    h = torch.from_numpy(x.astype(np.float32)[:, None] / 255)
    with torch.no_grad():
        h = model.body[0](h)  # Standardize
        for (w, b), conv, norm in zip(convs, conv_layers, norms, strict=False):
            h = torch.relu(_unfold_norm(conv, norm, w, b, h))
        head_bias = model.head.bias
        assert head_bias is not None
        model.head.weight.copy_(torch.tensor(convs[-1][0]))
        head_bias.copy_(torch.tensor(convs[-1][1]))
    model.eval()
    return model


def _onnx_graph(path: Path):
    """The graph of an ONNX file, or ``ValueError`` saying which file and why."""
    import onnx

    try:
        return onnx.load(str(path)).graph
    except FileNotFoundError as e:
        raise ValueError(f"{path}: no such model file") from e
    except Exception as e:  # protobuf's DecodeError and kin: not an ONNX file
        raise ValueError(f"{path}: not an ONNX model ({type(e).__name__})") from e


def _through_block(model: Classifier, conv: nn.Conv2d, z: torch.Tensor) -> torch.Tensor:
    """Apply what follows ``conv``'s batch norm in ``model.net`` up to the next convolution."""
    layers = list(model.net)
    k = next(i for i, m in enumerate(layers) if isinstance(m, nn.Sequential) and m[0] is conv)
    block = layers[k]
    assert isinstance(block, nn.Sequential)
    h = block[2](z)  # the block's ReLU
    for m in layers[k + 1:]:
        if isinstance(m, nn.Sequential):
            break
        h = m(h)
    return h


def _sampling_weights(y: np.ndarray, n_classes: int, real: np.ndarray | None) -> np.ndarray:
    none = n_classes - 1
    class_share = np.full(n_classes, (2 / 3) / (n_classes - 1))
    class_share[none] = 1 / 3
    weights = np.zeros(len(y))
    groups = [np.ones(len(y), bool)] if real is None or not real.any() else [real, ~real]
    group_share = [1.0] if len(groups) == 1 else [0.25, 0.75]
    for mask, g_share in zip(groups, group_share, strict=True):
        counts = np.bincount(y[mask], minlength=n_classes).astype(np.float64)
        present = counts > 0
        share = np.where(present, class_share, 0.0)
        share /= share.sum()
        weights[mask] = g_share * share[y[mask]] / counts[y[mask]]
    return weights / weights.sum()


def train_detector(frames: list[np.ndarray], boxes: list[np.ndarray], real: list[bool],
                   steps: int, seed: int, log=print, batch: int = 16,
                   aspect: float = 1.0, init: Detector | None = None) -> Detector:
    """``init``: a detector to train further (at a quarter of the learning rate)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    model = init if init is not None else Detector()
    lr = 4e-3 if init is None else 1e-3
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1))
    real_idx = [i for i, r in enumerate(real) if r]
    synth_idx = [i for i, r in enumerate(real) if not r]
    model.train()
    t0 = time.time()
    for step in range(steps):
        imgs, heats, regs, masks = [], [], [], []
        for _ in range(batch):
            pool = real_idx if real_idx and (not synth_idx or rng.random() < 0.3) else synth_idx
            i = pool[int(rng.integers(len(pool)))]
            img, b = _det_sample(frames[i], boxes[i], rng, real[i], aspect)
            h, r, m = _det_targets(b)
            imgs.append(img)
            heats.append(h)
            regs.append(r)
            masks.append(m)
        xb = torch.from_numpy(np.stack(imgs).astype(np.float32)[:, None] / 255.0)
        out = model(xb)
        heat = torch.from_numpy(np.stack(heats))
        reg = torch.from_numpy(np.stack(regs))
        mask = torch.from_numpy(np.stack(masks))[:, None]
        loss_heat = _focal(out[:, 0], heat)
        l1 = F.l1_loss(out[:, 1:], reg, reduction="none") * mask
        loss_reg = l1.sum() / mask.sum().clamp(min=1)
        loss = loss_heat + loss_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 50 == 0 or step == steps - 1:
            log(f"detector step {step}/{steps} heat {loss_heat.item():.3f} "
                f"reg {loss_reg.item():.3f} ({time.time() - t0:.0f}s)")
    model.eval()
    return model


# --------------------------------------------------------------------------- export and calibration
def export_onnx(model: nn.Module, example: torch.Tensor, path: Path, dynamic_hw: bool) -> float:
    """Export with torch.onnx and check onnxruntime gives the same outputs; returns max |diff|."""
    import onnxruntime as ort

    path.parent.mkdir(parents=True, exist_ok=True)
    import warnings

    axes = {0: "n", 2: "h", 3: "w"} if dynamic_hw else {0: "n"}
    with warnings.catch_warnings():
        # The TorchScript exporter is the one that needs no onnxscript; torch
        # warns that it is no longer the default.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, (example,), str(path), input_names=["image"],
                          output_names=["out"], dynamic_axes={"image": axes, "out": {0: "n"}},
                          opset_version=17, dynamo=False)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = model(example).numpy()
    got = session.run(None, {"image": example.numpy()})[0]
    diff = float(np.abs(ref - got).max())
    if diff > 1e-3:
        raise RuntimeError(f"{path}: onnxruntime differs from torch by {diff:.2e}")
    return diff


class WithFeatures(nn.Module):
    """The index classifier as exported: output 0 its logits, output 1 ("features") the
    input of its last linear layer (N x D), which deck enrollment builds on."""

    def __init__(self, model: Classifier) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.model.net[:-1](x)
        return self.model.net[-1](f), f


def export_classifier(model: Classifier, path: Path) -> float:
    """Export the index classifier with its two outputs ("out", "features") and check
    onnxruntime against torch; returns the largest difference."""
    import warnings

    import onnxruntime as ort

    path.parent.mkdir(parents=True, exist_ok=True)
    wrapped = WithFeatures(model).eval()
    example = torch.rand(4, 3, INDEX_CROP, INDEX_CROP)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(wrapped, (example,), str(path), input_names=["image"],
                          output_names=["out", "features"],
                          dynamic_axes={"image": {0: "n"}, "out": {0: "n"}, "features": {0: "n"}},
                          opset_version=17, dynamo=False)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        ref = [t.numpy() for t in wrapped(example)]
    got = session.run(None, {"image": example.numpy()})
    diff = max(float(np.abs(r - g).max()) for r, g in zip(ref, got, strict=True))
    if diff > 1e-3:
        raise RuntimeError(f"{path}: onnxruntime differs from torch by {diff:.2e}")
    return diff


def add_features_output(path: Path) -> bool:
    """Give an exported index classifier made before :func:`export_classifier` its second
    output, "features" (the input of its last linear layer), leaving its logits as they
    are; False when it already has one."""
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == "features" for o in graph.output):
        return False
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    width = next(i for i in graph.initializer if i.name == gemm.input[1]).dims[1] \
        if any(i.name == gemm.input[1] for i in graph.initializer) else None
    if width is None:  # an 8-bit model: the weights are dequantized from their int8 copy
        source = next(n for n in graph.node if gemm.input[1] in n.output)
        width = next(i for i in graph.initializer if i.name == source.input[0]).dims[1]
    graph.node.append(onnx.helper.make_node("Identity", [gemm.input[0]], ["features"],
                                            name="features_out"))
    graph.output.append(onnx.helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT,
                                                           ["n", int(width)]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def _logits(model: Classifier, x: np.ndarray) -> np.ndarray:
    """Logits of grey crops (N, H, W) in batches (design A's calibration)."""
    with torch.no_grad():
        return np.concatenate([model(torch.from_numpy(x[i:i + 512, None].astype(np.float32) / 255))
                               .numpy() for i in range(0, len(x), 512)]) if len(x) else \
            np.zeros((0, len(ds.CLASSES)), np.float32)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """Temperature minimising the negative log-likelihood on held-out crops."""
    z = torch.from_numpy(logits.astype(np.float32))
    t = torch.from_numpy(y)
    log_t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=100)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(z / log_t.exp(), t)
        loss.backward()
        return loss

    opt.step(closure)
    return float(log_t.exp().item())


def pick_threshold(probs: np.ndarray, y: np.ndarray, none_index: int,
                   max_error: float = 0.001, also: np.ndarray | None = None) -> float:
    """Lowest confidence above which card reads are wrong at most ``max_error`` of the time.

    ``also``: for each sample, a second answer that is no mistake (the card a
    hidden index shows, see :data:`vision.lab.dataset.HIDDEN`), or -1."""
    pred = probs.argmax(1)
    conf = probs.max(1)
    cards = pred != none_index
    order = np.argsort(-conf[cards])
    wrong = pred[cards] != y[cards]
    if also is not None:
        wrong &= pred[cards] != also[cards]
    wrong = wrong[order]
    c = conf[cards][order]
    errors = np.cumsum(wrong)
    ok = errors <= max_error * np.arange(1, len(c) + 1)
    # The longest prefix (surest reads first) that keeps the error rate low.
    last = np.nonzero(ok)[0]
    if not len(last):
        return 0.99
    k = int(last.max())
    return float(max(0.5, c[k]))


# --------------------------------------------------------------------------- the whole run
def run(seed: int = 0, steps: int = 3000, out: Path | None = None, scenes: int = 1200,
        real: bool = True, det_steps: int | None = None, log=print,
        faces: int = 3000, cache: Path | None = None,
        parts: tuple[str, ...] = PARTS, threads: int = 1, detector_scenes: int = 0,
        look_scenes: int = 0, init: Path | None = None,
        label_fixes: Path | None = None, aspect: float = 1.0, decks: bool = False,
        det_init: Path | None = None, recolour: float = 0.0, more_scenes: int = 0,
        printed_scenes: int = 0, max_error: float | None = None,
        spread_scenes: int = 0) -> dict:
    """Train, export and calibrate the models; returns a summary (also written as JSON).

    ``parts`` picks which of the three models to (re)train; the data are drawn
    the same way whatever the choice, so training them one at a time gives the
    same weights as one run of all three. ``label_fixes`` corrects the real
    photos' labels (see :mod:`vision.lab.labelfix`); None takes them as they are.
    ``aspect`` above 1 stretches training patches by up to that ratio of width to
    height (see :func:`_rotate_crop`); 1, as the first models were trained, draws nothing.
    ``decks`` draws the printed-French styles and the real deck designs of
    :mod:`vision.lab.decks` (but those held out) beside the first styles, in frames cached
    under names of their own; ``det_init`` is a detector to train further;
    ``recolour`` the share of index patches lit red or printed gold on black (see
    :func:`_desaturate`); ``max_error`` the thresholds' rule (``INDEX_MAX_ERROR``);
    ``more_scenes`` and ``printed_scenes`` frames more, cut at the
    detector's boxes (the latter with the French styles as the only extra ones: printed-French
    and the designs with French indices); ``spread_scenes`` frames of cards spread
    overlapping (a fan or a row: :func:`vision.lab.render.render_spread_scene`), their
    indices close together, drawn beside the others for the detector and the classifier.
    """
    global INDEX_MAX_ERROR
    if max_error is not None:
        if not 0.0 < max_error < 0.1:
            raise ValueError(f"max_error: expected a share above 0 and under 0.1, got {max_error}")
        INDEX_MAX_ERROR = max_error  # the thresholds' rule for this process from now on
    if printed_scenes and not decks:
        raise ValueError("printed_scenes: the printed-French styles are drawn with decks=True")
    if not 1.0 <= aspect <= 2.0:
        raise ValueError(f"aspect: expected a ratio from 1 to 2, got {aspect}")
    # One thread by default: the machine is shared, and oversubscribed torch
    # threads spin and stall. The thread count can change the last bits of the weights.
    torch.set_num_threads(threads)
    init_crc = None
    if init is not None:
        # Refuse an unreadable starting model now, not after the data are loaded; its
        # checksum is taken before a run into the same folder overwrites it.
        if any(n.op_type == "DequantizeLinear" for n in _onnx_graph(init).node):
            raise ValueError(f"{init}: an 8-bit model, which cannot be trained further; start "
                             f"from its float model ({FLOAT_CLASSIFIER} beside it)")
        init_crc = f"{zlib.crc32(Path(init).read_bytes()):08x}"
    if label_fixes is not None:
        from vision.lab.labelfix import load_fixes

        load_fixes(label_fixes)  # a bad corrections file is refused before any work
    out = Path(out) if out else MODELS
    if "quantize" in parts and "classifier" not in parts and \
            not (out / FLOAT_CLASSIFIER).is_file():
        raise ValueError(f"{out / FLOAT_CLASSIFIER}: no float classifier to quantize")
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    det_steps = det_steps if det_steps is not None else max(steps // 3, 1)
    t0 = time.time()

    # Synthetic frames: cached shards named after their seed, rendered when missing.
    prefix, box_tag = "v", ""  # the cache names of the first styles' frames, as they were
    if decks:
        from vision.lab import render
        from vision.lab.decks import NOT_CACHED

        added = render.use_extra_styles()
        if not any(st.art for st in added):
            raise ValueError(NOT_CACHED)
        prefix = box_tag = "d"
        summary_decks = sorted({st.art for st in added if st.art})
    shards = []
    per_shard = 600
    for k in range(max(1, math.ceil(scenes / per_shard))):
        n = min(per_shard, scenes - k * per_shard) if scenes >= per_shard else scenes
        path = (cache or DATA) / f"synth{prefix}_{seed * 100 + k + 1}_{n}.npz"
        if not path.is_file():
            log(f"rendering {n} synthetic frames -> {path}")
            ds.cache_synthetic(seed * 100 + k + 1, n, path)
        shards.append(ds.load_synthetic(path))
    for k in range(math.ceil(spread_scenes / per_shard)):
        n = min(per_shard, spread_scenes - k * per_shard)
        path = (cache or DATA) / f"spread{prefix}_{seed * 100 + 71 + k}_{n}.npz"
        if not path.is_file():
            log(f"rendering {n} frames of spread cards -> {path}")
            ds.cache_synthetic(seed * 100 + 71 + k, n, path, spread=True)
        # Before the last shard of the first frames: its last tenth still calibrates.
        shards.insert(len(shards) - 1, ds.load_synthetic(path))
    frames = [f for s in shards for f in s[0]]
    boxes = [b for s in shards for b in s[1]]
    crops = np.concatenate([s[2] for s in shards])
    labels = np.concatenate([s[3] for s in shards])
    is_real = [False] * len(frames)
    # Second-look patches of calibration boxes (real ``calib`` photos, detector boxes).
    look_f: list[np.ndarray] = []  # the first read's patch of each second-look box
    look_x: list[np.ndarray] = []
    look_y: list[np.ndarray] = []
    crop_real = np.zeros(len(crops), bool)
    # The last synthetic shard's last tenth calibrates (never trained on).
    n_cal = max(1, len(crops) // 10)
    cal_x, cal_y = crops[-n_cal:], labels[-n_cal:]
    crops, labels, crop_real = crops[:-n_cal], labels[:-n_cal], crop_real[:-n_cal]
    if real:
        rf, rb, rc, ry = ds.real_index_samples("train", rng, fixes=label_fixes)
        frames += rf
        boxes += rb
        is_real += [True] * len(rf)
        crops = np.concatenate([crops, rc])
        labels = np.concatenate([labels, ry])
        crop_real = np.concatenate([crop_real, np.ones(len(ry), bool)])
    summary_path = out / "train_summary.json"
    summary: dict = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    if "detector" in parts:
        # First: the classifier learns on the boxes this detector gives.
        det_start = None
        if det_init is not None:
            prng = np.random.default_rng(seed + 13)
            sample = np.stack([_det_sample(frames[int(i)], boxes[int(i)], prng, is_real[int(i)],
                                           aspect)[0]
                               for i in prng.choice(len(frames), size=min(64, len(frames)))])
            det_start = detector_from_onnx(det_init, sample)
            log(f"detector: starting from {det_init}")
        det = train_detector(frames, boxes, is_real, det_steps, seed, log=log, aspect=aspect,
                             init=det_start)
        summary["det_aspect"] = aspect
        ddiff = export_onnx(det, torch.zeros(1, 1, 96, 160), out / "index_detector.onnx",
                            dynamic_hw=True)
        summary["detector"] = {"onnx_max_diff": ddiff}
    detector = out / "index_detector.onnx"
    if not detector.is_file():
        detector = MODELS / "index_detector.onnx"
    if real:
        # The real ``calib`` photos calibrate; their second-look patches are cut where
        # the detector boxes each index on a closer look, as the reader cuts them.
        _, _, kc, ky, kl, kly = ds.real_index_samples(
            "calib", rng, crops_per_box=1, negatives=3, looks=True, fixes=label_fixes,
            detector=detector if detector.is_file() else None)
        cal_x, cal_y = np.concatenate([cal_x, kc]), np.concatenate([cal_y, ky])
        look_f.append(kc)
        look_x.append(kl)
        look_y.append(kly)
    if detector_scenes and detector.is_file():
        # Patches at the detector's own boxes on frames of their own: the hard
        # ``none`` cases (pips, pictures) weigh three times; the last quarter calibrates.
        # The cache names change whenever the boxes would (6: coarse boxes give way to
        # finer ones, ``IndexDetector.FINE_SIDE``); the tag names the detector file.
        tag = zlib.crc32(detector.read_bytes()) % 10000
        path = (cache or DATA) / f"detbox6{box_tag}_{seed * 100 + 51}_{detector_scenes}_{tag}.npz"
        if not path.is_file():
            log(f"rendering {detector_scenes} frames for the detector's boxes -> {path}")
            ds.cache_detector_samples(seed * 100 + 51, detector_scenes, detector, path)
        hx, hy, kx, ky = _detector_shard(path, look_f, look_x, look_y)
        cal_x, cal_y = np.concatenate([cal_x, kx]), np.concatenate([cal_y, ky])
        hard = ds.taught(hy) == ds.NONE_INDEX
        hx = np.concatenate([hx, hx[hard], hx[hard]])
        hy = np.concatenate([hy, hy[hard], hy[hard]])
        crops, labels = np.concatenate([crops, hx]), np.concatenate([labels, hy])
        crop_real = np.concatenate([crop_real, np.zeros(len(hy), bool)])
        if look_scenes:
            # Frames of their own, never trained on, for the second look alone: few boxes
            # are unsure at first, and its threshold needs a few hundred of them.
            path = (cache or DATA) / f"detlook6{box_tag}_{seed * 100 + 61}_{look_scenes}_{tag}.npz"
            if not path.is_file():
                log(f"rendering {look_scenes} frames for the second look -> {path}")
                ds.cache_detector_samples(seed * 100 + 61, look_scenes, detector, path)
            with np.load(path) as d:
                look_f.append(d["crops"])
                look_x.append(d["looks"])
                look_y.append(d["look_labels"])
        # More frames at the detector's boxes, where an unsure read costs a second look:
        # ``more_scenes`` of the training mix, ``printed_scenes`` with the printed-French
        # styles as the only extra ones. Each shard: three quarters train, the rest calibrates.
        for kind, total, base in (("more", more_scenes, MORE_SEED),
                                  ("printed", printed_scenes, PRINTED_SEED)):
            for k in range(math.ceil(total / MORE_SHARD)):
                n = min(MORE_SHARD, total - k * MORE_SHARD)
                path = (cache or DATA) / f"det{kind}{box_tag}_{seed * 100 + base + k}_{n}_{tag}.npz"
                if not path.is_file():
                    log(f"rendering {n} frames for the detector's boxes ({kind}) -> {path}")
                    if kind == "printed" and decks:
                        render.use_extra_styles(art=False, printed=True)
                    try:
                        ds.cache_detector_samples(seed * 100 + base + k, n, detector, path)
                    finally:
                        if kind == "printed" and decks:
                            render.use_extra_styles()
                mx, my, kx, ky = _detector_shard(path, look_f, look_x, look_y)
                cal_x, cal_y = np.concatenate([cal_x, kx]), np.concatenate([cal_y, ky])
                crops, labels = np.concatenate([crops, mx]), np.concatenate([labels, my])
                crop_real = np.concatenate([crop_real, np.zeros(len(my), bool)])
    log(f"data: {len(frames)} frames, {len(crops)} index crops, {len(cal_x)} calibration crops "
        f"({time.time() - t0:.0f}s)")

    if "detector" in parts:
        summary["det_steps"] = det_steps  # only the detector trained here has this count
    summary.update({"seed": seed, "steps": steps, "scenes": scenes,
                    "detector_scenes": detector_scenes, "look_scenes": look_scenes,
                    "real": real,
                    "label_fixes": (f"{label_fixes.name} crc32 "
                                    f"{zlib.crc32(Path(label_fixes).read_bytes()):08x}"
                                    if label_fixes else None),
                    "classes": list(ds.CLASSES),
                    "decks": summary_decks if decks else None, "recolour": recolour,
                    "more_scenes": more_scenes, "printed_scenes": printed_scenes,
                    "spread_scenes": spread_scenes,
                    "french_art": bool(decks),
                    "max_error": INDEX_MAX_ERROR,
                    "grey_max_error": grey_max_error(),
                    "real_split": "bursts (vision.lab.dataset.BURST_SPLITS)"})
    looks = (np.concatenate(look_f), np.concatenate(look_x), np.concatenate(look_y)) \
        if look_x else None
    if "classifier" in parts:
        summary["classifier"] = _train_index_classifier(crops, labels, crop_real, cal_x, cal_y,
                                                        seed, steps, out, log, looks, init,
                                                        aspect, recolour)
        if init is not None:
            summary["classifier"]["init"] = {"file": init.name,
                                             "crc32": init_crc, "steps": steps}
    if "quantize" in parts:
        summary["classifier"].update(_quantize_and_calibrate(crops, cal_x, cal_y, seed, out,
                                                             log, looks))
    if "calibrate" in parts:
        summary["classifier"].update(calibrate_index_classifier(out, cal_x, cal_y, seed, log,
                                                                looks))
    if "corner" in parts:
        summary["corner"] = _train_design_a(seed, steps, out, rng, log, faces, real,
                                            label_fixes)
    summary["seconds_" + "+".join(parts)] = round(time.time() - t0, 1)
    summary_path.write_text(json.dumps(summary, indent=2) + "\n")
    log(f"done in {time.time() - t0:.0f}s")
    return summary


def _detector_shard(path: Path, look_f: list, look_x: list, look_y: list):
    """A cached shard of patches at the detector's boxes: its first three quarters to train
    on (patches, labels), its last quarter to calibrate (patches, labels), that quarter's
    second-look patches appended to ``look_f``, ``look_x``, ``look_y``."""
    with np.load(path) as d:
        x, y = d["crops"], d["labels"]
        cut = len(x) * 3 // 4
        look_f.append(x[cut:])
        look_x.append(d["looks"][cut:])
        look_y.append(d["look_labels"][cut:])
    return x[:cut], y[:cut], x[cut:], y[cut:]


def _train_index_classifier(crops, labels, crop_real, cal_x, cal_y, seed, steps, out, log,
                            looks=None, init: Path | None = None, aspect: float = 1.0,
                            recolour: float = 0.0):
    start = None
    if init is not None:
        # Train an exported classifier further, at a third of the learning rate.
        pick = np.random.default_rng(seed + 7).choice(len(crops), size=min(1024, len(crops)),
                                                      replace=False)
        start = classifier_from_onnx(init, crops[pick])
        log(f"classifier: starting from {init}")
    clf = train_classifier(crops, ds.taught(labels), steps, seed, len(ds.CLASSES), rotate=True,
                           log=log, real=crop_real, init=start,
                           max_lr=3e-3 if start is None else 1e-3, aspect=aspect,
                           recolour=recolour)
    diff = export_classifier(clf, out / FLOAT_CLASSIFIER)
    result = _quantize_and_calibrate(crops, cal_x, cal_y, seed, out, log, looks)
    result["onnx_max_diff"] = diff
    result["aspect"] = aspect
    return result


def _quantize_and_calibrate(crops, cal_x, cal_y, seed, out, log, looks=None) -> dict:
    """The exported float classifier in ``out`` made 8-bit, then calibrated as it runs."""
    pick = np.random.default_rng(seed + 11).choice(len(crops), size=min(QUANT_SAMPLES,
                                                                        len(crops)), replace=False)
    agree = quantize_classifier(out / FLOAT_CLASSIFIER, out / "index_classifier.onnx",
                                crops[pick], cal_x)
    log(f"classifier: 8-bit, same answer as the float model on {agree:.4f} of the "
        f"calibration crops")
    result = calibrate_index_classifier(out, cal_x, cal_y, seed, log, looks)
    result["quantized"] = {"format": "QDQ, int8 weights per channel within 7 bits "
                                     "(reduce_range), uint8 activations",
                           "samples": int(len(pick)), "float_agreement": agree}
    return result


def quantize_classifier(float_path: Path, out_path: Path, sample: np.ndarray,
                        check: np.ndarray) -> float:
    """Write ``out_path``: the float index classifier with 8-bit convolutions and linear
    layer (onnxruntime's static quantization, QDQ format, weights per channel). The ReLUs
    are quantized too, so that onnxruntime folds each into the convolution before it
    instead of running it in float between two (de)quantizations.

    The activations' ranges come from ``sample`` (uint8 colour patches, as the
    training saw them) read at the reader's quarter turns. 8-bit runs about twice
    as fast on a CPU with integer dot products (measured with x86 VNNI; the Pi 5's
    Arm dot product is expected to do the same). The weights keep 7 bits
    (``reduce_range``): an x86 CPU with AVX2 but no VNNI multiplies uint8 by int8
    in pairs summed into 16 bits, which full 8-bit weights overflow, and the
    model then reads almost every index as ``none``; with 7 bits no pair can
    overflow. Returns the share of ``check``
    patches whose answer (argmax) is the float model's: the calibration that
    follows is fitted on the 8-bit model itself.
    """
    import tempfile

    import onnxruntime as ort
    from onnxruntime import quantization as q
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class _Sample(q.CalibrationDataReader):
        def __init__(self) -> None:
            x = model_input(sample, TTA_TURNS)
            self._it = iter([{"image": x[i:i + 64]} for i in range(0, len(x), 64)])

        def get_next(self) -> dict | None:
            return next(self._it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(float_path), str(pre))
        q.quantize_static(str(pre), str(out_path), _Sample(), quant_format=q.QuantFormat.QDQ,
                          per_channel=True, activation_type=q.QuantType.QUInt8,
                          weight_type=q.QuantType.QInt8, reduce_range=True,
                          op_types_to_quantize=["Conv", "Gemm", "Relu"],
                          calibrate_method=q.CalibrationMethod.MinMax)
    x = model_input(check[:2048], TTA_TURNS)
    a = ort.InferenceSession(str(float_path), providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(str(out_path), providers=["CPUExecutionProvider"])
    same = a.run(None, {"image": x})[0].argmax(1) == b.run(None, {"image": x})[0].argmax(1)
    return float(same.mean())


def grey_max_error() -> float:
    """The grey frames' rule in this process: ``GREY_MAX_ERROR``, or the colour rule where
    that is stricter."""
    return min(INDEX_MAX_ERROR, GREY_MAX_ERROR)


def calibrate_index_classifier(out: Path, cal_x: np.ndarray, cal_y: np.ndarray, seed: int,
                               log=print,
                               looks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                               ) -> dict:
    """Fit the temperature and threshold of the exported index classifier on held-out crops.

    The reader sums the logits of a patch read at ``TTA_TURNS`` quarter turns
    (the index may lie any way up), so calibration does the same, through onnxruntime: what
    is calibrated is exactly what runs. ``looks`` (second-look patches of held-out
    boxes, with their labels) calibrate the second look on the boxes it is for:
    those whose first read is under the first threshold.
    """
    from vision.classify import CardClassifier, make_session

    clf = CardClassifier.__new__(CardClassifier)
    clf.meta = {"tta": TTA_TURNS, "channels": 3}
    clf.classes = list(ds.CLASSES)
    clf.session = make_session(out / "index_classifier.onnx", 1)
    clf.input_name = clf.session.get_inputs()[0].name
    cal_logits = clf.logits(cal_x)
    also, cal_y = ds.shown(cal_y), ds.taught(cal_y)
    temperature = fit_temperature(cal_logits, cal_y)
    probs = softmax(cal_logits / temperature)
    threshold = pick_threshold(probs, cal_y, ds.NONE_INDEX, INDEX_MAX_ERROR, also)
    result: dict = {"temperature": temperature, "threshold": threshold,
                    "calib_accuracy": float((probs.argmax(1) == cal_y).mean()),
                    "calib_crops": int(len(cal_y))}
    log(f"classifier: T={temperature:.3f} threshold={threshold:.3f} "
        f"calib accuracy {result['calib_accuracy']:.4f}")
    meta = {"design": "B", "classes": list(ds.CLASSES), "temperature": temperature,
            "threshold": threshold, "crop": INDEX_CROP, "pad": INDEX_PAD, "tta": TTA_TURNS,
            "channels": 3,
            "detector": "index_detector.onnx", "stride": DET_STRIDE,
            "heat_threshold": READ_HEAT,
            "seed": seed, "trained": time.strftime("%Y-%m-%d", time.gmtime())}
    if (out / FLOAT_CLASSIFIER).is_file():
        meta["float_model"] = FLOAT_CLASSIFIER  # what ``--init`` trains further
    # A grey frame (a black-and-white camera) says nothing of the suits' colour: the same
    # patches turned grey, at the same temperature, give the stricter threshold its reads
    # need (``vision.reader.is_grey``).
    grey_probs = softmax(clf.logits(grey_patches(cal_x)) / temperature)
    grey_error = grey_max_error()
    grey = {"threshold": max(threshold, pick_threshold(grey_probs, cal_y, ds.NONE_INDEX,
                                                       grey_error, also))}
    result["grey"] = {"threshold": grey["threshold"],
                      "calib_accuracy": float((grey_probs.argmax(1) == cal_y).mean())}
    log(f"grey frames: threshold={grey['threshold']:.4f} "
        f"calib accuracy {result['grey']['calib_accuracy']:.4f}")
    if looks is not None and len(looks[2]):
        look = calibrate_second_look(clf, looks[1], looks[2], temperature, threshold,
                                     first=looks[0])
        if look is not None:
            meta["second_look"] = {k: look[k] for k in ("turns", "temperature", "threshold",
                                                        "floor")}
            result["second_look"] = look
            log(f"second look: T={look['temperature']:.3f} threshold={look['threshold']:.3f} "
                f"on {look['unsure']} unsure boxes, {look['recovered']} read surely; "
                f"none under {look['floor']:.4f} ({look['skipped']:.2f} of them)")
            # The grey frames' look as the grey rule fits it on colour boxes (the same look
            # when the two rules are one): its temperature, and a threshold the grey one
            # is never under, owe nothing to a looser colour rule.
            strict = look
            if grey_error < INDEX_MAX_ERROR:
                strict_first = pick_threshold(probs, cal_y, ds.NONE_INDEX, grey_error, also)
                strict = calibrate_second_look(clf, looks[1], looks[2], temperature,
                                               max(threshold, strict_first), first=looks[0],
                                               max_error=grey_error) or look
            grey_look = calibrate_second_look(
                clf, grey_patches(looks[1]), looks[2], temperature, grey["threshold"],
                first=grey_patches(looks[0]), look_temperature=strict["temperature"],
                max_error=grey_error)
            grey["look_threshold"] = max(strict["threshold"], grey_look["threshold"]) \
                if grey_look is not None else 1.0
            grey["look_temperature"] = strict["temperature"]
            result["grey"]["look"] = grey_look
            log(f"grey frames: second look threshold={grey['look_threshold']:.4f}")
    meta["grey"] = grey
    # The reader's tuned values travel with the model (``vision.settings``): a new model
    # starts from the shipped one's, for the lab's rule scripts to choose again on it.
    meta["reader"] = shipped_settings().to_json()
    (out / "index_classifier.json").write_text(json.dumps(meta, indent=2) + "\n")
    return result


def grey_patches(x: np.ndarray) -> np.ndarray:
    """uint8 BGR patches (..., H, W, 3) as a grey picture in three channels, as the reader
    cuts them from a grey frame."""
    if x.size == 0:
        return x.copy()
    # OpenCV's own conversion, the reader's, on all the patches as one tall picture.
    flat = np.ascontiguousarray(x).reshape(-1, x.shape[-2], 3)
    grey = cv2.cvtColor(cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return grey.reshape(x.shape)


def calibrate_second_look(clf, look_x: np.ndarray, look_y: np.ndarray, temperature: float,
                          threshold: float, turns: int = LOOK_TURNS,
                          first: np.ndarray | None = None,
                          look_temperature: float | None = None,
                          max_error: float | None = None) -> dict | None:
    """Temperature and threshold of the second look, fitted on the held-out boxes whose
    first read (one patch ``first``, ``TTA_TURNS`` turns; by default the first of the
    looks) is unsure: the boxes it will be used on.
    The threshold follows the same rule as the first read's (``INDEX_MAX_ERROR``, or
    ``max_error`` when given: the grey frames' rule).
    ``look_temperature`` keeps the look's temperature as given (the grey frames' threshold
    is fitted at the colour one's). None when too few boxes are unsure to fit anything."""
    first_read = softmax(clf.logits(look_x[:, 0] if first is None else first) / temperature)
    unsure = first_read.max(axis=1) < threshold
    if unsure.sum() < 50:
        return None
    # A closer box that half meets an index holds neither its card nor ``none``.
    unsure &= look_y != ds.AMBIGUOUS
    z = clf.look_logits(look_x[unsure], turns)  # read a batch at a time (CardClassifier.BATCH)
    also, y = ds.shown(look_y[unsure]), ds.taught(look_y[unsure])
    t2 = fit_temperature(z, y) if look_temperature is None else look_temperature
    probs = softmax(z / t2)
    th2 = pick_threshold(probs, y, ds.NONE_INDEX,
                         INDEX_MAX_ERROR if max_error is None else max_error, also)
    pred, conf = probs.argmax(1), probs.max(1)
    sure = (pred != ds.NONE_INDEX) & (conf >= th2)
    right = (pred == y) | (pred == also)
    floor = look_floor(np.delete(first_read[unsure], ds.NONE_INDEX, axis=1).max(axis=1),
                       sure & right)
    return {"turns": turns, "temperature": t2, "threshold": th2, "unsure": int(unsure.sum()),
            "recovered": int((sure & right).sum()), "wrong": int((sure & ~right).sum()),
            **floor}


def look_floor(top_card: np.ndarray, recovered: np.ndarray,
               loss: float = LOOK_SKIP_LOSS) -> dict:
    """The chance of its likeliest card under which an unsure box gets no second look.

    Most unsure boxes are pips or pictures the first read already all but rules out,
    and a look costs as much as reading a card three times. The floor is the highest
    that skips at most ``loss`` of the boxes the look reads surely and right
    (``recovered``), on the calibration's boxes (``top_card``: the first read's
    likeliest card, ``none`` left out). Returns the floor and the share of unsure
    boxes it skips.
    """
    allowed = int(loss * int(recovered.sum()))
    kept = np.sort(top_card[recovered])
    # Skipping the boxes under the (allowed+1)-th recovered box's chance loses `allowed`.
    floor = float(kept[allowed]) if len(kept) > allowed else 0.0
    return {"floor": floor, "skipped": float((top_card < floor).mean()) if len(top_card) else 0.0}


def synthetic_corner_crops(seed: int, n_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """Design A's training crops: rendered faces (every style), outline jittered."""
    from vision.lab.render import NEGATIVE_CODES, render_card

    rng = np.random.default_rng(seed)
    codes = list(CARD_CODES) + list(NEGATIVE_CODES)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for i in range(n_faces):
        code = codes[i % len(codes)] if i % 5 else codes[int(rng.integers(len(CARD_CODES)))]
        face = render_card(code, None, rng)
        pair = ds.face_crops(face, rng, jitter=0.04)
        xs.extend(pair)
        ys.extend([ds.label_index(code)] * 2)
    return np.stack(xs), np.array(ys, np.int64)


def _train_design_a(seed: int, steps: int, out: Path, rng: np.random.Generator, log,
                    faces: int, real: bool, label_fixes: Path | None = None) -> dict:
    x, y = synthetic_corner_crops(seed, faces)
    cx, cy = synthetic_corner_crops(seed + 1000, max(faces // 8, 8))
    if real:
        rx, ry = ds.real_scene_crops("train", rng, copies=4, jitter=0.03,
                                      fixes=label_fixes)
        bx, by = ds.real_box_crops("train", rng, copies=3, fixes=label_fixes)
        x = np.concatenate([x, rx, bx])
        y = np.concatenate([y, ry, by])
        kx, ky = ds.real_scene_crops("calib", rng, fixes=label_fixes)
        cx, cy = np.concatenate([cx, kx]), np.concatenate([cy, ky])
    model = train_classifier(x, y, steps, seed, len(ds.CLASSES), rotate=False, log=log)
    diff = export_onnx(model, torch.zeros(4, 1, CROP_H, CROP_W), out / "card_corner.onnx",
                       dynamic_hw=False)
    logits = _logits(model, cx)
    temperature = fit_temperature(logits, cy)
    probs = softmax(logits / temperature)
    threshold = pick_threshold(probs, cy, ds.NONE_INDEX)
    meta = {"design": "A", "classes": list(ds.CLASSES), "temperature": temperature,
            "threshold": threshold, "crop_w": CROP_W, "crop_h": CROP_H,
            "region": list(INDEX_REGION), "seed": seed,
            "trained": time.strftime("%Y-%m-%d", time.gmtime())}
    (out / "card_corner.json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"design A corner classifier: T={temperature:.3f} threshold={threshold:.3f}")
    return {"onnx_max_diff": diff, "temperature": temperature, "threshold": threshold,
            "calib_accuracy": float((probs.argmax(1) == cy).mean())}
