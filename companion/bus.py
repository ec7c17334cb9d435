"""A small in-process publish/subscribe bus.

The service publishes every stored event and every new state on it; the web
page (SSE) and the score display subscribe. A slow or dead subscriber never
blocks the publisher: each subscriber has a bounded queue, and when it is full
the oldest message is dropped (subscribers always want the latest state).
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Message:
    """One published message: ``topic`` is e.g. ``event``, ``state``, ``status``."""

    seq: int
    topic: str
    data: Any


class Subscription:
    """A subscriber's queue. Use as an iterator or call ``get``; ``close`` ends it."""

    def __init__(self, bus: Bus, maxsize: int) -> None:
        self._bus = bus
        self._queue: queue.Queue[Message | None] = queue.Queue(maxsize)
        self.closed = False

    def _put(self, msg: Message | None) -> None:
        while True:
            try:
                self._queue.put_nowait(msg)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()

    def get(self, timeout: float | None = None) -> Message | None:
        """The next message, or None on timeout or once closed."""
        if self.closed:
            return None
        try:
            msg = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if msg is None:
            self.closed = True
        return msg

    def __iter__(self) -> Iterator[Message]:
        while (msg := self.get()) is not None:
            yield msg

    def close(self) -> None:
        self._bus.unsubscribe(self)
        self._put(None)


class Bus:
    """Thread-safe fan-out of messages to every subscriber."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: list[Subscription] = []
        self._seq = itertools.count(1)
        self.last: dict[str, Message] = {}

    def subscribe(self, maxsize: int = 256) -> Subscription:
        sub = Subscription(self, maxsize)
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def publish(self, topic: str, data: Any) -> Message:
        with self._lock:
            msg = Message(next(self._seq), topic, data)
            self.last[topic] = msg
            subs = list(self._subs)
        for sub in subs:
            sub._put(msg)
        return msg

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)
