"""A Pi that looks after itself: a bad setting (a calibration file that is not
there, a model that cannot be loaded) leaves the table up, with the web page
saying what to fix and the cards entered by hand, instead of a service that
exits and is restarted every 3 s with no page for anyone."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path

from cli.outputs import run_table


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as r:
        return bytes(r.read())


def test_a_missing_calibration_keeps_the_page_up_and_says_so(tmp_path: Path) -> None:
    said: list[str] = []
    stop = threading.Event()
    opened: list[bool] = []
    result: list[int] = []

    def run() -> None:
        result.append(run_table(
            tmp_path / "t.db", "ffb", lambda: opened.append(True), None, None, 0.3, port=0,
            search_display=False, say=said.append, fail=said.append,
            problem={"code": "calibration_missing", "detail": "/etc/belote/cal.json"},
            stop=stop))

    thread = threading.Thread(target=run)
    thread.start()
    try:
        for _ in range(100):
            if any(s.startswith("page web : ") for s in said):
                break
            stop.wait(0.05)
        url = next(s for s in said if s.startswith("page web : "))[len("page web : "):]
        state = json.loads(_get(url + "/api/state"))
        assert state["status"]["problem"] == {"code": "calibration_missing",
                                              "detail": "/etc/belote/cal.json"}
        assert state["status"]["camera"] == "error" and state["status"]["mode"] == "manual"
        # No game was started by itself: the page leads to a new one.
        assert state["game_id"] is None
        page = _get(url + "/").decode()
        assert 'id="problem-banner"' in page and "introuvable" in page
        assert not opened  # the camera was not opened with a bad setting
        assert thread.is_alive()  # the table stays up
    finally:
        stop.set()
        thread.join(10)
    assert result == [0]


def test_without_a_web_page_a_bad_model_is_an_error(tmp_path: Path) -> None:
    said: list[str] = []
    code = run_table(tmp_path / "t.db", "ffb", lambda: None, str(tmp_path / "none.onnx"), None,
                     0.3, port=None, search_display=False, say=said.append, fail=said.append)
    assert code == 2


def test_a_wrong_zoom_with_the_web_page_on_is_a_problem_to_show_not_an_exit() -> None:
    from cli.cmd_run import parse_args

    args = parse_args(["--images", "frames", "--zoom", "2", "--port", "0"])
    assert args.zoom_problem == "--zoom ne marche qu'avec --picamera (il recadre le capteur de " \
                                "la caméra du Pi)"
    assert parse_args(["--picamera", "--zoom", "2.5"]).zoom_problem is None
