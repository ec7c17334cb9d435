"""Where frames come from: a video file, a folder of images, an OpenCV camera, or picamera2.

Every source is an iterator of ``(timestamp, frame)`` (seconds, BGR uint8
array) with ``close()``, and a context manager. The service reads whichever
it is given the same way, and tests feed it a folder or a video.

picamera2 (Raspberry Pi camera modules, which OpenCV cannot open) is imported
only inside :class:`PiCameraSource`, so nothing else needs it installed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import ExplainedError
from vision.imagefile import IMAGE_SUFFIXES

Frame = tuple[float, np.ndarray]

log = logging.getLogger(__name__)


def quiet_opencv() -> None:
    """Turn OpenCV's own log off: its English ``[ WARN]``/``[ERROR]`` lines at every
    try to open a missing camera would flood the table's journal. What went
    wrong is raised as a ``SourceError`` instead, which the commands say in
    French, once (``companion.pipeline.keep_camera``)."""
    logging_api = getattr(cv2.utils, "logging", None)  # absent from some wheels
    if logging_api is not None:
        logging_api.setLogLevel(logging_api.LOG_LEVEL_SILENT)
    elif hasattr(cv2, "setLogLevel"):
        cv2.setLogLevel(0)  # 0: LOG_LEVEL_SILENT


class SourceError(ExplainedError):
    """A source cannot be opened or read; the message says which and why (in English:
    the command says it in the organiser's language, ``vision.errors``)."""


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
            raise SourceError("%(path)s: no such video file", path=self.path)
        quiet_opencv()
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError("%(path)s: OpenCV cannot open this video", path=self.path)
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
            raise SourceError("%(path)s: no such folder", path=self.path)
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError("%(path)s: no images (.jpg, .png, .bmp) in this folder",
                              path=self.path)
        self.interval = interval
        self._index = 0
        self.skipped: list[str] = []  # why each unreadable file was skipped

    def __next__(self) -> Frame:
        from vision.imagefile import ImageFileError, load_image

        # A bad frame is logged and skipped: one unreadable file must not stop
        # the table. Its time slot stays empty, as a dropped camera frame would.
        while self._index < len(self.files):
            path = self.files[self._index]
            t = self._index * self.interval
            self._index += 1
            try:
                return t, load_image(path)
            except ImageFileError as exc:
                log.warning("skipped a frame: %s", exc)
                self.skipped.append(str(exc))
        raise StopIteration


class DeviceSource(Source):
    """An OpenCV capture device (a USB webcam: ``/dev/video0`` is index 0)."""

    def __init__(self, index: int | str = 0, width: int = 1280, height: int = 720) -> None:
        quiet_opencv()
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise SourceError("camera %(index)s: OpenCV cannot open it (a Raspberry Pi "
                              "camera module needs PiCameraSource)", index=repr(index))
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.index = index

    def __next__(self) -> Frame:
        if self._cap is None:
            raise StopIteration
        ok, frame = self._cap.read()
        if not ok:
            raise SourceError("camera %(index)s: no frame (unplugged?)", index=repr(self.index))
        return time.monotonic(), frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None  # type: ignore[assignment]


def check_zoom(zoom: float) -> None:
    """Refuse (``ValueError``) a sensor zoom under 1, or not a number."""
    if not zoom >= 1:  # NaN too
        raise SourceError("zoom must be 1 or more (1: the whole sensor; 2: its centre, "
                          "twice closer), not %(zoom)s", zoom=zoom)


def centre_crop(sensor_w: int, sensor_h: int, zoom: float,
                aspect: tuple[int, int] = (16, 9)) -> tuple[int, int, int, int]:
    """The centre of a sensor ``zoom`` times closer, as ``(x, y, width, height)``
    in sensor pixels: the largest ``aspect`` rectangle on the sensor, divided by
    ``zoom``, centred; width and height even.

    >>> centre_crop(4608, 2592, 2)
    (1152, 648, 2304, 1296)
    """
    check_zoom(zoom)
    aw, ah = aspect
    full_w = min(sensor_w, sensor_h * aw / ah)
    full_h = full_w * ah / aw
    w = round(full_w / zoom / 2) * 2
    h = round(full_h / zoom / 2) * 2
    return (sensor_w - w) // 2, (sensor_h - h) // 2, w, h


def full_view_mode(modes: list[dict[str, Any]], sensor_size: tuple[int, int],
                   size: tuple[int, int]) -> tuple[int, int] | None:
    """The size of the smallest sensor mode that sees the whole sensor and has at
    least ``size`` pixels each way, among picamera2's ``sensor_modes``; None if none.

    >>> modes = [{"size": (1536, 864), "crop_limits": (768, 432, 3072, 1728)},
    ...          {"size": (2304, 1296), "crop_limits": (0, 0, 4608, 2592)},
    ...          {"size": (4608, 2592), "crop_limits": (0, 0, 4608, 2592)}]
    >>> full_view_mode(modes, (4608, 2592), (1280, 720))
    (2304, 1296)
    """
    fits = [(int(m["size"][0]), int(m["size"][1])) for m in modes
            if tuple(m.get("crop_limits", ())[2:]) == tuple(sensor_size)
            and m["size"][0] >= size[0] and m["size"][1] >= size[1]]
    return min(fits, key=lambda s: s[0] * s[1], default=None)


class PiCameraSource(Source):
    """A Raspberry Pi camera module through picamera2 (from apt: python3-picamera2).

    The stream (``width`` x ``height``) shows the whole sensor: the camera is
    put in its smallest sensor mode that sees all of it (on the Camera Module 3,
    2304 x 1296 for a 1280 x 720 stream; left to itself it would take a mode
    that sees only the middle two thirds).

    ``zoom`` (1 or more) crops the centre of the sensor (picamera2's
    ``ScalerCrop``, see :func:`centre_crop`): the stream keeps its size but
    shows a part of the table ``zoom`` times smaller each way, so a card fills
    ``zoom`` times more of the frame. The card reader needs a card to fill
    24-36 % of the frame's height; with the mount of
    hardware/camera-mount.md that is ``zoom=2.5`` (the centre 1844 x 1036 of
    the 4608 x 2592 sensor pixels). Other ``controls`` go to picamera2's
    configuration as they are.
    """

    def __init__(self, width: int = 1280, height: int = 720, zoom: float = 1.0,
                 **controls: Any) -> None:
        check_zoom(zoom)
        try:
            from picamera2 import Picamera2
        except ImportError as e:
            raise SourceError("picamera2 is not installed: on the Pi, `sudo apt install "
                              "python3-picamera2` and a venv with --system-site-packages") from e
        self.zoom = zoom
        self.crop: tuple[int, int, int, int] | None = None
        self._cam = Picamera2()
        sensor = self._sensor_size()
        # The raw stream's size picks the sensor mode.
        mode = full_view_mode(getattr(self._cam, "sensor_modes", []), sensor, (width, height))
        config = self._cam.create_video_configuration(
            main={"size": (width, height), "format": "RGB888"},
            **({"raw": {"size": mode}} if mode else {}), controls=controls)
        self._cam.configure(config)
        self._cam.start()
        if zoom > 1:
            self.crop = centre_crop(*sensor, zoom, aspect=(width, height))
            self._cam.set_controls({"ScalerCrop": self.crop})

    def _sensor_size(self) -> tuple[int, int]:
        """The sensor's size in pixels, the frame of ``ScalerCrop``."""
        props = self._cam.camera_properties
        if "PixelArraySize" in props:
            w, h = props["PixelArraySize"]
        else:
            _x, _y, w, h = props["ScalerCropMaximum"]
        return int(w), int(h)

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
