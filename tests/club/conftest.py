"""Fixtures for the club's tests: a real Mosquitto broker on a free port, with
the club's password file and access list, started and killed by the test."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from club.broker import Broker, find_mosquitto


def wait_for(test: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or test}")
        time.sleep(0.05)


@pytest.fixture
def broker_factory(tmp_path: Path) -> Iterator[Callable[..., Broker]]:
    if find_mosquitto() is None:
        pytest.skip("Debian's mosquitto is missing: run 'make mosquitto' as root or "
                    "'sudo apt-get install -y mosquitto'")
    started: list[Broker] = []

    def make(club: str, tables: list[int]) -> Broker:
        broker = Broker(tmp_path / f"broker-{len(started)}", club, tables).start()
        started.append(broker)
        return broker

    yield make
    for b in started:
        b.kill()


def mqtt_client(port: int, user: str, password: str) -> Any:
    """A paho client as ``user`` on the broker at 127.0.0.1:``port``, once the
    broker answered; ``client.result`` is its answer (``is_failure`` if refused)."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-{user}-{time.time()}")
    if user:
        client.username_pw_set(user, password)
    client.result = None

    def on_connect(_c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        client.result = reason

    client.on_connect = on_connect
    client.connect(host="127.0.0.1", port=port)
    client.loop_start()
    wait_for(lambda: client.result is not None, 10, "the broker's answer")
    return client


def listening(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def close_client(client: Any) -> None:
    client.disconnect()
    client.loop_stop()
    client._reset_sockets()
