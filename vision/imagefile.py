"""Reading an image file safely: its declared size is checked before decoding.

A few hundred kilobytes of PNG can declare 30000 x 30000 pixels and decode to
gigabytes; OpenCV's own cap (2^30 pixels) lets that through. So the width and
height are read from the file's header (PNG, JPEG, BMP, WebP: the formats a
camera or a phone writes) and a picture larger than any camera's frame is
refused before a byte of it is decoded. A file in another format is refused
too: its size could not be checked.

>>> image_size(b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0\\0\\0\\rIHDR" + (640).to_bytes(4, "big")
...            + (480).to_bytes(4, "big"))
(640, 480)
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from vision.errors import ExplainedError

# The picture files a folder is read for (``vision eval``, ``vision enroll``, a folder of
# frames): the formats whose size :func:`image_size` checks, by their usual names.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
# A 64 Mpx sensor's frame is well under this; a decoded frame of this many
# pixels takes 3 bytes each (BGR).
MAX_PIXELS = 70_000_000
MAX_SIDE = 20_000


class ImageFileError(ExplainedError):
    """An image file that cannot be read, or is too large to decode (in English: the
    command says it in the organiser's language, ``vision.errors``)."""


def _png(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    return None


def _bmp(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"BM" or len(data) < 26:
        return None
    header = struct.unpack("<I", data[14:18])[0]
    if header == 12:  # OS/2 BITMAPCOREHEADER: 16-bit sizes
        w, h = struct.unpack("<HH", data[18:22])
        return w, h
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)


# JPEG start-of-frame markers (C4 DHT, C8 JPG, CC DAC are not frames).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            i += 1  # garbage between segments: resynchronise on the next 0xFF
            continue
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xDA)):  # no length: TEM, RSTn, SOI, EOI
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in _SOF and i + 9 <= len(data):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP" or len(data) < 30:
        return None
    kind = data[12:16]
    if kind == b"VP8X":
        w = 1 + int.from_bytes(data[24:27], "little")
        h = 1 + int.from_bytes(data[27:30], "little")
        return w, h
    if kind == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height as the file's header declares them (None: not a known format)."""
    for reader in (_png, _jpeg, _bmp, _webp):
        size = reader(data)
        if size is not None:
            return size
    return None


def check_size(data: bytes, label: str) -> tuple[int, int]:
    """The declared size, or ``ImageFileError`` when unknown or too large to decode."""
    size = image_size(data)
    if size is None:
        raise ImageFileError("%(path)s: not a readable image (JPEG, PNG, BMP or WebP)", path=label)
    w, h = size
    if w == 0 or h == 0:
        raise ImageFileError("%(path)s: an image of %(w)s x %(h)s pixels", path=label, w=w, h=h)
    if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
        raise ImageFileError("%(path)s: %(w)s x %(h)s pixels is too large to read (at most "
                             "%(mpx)s million pixels, %(side)s on a side)", path=label, w=w,
                             h=h, mpx=MAX_PIXELS // 1_000_000, side=MAX_SIDE)
    return size


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as a BGR array, or raise ``ImageFileError`` (a
    ``ValueError``) saying which file and why; nothing is decoded before its
    declared size is checked."""
    import cv2

    path = Path(path)
    if not path.is_file():
        raise ImageFileError("%(path)s: no such image file", path=path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageFileError("%(path)s: cannot read: %(reason)s", path=path,
                             reason=exc.strerror) from None
    check_size(data, str(path))
    frame = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ImageFileError("%(path)s: not a readable image (JPEG, PNG, BMP or WebP)", path=path)
    decoded: np.ndarray = frame
    return decoded
