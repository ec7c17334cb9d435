"""The live page says, in French, that the camera is lost and that hand entry
still works (issue 28, defect 2), in Debian's chromium."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_the_page_says_the_camera_is_lost_in_french(page: Any, server: Any,
                                                    service: Any) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/")
    expect(page.locator("#conn")).to_have_class("dot-label ok")
    service.set_status(camera="lost", camera_error="camera 7: OpenCV cannot open it")
    value = page.locator("#camera-status .value")
    expect(value).to_have_text(
        "caméra : perdue : la saisie à la main marche, nouvel essai en cours…")
    expect(page.locator("#camera-status .dot")).to_have_class("dot error")
    service.set_status(camera="ok")
    expect(value).to_have_text("caméra : en marche")


def _lose_the_camera(service: Any) -> None:
    """The real pipeline loses a real OpenCV camera that is not there (camera 7)."""
    import threading

    from companion.pipeline import keep_camera
    from vision.sources import DeviceSource

    stop = threading.Event()
    runner = threading.Thread(target=keep_camera, args=(
        service, lambda: DeviceSource(7), None, None, 0.3),
        kwargs={"say": lambda _line: None, "stop": stop, "first_retry_s": 30.0}, daemon=True)
    runner.start()
    try:
        for _ in range(200):
            status = service.status()
            if status["camera"] == "lost":
                break
            stop.wait(0.05)
    finally:
        stop.set()
        runner.join(timeout=10)
    # What programs read stays as it was: the state word and the English reason.
    assert status["camera"] == "lost"
    assert status["camera_error"].startswith("camera 7: OpenCV cannot open it")
    service.set_status(camera="lost")  # keep_camera says "off" once stopped


def test_the_page_says_why_the_camera_is_lost_in_french(page: Any, server: Any,
                                                        service: Any) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/")
    expect(page.locator("#conn")).to_have_class("dot-label ok")
    trouble = page.locator("#camera-trouble")
    expect(trouble).to_be_hidden()
    _lose_the_camera(service)
    expect(trouble).to_have_text("caméra 7 : OpenCV ne peut pas l'ouvrir (un module caméra "
                                 "de Raspberry Pi demande --picamera)")
    expect(page.locator("#camera-status .value")).to_have_text(
        "caméra : perdue : la saisie à la main marche, nouvel essai en cours…")
    page.reload()  # a page opened while the camera is lost says it too
    expect(trouble).to_have_text(re.compile(r"^caméra 7 : OpenCV ne peut pas l'ouvrir"))
    service.set_status(camera="ok", camera_error=None, camera_trouble=None)
    expect(trouble).to_be_hidden()


def test_the_page_says_why_the_camera_is_lost_in_english_on_request(
        page: Any, server: Any, service: Any) -> None:
    from playwright.sync_api import expect

    _lose_the_camera(service)
    page.goto(server.url + "/?lang=en")
    expect(page.locator("#camera-trouble")).to_have_text(
        "camera 7: OpenCV cannot open it (a Raspberry Pi camera module needs PiCameraSource)")
    expect(page.locator("#camera-status .value")).to_have_text(re.compile(r"^camera: lost"))


def test_every_camera_trouble_the_sources_raise_is_in_the_page_s_words(app: Any) -> None:
    """A template the sources raise but the page does not know would be shown in
    English: each one is among the page's words, and in the French catalog."""
    from pathlib import Path

    from babel.messages.extract import extract_from_file

    import vision.sources
    from web import i18n

    raised = {m[1] for m in extract_from_file("python", str(Path(vision.sources.__file__)),
                                              keywords={"SourceError": None})}
    assert "camera %(index)s: no frame (unplugged?)" in raised
    with app.test_request_context("/"):
        french = i18n.camera_troubles()
    assert set(french) == raised
    assert all(said != template for template, said in french.items()), french
