"""What the two score displays and the alert LED show at a given moment.

Pure logic, no pins and no clock of its own: the caller passes ``now`` in
milliseconds (``time.ticks_ms()`` on the Pico, a monotonic clock on the PC)
and, on the Pico, ``time.ticks_diff`` so that the wrap of the tick counter
does no harm. In order of precedence the displays show:

1. the boot banner ("bELo" / "tE") for BANNER_MS after start-up, LED lit as a lamp test;
2. the web page's PIN for PIN_MS when asked ("PIn" and the digits);
3. dashes on both when the Pi has said nothing for SILENCE_MS (or nothing yet);
4. the two running scores, right-aligned, with the colon lit on the dealer's
   team; for CONTRACT_MS after a new contract, the taker's team shows it
   ("110H", "CAPS", " 90n" for sans atout, " 90A" for tout atout);
   on a renonce the offending team's digits and the LED blink for ALERT_MS,
   then the LED stays lit while the hand has a renonce.

>>> board = Scoreboard(0)
>>> board.view(100)
('bELo', 'tE', False, False, True)
>>> board.heard(3000)
>>> board.set_state({"ns": 120, "ew": 80, "dealer": "E", "renonce": ()}, 3000)
>>> board.view(3000)
('120', '80', False, True, False)
>>> board.view(9000)[:2]
('----', '----')
"""

try:
    from firmware import segments
    from firmware.protocol import team_of
except ImportError:  # on the Pico the modules lie flat in the root folder
    import segments
    from protocol import team_of

BANNER_MS = 2000
SILENCE_MS = 5000
ALERT_MS = 10000
BLINK_MS = 250  # half a blink period
PIN_MS = 30000
CONTRACT_MS = 3000

TRUMP_GLYPH = {"S": "S", "H": "H", "D": "d", "C": "C", "NT": "n", "AT": "A"}


def _plain_diff(a, b):
    return a - b


class Scoreboard:
    """The display state: fed with what the host says, asked what to show."""

    def __init__(self, now, ticks_diff=None, banner_ms=BANNER_MS, silence_ms=SILENCE_MS):
        self.diff = ticks_diff or _plain_diff
        self.banner_ms = banner_ms
        self.silence_ms = silence_ms
        self.boot = now
        self.last_heard = None
        self.state = None
        self.alert_team = None
        self.alert_since = None
        self.pin = None
        self.pin_since = None
        self.contract_key = None
        self.contract_since = None

    def _within(self, since, span, now):
        return since is not None and 0 <= self.diff(now, since) < span

    def heard(self, now):
        """The host said something valid: it is alive."""
        self.last_heard = now

    def set_state(self, state, now):
        """Take a new STATE (a dict from ``protocol.parse_state``)."""
        old = self.state
        old_renonce = old["renonce"] if old else ()
        for team in state.get("renonce", ()):
            if team not in old_renonce:
                self.alert(team, now)
        key = (state.get("taker"), state.get("contract"), state.get("trump"))
        if state.get("contract") and key != self.contract_key:
            self.contract_since = now
        self.contract_key = key if state.get("contract") else None
        self.state = state

    def alert(self, team, now):
        """Blink ``team``'s digits and the LED for ALERT_MS."""
        if team not in ("NS", "EW"):
            raise ValueError(f"alert: team {team!r} is not NS or EW")
        self.alert_team = team
        self.alert_since = now

    def show_pin(self, pin, now):
        """Show ``pin`` (1 to 8 digits) for PIN_MS; ``None`` hides it at once."""
        if pin is not None and (not pin.isdigit() or len(pin) > 8):
            raise ValueError(f"PIN: {pin!r} is not 1 to 8 digits")
        self.pin = pin
        self.pin_since = now

    def _contract_text(self, state):
        value = state["contract"]
        value = "CAP" if value == "cap" else value
        return value + TRUMP_GLYPH.get(state.get("trump"), " ")

    def view(self, now):
        """``(ns_text, ew_text, ns_colon, ew_colon, led)`` to show at ``now``."""
        if self._within(self.boot, self.banner_ms, now):
            return ("bELo", "tE", False, False, True)
        if self.pin is not None and self._within(self.pin_since, PIN_MS, now):
            if len(self.pin) <= 4:
                return ("PIn", self.pin, False, False, False)
            return (self.pin[:-4], self.pin[-4:], False, False, False)
        silent = self.last_heard is None or not self._within(self.last_heard, self.silence_ms, now)
        if silent or self.state is None:
            return ("----", "----", False, False, False)
        state = self.state
        texts = {"NS": segments.number(state["ns"]), "EW": segments.number(state["ew"])}
        if state.get("contract") and self._within(self.contract_since, CONTRACT_MS, now):
            texts[team_of(state.get("taker"))] = self._contract_text(state)
        led = bool(state.get("renonce"))
        if self.alert_team and self._within(self.alert_since, ALERT_MS, now):
            lit = (self.diff(now, self.alert_since) // BLINK_MS) % 2 == 0
            led = lit
            if not lit:
                texts[self.alert_team] = ""
        dealer = state.get("dealer")
        dealer_team = team_of(dealer) if dealer else None
        return (texts["NS"], texts["EW"], dealer_team == "NS", dealer_team == "EW", led)
