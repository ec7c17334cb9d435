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
    assert store.version == 4
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
        seq: {"card": "TH", "confidence": 0.62, "crop": True, "reads": None, "frames": None},
        unknown: {"card": None, "confidence": 0.4, "crop": False, "reads": None,
                  "frames": None}}
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
    assert reopened.version == 4 and len(reopened.events(game)) == n
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
    assert store.version == 4
    game = store.new_game(GameStarted())
    assert store.evidence(game) == {}
    store.close()


def test_a_camera_card_keeps_its_reads_from_every_frame(tmp_path: Path) -> None:
    """Issue 72: what the camera saw, not only its answer: the likeliest cards over
    every frame, with their probabilities; bad reads refused, nothing written."""
    store = Store(tmp_path / "t.db")
    game = store.new_game(GameStarted(dealer="N"))
    store.append(game, BidMade(seat="W", bid="80H"), "web", hand_no=1)
    reads = [("JH", 0.61, 9), ("JD", 0.3, 4)]
    seq = store.append(game, CardPlayed(seat="W", card=None), "camera", 0.4, hand_no=1,
                       reads=reads, frames=14).seq
    assert store.evidence(game)[seq]["reads"] == [
        {"card": "JH", "p": 0.61, "frames": 9}, {"card": "JD", "p": 0.3, "frames": 4}]
    assert store.evidence(game)[seq]["frames"] == 14
    n = len(store.events(game))
    for bad in ([("5H", 0.5, 1)], [("JH", 1.5, 1)], [("JH", 0.5, -1)], [("JH", 0.5)],
                [("JH", 0.1, 1)] * 9, "JH"):
        with pytest.raises(StoreError, match="read"):
            store.append(game, CardPlayed(seat="S", card="7S"), "camera", 0.9, reads=bad)
    with pytest.raises(StoreError, match="only the camera"):
        store.append(game, CardPlayed(seat="S", card="7S"), "web", reads=reads)
    assert len(store.events(game)) == n
    store.close()


def test_a_store_of_the_evidence_schema_opens_and_keeps_its_cards(tmp_path: Path) -> None:
    """A store written before the reads were kept (schema 3) opens: its cards and
    their evidence are there, without reads."""
    import sqlite3

    from companion.store import MIGRATIONS, _statements

    path = tmp_path / "v3.db"
    db = sqlite3.connect(path)
    for name in ("0001_events.sql", "0002_drop_hand_result.sql", "0003_evidence.sql"):
        for statement in _statements((MIGRATIONS / name).read_text()):
            db.execute(statement)
    db.execute("INSERT INTO games (id, created, source, rules) VALUES (1, 0, 'web', 'ffb')")
    db.execute("INSERT INTO events VALUES (1, 0, NULL, 'GameStarted', ?, 'web', 0, NULL, NULL)",
               ('{"type": "GameStarted", "rules": "ffb", "settings": {}, "dealer": "N", '
                '"teams": {"NS": "NS", "EW": "EW"}, "players": {}}',))
    db.execute("INSERT INTO events VALUES (1, 1, 1, 'CardPlayed', ?, 'camera', 1, 0.9, NULL)",
               ('{"type": "CardPlayed", "seat": "W", "card": "7H"}',))
    db.execute("INSERT INTO evidence (game_id, seq, card, confidence) VALUES (1, 1, '7H', 0.9)")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    store = Store(path)
    assert store.version == 4
    assert [s.event for s in store.events(1)][1] == CardPlayed(seat="W", card="7H")
    assert store.evidence(1) == {1: {"card": "7H", "confidence": 0.9, "crop": False,
                                     "reads": None, "frames": None}}
    store.close()
