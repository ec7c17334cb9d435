"""The virtual table: a seeded simulated game, filmed from above.

``scorer.simulate`` plays a whole game (plausible bids, random legal plays,
optionally one renonce); this module renders it as the camera above a real
table would see it: felt and uneven light, each player's card slid in from
their side of the table by a hand, resting in front of them, hands passing
over the cards, a card nudged now and then, a glare spot, and the four cards
gathered at the end of each trick. French decks by default.

It is a camera source like ``vision.sources``: iterating gives
``(timestamp, frame)``; the timestamps are the table's own clock (seconds from
0, ``1 / fps`` apart), or the wall clock when ``realtime``. It also carries
the ground truth: ``events`` (what the simulator played), ``spoken`` (the
events a camera cannot see: bids, belote announcements, each with the number
of cards played before it) and ``plays`` (each card with the time it came to
rest on the table).

Rendering needs numpy and OpenCV (imported here, never by the CLI at start).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.events import CardPlayed, Event
from scorer.simulate import simulate_game
from vision.calibration import Calibration
from vision.lab.render import TABLE_KINDS, TableScene, french_styles, get_style, hand_occluder

# Frame side of each seat when N sits at the top of the frame (hand_occluder's edges).
EDGE = {"N": "N", "E": "E", "S": "S", "W": "W"}
# How a seat's card lies as seen from above (degrees, turned towards its player).
ANGLE = {"N": 180.0, "E": 270.0, "S": 0.0, "W": 90.0}


def random_table(rng: np.random.Generator,
                 card_share: tuple[float, float] = (0.17, 0.36)) -> dict[str, object]:
    """``VirtualTable``'s ``table`` settings drawn at random as the rendered scenes'
    (any table top, light, a slight tilt), a card ``card_share`` of the frame's height."""
    return {"background": TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))],
            "light": float(rng.uniform(0.3, 1.3)), "tilt": float(rng.uniform(0.0, 0.06)),
            "card_height": float(rng.uniform(*card_share))}


@dataclass(frozen=True)
class TruePlay:
    """A card of the simulated game as it happened on the table."""

    index: int  # position in ``VirtualTable.events``
    seat: str
    card: str
    rested_at: float  # the table clock when it came to rest in front of ``seat``


@dataclass(frozen=True)
class Timing:
    """Seconds each gesture takes on the table."""

    move: float = 0.2  # a hand slides the card in
    withdraw: float = 0.1  # the hand goes back, the card lies still
    gap: float = 0.5  # until the next player moves
    before_gather: float = 1.0  # everyone looks at the trick
    gather: float = 0.3  # a hand sweeps the trick away
    after_gather: float = 0.3
    between_hands: float = 0.5


class VirtualTable:
    """A simulated game as a camera source. See the module docstring.

    ``seed`` fixes the game and the pictures; ``hands`` how many hands to play;
    ``style`` a deck style name or ``"french"``/``"english"`` (one of those
    styles picked by the seed); ``size`` the frame size; ``hands_over`` the
    chance, per card put down, that a hand passes over the cards afterwards;
    ``nudge`` that a card already lying is pushed a little; ``glare`` that a
    frame has a glare spot on a card; ``table`` the table and camera when not the
    usual green felt under a camera at a fixed height: ``background`` (a
    ``render_background`` kind), ``light`` (strength of the uneven light),
    ``tilt`` (camera tilt) and ``card_height`` (a card's height over the frame's),
    each optional. ``occluders`` holds what is over the cards in the last frame
    given (the hands), for the frame's ground truth: ``scene.annotations(occluders)``.
    """

    def __init__(self, seed: int = 0, hands: int = 4, rules: str = "ffb",
                 inject_renonce: bool = False, style: str = "french",
                 size: tuple[int, int] = (960, 540), fps: float = 10.0,
                 hands_over: float = 0.3, nudge: float = 0.1, glare: float = 0.02,
                 timing: Timing | None = None, realtime: bool = False,
                 events: list[Event] | None = None, table: dict | None = None) -> None:
        if fps <= 0:
            raise ValueError(f"fps: {fps!r} must be positive")
        self.seed = seed
        self.events = list(events) if events is not None else simulate_game(
            seed, hands=hands, rules=rules, inject_renonce=inject_renonce)
        self.size = (int(size[0]), int(size[1]))
        self.fps = float(fps)
        self.hands_over = hands_over
        self.nudge = nudge
        self.glare = glare
        self.timing = timing or Timing()
        self.realtime = realtime
        self.rng = np.random.default_rng(seed)
        if style in ("french", "english"):
            from vision.lab.render import english_styles
            styles = french_styles() if style == "french" else english_styles()
            deck = styles[int(self.rng.integers(len(styles)))]
        else:
            deck = get_style(style)
        w, h = self.size
        table = dict(table or {})
        unknown = set(table) - {"background", "light", "tilt", "card_height"}
        if unknown:
            raise ValueError(f"table: unknown settings {sorted(unknown)}")
        light = table.get("light")
        self.scene = TableScene(self.rng, self.size, background=table.get("background", "felt"),
                                light=float(self.rng.uniform(0.4, 0.9) if light is None
                                            else light),
                                tilt=float(table.get("tilt", 0.0)),
                                card_height=float(table.get("card_height", 0.26)) * h,
                                style=deck)
        self.occluders: list = []
        self.calibration = Calibration.default(w, h)
        # Where each seat puts its card: part way from the centre to its edge.
        self.spots = {"N": (w / 2, h * 0.24), "S": (w / 2, h * 0.76),
                      "W": (w * 0.27, h / 2), "E": (w * 0.73, h / 2)}
        self.spoken: list[tuple[int, Event]] = []
        n = 0
        for e in self.events[1:]:
            if isinstance(e, CardPlayed):
                n += 1
            else:
                self.spoken.append((n, e))
        self.plays: list[TruePlay] = []
        self.frames = 0
        # What the film put in the camera's way, for tests and the benchmark.
        self.hand_passes = 0
        self.nudges = 0
        self.glares = 0
        self._clock0: float | None = None
        # code -> (placement id, centre, angle) of the cards lying on the table
        self._lying: dict[str, tuple[int, tuple[float, float], float]] = {}

    # -- the source interface -------------------------------------------------------------

    def __iter__(self) -> Iterator[tuple[float, np.ndarray]]:
        return self._frames()

    def close(self) -> None:
        """Nothing to release (same interface as the camera sources)."""

    @property
    def card_plays(self) -> list[tuple[str, str]]:
        """(seat, card) of every card the simulator played, in order."""
        return [(e.seat, e.card or "") for e in self.events if isinstance(e, CardPlayed)]

    # -- the film ---------------------------------------------------------------------------

    def _emit(self, frame_s: float, occluders: list) -> Iterator[tuple[float, np.ndarray]]:
        """Frames for ``frame_s`` seconds of the scene as it is, with ``occluders`` above."""
        for _ in range(max(1, round(frame_s * self.fps))):
            frame = self.scene.draw(occluders, self.rng)
            self.occluders = list(occluders)
            if self.glare > 0 and self.rng.random() < self.glare and self._lying:
                self._glare(frame)
                self.glares += 1
            ts = self.frames / self.fps
            self.frames += 1
            if self.realtime:
                if self._clock0 is None:
                    self._clock0 = time.monotonic() - ts
                delay = self._clock0 + ts - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                ts = self._clock0 + ts
            yield ts, frame

    @property
    def now(self) -> float:
        """The table clock at the next frame."""
        return self.frames / self.fps

    def _glare(self, frame: np.ndarray) -> None:
        """A lamp's reflection: a soft white spot over one of the cards."""
        lying = list(self._lying.values())
        if not lying:
            return
        x, y = lying[int(self.rng.integers(len(lying)))][1]
        h = self.scene.card_height
        spot: np.ndarray = np.zeros(frame.shape[:2], np.float32)
        cv2.ellipse(spot, (int(x + self.rng.uniform(-0.2, 0.2) * h),
                           int(y + self.rng.uniform(-0.3, 0.3) * h)),
                    (int(0.25 * h), int(0.15 * h)), float(self.rng.uniform(0, 180)), 0, 360,
                    (1.0,), -1)
        spot = cv2.GaussianBlur(spot, (0, 0), 0.05 * h)[..., None]
        frame[:] = np.clip(frame + spot * 230, 0, 255).astype(np.uint8)

    def _place(self, code: str, center: tuple[float, float], angle: float) -> int:
        return self.scene.place(code, center, angle)

    def _frames(self) -> Iterator[tuple[float, np.ndarray]]:
        t = self.timing
        w, h = self.size
        trick: list[str] = []
        yield from self._emit(t.between_hands, [])
        for index, event in enumerate(self.events):
            if not isinstance(event, CardPlayed) or event.card is None:
                continue
            seat, code = event.seat, event.card
            spot = self.spots[seat]
            jitter = self.rng.uniform(-0.035, 0.035, 2) * (w, h)
            rest = (spot[0] + float(jitter[0]), spot[1] + float(jitter[1]))
            angle = ANGLE[seat] + float(self.rng.uniform(-25, 25))
            # The card comes from the player's side of the table.
            edge_dir = {"N": (0, -1), "S": (0, 1), "W": (-1, 0), "E": (1, 0)}[seat]
            start = (rest[0] + edge_dir[0] * 0.12 * h, rest[1] + edge_dir[1] * 0.12 * h)
            hand = hand_occluder(self.rng, self.size, target=rest, edge=EDGE[seat])
            steps = max(1, round(t.move * self.fps))
            pid = None
            for k in range(steps):
                f = (k + 1) / steps
                pos = (start[0] + f * (rest[0] - start[0]), start[1] + f * (rest[1] - start[1]))
                if pid is not None:
                    self.scene.remove(pid)
                pid = self._place(code, pos, angle)
                yield from self._emit(1 / self.fps, [hand])
            assert pid is not None
            self._lying[code] = (pid, rest, angle)
            self.plays.append(TruePlay(index, seat, code, self.now))
            yield from self._emit(t.withdraw, [hand])
            trick.append(code)
            yield from self._pause(t.gap)
            if len(trick) == 4:
                yield from self._pause(t.before_gather)
                center = (w / 2 + float(self.rng.uniform(-0.05, 0.05) * w), h / 2)
                sweep = hand_occluder(self.rng, self.size, target=center,
                                      edge="NESW"[int(self.rng.integers(4))])
                yield from self._emit(t.gather / 2, [sweep])
                for c in trick:
                    self.scene.remove(self._lying.pop(c)[0])
                yield from self._emit(t.gather / 2, [sweep])
                yield from self._emit(t.after_gather, [])
                trick = []
                if len(self.plays) % 32 == 0:
                    yield from self._emit(t.between_hands, [])

    def _pause(self, seconds: float) -> Iterator[tuple[float, np.ndarray]]:
        """The table between two cards: maybe a hand passes over, maybe a nudge."""
        if self._lying and self.rng.random() < self.nudge:
            code = list(self._lying)[int(self.rng.integers(len(self._lying)))]
            pid, (x, y), angle = self._lying[code]
            self.scene.remove(pid)
            d = self.rng.uniform(-0.03, 0.03, 2) * self.scene.card_height
            moved = (x + float(d[0]), y + float(d[1]))
            angle += float(self.rng.uniform(-6, 6))
            # Where it lies in the pile does not matter: a trick's cards barely overlap.
            self._lying[code] = (self._place(code, moved, angle), moved, angle)
            self.nudges += 1
        if self._lying and self.rng.random() < self.hands_over:
            over = min(seconds, 0.3)
            target = list(self._lying.values())[int(self.rng.integers(len(self._lying)))][1]
            passing = hand_occluder(self.rng, self.size, target=target,
                                    edge="NESW"[int(self.rng.integers(4))])
            self.hand_passes += 1
            yield from self._emit(over, [passing])
            seconds -= over
        if seconds > 0:
            yield from self._emit(seconds, [])

