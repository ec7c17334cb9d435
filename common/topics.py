"""The MQTT topics of a club, shared by the tables (``companion.club_link``)
and the club server, and the broker's access list that goes with them.

Under ``belote/<club>/table/<N>/``:

* ``events``: the table publishes each stored event (QoS 1), with its
  table-wide sequence number ``seq`` (1, 2, 3... in the order the table
  stored them);
* ``ack``: the club server's last stored ``seq`` for that table (retained),
  from which the table sends again after a cut;
* ``next``: the game the concours gives that table next (retained);
* ``status``: ``online`` / ``offline`` (retained; ``offline`` is the table's
  last will, sent by the broker when the table drops off).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
DEFAULT_PORT = 1883


def check_club(club: str) -> str:
    """A club's name in topics: lower-case letters, digits, ``-`` and ``_``."""
    if not isinstance(club, str) or not _NAME.match(club):
        raise ValueError(f"club name {club!r}: use 1-32 lower-case letters, digits, - or _")
    return club


def check_table(table: object) -> int:
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= 999:
        raise ValueError(f"table number {table!r}: a whole number from 1 to 999")
    return table


def table_topic(club: str, table: int, leaf: str) -> str:
    return f"belote/{club}/table/{table}/{leaf}"


def table_user(table: int) -> str:
    """The broker user name of table ``table``."""
    return f"table{table}"


CLUB_USER = "club"
_TOPIC = re.compile(r"^belote/([a-z0-9_-]+)/table/([0-9]{1,3})/(events|status)$")


def parse_topic(topic: str) -> tuple[str, int, str] | None:
    """``(club, table, leaf)`` of a topic the club server reads, or None."""
    m = _TOPIC.match(topic)
    if not m or m.group(2).startswith("0"):
        return None
    return m.group(1), int(m.group(2)), m.group(3)


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int


def parse_url(url: str) -> BrokerAddress:
    """``mqtt://HOST:PORT`` (port 1883 when left out)."""
    parts = urlsplit(url)
    if parts.scheme != "mqtt" or not parts.hostname:
        raise ValueError(f"club address {url!r}: expected mqtt://HOST:PORT")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise ValueError(f"club address {url!r}: the port is not a number from 1 to 65535"
                         ) from None
    if parts.path not in ("", "/") or parts.query or parts.username:
        raise ValueError(f"club address {url!r}: expected mqtt://HOST:PORT and nothing more")
    return BrokerAddress(parts.hostname, port)


def acl(club: str, tables: list[int]) -> str:
    """Mosquitto's access list: the club server reads and writes the club's
    topics; table N writes its own events and status and reads its own ack and
    next game, nothing else. A user not listed (or anonymous) gets nothing."""
    check_club(club)
    lines = [f"user {CLUB_USER}", f"topic readwrite belote/{club}/#", ""]
    for n in tables:
        check_table(n)
        lines += [f"user {table_user(n)}",
                  f"topic write {table_topic(club, n, 'events')}",
                  f"topic write {table_topic(club, n, 'status')}",
                  f"topic read {table_topic(club, n, 'ack')}",
                  f"topic read {table_topic(club, n, 'next')}", ""]
    return "\n".join(lines)
