"""A real table service in its own process, for the crash test: it opens the
store, resumes the open game, and submits the rest of a simulated game one
event at a time, printing ``ack SEQ`` once each event is stored. The test
kills it with SIGKILL part way and starts it again.

Usage: python crash_worker.py DB SEED HANDS
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    from companion.bus import Bus
    from companion.service import TableService
    from companion.store import Store
    from scorer.simulate import simulate_game

    db, seed, hands = argv[0], int(argv[1]), int(argv[2])
    events = simulate_game(seed, hands=hands)
    service = TableService(Store(db), Bus())
    if service.game_id is None:
        service.start_game(events[0], source="simulator")
    done = [s.event for s in service.events()]
    if done != events[:len(done)]:
        print(f"stored events differ from the simulation at {len(done)}", flush=True)
        return 1
    print(f"resumed {len(done)}", flush=True)
    for event in events[len(done):]:
        stored = service.submit(event, source="simulator")
        print(f"ack {stored.seq}", flush=True)
    print("finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
