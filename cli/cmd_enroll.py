"""``belote-table enroll``: teach the reader the club's deck at the table, with its camera.

The organiser lays the cards face up in the camera's view a few at a time,
left to right, in the order the command says; it tells what it
has learnt and what remains, asks for the table to be cleared between two
groups, and writes the deck file (``vision.deck``) for ``run --deck``. A
group is learnt once the camera has seen exactly that many cards, each with
an index, in ``--steady`` frames in a row, and none of them is read surely as
another card by the general model (a card out of order, or the wrong card:
it says which, and waits). A card that the general model keeps reading as another
card of its suit, not one of the group (a maker's own index font: a looped Q read
as a 9), is passed over once the organiser leaves it ``--confirm`` seconds after being
told: the rest of the group is learnt, and that card is left to the general model
(a deck does not mend such a card: the README's "Teach it your deck"). Stopped early
(Ctrl-C, or the end of a video), it writes the cards learnt so far: the others are read
by the general model.

    belote-table enroll --picamera --zoom 2.5 --out /var/lib/belote-table/deck.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.cmd_run import add_source_options, check_zoom, open_source
from companion.i18n import _, card_label, language, located, reason

PROG = "belote-table enroll"
#: The largest outline taken for a card laid at the table (share of the frame's area). At
#: the recommended mount a card is 17-36 % of the frame's height, 1-5 % of its area; an
#: outline larger than this is the table or its cloth, and the cards inside it would be
#: taken for its printed frame and lost (``vision.locate.find_cards`` keeps outer outlines).
LARGEST_CARD = 0.25
#: Seconds the organiser, told that a card is read as another of its suit, has to put it
#: right before the command passes it over (``--confirm``).
CONFIRM_SECONDS = 10.0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description=_("teach the reader the club's deck at the table, with its camera"))
    add_source_options(p)
    p.add_argument("--out", required=True, metavar=_("DECK"),
                   help=_("the deck file to write (.npz)"))
    p.add_argument("--model", metavar=_("FILE"),
                   help=_("card reader model (default: the shipped one)"))
    p.add_argument("--per", type=int, default=4, metavar="N",
                   help=_("cards laid at a time (default: %(default)s)"))
    p.add_argument("--steady", type=int, default=3, metavar="N",
                   help=_("frames in a row that must show the group (default: %(default)s)"))
    p.add_argument("--cards", metavar=_("LIST"),
                   help=_("only these cards, comma-separated (default: all 32)"))
    p.add_argument("--head", choices=("prototype", "template"), default="prototype",
                   help=_("how looks are compared (default: %(default)s)"))
    p.add_argument("--confirm", type=float, default=CONFIRM_SECONDS, metavar=_("SECONDS"),
                   help=_("a card still read as another card of its suit this long after "
                          "you are told is passed over and left to the general model "
                          "(default: %(default)g)"))
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    check_zoom(parser, args)
    if args.per < 1 or args.steady < 1:
        parser.error(_("--per and --steady must be 1 or more"))
    if not 0 <= args.confirm <= 3600:
        parser.error(_("--confirm must be between 0 and 3600 seconds"))
    from scorer.cards import DECK, Card, InvalidCardError

    if args.cards:
        try:
            codes = [str(Card.parse(c)) for c in args.cards.split(",") if c.strip()]
        except InvalidCardError as exc:
            parser.error(_("--cards: %(reason)s") % {"reason": exc})
        if len(set(codes)) != len(codes):
            parser.error(_("--cards: a card is named twice"))
        args.codes = codes
    else:
        args.codes = [str(c) for c in sorted(DECK, key=lambda c: ("SHDC".index(c.suit),
                                                                    "789TJQKA".index(c.rank)))]
    return args


def cards_in_view(reader: Any, frame: Any) -> list[tuple[float, list[Any], Any]]:
    """The cards lying apart in ``frame``: (centre x, index boxes, outline) of each
    outline with at least one index box inside, left to right; and of each card whose
    outline was not found (a card in a dark corner, a frameless court on a white table)
    but whose two indices were (:func:`paired_indices`), with no outline (None)."""
    import cv2

    from vision.enroll import card_boxes, corner_zone, inside
    from vision.locate import LocateParams, find_cards

    h, w = frame.shape[:2]
    found = reader.detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    out: list[tuple[float, list[Any], Any]] = []
    quads = [q for q in find_cards(frame, LocateParams(max_area=LARGEST_CARD))
             if cv2.contourArea(q) >= 0.01 * h * w]
    for quad in quads:
        boxes = card_boxes(reader, frame, quad, found)
        if boxes:
            out.append((float(quad[:, 0].mean()), boxes, quad))
    # The boxes no outline accounts for: not inside one, nor in one's corners (an
    # outline may be the card's printed frame, its indices just outside).
    left = [box for box, _ in found
            if not any(inside(box, q) or any(inside(box, corner_zone(q, c)) for c in range(4))
                       for q in quads)]
    for a, b in paired_indices(reader, frame, left):
        out.append(((a[0] + a[2] + b[0] + b[2]) / 4, [a, b], None))
    return sorted(out, key=lambda c: c[0])


#: Two index boxes guessed as the same card are that card's two indices when they lie as
#: far apart as a card's two indices (``vision.reader.indices_apart``) and their sides
#: differ by at most this ratio; each must have no other such partner.
PAIR_SIDES = 1.5


def paired_indices(reader: Any, frame: Any, boxes: list[Any]) -> list[tuple[Any, Any]]:
    """The pairs among ``boxes`` that are one card's two indices: both read by the
    general model as the same card, surely or not (never ``none``: a pip, a picture; a
    group holds each card once, and in a row a card's index lies as near its
    neighbour's as its own other one), a card's two indices apart, alike in size, and
    each the other's only such partner (where that is not so, nothing is guessed)."""
    import numpy as np

    from vision.locate import index_crop
    from vision.reader import indices_apart

    if len(boxes) < 2:
        return []
    classifier = reader.classifier
    size, pad = int(classifier.meta["crop"]), float(classifier.meta["pad"])
    probs = classifier.probabilities(np.stack([index_crop(frame, b, size, pad) for b in boxes]))
    by_guess: dict[int, list[Any]] = {}
    for box, p in zip(boxes, probs, strict=True):
        if int(p.argmax()) != classifier.none_index:
            by_guess.setdefault(int(p.argmax()), []).append(box)

    def side(box: Any) -> float:
        return float(max(box[2] - box[0], box[3] - box[1]))

    pairs = []
    for group in by_guess.values():
        partners = [[j for j, b in enumerate(group) if j != i and indices_apart(a, b)
                     and max(side(a), side(b)) <= PAIR_SIDES * min(side(a), side(b))]
                    for i, a in enumerate(group)]
        pairs += [(group[i], group[js[0]]) for i, js in enumerate(partners)
                  if len(js) == 1 and js[0] > i and len(partners[js[0]]) == 1]
    return pairs


def font_misreads(group: list[str], wrong: list[tuple[str, str]]) -> dict[str, str]:
    """The cards of ``wrong`` (expected, read) that the command may pass over, as
    {expected: read}: every card read as another is read as a card of its own suit, of
    another rank, that is not in the group (a maker's index font the reader misreads, as a
    looped Q for a 9). Empty as soon as one is not so: a card of another suit, or one of
    the group (cards out of order), is a card to put right, and the command waits."""
    from scorer.cards import Card

    out = {}
    for want, got in wrong:
        a, b = Card.parse(want), Card.parse(got)
        if a.suit != b.suit or a.rank == b.rank or got in group:
            return {}
        out[want] = got
    return out


def read_as_list(misread: dict[str, str]) -> str:
    """{card: the card the reader takes it for} as the organiser reads it: "QC (lue 9C)"."""
    return ", ".join(_("%(want)s (read as %(got)s)") % {"want": want, "got": got}
                     for want, got in misread.items())


class TableEnrollment:
    """The organiser's loop, a frame at a time (``feed``); ``say`` talks to the organiser."""

    def __init__(self, reader: Any, codes: list[str], per: int, steady: int, head: str,
                 say: Callable[[str], None] = print, confirm: float = CONFIRM_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from vision.enroll import Enroller

        self.reader = reader
        self.enroller = Enroller(reader, head)
        self.groups = [codes[i:i + per] for i in range(0, len(codes), per)]
        self.steady = steady
        self.say = say
        self.codes = codes
        self._seen = 0  # frames in a row showing the group
        self._clear = False  # waiting for the table to be cleared
        self._last_count: int | None = None
        self._last_wrong: list[tuple[str, str]] = []
        self._wrong_since = 0.0
        self.confirm = confirm
        self.clock = clock
        # Cards passed over (``font_misreads``): {card: the card the reader takes it for}.
        self.passed: dict[str, str] = {}
        self.ask()

    @property
    def done(self) -> bool:
        return not self.groups

    def ask(self) -> None:
        from vision.deck import card_name_fr

        if self.done:
            return
        group = self.groups[0]
        name = card_name_fr if language() == "fr" else card_label
        self.say(_("Lay on the table, face up, left to right as the camera sees it (the "
                   "bottom of the picture): %(names)s (%(codes)s)")
                 % {"names": ", ".join(name(c) for c in group), "codes": " ".join(group)})

    def feed(self, frame: Any) -> None:
        if self.done:
            return
        cards = cards_in_view(self.reader, frame)
        if self._clear:
            if not cards:
                self._clear = False
                self._last_count = None
                self.ask()
            return
        group = self.groups[0]
        if len(cards) != len(group):
            self._seen = 0
            if cards and len(cards) != self._last_count:
                self.say(_("I see %(n)s card(s), expecting %(expected)s")
                         % {"n": len(cards), "expected": len(group)})
            self._last_count = len(cards)
            return
        self._seen += 1
        if self._seen < self.steady:
            return
        wrong = self.misplaced(frame, group, [boxes for _x, boxes, _quad in cards])
        passing: dict[str, str] = {}
        if wrong:
            self._seen = 0
            fonts = font_misreads(group, wrong)
            if wrong != self._last_wrong:
                self._last_wrong = wrong
                self._wrong_since = self.clock()
                reads = ", ".join(_("%(got)s instead of %(want)s") % {"got": got, "want": want}
                                  for want, got in wrong)
                self.say(_("I read %(reads)s: check the cards and their order, left to right")
                         % {"reads": reads})
                if fonts:
                    self.say(_("If these are the right cards, leave them: in %(s)s s the "
                               "cards the reader takes for others will be passed over and "
                               "read by the general model: %(cards)s")
                             % {"s": f"{self.confirm:g}", "cards": " ".join(fonts)})
                return
            if not fonts or self.clock() - self._wrong_since < self.confirm:
                return
            passing = fonts
            self.passed.update(fonts)
            self.say(_("Passed over, left to the general model: %(cards)s")
                     % {"cards": read_as_list(fonts)})
        self._last_wrong = []
        import cv2

        from vision.enroll import card_boxes

        found = self.reader.detector.detect(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        for code, (_x, boxes, quad) in zip(group, cards, strict=True):
            if code in passing:
                continue
            if quad is not None:
                # The card is known now: its index boxes are those the general model
                # reads most as that card (a court's name or picture can look more to
                # the detector like an index than the index itself).
                boxes = card_boxes(self.reader, frame, quad, found, code=code) or boxes
            # The outline lets the deck also learn the card laid in other table frames
            # (``vision.enroll.table_looks``: nearer, farther, turned, softer).
            self.enroller.add(code, frame, boxes, quad)
        self.groups.pop(0)
        self._seen = 0
        self.show()
        if not self.done:
            self._clear = True
            self.say(_("Take these cards off the table"))

    def misplaced(self, frame: Any, group: list[str], boxes: list[list[Any]]
                  ) -> list[tuple[str, str]]:
        """(expected, read) for each card the general model reads surely as another
        card: a card laid in the wrong place, or the wrong card. Nothing is learnt then."""
        import numpy as np

        from vision.locate import index_crop

        classifier = self.reader.classifier
        size, pad = int(classifier.meta["crop"]), float(classifier.meta["pad"])
        out = []
        for want, card_boxes in zip(group, boxes, strict=True):
            crops = np.stack([index_crop(frame, b, size, pad) for b in card_boxes])
            probs = classifier.probabilities(crops)
            for p in probs:
                k = int(p.argmax())
                got = classifier.classes[k]
                if k != classifier.none_index and got != want and p[k] >= classifier.threshold:
                    out.append((want, got))
                    break
        return out

    def show(self) -> None:
        learnt = self.enroller.cards
        left = [c for c in self.codes if c not in learnt and c not in self.passed]
        self.say(_("Learnt (%(n)s/%(total)s): %(cards)s")
                 % {"n": len(learnt), "total": len(self.codes), "cards": " ".join(learnt)})
        if left:
            self.say(_("Left: %(cards)s") % {"cards": " ".join(left)})


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from vision.deck import DeckError
    from vision.reader import CardReader

    out = Path(args.out)
    if not out.parent.is_dir():
        print(located(PROG, _("%(dir)s: no such folder, nothing written")
                      % {"dir": out.parent}), file=sys.stderr)
        return 2
    try:
        reader = CardReader(args.model)
        table = TableEnrollment(reader, args.codes, args.per, args.steady, args.head,
                                confirm=args.confirm)
        source = open_source(args)
    except (ValueError, FileNotFoundError) as exc:  # SourceError and DeckError are ValueErrors
        print(located(PROG, reason(exc)), file=sys.stderr)
        return 2
    try:
        for _ts, frame in source:
            table.feed(frame)
            if table.done:
                break
    except KeyboardInterrupt:
        pass
    except ValueError as exc:  # a frame the source could not read
        print(located(PROG, reason(exc)), file=sys.stderr)
    finally:
        close = getattr(source, "close", None)
        if close:
            close()
    try:
        deck = table.enroller.deck()
    except DeckError as exc:
        print(located(PROG, reason(exc)), file=sys.stderr)
        return 2
    deck.save(out)
    print(_("%(file)s: deck written, %(n)s card(s) learnt")
          % {"file": out, "n": len(deck.cards)})
    if table.passed:
        print(_("Not learnt, the reader takes them for another card (they may be misread "
                "at the table): %(cards)s")
              % {"cards": read_as_list(table.passed)})
    if not table.done or table.passed:
        print(_("The cards not learnt will be read by the general model"))
    return 0
