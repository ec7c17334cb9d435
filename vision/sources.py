"""Where frames come from: a video file, a folder of images, an OpenCV camera, or picamera2.

Every source is an iterator of ``(timestamp, frame)`` (seconds, BGR uint8
array) with ``close()``, and a context manager. The service reads whichever
it is given the same way, and tests feed it a folder or a video.

picamera2 (Raspberry Pi camera modules, which OpenCV cannot open) is imported
only inside :class:`PiCameraSource`, so nothing else needs it installed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")

Frame = tuple[float, np.ndarray]


class SourceError(ValueError):
    """A source cannot be opened or read; the message says which and why."""


class Source:
    """An iterator of ``(timestamp, frame)``; call ``close()`` (or use ``with``) when done."""

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VideoSource(Source):
    """Frames of a video file; timestamps are the video's own (seconds from its start)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such video file")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"{self.path}: OpenCV cannot open this video")
        self._fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self._index = 0

    def __next__(self) -> Frame:
        if self._cap is None:
            raise StopIteration
        ok, frame = self._cap.read()
        if not ok:
            self.close()
            raise StopIteration
        msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        t = msec / 1000 if msec > 0 else (self._index / self._fps if self._fps else self._index)
        self._index += 1
        return float(t), frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None  # type: ignore[assignment]


class ImageFolderSource(Source):
    """The images of a folder in name order, ``interval`` seconds apart."""

    def __init__(self, path: str | Path, interval: float = 0.1) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise SourceError(f"{self.path}: no such folder")
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"{self.path}: no images (.jpg, .png, .bmp) in this folder")
        self.interval = interval
        self._index = 0

    def __next__(self) -> Frame:
        if self._index >= len(self.files):
            raise StopIteration
        path = self.files[self._index]
        frame = cv2.imread(str(path))
        if frame is None:
            raise SourceError(f"{path}: not a readable image")
        t = self._index * self.interval
        self._index += 1
        return t, frame


class DeviceSource(Source):
    """An OpenCV capture device (a USB webcam: ``/dev/video0`` is index 0)."""

    def __init__(self, index: int | str = 0, width: int = 1280, height: int = 720) -> None:
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise SourceError(f"camera {index!r}: OpenCV cannot open it "
                              "(a Raspberry Pi camera module needs PiCameraSource)")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.index = index

    def __next__(self) -> Frame:
        if self._cap is None:
            raise StopIteration
        ok, frame = self._cap.read()
        if not ok:
            raise SourceError(f"camera {self.index!r}: no frame (unplugged?)")
        return time.monotonic(), frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None  # type: ignore[assignment]


class PiCameraSource(Source):
    """A Raspberry Pi camera module through picamera2 (from apt: python3-picamera2)."""

    def __init__(self, width: int = 1280, height: int = 720, **controls: Any) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as e:
            raise SourceError("picamera2 is not installed: on the Pi, `sudo apt install "
                              "python3-picamera2` and a venv with --system-site-packages") from e
        self._cam = Picamera2()
        config = self._cam.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"}, controls=controls)
        self._cam.configure(config)
        self._cam.start()

    def __next__(self) -> Frame:
        if self._cam is None:
            raise StopIteration
        # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order already.
        frame = self._cam.capture_array("main")
        return time.monotonic(), frame

    def close(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam.close()
            self._cam = None


def open_source(spec: str) -> Source:
    """A source from a command-line spec: a video file, a folder, ``camera:N`` or ``picamera``."""
    if spec == "picamera":
        return PiCameraSource()
    if spec.startswith("camera:"):
        name = spec.split(":", 1)[1]
        return DeviceSource(int(name) if name.isdigit() else name)
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path)
    return VideoSource(path)
