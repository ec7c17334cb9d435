"""The camera's evidence: the picture it read for a card (a small JPEG, cut
from a real photograph by the real reader's outline) and its confidence, kept
in the store with the card (migration 0002), refused when it is not the
camera's or not a JPEG, and shown by the API and the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.evidence import crop_jpeg, evidence
from companion.store import Store, StoreError
from scorer.events import BidMade, CardPlayed, GameStarted


@pytest.fixture(scope="module")
def photo_read(real_cards: Path) -> tuple[Any, list[Any]]:
    """A real photograph of the ten of hearts and what the shipped reader sees in it."""
    from vision.reader import CardReader, load_image

    frame = load_image(next((real_cards / "cards/TH").glob("*.jpg")))
    return frame, CardReader().read(frame)


def test_the_picture_of_a_read_card_is_a_small_jpeg(photo_read: tuple[Any, list[Any]]) -> None:
    import cv2
    import numpy as np

    frame, detections = photo_read
    read = next(d for d in detections if d.code == "TH")
    data = evidence(detections, frame, "TH")
    assert data is not None and data.startswith(b"\xff\xd8")
    assert 500 < len(data) < 12_000  # a few kB
    picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert max(picture.shape[:2]) <= 120
    assert data == crop_jpeg(frame, read.quad)
    # A card the frame does not show has no picture; nothing is raised.
    assert evidence(detections, frame, "7C") is None
    assert crop_jpeg(frame, [[5, 5], [5, 5], [5, 5], [5, 5]]) is None


def test_store_keeps_the_cameras_evidence_with_its_card(tmp_path: Path,
                                                        photo_read: tuple[Any, list[Any]]
                                                        ) -> None:
    frame, detections = photo_read
    picture = evidence(detections, frame, "TH")
    assert picture is not None
    store = Store(tmp_path / "t.db")
    assert store.version == 3
    game = store.new_game(GameStarted(dealer="N"))
    for seat in ("W", "S", "E"):
        store.append(game, BidMade(seat=seat, bid="pass"), "web", hand_no=1)
    store.append(game, BidMade(seat="N", bid="80H"), "web", hand_no=1)
    for seat in ("W", "S", "E"):
        store.append(game, BidMade(seat=seat, bid="pass"), "web", hand_no=1)
    seq = store.append(game, CardPlayed(seat="W", card="TH"), "camera", 0.62, hand_no=1,
                       crop=picture).seq
    unknown = store.append(game, CardPlayed(seat="S", card=None), "camera", 0.4, hand_no=1).seq
    assert store.evidence(game) == {
        seq: {"card": "TH", "confidence": 0.62, "crop": True},
        unknown: {"card": None, "confidence": 0.4, "crop": False}}
    assert store.crop(game, seq) == picture and store.crop(game, unknown) is None
    n = len(store.events(game))
    with pytest.raises(StoreError, match="only the camera"):
        store.append(game, CardPlayed(seat="E", card="7S"), "web", crop=picture)
    with pytest.raises(StoreError, match="not a JPEG"):
        store.append(game, CardPlayed(seat="E", card="7S"), "camera", 0.9, crop=b"GIF89a")
    with pytest.raises(StoreError, match="more than"):
        store.append(game, CardPlayed(seat="E", card="7S"), "camera", 0.9,
                     crop=b"\xff\xd8" + bytes(Store.CROP_MAX))
    assert len(store.events(game)) == n and len(store.evidence(game)) == 2
    store.close()
    # A file of the first schema is brought up to date, its events kept.
    reopened = Store(tmp_path / "t.db")
    assert reopened.version == 3 and len(reopened.events(game)) == n
    reopened.close()


def test_a_store_of_the_first_schema_gains_the_evidence_table(tmp_path: Path) -> None:
    import sqlite3

    from companion.store import MIGRATIONS, _statements

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for statement in _statements((MIGRATIONS / "0001_events.sql").read_text()):
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.version == 3
    game = store.new_game(GameStarted())
    assert store.evidence(game) == {}
    store.close()
