"""docs/league.md's bridge, with two real Mosquitto brokers: a club's broker
forwards its tables' events to a league broker, where a second club server
keeps the same record as the club's own; the league's link down a while, the
bridge's queue catches up."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from club.broker import Broker, find_mosquitto, make_passwords
from club.server import ClubServer
from club.store import ClubStore
from companion.bus import Bus
from companion.club_link import ClubLink
from companion.service import TableService
from companion.store import Store
from scorer.simulate import simulate_game
from tests.club.conftest import wait_for


@pytest.mark.slow
def test_a_bridged_league_broker_gets_every_event_of_the_club(tmp_path: Path) -> None:
    if find_mosquitto() is None:
        pytest.skip("Debian's mosquitto is missing: 'sudo apt-get install -y mosquitto'")
    league_pw = {"club": "league-secret", "lyon": "bridge-secret"}
    league = Broker(tmp_path / "league", "lyon", [], passwords=league_pw)
    with open(league.folder / "acl", "a", encoding="utf-8") as acl:
        acl.write("\nuser lyon\ntopic write belote/lyon/table/+/events\n"
                  "topic write belote/lyon/table/+/status\n")
    league.start()
    bridge = ["connection league", f"address 127.0.0.1:{league.port}",
              "remote_clientid bridge-lyon", "remote_username lyon",
              "remote_password bridge-secret", "cleansession false",
              "bridge_protocol_version mqttv311", "try_private true", "notifications false",
              "restart_timeout 1", "topic belote/lyon/table/+/events out 1",
              "topic belote/lyon/table/+/status out 1"]
    club = Broker(tmp_path / "club", "lyon", [1], passwords=make_passwords([1]),
                  extra=bridge).start()
    stores = [ClubStore(tmp_path / "club.db"), ClubStore(tmp_path / "league.db")]
    servers = [ClubServer(stores[0], "lyon", club.url, club.passwords["club"]),
               ClubServer(stores[1], "lyon", league.url, "league-secret")]
    for s in servers:
        s.add_tables([1])
        s.connect()
    own = Store(tmp_path / "t1.db")
    service = TableService(own, Bus())
    link = ClubLink(tmp_path / "t1.db", club.url, 1, club.passwords["table1"], club="lyon",
                    poll=0.1).start()
    events = simulate_game(8, hands=3)
    half = len(events) // 2

    def play(part: list[Any]) -> None:
        for e in part:
            if e is events[0]:
                service.start_game(e, source="simulator")
            else:
                service.submit(e, source="simulator")
            link.notify()
            time.sleep(0.002)

    try:
        wait_for(lambda: all(s.connected for s in servers), 10, "both servers")
        time.sleep(0.5)  # the bridge connects
        play(events[:half])
        wait_for(lambda: servers[1].last_seq(1) == half, 30, "the league's first half")
        league.kill()
        player = threading.Thread(target=play, args=(events[half:],))
        player.start()
        player.join()
        wait_for(lambda: servers[0].last_seq(1) == len(events), 30, "the club's copy")
        assert servers[1].last_seq(1) == half
        league.start()
        wait_for(lambda: servers[1].last_seq(1) == len(events), 60, "the league's copy")
        club_copy = [e.to_json() for e in stores[0].table_events(1)]
        assert [e.to_json() for e in stores[1].table_events(1)] == club_copy
        assert len(club_copy) == len(events) and servers[1].refused_count == 0
    finally:
        link.stop()
        for s in servers:
            s.close()
        for st in stores:
            st.close()
        own.close()
        club.kill()
        league.kill()
