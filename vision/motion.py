"""A frame smeared by the camera's motion: how far and which way, and the frame sharpened.

A camera shaken while it exposes (a knock on the table, a loose mount) smears the whole
frame along one line: each point becomes a short streak. Such a blur multiplies the
frame's spectrum by that of a line, whose zeros come back at a spacing set by the
streak's length; in the *cepstrum* (the inverse transform of the spectrum's logarithm)
they make one deep trough at the streak's length and direction from the centre
(:func:`estimate`). Knowing the streak, the frame is sharpened by a Wiener filter
(:func:`sharpen`): the inverse of the streak's blur, held back where the blur left
little of the picture.

The reader sharpens a frame only where it leaves a card index unsure and the frame is
clearly smeared (``vision.reader.CardReader``), then reads it again: a card named only
there needs a surer read than a first read does (the settings' ``sharpened_sure``).
It sharpens the surroundings of those cards, not the frame, piece by piece
(:func:`sharpen_box`): what that takes is the pieces', whatever the photo's size.

numpy and OpenCV only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.settings import ReaderSettings, shipped_settings


@dataclass(frozen=True)
class Motion:
    """A frame's streak: ``length`` in pixels, ``angle`` in radians (counterclockwise on
    screen from the x axis), and ``depth``: how far the cepstrum's trough lies below the
    rest of the searched disc, in standard deviations (a clear streak: 2.5 or more)."""

    length: float
    angle: float
    depth: float


def estimate(gray: np.ndarray, settings: ReaderSettings | None = None) -> Motion:
    """The streak of a grey frame (H x W uint8 or float), from the cepstrum of
    ``motion_tiles`` squares across its middle (at most ``motion_tile`` a side, their log
    spectra averaged), its trough searched from ``motion_shortest`` to ``motion_longest``
    pixels from the centre (a focus blur's, or the picture's own, fall-off lies nearer).
    ``settings``: the reader's (None: the shipped model's)."""
    settings = settings or shipped_settings()
    longest, tiles = settings.motion_longest, settings.motion_tiles
    g = np.asarray(gray, np.float32)
    h, w = g.shape[:2]
    if min(h, w) < 2 * longest or float(g.std()) < 1.0:
        return Motion(0.0, 0.0, 0.0)  # too small, or blank: no streak to tell
    side = min(settings.motion_tile, h, w)
    window = np.outer(np.hanning(side), np.hanning(side)).astype(np.float32)
    # The log spectra of the squares across the frame, averaged: the picture's own
    # content differs from square to square, the streak does not.
    y0 = (h - side) // 2
    log = np.zeros((side, side), np.float32)
    starts = (np.linspace(0, w - side, tiles).round().astype(int) if tiles > 1
              else [(w - side) // 2])
    for x0 in starts:
        tile = g[y0:y0 + side, x0:x0 + side]
        tile = (tile - float(tile.mean())) * window
        spectrum = cv2.dft(tile, flags=cv2.DFT_COMPLEX_OUTPUT)
        magnitude = cv2.magnitude(spectrum[..., 0], spectrum[..., 1])
        log += np.log(magnitude + 1e-3).astype(np.float32) / len(starts)
    # The log spectrum is real and even: its forward transform is its inverse, scaled.
    ceps = cv2.dft(log, flags=cv2.DFT_COMPLEX_OUTPUT)[..., 0]
    r = int(np.ceil(longest))
    # The cepstrum wraps round: its centre is the corner; gather the disc around it.
    rows = np.arange(-r, r + 1) % side
    disc = ceps[np.ix_(rows, rows)].astype(np.float64)
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    radius = np.hypot(xx, yy)
    searched = (radius >= settings.motion_shortest) & (radius <= longest)
    values = disc[searched]
    i = int(np.argmin(np.where(searched, disc, np.inf)))
    dy, dx = int(yy.ravel()[i]), int(xx.ravel()[i])
    depth = float((values.mean() - disc.ravel()[i]) / max(float(values.std()), 1e-9))
    return Motion(float(np.hypot(dx, dy)), float(np.arctan2(-dy, dx)), depth)


def streak(length: float, angle: float) -> np.ndarray:
    """The blur kernel of a straight streak ``length`` pixels long at ``angle``: a line
    drawn with bilinear weights, summing to 1 (an odd square)."""
    side = (int(np.ceil(length)) | 1) + 2
    kernel = np.zeros((side, side), np.float64)
    c = (side - 1) / 2
    for t in np.linspace(-(length - 1) / 2, (length - 1) / 2, max(int(length * 4), 2)):
        x, y = c + t * np.cos(angle), c - t * np.sin(angle)
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        for dx, dy, weight in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                               (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            if 0 <= x0 + dx < side and 0 <= y0 + dy < side:
                kernel[y0 + dy, x0 + dx] += weight
    out: np.ndarray = (kernel / kernel.sum()).astype(np.float32)
    return out


def sharpen(frame: np.ndarray, motion: Motion, k: float | None = None,
            settings: ReaderSettings | None = None) -> np.ndarray:
    """``frame`` (BGR or grey, uint8) with ``motion``'s streak undone by a Wiener filter;
    the edges mirrored first so that the frame does not wrap round into itself. ``k``:
    the filter's noise-to-signal ratio, how much it holds back where the streak's blur
    left little (higher: less ringing, less sharpening; None: the settings' ``wiener_k``)."""
    if k is None:
        k = (settings or shipped_settings()).wiener_k
    kernel = streak(motion.length, motion.angle)
    margin = kernel.shape[0] * 3
    h, w = frame.shape[:2]
    padded = cv2.copyMakeBorder(frame, margin, margin, margin, margin, cv2.BORDER_REFLECT)
    ph, pw = cv2.getOptimalDFTSize(padded.shape[0]), cv2.getOptimalDFTSize(padded.shape[1])
    psf = np.zeros((ph, pw), np.float32)
    ks = kernel.shape[0]
    psf[:ks, :ks] = kernel
    psf = np.roll(psf, (-(ks // 2), -(ks // 2)), axis=(0, 1))
    h_f = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    re, im = h_f[..., 0], h_f[..., 1]
    # conj(H) / (|H|^2 + k), as a complex spectrum, times 1 + k: the frame's mean
    # brightness kept (|H| is 1 there).
    power = (re * re + im * im + k) / (1.0 + k)
    g_f = np.dstack([re / power, -im / power]).astype(np.float32)
    channels = [padded] if padded.ndim == 2 else cv2.split(padded)
    out = []
    for channel in channels:
        plane = np.zeros((ph, pw), np.float32)
        plane[:padded.shape[0], :padded.shape[1]] = channel
        spectrum = cv2.dft(plane, flags=cv2.DFT_COMPLEX_OUTPUT)
        fixed = cv2.mulSpectrums(spectrum, g_f, 0)
        back = cv2.dft(fixed, flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_INVERSE | cv2.DFT_SCALE)
        out.append(back[margin:margin + h, margin:margin + w])
    merged = out[0] if len(out) == 1 else cv2.merge(out)
    result: np.ndarray = np.clip(merged, 0, 255).astype(np.uint8)
    return result


#: The largest side of a piece sharpened at once (pixels), and its margin of the frame
#: around it in streak lengths (the reach of the filter's ringing): each piece's spectra
#: take a few megabytes, where an 8000 x 8000 photo sharpened whole took 6 GB.
PIECE = 1024
MARGIN_STREAKS = 8


def sharpen_box(frame: np.ndarray, motion: Motion, box: tuple[int, int, int, int],
                k: float | None = None, settings: ReaderSettings | None = None,
                piece: int = PIECE) -> np.ndarray:
    """The part ``box`` (x0, y0, x1, y1: pixels, the ends left out) of ``frame`` as
    :func:`sharpen` makes it of the whole frame, sharpened piece by piece: at most
    ``piece`` pixels a side, each with ``MARGIN_STREAKS`` streak lengths of the frame
    around it (mirrored where the frame ends, as the whole frame's edges are)."""
    x0, y0, x1, y1 = box
    h, w = frame.shape[:2]
    margin = MARGIN_STREAKS * streak(motion.length, motion.angle).shape[0]
    out = np.empty((y1 - y0, x1 - x0, *frame.shape[2:]), np.uint8)
    for top in range(y0, y1, piece):
        for left in range(x0, x1, piece):
            bottom, right = min(top + piece, y1), min(left + piece, x1)
            a, b = max(0, top - margin), max(0, left - margin)
            around = frame[a:min(h, bottom + margin), b:min(w, right + margin)]
            done = sharpen(around, motion, k, settings)
            out[top - y0:bottom - y0, left - x0:right - x0] = \
                done[top - a:bottom - a, left - b:right - b]
    return out
