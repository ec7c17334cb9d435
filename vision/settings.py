"""The reader's tuned values: one frozen record, read from the model's JSON.

Every threshold, floor, exponent and margin the runtime reader's rules use was chosen
for one classifier (on frames and photos its figures are never reported on), so it
ships with that classifier: the ``"reader"`` object of the model's JSON
(``vision/models/index_classifier.json``), beside the values its training calibrated
(temperature, thresholds, second look). A retrained model brings its own; the model
card (``vision/models/README.md``) lists each rule and what it adds.

:func:`load_settings` checks every key (present, of its type, in its range) and names
the file and the key it refuses.
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

# The choices of the settings that name one (strictest first where it matters).
#: What the frame as it is must have guessed where a card is named only once the frame
#: is sharpened: a doubt there guessing that "card"; one guessing a card of its "suit";
#: a "doubt" there, whatever it guessed; "any": no card named there is enough.
SHARPEN_AGREEMENTS = ("card", "suit", "doubt", "any")
#: How ``read_face`` picks the picture's card among several sure reads: "placed", the
#: read lying where the card filling the picture has its indices; "pairs_first", a card
#: read at both its indices first; "surest".
FACE_CHOICES = ("placed", "pairs_first", "surest")
#: How a sure read of a one-card picture stretched to the other shape must agree with
#: the picture's doubtful read as it is: "any" guess, one of the same "rank", the same
#: "card".
SHAPE_AGREEMENTS = ("any", "rank", "card")

SETTINGS_KEY = "reader"
CHOICES: dict[str, tuple[str, ...]] = {
    "sharpen_agree": SHARPEN_AGREEMENTS,
    "face_choice": FACE_CHOICES,
    "shape_agree": SHAPE_AGREEMENTS,
}


class SettingsError(ValueError):
    """A model's reader settings are missing or wrong (the message names the file and the
    key). A model file is the project's, not the organiser's: the message is English."""


@dataclass(frozen=True)
class ReaderSettings:
    """The tuned values of the runtime reader's rules (see the module's note)."""

    # --- one card from its two indices (``vision.join``)
    # How far apart a card's two index boxes lie, in index sizes (centre to centre over
    # the longer side): the labelled pairs' span, widened for the detector's looser boxes.
    pair_span: tuple[float, float]
    # Two boxes sharing this share of the smaller one's area are one index read twice.
    overlap: float
    # --- the classifier (``vision.classify.CardClassifier``)
    # How sure an upright read must be that a box is no belote card for the first read to
    # leave its other turns unread: there the reader answers as with the full read; lower,
    # the other turns would send a few such boxes to a second look.
    none_first: float
    # --- the index detector (``vision.classify.IndexDetector``)
    # The index sizes it answers for (pixels at one level); a coarser level's box under
    # ``fine_side`` gives way to the finer level's (tighter there); no read is sure of a
    # box under ``min_read_side`` pixels at the first level (outside what the thresholds
    # were calibrated on); two boxes overlapping ``merge_overlap`` (IoU) box one index;
    # the closer look cuts ``refine_window`` pixels around a box, the index
    # ``refine_side`` pixels tall.
    detector_min_side: float
    detector_max_side: float
    fine_side: float
    min_read_side: float
    merge_overlap: float
    refine_side: float
    refine_window: int
    # --- indices crowding one another (cards spread overlapping, ``vision.frame``)
    # This many boxes or more, each within ``crowd_span`` box sides of the next, are
    # boxed again closer up (a fan shows several; pairs would run the pass on most game
    # frames for nothing), with ``crowd_margin`` sides around them, at ``crowd_zoom``
    # times the first level's scale, when their sides come to at most ``crowd_largest``
    # pixels there.
    crowd_least: int
    crowd_span: float
    crowd_margin: float
    crowd_zoom: float
    crowd_largest: float
    # --- the sharpened frame (``vision.sharpened``)
    # A frame leaving a card unsure is sharpened when smeared along one line at least
    # this long (pixels), its cepstrum's trough this deep; a card named only there needs
    # ``sharpened_sure`` and agreeing doubts (``sharpen_agree``): the smear can hide a
    # suit, and a sure read of a sharpened frame is less often right than a first read.
    sharpen_length: float
    sharpen_depth: float
    sharpened_sure: float
    sharpen_agree: str
    # How far around a doubt the frame is sharpened, in the doubt's own size on every
    # side: a card read there counts where its span covers the doubt, and it is found
    # and read from what lies about it, so the looser agreements need a wider margin.
    sharpen_surroundings: float
    # The streak (``vision.motion``): the cepstrum of ``motion_tiles`` squares across the
    # frame's middle, at most ``motion_tile`` pixels a side; its trough searched from
    # ``motion_shortest`` to ``motion_longest`` pixels from the centre; the Wiener filter
    # holding back by ``wiener_k`` where the blur left little.
    motion_tile: int
    motion_tiles: int
    motion_shortest: float
    motion_longest: float
    wiener_k: float
    # --- colour, paper and lamps (``vision.paper``)
    # A picture is grey when fewer than ``grey_share`` of a sample of its pixels have
    # their channels ``grey_spread`` levels apart or more: a colour camera's noise and
    # red ink pass it, a black-and-white camera's frame does not.
    grey_spread: int
    grey_share: float
    # The paper's colour: the mean of the brightest ``paper_share`` of a sample (at least
    # ``paper_least`` pixels). Under ``paper_cast`` (weakest channel over strongest) a
    # coloured lamp lights the frame: each channel is raised (at most ``paper_gain``
    # times); a paper darker than ``paper_dark`` says nothing of the light.
    paper_share: float
    paper_least: int
    paper_cast: float
    paper_gain: float
    paper_dark: float
    # --- grey and black decks (``vision.dark_decks``)
    # Where a box's mean grey lies between its darkest and lightest: under ``dark_ink``
    # it shows light ink on dark paper; on the negative, only boxes under
    # ``light_paper`` are read. A frame with ``dark_least`` such boxes or more, and
    # ``dark_share`` of its boxes, holds a deck printed on black paper; so does one where
    # ``dark_least`` and ``named_dark_share`` of the boxes read as a card lie under
    # ``light_paper`` (a checked cloth's many boxes would hide it from the first).
    dark_ink: float
    light_paper: float
    dark_least: int
    dark_share: float
    named_dark_share: float
    # A spade's two doubtful indices on a black deck's negative count for less: the
    # wrong cards such pairs named there were spades.
    negative_spade_pair_exponent: float
    # --- one card filling a picture (``vision.face``)
    # A picture larger than ``face_large`` times ``face_side`` (its longer side) is read
    # first brought down to ``face_side``, the height of a card in the frames the reader
    # learnt from.
    face_side: int
    face_large: float
    face_choice: str
    # The card filling a picture: its width over its height, the picture's margin each
    # side (share of its side), an index's centre from the card's corner (shares of the
    # card's width and height).
    face_aspect: float
    face_margin: float
    face_inset: tuple[float, float]
    # A doubtful read of another card lying this much nearer (over the card's height)
    # where the card has its indices than the best placed sure read wins (the sure read
    # is a neighbour's).
    face_doubt_nearer: float
    shape_agree: str
    # Two doubtful reads of one card at opposite corners (each within ``face_pair_near``
    # card heights of where an index is) name it when their joint chance reaches
    # ``face_pair_accept``.
    face_pair_near: float
    face_pair_accept: float
    # --- the levels a frame is boxed at (``vision.classify.IndexDetector``)
    # The finest level, as a share of the frame's own size: the camera's frames (what the
    # thresholds were calibrated on) from ``camera_finest``; a still picture
    # (``CardReader(still=True)``) from ``still_finest``, where its smaller cards are.
    camera_finest: float
    still_finest: float
    # --- whether the cards are of a size the reader reads (``vision.card_size``)
    # Cards as a share of the frame's height: the reader was trained within
    # ``card_share`` (smaller, most indices are too small; larger, a card at a seat's edge
    # leaves the frame) and reads every card of the card-size benchmark's frames from
    # ``card_good_from``; an index's box over its card's height (``index_per_card``)
    # tells a card's share from its indices' (the cards may be half hidden).
    card_share: tuple[float, float]
    card_good_from: float
    index_per_card: float
    # --- an enrolled deck (``vision.deck``, ``vision.enroll``)
    # Each comparison method's rule (accept, margin, none_below, general: see
    # ``vision.deck.Rule``), for number cards and for courts and aces (their indices have
    # fewer twins among cards no enrolment shows): the loosest that named no wrong card
    # on the training designs (``vision.lab.deck_rules``, ``vision.lab.enroll_bench``).
    deck_prototype: tuple[float, float, float, float]
    deck_prototype_courts: tuple[float, float, float, float]
    deck_template: tuple[float, float, float, float]
    deck_template_courts: tuple[float, float, float, float]
    # The linear read's rules per kind (its ``margin`` unused), chosen the same way; its
    # fit: full-batch gradient descent, ``linear_steps`` steps of ``linear_step``, weight
    # decay ``linear_decay``.
    deck_linear_numbers: tuple[float, float, float, float]
    deck_linear_courts: tuple[float, float, float, float]
    linear_steps: int
    linear_step: float
    linear_decay: float
    # The chance a box read through the deck gets: above every threshold of the general
    # model's reads, first or second look.
    deck_sure: float
    # Enrolment's looks: ``enroll_looks`` cuts per index before the quarter turns (and as
    # many as the camera shows it, brought down to ``camera_index_sides`` pixels tall:
    # a card at the table prints its index about this tall); the card laid in
    # ``table_frames`` table frames, as tall as ``table_card_share`` of the frame.
    enroll_looks: int
    camera_index_sides: tuple[float, float]
    table_frames: int
    table_card_share: tuple[float, float]
    # Where a card prints its index: within these shares of its short and long sides from
    # a corner (designs differ; the detector's box in the zone gives the index itself); a
    # box there is the index when the general model gives it ``index_chance`` of being
    # the card (a court's picture, its printed name or a number card's pips give boxes
    # there too, read as no belote card).
    corner_zone: tuple[float, float]
    index_chance: float
    # --- card outlines (``vision.locate.find_cards``: enrolment's pictures, design A)
    # A frame is searched at most ``outline_width`` pixels wide (cards seen from above stay
    # tens of pixels wide there; the search's cost grows with the area). An outline is a
    # card's when its area lies within ``outline_area`` of the frame's, its long side over
    # its short within ``outline_aspect`` (photos are stretched, perspective adds more),
    # it strays from its quadrilateral by at most ``outline_eps`` of its perimeter, and
    # fills at least ``outline_fill`` of it.
    outline_width: int
    outline_area: tuple[float, float]
    outline_aspect: tuple[float, float]
    outline_eps: float
    outline_fill: float
    # --- the second look's cuts (``vision.locate.look_crops``)
    # Where the first read of a box is unsure, the index is cut again from the same box a
    # little smaller, larger and shifted each way (a detector box is often loose): each
    # cut (size factor, shift x, shift y; shifts in the box's longer side), the first the
    # first read's own. The second look's calibration was fitted on these cuts.
    look_cuts: tuple[tuple[float, float, float], ...]

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise SettingsError(f"{name}: {value!r} is none of {', '.join(choices)}")

    def to_json(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            return [plain(x) for x in v] if isinstance(v, tuple) else v

        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


_HINTS = typing.get_type_hints(ReaderSettings)


def _value(key: str, kind: Any, raw: Any) -> Any:
    """``raw`` as a value of ``kind`` (float, int, str, bool, or a tuple of those or of
    tuples)."""
    if typing.get_origin(kind) is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:  # a list of any length, one kind
            if not isinstance(raw, list) or not raw:
                raise ValueError("expected a list")
            return tuple(_value(key, args[0], r) for r in raw)
        if not isinstance(raw, list) or len(raw) != len(args):
            raise ValueError(f"expected a list of {len(args)} numbers")
        return tuple(_value(key, a, r) for a, r in zip(args, raw, strict=True))
    if kind is bool:
        if not isinstance(raw, bool):
            raise ValueError("expected true or false")
        return raw
    if kind is str:
        if not isinstance(raw, str):
            raise ValueError("expected a string")
        return raw
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueError("expected a number")
    if kind is int:
        if raw != int(raw):
            raise ValueError("expected a whole number")
        return int(raw)
    if not math.isfinite(float(raw)):
        raise ValueError("expected a finite number")
    return float(raw)


def settings_from(raw: Any, where: str = "settings") -> ReaderSettings:
    """The settings record of a model JSON's ``"reader"`` object ``raw``; ``where`` names
    its file in the errors. Every field is required, of its type; no unknown key."""
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}: no {SETTINGS_KEY!r} object (the reader's tuned values)")
    unknown = sorted(set(raw) - set(_HINTS))
    if unknown:
        raise SettingsError(f"{where}: {SETTINGS_KEY}.{unknown[0]}: unknown setting")
    values: dict[str, Any] = {}
    for name, kind in _HINTS.items():
        if name not in raw:
            raise SettingsError(f"{where}: {SETTINGS_KEY}.{name}: missing")
        try:
            values[name] = _value(name, kind, raw[name])
        except ValueError as e:
            raise SettingsError(f"{where}: {SETTINGS_KEY}.{name}: {e} "
                                f"(got {raw[name]!r})") from None
    try:
        return ReaderSettings(**values)
    except SettingsError as e:
        raise SettingsError(f"{where}: {SETTINGS_KEY}.{e}") from None


def load_settings(model_json: str | Path) -> ReaderSettings:
    """The settings record in a model's JSON file (its ``"reader"`` object)."""
    path = Path(model_json)
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SettingsError(f"{path}: unreadable ({e})") from None
    if not isinstance(meta, dict):
        raise SettingsError(f"{path}: not a model's JSON object")
    return settings_from(meta.get(SETTINGS_KEY), str(path))


@lru_cache(maxsize=1)
def shipped_settings() -> ReaderSettings:
    """The settings of the shipped index classifier (``vision/models``): what the
    helpers used without a reader (``vision.paper.white_paper``...) go by."""
    return load_settings(Path(__file__).with_name("models") / "index_classifier.json")


__all__ = ["FACE_CHOICES", "SHAPE_AGREEMENTS", "SHARPEN_AGREEMENTS", "ReaderSettings",
           "SettingsError", "load_settings", "settings_from", "shipped_settings"]
