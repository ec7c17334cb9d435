"""Fixtures shared by every part's tests. Each part keeps its own in tests/<part>/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL_CARDS = ROOT / "tests" / "data" / "real-cards"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(autouse=True, scope="session")
def french_locale() -> Iterator[None]:
    """The command line speaks French unless the locale is English (companion.i18n): the
    tests read its French whatever the machine's locale, in this process and the
    commands they start."""
    names = ("LC_ALL", "LC_MESSAGES", "LANG")
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    os.environ["LANG"] = "C.UTF-8"
    yield
    for name in names:
        os.environ.pop(name, None)
    os.environ.update(saved)


@pytest.fixture(scope="session")
def real_cards() -> Path:
    """The real card photographs in the checkout (tests/data/real-cards: the held-out
    photos and four trained-on ones, every card crop, all the labels), as they are."""
    if not (REAL_CARDS / "scenes" / "labels.json").is_file():
        pytest.fail(f"missing {REAL_CARDS}: the tests need the checkout's real photos")
    return REAL_CARDS


@pytest.fixture
def artifacts() -> Path:
    """Where tests leave screenshots and images for a person to look at (git-ignored)."""
    path = ROOT / "tests" / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium through Playwright, one for the whole run: every part's
    browser tests share it (two Playwrights cannot share the tests' thread)."""
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is missing (/usr/bin/chromium): "
                    "run 'make browser' or 'sudo apt-get install -y chromium'")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh tab of the run's browser; script errors and content-policy refusals fail
    the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(5000)
    problems: list[str] = []
    pg.on("pageerror", lambda exc: problems.append(f"script error: {exc}"))
    pg.on("console", lambda msg: problems.append(f"console: {msg.text}")
          if "Content Security Policy" in msg.text else None)
    yield pg
    context.close()
    assert not problems, problems


@pytest.fixture
def models_with_check(tmp_path: Path) -> Any:
    """A factory: the shipped reader's files copied into ``tmp_path``, its reference patches'
    codes turned ``shift`` places (1: each patch given the next card's code, as a model
    blind on this CPU would look); returns the copied classifier's path."""
    import json
    import shutil

    from vision.classify import CHECK_FILE, MODELS

    def make(shift: int) -> Path:
        for name in ("index_classifier.onnx", "index_classifier.json", "index_detector.onnx",
                     CHECK_FILE):
            shutil.copy(MODELS / name, tmp_path / name)
        meta = json.loads((MODELS / CHECK_FILE).with_suffix(".json").read_text())
        meta["codes"] = meta["codes"][shift:] + meta["codes"][:shift]
        (tmp_path / CHECK_FILE).with_suffix(".json").write_text(json.dumps(meta))
        return tmp_path / "index_classifier.onnx"

    return make
