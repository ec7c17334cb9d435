"""The camera's evidence on the pages: each camera card with the picture it
read and its confidence, unsure reads marked, and a correction shown as 'lu X,
corrigé en Y' with the picture, through the API and the history."""

from __future__ import annotations

from typing import Any

from scorer.events import CardPlayed
from tests.web.conftest import PIN, api_body, one_hand, start_body

AUTH = {"X-Table-PIN": PIN, "X-Author": "Arbitre"}


def picture() -> bytes:
    import cv2
    import numpy as np

    image = np.full((84, 60, 3), 255, np.uint8)
    cv2.putText(image, "10", (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1, (0, 0, 200), 2)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return bytes(data.tobytes())


def play_hand_from_the_camera(client: Any, service: Any,
                              correct: bool = False) -> dict[str, Any]:
    """Seed 3's hand, its cards from the camera with a picture each. The first
    card is read wrong and unsure (as the hand's last card, not yet on the
    table); with ``correct`` the organiser corrects it at once."""
    events = one_hand(3)
    assert client.post("/api/games", json=start_body(events[0])).status_code == 201
    plays = [e for e in events if isinstance(e, CardPlayed)]
    first, wrong = plays[0], plays[-1].card
    for e in events[1:]:
        if e is first:
            stored = service.submit(CardPlayed(seat=e.seat, card=wrong), source="camera",
                                    confidence=0.62, crop=picture())
            if correct:
                r = client.post("/api/correct", json={"seat": e.seat, "trick": 1,
                                                      "card": e.card}, headers=AUTH)
                assert r.status_code == 200, r.json
        elif isinstance(e, CardPlayed):
            service.submit(e, source="camera", confidence=0.97, crop=picture())
        else:
            path, body = api_body(e)
            assert client.post(path, json=body, headers=AUTH).status_code == 200
    return {"seat": first.seat, "card": first.card, "read": wrong, "seq": stored.seq}


def test_each_camera_card_shows_its_picture_and_confidence(client: Any, service: Any) -> None:
    misread = play_hand_from_the_camera(client, service, correct=True)
    game = service.game_id
    r = client.get(f"/api/games/{game}/hands/1/evidence")
    assert r.status_code == 200
    plays = r.json["plays"]
    assert len(plays) == 32 and all(p["crop"] and p["camera"] for p in plays)
    unsure = [p for p in plays if p["unsure"]]
    assert [(p["seat"], p["read"], p["card"], p["confidence"]) for p in unsure] == [
        (misread["seat"], misread["read"], misread["card"], 0.62)]
    image = client.get(plays[0]["crop"])
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    assert image.get_data().startswith(b"\xff\xd8")
    assert client.get(f"/api/games/{game}/crops/0.jpg").status_code == 404
    page = client.get(f"/history/{game}/hands/1").get_data(as_text=True)
    tricks = page.split('id="tricks"')[1].split("</table>")[0]
    assert tricks.count('class="crop"') == 32
    # The one unsure read stands out (corrected since); the others read sure.
    assert tricks.count("unsure") == 1 and "0,62" in tricks and "0,97" in tricks


def test_a_correction_says_what_the_camera_read_with_its_picture(client: Any,
                                                                 service: Any) -> None:
    misread = play_hand_from_the_camera(client, service, correct=True)
    game = service.game_id
    plays = client.get(f"/api/games/{game}/hands/1/evidence").json["plays"]
    fixed = next(p for p in plays if p["trick"] == 1 and p["seat"] == misread["seat"])
    assert fixed["corrected_by"] is not None and fixed["read"] == misread["read"]
    assert fixed["card"] == misread["card"]
    page = client.get(f"/history/{game}/hands/1").get_data(as_text=True)
    corrections = page.split('id="corrections"')[1].split("</ul>")[0]
    read, right = (f'data-card="{misread[k]}"' for k in ("read", "card"))
    assert "lu <span" in corrections and "corrigé en" in corrections
    assert corrections.index(read) < corrections.index("corrigé en") < corrections.index(right)
    assert "(0,62)" in corrections and 'class="crop"' in corrections
