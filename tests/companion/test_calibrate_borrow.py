"""calibrate while the table runs: the service keeps the camera and lends its
latest frame (GET /api/camera/frame.jpg, on the Pi itself only); ``belote-table
calibrate --service URL`` calibrates from it, through a real server."""

from __future__ import annotations

import json
from pathlib import Path

from cli.cmd_calibrate import main
from companion.bus import Bus
from companion.service import TableService
from companion.store import Store


def test_calibrate_borrows_the_running_tables_frame(tmp_path: Path, capsys) -> None:
    from vision.lab.virtual_table import VirtualTable
    from web import create_app, serve

    store = Store(tmp_path / "t.db")
    service = TableService(store, Bus())
    app = create_app(service, {"TESTING": True, "PIN_FILE": str(tmp_path / "pins.json")})
    server = serve(app, port=0)
    try:
        out = tmp_path / "cal.json"
        # No frame yet: said, nothing written.
        assert main(["--service", server.url, "--out", str(out)]) == 1
        assert "404" in capsys.readouterr().err and not out.exists()
        table = VirtualTable(seed=2, hands=1)
        _, frame = next(iter(table))
        service.camera_frame = frame  # as the pipeline does with each frame
        assert main(["--service", server.url, "--out", str(out)]) == 0
        saved = json.loads(out.read_text())
        assert sorted(saved["zones"]) == ["E", "N", "S", "W"]
        assert (saved["width"], saved["height"]) == (frame.shape[1], frame.shape[0])
        assert out.with_suffix(".png").exists()
        # Another computer on the club's network is not lent the camera's view.
        visitor = app.test_client()
        r = visitor.get("/api/camera/frame.jpg", environ_base={"REMOTE_ADDR": "192.168.1.20"})
        assert r.status_code == 403
        assert visitor.get("/api/camera/frame.jpg").status_code == 200
    finally:
        server.close()
        store.close()


def test_calibrate_says_when_no_table_runs(tmp_path: Path, capsys) -> None:
    assert main(["--service", "http://127.0.0.1:9", "--out", str(tmp_path / "c.json")]) == 1
    assert "aucune table en marche à cette adresse" in capsys.readouterr().err
