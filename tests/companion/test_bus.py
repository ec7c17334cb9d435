"""The publish/subscribe bus: fan-out, order, and a slow subscriber never blocking."""

from __future__ import annotations

import threading

from companion.bus import Bus


def test_every_subscriber_gets_every_message_in_order():
    bus = Bus()
    subs = [bus.subscribe() for _ in range(3)]
    for i in range(5):
        bus.publish("state", {"i": i})
    for sub in subs:
        got = [sub.get(timeout=1).data["i"] for _ in range(5)]
        assert got == [0, 1, 2, 3, 4]


def test_full_queue_drops_oldest_and_never_blocks_the_publisher():
    bus = Bus()
    slow = bus.subscribe(maxsize=2)
    for i in range(10):
        bus.publish("state", i)
    assert [slow.get(timeout=1).data, slow.get(timeout=1).data] == [8, 9]
    assert slow.get(timeout=0.01) is None


def test_close_ends_iteration_and_unsubscribes():
    bus = Bus()
    sub = bus.subscribe()
    seen: list[int] = []
    t = threading.Thread(target=lambda: seen.extend(m.data for m in sub))
    t.start()
    bus.publish("event", 1)
    bus.publish("event", 2)
    sub.close()
    t.join(timeout=2)
    assert not t.is_alive()
    assert seen == [1, 2]
    assert bus.subscribers == 0


def test_last_message_per_topic_is_kept_for_late_subscribers():
    bus = Bus()
    bus.publish("state", "old")
    bus.publish("state", "new")
    bus.publish("status", "ok")
    assert bus.last["state"].data == "new"
    assert bus.last["status"].seq == 3
