"""The live page says, in French, that the camera is lost and that hand entry
still works (issue 28, defect 2), in Debian's chromium."""

from __future__ import annotations

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
