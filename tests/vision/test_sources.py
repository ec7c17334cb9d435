"""Frame sources: a folder of images and a video file, written here and read back;
the Pi camera's zoom on a stand-in for picamera2."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from vision.sources import (
    DeviceSource,
    ImageFolderSource,
    PiCameraSource,
    SourceError,
    VideoSource,
    centre_crop,
    full_view_mode,
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


@pytest.mark.parametrize("zoom, crop", [
    (1, (0, 0, 4608, 2592)),
    (2, (1152, 648, 2304, 1296)),
    (1.5, (768, 432, 3072, 1728)),
])
def test_centre_crop_of_the_camera_module_3_sensor(zoom, crop):
    got = centre_crop(4608, 2592, zoom)
    assert got == crop
    x, y, w, h = got
    assert all(isinstance(v, int) for v in got)
    assert w * 9 == h * 16  # 16:9, as the stream
    assert (x + w / 2, y + h / 2) == (4608 / 2, 2592 / 2)  # centred


def test_centre_crop_keeps_the_streams_shape_on_a_4_3_sensor():
    x, y, w, h = centre_crop(3280, 2464, 2)
    assert abs(w / h - 16 / 9) < 0.01
    assert w == 3280 // 2 and x == (3280 - w) // 2 and y == (2464 - h) // 2


def test_zoom_below_1_is_refused_before_picamera2_is_needed(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # importing it would fail
    for zoom in (0.5, 0, float("nan")):
        with pytest.raises(ValueError, match="zoom must be 1 or more"):
            PiCameraSource(zoom=zoom)
    with pytest.raises(ValueError, match="zoom"):
        centre_crop(4608, 2592, 0.9)


IMX708_MODES = [  # picamera2's sensor_modes of the Camera Module 3 (the parts used)
    {"size": (1536, 864), "crop_limits": (768, 432, 3072, 1728)},
    {"size": (2304, 1296), "crop_limits": (0, 0, 4608, 2592)},
    {"size": (4608, 2592), "crop_limits": (0, 0, 4608, 2592)},
]


class FakePicamera2:
    """Records what PiCameraSource asks of the camera."""

    made: list[FakePicamera2] = []

    def __init__(self):
        self.camera_properties = {"PixelArraySize": (4608, 2592)}
        self.sensor_modes = IMX708_MODES
        self.calls: list[tuple] = []
        FakePicamera2.made.append(self)

    def create_video_configuration(self, **kwargs):
        return {"video": kwargs}

    def configure(self, config):
        self.calls.append(("configure", config))

    def start(self):
        self.calls.append(("start",))

    def set_controls(self, controls):
        self.calls.append(("set_controls", controls))

    def capture_array(self, name):
        return np.zeros((720, 1280, 3), np.uint8)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def fake_picamera2(monkeypatch):
    FakePicamera2.made = []
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    return FakePicamera2


def test_picamera_zoom_2_crops_the_centre_of_the_sensor(fake_picamera2):
    with PiCameraSource(zoom=2) as source:
        assert source.crop == (1152, 648, 2304, 1296)
        _, frame = next(source)
        assert frame.shape == (720, 1280, 3)
    cam = fake_picamera2.made[0]
    names = [c[0] for c in cam.calls]
    assert names == ["configure", "start", "set_controls", "stop", "close"]
    assert cam.calls[2][1] == {"ScalerCrop": (1152, 648, 2304, 1296)}
    video = cam.calls[0][1]["video"]
    assert video["main"]["size"] == (1280, 720)
    # The smallest mode that sees the whole sensor, not the cropped 1536 x 864.
    assert video["raw"] == {"size": (2304, 1296)}


def test_picamera_without_zoom_leaves_the_crop_alone(fake_picamera2):
    with PiCameraSource() as source:
        assert source.crop is None
    assert "set_controls" not in [c[0] for c in fake_picamera2.made[0].calls]


def test_full_view_mode_when_no_mode_fits():
    assert full_view_mode(IMX708_MODES, (4608, 2592), (1920, 1080)) == (2304, 1296)
    assert full_view_mode(IMX708_MODES, (4608, 2592), (5000, 3000)) is None
    assert full_view_mode([], (4608, 2592), (1280, 720)) is None
