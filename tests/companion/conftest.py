"""Shared by the tests that film whole hands through the pipeline."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture(scope="session")
def play_film() -> Callable:
    """``play_film(table, store, bus, faults=None)``: film the virtual table ``table``
    through the real ONNX card reader, the play tracker and a table service on
    ``store`` and ``bus``, the simulator saying the bids in their place between the
    cards; ``faults`` (a function of a frame) spoils each frame first, as a camera
    would. Returns the service."""
    from companion.pipeline import TablePipeline
    from companion.service import TableService
    from vision.reader import CardReader
    from vision.tracker import PlayTracker

    def play(table, store, bus, faults: Callable | None = None) -> TableService:
        service = TableService(store, bus)
        pipeline = TablePipeline(service, CardReader(), PlayTracker(table.calibration))
        service.start_game(table.events[0], source="simulator", author="test")
        spoken = list(table.spoken)
        for ts, frame in table:
            pipeline.speak(spoken, author="test")
            pipeline.feed(ts, frame if faults is None else faults(frame))
        return service

    return play
