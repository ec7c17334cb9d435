"""Frame sources: a folder of images and a video file, written here and read back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import (
    DeviceSource,
    ImageFolderSource,
    PiCameraSource,
    SourceError,
    VideoSource,
    open_source,
)


def _frames(n):
    return [np.full((48, 64, 3), 40 * i, np.uint8) for i in range(n)]


def test_image_folder_gives_frames_in_name_order(tmp_path):
    for i, frame in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"{i:02d}.png"), frame)
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source(str(tmp_path)) as source:
        got = list(source)
    assert isinstance(source, ImageFolderSource)
    assert [round(t, 2) for t, _ in got] == [0.0, 0.1, 0.2]
    assert [int(f[0, 0, 0]) for _, f in got] == [0, 40, 80]


def test_video_file_gives_its_frames(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for frame in _frames(5):
        writer.write(frame)
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, VideoSource)
    got = list(source)
    source.close()
    assert len(got) == 5
    times = [t for t, _ in got]
    assert times == sorted(times)
    assert abs(float(got[2][1].mean()) - 80) < 8


def test_missing_sources_say_what_is_wrong(tmp_path):
    with pytest.raises(SourceError, match="no such video file"):
        VideoSource(tmp_path / "gone.mp4")
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource(tmp_path)
    with pytest.raises(SourceError, match="OpenCV cannot open"):
        DeviceSource(str(tmp_path / "no-camera"))


def test_picamera_source_needs_picamera2():
    pytest.importorskip("numpy")
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="picamera2 is not installed"):
            PiCameraSource()
    else:
        pytest.skip("picamera2 is installed: the hardware tests cover it")
