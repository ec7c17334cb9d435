"""A table whose camera is missing says so once, in French (issue 75): OpenCV's
own English ``[ WARN]``/``[ERROR]`` lines, printed at every try to open the
camera before, are silenced (``vision.sources.quiet_opencv``); the table keeps
looking for it (several tries in the run below) without saying it again."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_missing_camera_is_said_once_in_french_without_opencvs_log(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "cli.main", "run", "--camera", "7", "--no-web",
         "--no-display", "--db", str(tmp_path / "table.db")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        env={"LANG": "C.UTF-8", "PATH": "/usr/bin"})
    try:
        time.sleep(5)  # tries at 0, 1 and 3 s
        assert proc.poll() is None  # the table runs on without its camera
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert "WARN" not in out and "ERROR" not in out and "cap_v4l" not in out, out
    assert out.count("caméra perdue") == 1, out
    assert "caméra 7 : OpenCV ne peut pas l'ouvrir" in out, out
    assert "la saisie à la main marche en attendant" in out
    assert "Traceback" not in out


def test_quiet_opencv_silences_the_capture_log() -> None:
    run = subprocess.run(
        [sys.executable, "-c", "import cv2\nfrom vision.sources import quiet_opencv\n"
         "quiet_opencv()\nprint(cv2.VideoCapture(7).isOpened())"],
        capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.stdout.strip() == "False"
    assert run.stderr == "", run.stderr
    # Without it OpenCV speaks English on stderr: the test above would see it.
    loud = subprocess.run([sys.executable, "-c", "import cv2\ncv2.VideoCapture(7)"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "WARN" in loud.stderr or "ERROR" in loud.stderr
