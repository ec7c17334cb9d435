"""The play tracker: from per-frame card reads to the plays of a game.

The card reader says, frame by frame, which cards it sees where and how sure
it is. Frames lie: a hand passes over the cards, glare hides an index, a card
is nudged or slid, a gathered trick is turned up again. The tracker keeps a
*track* for each card lying on the table and says a card was played only once
it has stayed in one seat's zone, its sure reads agreeing, for
the settle time (about 0.3 s). So none of those lies creates, removes or
duplicates a card:

* a frame without the card (hand over it, glare) neither ends its track (that
  takes ``gone_after`` seconds unseen) nor counts as a read;
* a nudged or slid card keeps its track (a card's code is unique in the deck)
  and, if not yet played, starts settling again where it stops;
* a card already played is never played again, whether its track lived on or
  it was seen anew (``played``, from the service, lists the hand's cards).

The seat comes from where the card lies (``Calibration.seat_of``) and is
checked against whose turn it is (``to_play``, from the service): a card that
settles in another seat's zone is *not* given to the seat whose turn it is.
Read surely and still there ``out_of_turn_after`` seconds after it settled, it
is reported ``out_of_turn`` and played for its own seat all the same (a
``play`` whose ``to_play`` names the seat that was to play): the service
stores what the camera saw, and the rules engine plays it when its seat's
turn comes (``scorer.fold``), so no card is lost when the game's idea of the
turn is wrong (a mistaken correction). A card that stays on the table without
a sure read for ``unknown_after`` seconds is played as unknown (``card=None``)
when its turn comes, and named later (``identified``) if a sure read comes.
When the cards of the trick leave the table, ``gathered`` says so.

Each play carries the card's ``reads``: the likeliest cards over every frame
the card was seen in, with their probabilities (a frame's sure read, or a
doubtful read's guess, with the reader's confidence).

The tracker does no image work and imports nothing heavy: it is fed
``Detection``-like objects (``code``, ``confidence``, ``center``).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from vision.calibration import Calibration

DEFAULT_SETTLE_S = 0.3
# The share of sure reads (``min_share``) is counted over the last half second of frames.
SHARE_WINDOW_S = 0.5
# Frame times are floats (n / fps): compare durations with a little slack.
_EPS = 1e-6


class DetectionLike(Protocol):
    code: str | None
    confidence: float
    center: Any  # (x, y)


@dataclass(frozen=True)
class TrackerOutput:
    """What the tracker saw happen.

    ``kind``: ``play`` (``card`` None for an unknown card), ``out_of_turn``
    (a card settled in ``seat``'s zone while ``to_play`` was to play),
    ``identified`` (an unknown card played by ``seat`` is now read as ``card``),
    ``gathered`` (the played cards left the table). ``ts`` is the time of the
    frame in which it was decided; ``settled_at`` the first frame showing the
    card still and read for the settle time (they differ when the card waited
    for its turn). A ``play`` with ``to_play`` set was put down out of turn.
    ``reads`` (plays and identifications): up to ``READS_KEPT`` cards, likeliest
    first, as (card, probability, frames): the probability is the reader's
    confidence in that card summed over the frames the card was seen in,
    divided by those ``frames`` (a frame that reads nothing counts 0);
    ``frames`` how many frames read it as that card.
    """

    kind: str
    seat: str | None = None
    card: str | None = None
    confidence: float | None = None
    ts: float = 0.0
    settled_at: float | None = None
    to_play: str | None = None
    reads: tuple[tuple[str, float, int], ...] = ()
    frames: int = 0  # frames the card was seen in


# How many of a card's likeliest reads a play carries.
READS_KEPT = 4


@dataclass
class _Track:
    code: str | None
    center: tuple[float, float]
    anchor: tuple[float, float]  # where the card has lain since still_since
    seat: str
    born: float
    still_since: float
    last_seen: float
    hits: deque[float] = field(default_factory=deque)  # recent times read as ``code``
    reads: int = 0  # sure reads as ``code`` since it lies where it is
    seen_at: deque[float] = field(default_factory=deque)  # recent frames showing it
    read_at: deque[float] = field(default_factory=deque)  # recent frames reading it as ``code``
    confidences: deque[float] = field(default_factory=deque)
    played: bool = False  # counted (or known) as played: never played again
    own_play: bool = False  # played by this tracker (it, or the same card seen twice)
    unknown_played: bool = False  # played as an unknown card, not named yet
    reported: bool = False  # out_of_turn already reported
    settled_at: float | None = None
    hand: int = 0  # the hand (PlayTracker.hands) it was first seen in
    # Every frame's read of it: card -> [frames, summed confidence, time last counted].
    votes: dict[str, list[float]] = field(default_factory=dict)
    frames: int = 0  # frames it was seen in
    frame_at: float = -1.0  # the last frame counted in ``frames``

    def vote(self, ts: float, code: str, confidence: float) -> None:
        """One frame's read of this card as ``code`` (once per frame and code)."""
        if self.frame_at != ts:
            self.frame_at = ts
            self.frames += 1
        vote = self.votes.get(code)
        if vote is None:
            self.votes[code] = [1.0, confidence, ts]
        elif vote[2] != ts:  # the same frame reading it twice counts once
            vote[0] += 1.0
            vote[1] += confidence
            vote[2] = ts

    def seen_frame(self, ts: float) -> None:
        """A frame showed this card without naming it (no read, no guess)."""
        if self.frame_at != ts:
            self.frame_at = ts
            self.frames += 1

    def likeliest(self) -> tuple[tuple[str, float, int], ...]:
        """Its likeliest cards over every frame it was seen in (``TrackerOutput.reads``)."""
        frames = max(self.frames, 1)
        ranked = sorted(self.votes.items(), key=lambda kv: (-kv[1][1], kv[0]))[:READS_KEPT]
        return tuple((code, round(v[1] / frames, 4), int(v[0])) for code, v in ranked)


class PlayTracker:
    """Feed it ``update(ts, detections, to_play, played)`` once per frame.

    Settings (seconds unless said): ``settle`` still-and-read time before a card
    counts; ``min_reads`` sure reads of its code it needs since it lies where
    it is (frames where the reader is unsure neither count for nor against a
    card: the reader's threshold keeps its sure reads right, so a few of them
    outweigh many unsure frames; a different sure read at the same place is
    a vote against); ``min_share`` the least share of the frames showing the
    card (over its last half second where it lies) that must read it surely as
    its code: a card the reader cannot read, misread now and then, stays
    unknown rather than taking the misread code (and an unread card must be
    seen in that share of the window's frames to be played as unknown);
    ``gone_after`` unseen time after which a card has left the table;
    ``unknown_after`` time a card may stay unread before it is played as unknown;
    ``out_of_turn_after`` grace before a settled card of the wrong seat is
    reported; ``still_px`` how far a card may move and still count as lying
    where it was (the reader's centre
    of a card jumps when only one of its two indices is read); ``match_px``
    how far an unread detection may lie from a track to be that card (its
    other index). Both default to a quarter of the frame's short side, about
    a card's length on a table filling the frame, well under the distance
    between two seats' cards.
    """

    def __init__(self, calibration: Calibration, settle: float = DEFAULT_SETTLE_S,
                 min_reads: int = 2, gone_after: float = 1.0, unknown_after: float = 1.0,
                 out_of_turn_after: float = 0.6, still_px: float | None = None,
                 match_px: float | None = None, min_share: float = 0.5) -> None:
        if settle <= 0 or min_reads < 1 or gone_after <= 0 or unknown_after <= settle:
            raise ValueError("PlayTracker: settle > 0, min_reads >= 1, gone_after > 0 "
                             "and unknown_after > settle are required")
        self.calibration = calibration
        self.settle = settle
        self.min_reads = min_reads
        self.min_share = min_share
        self.gone_after = gone_after
        self.unknown_after = unknown_after
        self.out_of_turn_after = out_of_turn_after
        size = min(calibration.width, calibration.height)
        self.still_px = size * 0.25 if still_px is None else still_px
        self.match_px = size * 0.25 if match_px is None else match_px
        self.tracks: list[_Track] = []
        # Hands begun: a card the service had listed as played and no longer lists
        # means a new hand (its list starts empty).
        self.hands = 0
        self._listed: set[str] = set()
        # The times of the frames of the last share window (``SHARE_WINDOW_S``).
        self._frames: deque[float] = deque()

    # -- the frame loop ------------------------------------------------------------------

    def update(self, ts: float, detections: Iterable[DetectionLike], to_play: str | None,
               played: Iterable[str] = (), any_seat: bool = False) -> list[TrackerOutput]:
        """Take one frame's reads (time ``ts``); return what happened, in order.

        ``to_play`` is the seat whose turn it is (None: no card may come now,
        e.g. during the bids); ``any_seat`` says a trick may be led by anyone
        (its leader is not known: the last trick held an unknown card).
        """
        played_now = set(played)
        self._frames.append(ts)
        while self._frames and self._frames[0] < ts - max(self.settle, SHARE_WINDOW_S) - _EPS:
            self._frames.popleft()
        if self._listed - played_now:
            self.hands += 1
        self._listed = played_now
        seen = self._match(ts, detections)
        out = self._forget(ts)
        out += self._decide(ts, seen, to_play, played_now, any_seat)
        return out

    def _match(self, ts: float, detections: Iterable[DetectionLike]) -> set[int]:
        """Attach this frame's detections to tracks; return the ids of tracks seen."""
        best: dict[str, tuple[float, tuple[float, float], str]] = {}
        unread: list[tuple[tuple[float, float], str, str | None, float]] = []
        for d in detections:
            center = (float(d.center[0]), float(d.center[1]))
            seat = self.calibration.seat_of(center)
            if seat is None:
                continue  # off the play area: in a player's hand, the stock, a gathered trick
            if d.code is None:
                unread.append((center, seat, getattr(d, "guess", None), float(d.confidence)))
            elif d.code not in best or d.confidence > best[d.code][0]:
                # A code appears once in a deck: two places at once is a misread.
                best[d.code] = (float(d.confidence), center, seat)
        seen: set[int] = set()
        # Cards already tracked first: whether a played card is read in this frame
        # decides whether a new code beside it is that card's other index (below).
        tracked = {t.code for t in self.tracks}
        for code, (conf, center, seat) in sorted(best.items(),
                                                 key=lambda kv: kv[0] not in tracked):
            track = next((t for t in self.tracks if t.code == code), None)
            if (track is not None and ts - track.last_seen > self.settle
                    and (math.dist(track.center, center) > self.match_px
                         or track.played and track.hand != self.hands)):
                # Gone for a while and back somewhere else: not a slide but the card
                # put down anew (the next hand's deal) or turned up again; a card
                # already played this hand is recognised by ``played``. Played in an
                # earlier hand, gone a while and back: the same card of a new deal,
                # even where it lay before (the same seat may play it first).
                self.tracks.remove(track)
                track = None
            if track is None:
                # A card read for the first time where an unread card lay is that card.
                track = self._nearest(center, seen, unread_only=True, now=ts)
                if track is not None:
                    track.code = code
                    track.reads = 0
                    track.read_at.clear()
                    track.hits.clear()
                    track.confidences.clear()
            if track is None:
                track = self._new_track(code, center, seat, ts)
            self._place(track, ts, center, seat)
            track.reads += 1
            track.seen_at.append(ts)
            track.read_at.append(ts)
            track.hits.append(ts)
            track.confidences.append(conf)
            track.vote(ts, code, conf)
            seen.add(id(track))
        for center, seat, guess, conf in unread:
            track = self._nearest(center, seen, unread_only=False)
            if track is None:
                track = self._new_track(None, center, seat, ts)
            self._place(track, ts, center, seat)
            track.seen_at.append(ts)
            if guess is not None:
                track.vote(ts, guess, conf)
            else:
                track.seen_frame(ts)
            seen.add(id(track))
        for track in self.tracks:
            while track.hits and track.hits[0] < ts - self.settle - _EPS:
                track.hits.popleft()
                track.confidences.popleft()
            window = ts - max(self.settle, SHARE_WINDOW_S) - _EPS
            for times in (track.seen_at, track.read_at):
                while times and times[0] < window:
                    times.popleft()
        return seen

    def _new_track(self, code: str | None, center: tuple[float, float], seat: str,
                   ts: float) -> _Track:
        # A seat puts one card down per trick, and the trick is gathered before
        # the next: while the card it played is still read, anything new in its
        # zone is that card again (its other index, a misread), not a second card.
        # No track of its own: a misread code must not claim that code later.
        # Only a sure read of the played card counts: an unread box seen there
        # after the trick was gathered is as likely the seat's next card. And only
        # a card this tracker played, or one read there over the settle time (seen
        # again after a restart): a single misread naming a card played earlier in
        # the hand (a card slid in, blurred) makes a track marked played at once,
        # which must not swallow the card read surely from the next frame on, nor
        # once the settle time has passed since that one misread.
        shown = [t for t in self.tracks if t.played and t.seat == seat
                 and t.hits and ts - t.hits[-1] <= self.settle + _EPS
                 and (t.own_play or t.hits[-1] - t.born + _EPS >= self.settle)]
        if shown:
            return max(shown, key=lambda t: t.last_seen)
        track = _Track(code, center, center, seat, ts, ts, ts, hand=self.hands)
        self.tracks.append(track)
        return track

    def _nearest(self, center: tuple[float, float], seen: set[int],
                 unread_only: bool, now: float | None = None) -> _Track | None:
        # A card first read where an unread card lies is that card, unless the
        # unread one was already counted as another card seen twice (a played
        # card's other index): the new card is then one of its own. An unknown
        # card played and then out of sight for longer than the settle time
        # (``now``: this frame's time) is not named by a read there: the trick may have been
        # gathered, and the read is the seat's card of the next one.
        near = [(math.dist(t.center, center), i) for i, t in enumerate(self.tracks)
                if id(t) not in seen
                and (not unread_only or (t.code is None and not t.played))
                and (now is None or not t.unknown_played
                     or now - t.last_seen <= self.settle + _EPS)]
        near = [(d, i) for d, i in near if d <= self.match_px]
        return self.tracks[min(near)[1]] if near else None

    def _place(self, track: _Track, ts: float, center: tuple[float, float], seat: str) -> None:
        track.center = center
        track.last_seen = ts
        if seat != track.seat or math.dist(center, track.anchor) > self.still_px:
            # Moved to another seat's zone, or far: it must settle again where it stops.
            track.anchor = center
            track.still_since = ts
            track.seat = seat
            track.settled_at = None
            track.reads = 0
            track.seen_at.clear()
            track.read_at.clear()

    def _forget(self, ts: float) -> list[TrackerOutput]:
        """End the tracks of cards unseen for ``gone_after``: they left the table."""
        out: list[TrackerOutput] = []
        gone = [t for t in self.tracks if ts - t.last_seen > self.gone_after]
        if not gone:
            return out
        self.tracks = [t for t in self.tracks if ts - t.last_seen <= self.gone_after]
        if any(t.played for t in gone) and not any(t.played for t in self.tracks):
            out.append(TrackerOutput("gathered", ts=ts))
        return out

    def _decide(self, ts: float, seen: set[int], to_play: str | None,
                played: set[str], any_seat: bool) -> list[TrackerOutput]:
        out: list[TrackerOutput] = []
        ready: list[tuple[_Track, bool]] = []  # (track, read surely)
        for track in self.tracks:
            if id(track) not in seen:
                continue
            if track.code is not None and track.code in played and not track.unknown_played:
                track.played = True  # seen again: already counted
                continue
            still_for = ts - track.still_since + _EPS
            if (track.code is not None and still_for >= self.settle
                    and track.reads >= self.min_reads and track.hits
                    and len(track.read_at) >= self.min_share * len(track.seen_at)
                    and not self._outvoted(track)):
                if track.settled_at is None:
                    track.settled_at = ts  # the first frame that shows it settled
                if track.unknown_played:
                    track.unknown_played = False
                    track.played = True  # own_play since it was played unknown
                    out.append(TrackerOutput("identified", track.seat, track.code,
                                             self._confidence(track), ts, track.settled_at,
                                             reads=track.likeliest(), frames=track.frames))
                elif not track.played:
                    ready.append((track, True))
            elif (not track.played and not track.unknown_played
                  and still_for >= self.unknown_after
                  and len(track.seen_at) >= self.min_share * len(self._frames)):
                # An unread card is played only if it is there in most frames: a few
                # unsure boxes now and then (a read card's blurred index, a pip) are
                # no card of their own.
                ready.append((track, False))
        # One play per frame: the next seat's turn is known only once the service
        # has taken this one, and the next frame comes soon enough.
        mine = [(t, sure) for t, sure in ready if any_seat or t.seat == to_play]
        if any_seat and mine:
            # Whoever leads is whoever put a card down first: wait for the earliest
            # card on the table, even while it is still being read.
            waiting = [t for t in self.tracks if not t.played and not t.unknown_played]
            first = min(waiting, key=lambda t: t.still_since)
            mine = [(t, sure) for t, sure in mine if t is first]
        if mine and (any_seat or to_play is not None):
            track, sure = min(mine, key=lambda ts_: (not ts_[1], ts_[0].still_since))
            out.append(self._take(track, sure, ts))
            return out
        if to_play is None:
            return out  # bidding, or no game: cards wait for the play to start
        late = [t for t, sure in ready if sure and not t.reported
                and ts - t.still_since + _EPS >= self.settle + self.out_of_turn_after]
        if late and not any(t.played and t.hand != self.hands for t in self.tracks):
            # Read surely, lying there well past the settle time, not its seat's turn:
            # said out of turn, and played for its seat all the same (one per frame,
            # the first put down first): the rules engine keeps it for its turn.
            # Not while the last hand's last trick still lies there: a card of it
            # seen anew (a hand passed over it) is no card of the new hand.
            track = min(late, key=lambda t: t.still_since)
            track.reported = True
            out.append(TrackerOutput("out_of_turn", track.seat, track.code,
                                     self._confidence(track), ts, track.settled_at,
                                     to_play=to_play))
            out.append(self._take(track, True, ts, to_play))
        return out

    def _take(self, track: _Track, sure: bool, ts: float,
              to_play: str | None = None) -> TrackerOutput:
        """Play ``track`` for its seat now (``to_play``: the seat that was to play,
        when it is out of turn)."""
        track.own_play = True
        if not sure:
            track.unknown_played = True
            play = TrackerOutput("play", track.seat, None, None, ts,
                                 track.still_since + self.unknown_after, to_play=to_play,
                                 reads=track.likeliest(), frames=track.frames)
        else:
            track.played = True
            play = TrackerOutput("play", track.seat, track.code, self._confidence(track), ts,
                                 track.settled_at, to_play=to_play, reads=track.likeliest(),
                                 frames=track.frames)
        # A seat puts one card down per trick: anything else unplayed in its
        # zone now is that card seen twice (its other index, unread).
        # When the play is an unknown card, a read one there may name it later.
        for other in self.tracks:
            if other is not track and other.seat == track.seat and not other.played \
                    and not other.unknown_played:
                other.own_play = True
                if sure or other.code is None:
                    other.played = True
                else:
                    other.unknown_played = True
        return play

    def _outvoted(self, track: _Track) -> bool:
        """Another code read more often at the same place of the same seat."""
        return any(t is not track and t.code is not None and not t.played
                   and t.seat == track.seat and t.reads >= track.reads
                   and math.dist(t.center, track.center) <= self.match_px
                   for t in self.tracks)

    @staticmethod
    def _confidence(track: _Track) -> float:
        return round(sum(track.confidences) / len(track.confidences), 4) \
            if track.confidences else 0.0

    def on_table(self) -> Sequence[dict[str, Any]]:
        """The cards the tracker believes lie on the table (for status and tests)."""
        return [{"code": t.code, "seat": t.seat, "center": t.center, "played": t.played}
                for t in self.tracks]
