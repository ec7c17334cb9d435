"""The score chart: an SVG drawn on the server from each hand's totals, with
the target, readable from across the room, and nothing the pages' content
policy refuses (no script, no style attribute, nothing from outside)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from common.chart import score_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_each_team_is_a_line_through_its_totals_with_the_target() -> None:
    totals = [{"NS": 160, "EW": 0}, {"NS": 160, "EW": 250}, {"NS": 420, "EW": 330}]
    svg = score_svg(totals, {"NS": "Les Rois <&>", "EW": "EO"}, 500, "Le score", "donnes")
    root = ET.fromstring(svg)
    lines = root.findall(f"{SVG}polyline")
    assert [p.get("data-team") for p in lines] == ["NS", "EW"]
    assert all(len(p.get("points", "").split()) == 4 for p in lines)  # 0 then 3 hands
    ys = [float(pt.split(",")[1]) for pt in lines[0].get("points", "").split()]
    assert ys[0] > ys[1] == ys[2] > ys[3]  # higher totals are higher up
    dashed = [line for line in root.findall(f"{SVG}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 1  # the target
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "Les Rois <&> 420" in texts and "EO 330" in texts
    assert all(float(t.get("font-size", 0)) >= 32 for t in root.iter(f"{SVG}text"))
    assert "style=" not in svg and "<script" not in svg and "href" not in svg


def test_a_game_page_and_the_api_draw_the_chart(client: Any, service: Any) -> None:
    from tests.web.conftest import PIN

    auth = {"X-Table-PIN": PIN}
    assert client.post("/api/games", json={"pin": PIN}).status_code == 201
    for taker in ("N", "E"):
        client.post("/api/contract", json={"taker": taker, "value": 80, "trump": "H"},
                    headers=auth)
        r = client.post("/api/tally", json={"points": {"NS": 100, "EW": 62},
                                            "tricks": {"NS": 5, "EW": 3}}, headers=auth)
        assert r.status_code == 200, r.json
    r = client.get(f"/api/games/{service.game_id}/chart.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    root = ET.fromstring(r.get_data(as_text=True))
    assert len(root.findall(f"{SVG}polyline")) == 2
    page = client.get(f"/history/{service.game_id}").get_data(as_text=True)
    assert '<figure class="chart" id="chart"><svg' in page
    assert client.get("/api/games/99/chart.svg").status_code == 404
