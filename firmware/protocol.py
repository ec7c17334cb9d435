"""The serial protocol between the Raspberry Pi and the score display.

One module for both ends: the Pico runs it under MicroPython, the host driver
(``companion.display``) and the emulator import it as ``firmware.protocol``.
So it keeps to what both interpreters have: no typing, no dataclasses, no
``from __future__``, bytes and str only. firmware/PROTOCOL.md describes the
wire format for people; the tests check that this module does what it says.

A frame is one ASCII line::

    @<seq> <KIND>[ <payload>]*<CRC>\\n

``seq`` is the sender's counter (0..9999, then 0 again), ``KIND`` a word in
capitals, ``CRC`` the CRC-16/CCITT-FALSE of the bytes between ``@`` and ``*``
in four hex digits. ``@`` starts a frame and may appear nowhere else, so a
receiver resynchronises on it after garbage or a truncated frame.

>>> encode_frame(7, "PING")
b'@7 PING*018E\\n'
>>> r = LineReader()
>>> r.feed(b"noise@7 PI") + r.feed(b"NG*018E\\n")
[Frame(7, 'PING', '')]
>>> r.errors
1
"""

PROTOCOL_VERSION = 1
SEQ_MODULO = 10000
# Long enough for the longest STATE frame with room to spare; short enough
# for the Pico to keep a line in a small fixed buffer.
MAX_LINE = 120

START = 0x40  # "@"
CRC_MARK = 0x2A  # "*"
NEWLINE = 0x0A
RETURN = 0x0D

# Frame kinds. Host to display:
HELLO = "HELLO"  # also display to host: who is there, which versions
STATE = "STATE"  # the latest scores and table state (latest wins)
ALERT = "ALERT"  # a one-off alert to blink, e.g. "renonce NS"
PIN = "PIN"  # show the web page's PIN for a while ("-" hides it)
PING = "PING"  # heartbeat when there is nothing else to say
MAINT = "MAINT"  # restart into maintenance mode (REPL open, for flashing)
# Display to host:
ACK = "ACK"  # payload: the acknowledged seq
NAK = "NAK"  # payload: "<seq> <reason>", a frame understood but refused

KINDS = (HELLO, STATE, ALERT, PIN, PING, MAINT, ACK, NAK)

# The firmware's own copy of the scorer's notation (scorer.cards): MicroPython
# cannot import the scorer. tests/firmware/test_firmware.py checks the copy.
SEATS = ("N", "E", "S", "W")
TEAMS = ("NS", "EW")
TRUMPS = ("S", "H", "D", "C", "NT", "AT")
PHASES = ("setup", "bidding", "play", "over")
DISPLAY_NAME = "belote-display"


class ProtocolError(ValueError):
    """A line or payload that does not follow the protocol; the text says why."""


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the same as CPython's
    ``binascii.crc_hqx(data, 0xFFFF)``, written out because MicroPython lacks it.

    >>> "%04X" % crc16(b"123456789")
    '29B1'
    """
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1 ^ 4129) & 65535 if crc & 32768 else crc << 1 & 65535
    return crc


def _check_text(text, what):
    for ch in text:
        code = ord(ch)
        if code < 0x20 or code > 0x7E or ch == "@" or ch == "*":
            raise ProtocolError(f"{what}: character {ch!r} not allowed"
                                " (printable ASCII, no @ or *)")


class Frame:
    """One decoded frame: sender's ``seq``, ``kind`` and ``payload`` text."""

    def __init__(self, seq, kind, payload=""):
        self.seq = seq
        self.kind = kind
        self.payload = payload

    def __eq__(self, other):
        return (isinstance(other, Frame) and self.seq == other.seq
                and self.kind == other.kind and self.payload == other.payload)

    def __hash__(self):
        return hash((self.seq, self.kind, self.payload))

    def __repr__(self):
        return f"Frame({self.seq}, {self.kind!r}, {self.payload!r})"

    def encode(self):
        return encode_frame(self.seq, self.kind, self.payload)


def encode_frame(seq, kind, payload=""):
    """The bytes of one frame, newline included; raises ProtocolError on bad parts."""
    if not isinstance(seq, int) or seq < 0 or seq >= SEQ_MODULO:
        raise ProtocolError(f"seq: {seq!r} is not in 0..{SEQ_MODULO - 1}")
    if not kind or not kind.isalpha() or not kind.isupper():
        raise ProtocolError(f"kind: {kind!r} is not a word in capitals")
    _check_text(payload, "payload")
    text = f"{seq} {kind}"
    if payload:
        text = text + " " + payload
    body = text.encode()
    line = b"@" + body + b"*" + (f"{crc16(body):04X}").encode() + b"\n"
    if len(line) > MAX_LINE:
        raise ProtocolError(f"frame: {len(line)} bytes, longer than {MAX_LINE}")
    return line


def decode_frame(line):
    """Decode one line (from ``@`` up to, without, the newline) into a Frame.

    >>> decode_frame(b"@12 ACK 7*DF20")
    Frame(12, 'ACK', '7')
    >>> try:
    ...     decode_frame(b"@12 ACK 8*DF20")
    ... except ProtocolError as exc:
    ...     print(exc)
    checksum: line says DF20, content gives 2ECF
    """
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line.startswith(b"@"):
        raise ProtocolError("start: line does not begin with @")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        raise ProtocolError("checksum: missing or not four hex digits after *")
    body = line[1:star]
    try:
        int(line[star + 1:], 16)
    except ValueError:
        raise ProtocolError("checksum: digits after * are not hex") from None
    actual = crc16(body)
    # Compare the text, not the number: "df20" for "DF20" is a changed byte too.
    if line[star + 1:] != f"{actual:04X}".encode():
        said = line[star + 1:].decode()
        raise ProtocolError(f"checksum: line says {said}, content gives {actual:04X}")
    try:
        text = body.decode()
    except UnicodeError:
        raise ProtocolError("content: not ASCII") from None
    parts = text.split(" ", 2)
    if len(parts) < 2 or not parts[0].isdigit() or len(parts[0]) > 4:
        raise ProtocolError(f"seq: {parts[0]!r} is not a number 0..{SEQ_MODULO - 1}")
    kind = parts[1]
    if not kind.isalpha() or not kind.isupper():
        raise ProtocolError(f"kind: {kind!r} is not a word in capitals")
    payload = parts[2] if len(parts) > 2 else ""
    _check_text(payload, "payload")
    return Frame(int(parts[0]), kind, payload)


class LineReader:
    """Cuts a byte stream into frames and skips whatever is not one.

    ``feed(data)`` returns the frames completed by ``data``. Garbage before an
    ``@``, a frame cut short by the next ``@``, a line longer than MAX_LINE and
    a bad checksum are each counted in ``errors`` (the last reason in
    ``last_error``) and dropped; reading goes on with the next ``@``.
    """

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self.buf = bytearray()
        self.skipping = False  # inside an overlong line: drop until @ or newline
        self.errors = 0
        self.last_error = ""

    def _error(self, reason):
        self.errors += 1
        self.last_error = reason

    def feed(self, data):
        frames = []
        buf = self.buf
        for byte in data:
            if byte == START:
                if buf and bytes(buf).strip():
                    self._error("truncated frame" if buf[0] == START else "garbage before @")
                buf[:] = b""
                buf.append(byte)
                self.skipping = False
            elif byte == NEWLINE:
                if self.skipping:
                    self.skipping = False
                elif buf and buf[0] == START:
                    try:
                        frames.append(decode_frame(bytes(buf)))
                    except ProtocolError as exc:
                        self._error(str(exc))
                elif bytes(buf).strip():
                    self._error("garbage line")
                buf[:] = b""
            elif not self.skipping:
                buf.append(byte)
                if len(buf) >= self.max_line:
                    self._error(f"overlong line (over {self.max_line} bytes)")
                    buf[:] = b""
                    self.skipping = True
        return frames


def next_seq(seq):
    """The sequence number after ``seq``."""
    return (seq + 1) % SEQ_MODULO


# ---- payloads -------------------------------------------------------------

def encode_fields(pairs):
    """``[("ns", 120), ("ew", 80)]`` -> ``"ns=120 ew=80"``."""
    out = []
    for key, value in pairs:
        value = str(value)
        if not value or " " in value or "=" in value:
            raise ProtocolError(f"field {key}: value {value!r} is empty or has a space or =")
        out.append(f"{key}={value}")
    return " ".join(out)


def decode_fields(payload):
    """``"ns=120 ew=80"`` -> ``{"ns": "120", "ew": "80"}``; raises on a malformed field."""
    fields = {}
    for item in payload.split():
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ProtocolError(f"field {item!r}: expected key=value")
        fields[key] = value
    return fields


def team_of(seat):
    """The team of a seat (as scorer.cards.team_of; a missing seat counts as EW).

    >>> team_of("S"), team_of("W")
    ('NS', 'EW')
    """
    return "NS" if seat in ("N", "S") else "EW"


def state_payload(state):
    """The STATE payload for a GameState JSON dict (what the service publishes).

    Only what the display shows travels: the two running scores, the dealer,
    the contract, the teams with a renonce this hand, the phase, the winner.

    >>> state_payload({"scores": {"NS": 120, "EW": 80}, "dealer": "N",
    ...                "contract": {"taker": "E", "value": 90, "trump": "H", "double": 2},
    ...                "renonces": [{"seat": "W", "trick": 3}], "phase": "play"})
    'ns=120 ew=80 dl=N tk=E ct=90 tr=H db=2 rn=EW ph=play wn=-'
    """
    scores = state.get("scores") or {}
    contract = state.get("contract") or {}
    renonce_teams = []
    for renonce in state.get("renonces") or []:
        team = team_of(renonce.get("seat"))
        if team not in renonce_teams:
            renonce_teams.append(team)
    value = contract.get("value")
    if value is None:
        value = "-"
    elif value == "capot":
        value = "cap"
    pairs = [
        ("ns", int(scores.get("NS") or 0)),
        ("ew", int(scores.get("EW") or 0)),
        ("dl", state.get("dealer") or "-"),
        ("tk", contract.get("taker") or "-"),
        ("ct", value),
        ("tr", contract.get("trump") or "-"),
        ("db", contract.get("double") or 1),
        ("rn", "".join(t for t in TEAMS if t in renonce_teams) or "-"),
        ("ph", state.get("phase") or "-"),
        ("wn", state.get("winner") or "-"),
    ]
    return encode_fields(pairs)


def _int_field(fields, key, low, high):
    text = fields.get(key, "0")
    neg = text.startswith("-")
    digits = text[1:] if neg else text
    if not digits.isdigit():
        raise ProtocolError(f"STATE {key}: {text!r} is not a whole number")
    value = -int(digits) if neg else int(digits)
    if value < low or value > high:
        raise ProtocolError(f"STATE {key}: {value} is not in {low}..{high}")
    return value


def _choice_field(fields, key, choices):
    value = fields.get(key, "-")
    if value != "-" and value not in choices:
        raise ProtocolError("STATE {}: {!r} is not one of {}".format(key, value, " ".join(choices)))
    return None if value == "-" else value


def parse_state(payload):
    """Check a STATE payload and return it as a dict the scoreboard uses.

    Unknown keys are ignored, so a newer host can talk to an older display of
    the same protocol version; a known key with a bad value is refused.

    >>> s = parse_state("ns=120 ew=80 dl=N tk=E ct=90 tr=H db=2 rn=EW ph=play wn=-")
    >>> s["ns"], s["ew"], s["dealer"], s["renonce"], s["trump"]
    (120, 80, 'N', ('EW',), 'H')
    """
    fields = decode_fields(payload)
    contract = fields.get("ct", "-")
    if contract not in ("-", "cap") and not (contract.isdigit() and len(contract) <= 3):
        raise ProtocolError(f"STATE ct: {contract!r} is not a contract value")
    renonce = fields.get("rn", "-")
    teams = tuple(t for t in TEAMS if t in renonce)
    if renonce != "-" and "".join(teams) != renonce:
        raise ProtocolError(f"STATE rn: {renonce!r} is not made of NS and EW")
    return {
        "ns": _int_field(fields, "ns", -99999, 99999),
        "ew": _int_field(fields, "ew", -99999, 99999),
        "dealer": _choice_field(fields, "dl", SEATS),
        "taker": _choice_field(fields, "tk", SEATS),
        "contract": None if contract == "-" else contract,
        "trump": _choice_field(fields, "tr", TRUMPS),
        "double": _int_field(fields, "db", 1, 4) if "db" in fields else 1,
        "renonce": teams,
        "phase": _choice_field(fields, "ph", PHASES),
        "winner": _choice_field(fields, "wn", TEAMS),
    }


def hello_payload(firmware_version):
    """What the display says when it starts and when the host says HELLO."""
    return f"{DISPLAY_NAME} fw={firmware_version} proto={PROTOCOL_VERSION}"


def parse_hello(payload):
    """``"belote-display fw=1.0.0 proto=1"`` -> ``("belote-display", {"fw": .., "proto": ..})``."""
    name, _, rest = payload.partition(" ")
    if not name:
        raise ProtocolError("HELLO: no name")
    return name, decode_fields(rest)
