"""Frames where a reader rule keeps the shipped classifier from a misread, found for it.

Some of the reader's rules (``vision.reader``) were chosen on frames where the classifier
of the day named a card that was not there. Their tests pin such a frame: with the rule
on, the frame names no card that is not in it and still reads some; with the rule off
(a module constant or the model's calibration changed), it names a wrong card. A
retrained classifier no longer makes those same mistakes, so each new model needs frames
of its own. This module says, for each rule, how its candidate frames are drawn, how the
rule is turned off, and what a case must show; ``--write`` searches a bounded number of
candidates with the classifier in ``vision/models`` (the cases of the classifier of
2026-12-02 first) and writes ``tests/vision/rule_cases.json`` with the classifier's
SHA-256; ``--check`` reads the stored cases again without searching.

Such mistakes are rare. With the classifier of 2026-12-02 and its own cases left out,
600 candidates (3.5 minutes each) held another case of negative_only, grey_pair_exponent
and face_pair, and none of named_dark_share and
negative_spade_pair: a new classifier may need ``--frames`` raised for those.

    python -m vision.lab.rule_cases --write [--rule NAME] [--frames 600]
    python -m vision.lab.rule_cases --check [--rule NAME]

Run ``--write`` after shipping a model: the tests refuse cases found with another one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from vision.lab.black_decks import black_style, other_bases

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "vision" / "rule_cases.json"
#: First seeds of the fresh draws of ``benchmarks/lights.py``'s other styles in black
#: (``--other-seed``): style k of ``black_decks.other_bases()`` is drawn from seed + k.
FAMILIES = tuple(19851 + 10000 * k for k in range(8))
#: Frames of each style and seed tried (``lights.py --other-frames 16``).
FRAMES_PER_STYLE = 16
#: The grey frames of ``vision.lab.pair_rule``: orell's frames are drawn from seed
#: 6100 + 17 x 11 (orell is the 12th of its training designs); other k after it.
GREY_DESIGN = "orell"
GREY_SEEDS = tuple(6100 + 17 * k for k in (11, *range(11), *range(12, 26)))
GREY_FRAMES = 96  # pair_rule's --frames
#: Seeds of the black card faces tried, one face of each card per seed.
FACE_SEEDS = tuple(range(4))
#: Candidates tried per rule at most (``--frames``), and how often progress is printed.
FRAMES = 600
PROGRESS = 25


class Shot(NamedTuple):
    """A candidate picture, the cards a person could read in it and those in sight."""

    picture: np.ndarray
    readable: set[str]
    present: set[str]


Off = Callable[[Any], AbstractContextManager[None]]


@dataclass(frozen=True)
class Rule:
    """A reader rule and its cases. ``kind``: how its frames are drawn ("black": a drawn
    style in black, "grey": orell's frames turned grey, "face": one black card's face).
    ``off(reader)`` turns the rule off for a ``with`` block, ``setup(reader)`` turns off
    another rule for both reads (one that would hide this rule's mistake). A case's frame
    names no card not in it and ``least`` readable cards or more; with the rule off, its
    ``wrong`` card (the only wrong one when ``sole``). A face case is read right, and
    unread with the rule off. ``about`` and ``turned_off`` say so in the file. ``wanted``
    cases are searched for (as many as its test had before the file), ``known`` ones (the
    cases of the classifier of 2026-12-02) first."""

    name: str
    about: str
    turned_off: str
    kind: str
    off: Off
    known: tuple[dict[str, Any], ...]
    least: int = 0
    setup: Off | None = None
    sole: bool = False
    inks: tuple[str, ...] = ("gold", "silver")
    wanted: int = 1


@contextmanager
def setting(owner: Any, name: str, value: Any) -> Iterator[None]:
    """``owner.name`` set to ``value`` for a ``with`` block, then restored."""
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


@contextmanager
def item(mapping: dict[str, Any], key: str, value: Any) -> Iterator[None]:
    """``mapping[key]`` set to ``value`` for a ``with`` block, then restored."""
    before = mapping[key]
    mapping[key] = value
    try:
        yield
    finally:
        mapping[key] = before


@contextmanager
def tuned(reader: Any, **changes: Any) -> Iterator[None]:
    """``reader.settings`` with ``changes`` (``vision.settings.ReaderSettings`` fields) for
    a ``with`` block, then restored."""
    before = reader.settings
    reader.settings = dataclasses.replace(before, **changes)
    try:
        yield
    finally:
        reader.settings = before


def _dark_decks_module() -> Any:
    import vision.dark_decks

    return vision.dark_decks


def _black(cases: list[tuple[str, str, int, int, str]]) -> tuple[dict[str, Any], ...]:
    return tuple({"base": b, "ink": i, "seed": s, "index": k, "wrong": w}
                 for b, i, s, k, w in cases)


RULES: dict[str, Rule] = {r.name: r for r in (
    # Black decks of the other drawn styles (lights.py, seeds 19851): read as they are,
    # a printed-French eight of spades was named a sure eight of hearts (0.998) and a
    # Hershey ace of diamonds an ace of spades.
    Rule("negative_only",
         "an index on black paper boxed on the negative is read there only",
         "vision.dark_decks.overlaps: never", "black",
         lambda reader: setting(_dark_decks_module(), "overlaps", lambda a, b: False),
         _black([("fr-printed-triplex", "gold", 19851 + 8, 0, "8H"),
                 ("fr-hershey", "silver", 19851 + 2, 1, "AS")]),
         least=2, wanted=2),
    # Black Hershey cards in gold on a checked cloth (seed 29851): told black by the count
    # of its dark boxes alone, a ten of spades was named a ten of diamonds.
    Rule("named_dark_share",
         "a black deck is told by its boxes read as cards",
         "settings.named_dark_share = 10.0", "black",
         lambda reader: tuned(reader, named_dark_share=10.0),
         _black([("fr-hershey", "gold", 29851 + 2, 3, "TD")]),
         least=3),
    # Black monospaced cards in gold (seed 29851): on the negative, the two indices of a
    # king of diamonds both guessed a king of spades, doubtfully.
    Rule("negative_spade_pair",
         "a spade named by two doubtful indices on the negative needs more",
         "settings.negative_spade_pair_exponent = the grey pair exponent", "black",
         lambda reader: tuned(reader, negative_spade_pair_exponent=(
             reader.classifier.pair_exponent(True))),
         _black([("en-mono", "gold", 29851 + 5, 12, "KS")]),
         least=3),
    # A grey misread of ``python -m vision.lab.pair_rule`` at exponent 1 (run 14
    # averaged): orell's 93rd frame turned grey, two doubtful indices of the queen of
    # diamonds joined as independent readings named the queen of spades.
    Rule("grey_pair_exponent",
         "a grey pair misread is left unknown at the grey pair exponent",
         "the classifier's grey pair_exponent = 1.0", "grey",
         lambda reader: item(reader.classifier.meta["grey"], "pair_exponent", 1.0),
         ({"design": GREY_DESIGN, "seed": 6100 + 17 * 11, "index": 92, "wrong": "QS"},),
         least=2, sole=True),
    # A Hershey jack of spades in gold on black paper: its negative reads it doubtfully at
    # both indices; without the rule it was left unknown.
    Rule("face_pair",
         "a black card's picture is read at both its corners",
         "settings.face_pair_accept = 1.1", "face",
         lambda reader: tuned(reader, face_pair_accept=1.1),
         ({"base": "fr-hershey", "ink": "gold", "card": "JS", "seed": 0},)),
)}


def _key(case: dict[str, Any]) -> tuple[Any, ...]:
    """What draws a case's frame: the case less its wrong card and search record."""
    return tuple(sorted((k, v) for k, v in case.items() if k not in ("wrong", "tried")))


@contextmanager
def scene(rule: Rule) -> Iterator[None]:
    """What drawing ``rule``'s frames needs, for a ``with`` block: for the grey frames,
    orell rasterised into a folder of its own (no cached designs needed), as the renderer's
    ``art-orell`` styles; nothing for the others."""
    if rule.kind != "grey":
        yield
        return
    from vision.lab import decks, render

    before = decks.DESIGNS, decks.KDE_DESIGNS, decks.DATA
    extra = list(render.EXTRA_STYLES)
    with tempfile.TemporaryDirectory() as tmp:
        decks.DESIGNS, decks.KDE_DESIGNS, decks.DATA = {GREY_DESIGN: "english"}, {}, Path(tmp)
        render._art_face.cache_clear()
        try:
            decks.build(Path(tmp), log=lambda m: None)
            render.art_styles(Path(tmp), held_out=None, french_art=True)
            yield
        finally:
            decks.DESIGNS, decks.KDE_DESIGNS, decks.DATA = before
            render.EXTRA_STYLES[:] = extra
            render._art_face.cache_clear()


def _grey(frame: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _face(base: str, ink: str, card: str, seed: int) -> Shot:
    from vision.lab.render import render_card

    face = render_card(card, black_style(base, ink), np.random.default_rng(seed))
    return Shot(face, {card}, {card})


def draw(rule: Rule, case: dict[str, Any]) -> Shot:
    """The frame of one of ``rule``'s cases, drawn again (within :func:`scene`)."""
    from vision.lab.evaluate import design_frames, design_styles

    if rule.kind == "face":
        return _face(case["base"], case["ink"], case["card"], case["seed"])
    if rule.kind == "grey":
        *_, (frame, readable, present) = design_frames(design_styles(case["design"]),
                                                      case["index"] + 1, case["seed"])
        return Shot(_grey(frame), readable, present)
    *_, (frame, readable, present) = design_frames([black_style(case["base"], case["ink"])],
                                                  case["index"] + 1, case["seed"])
    return Shot(frame, readable, present)


def streams(rule: Rule) -> list[tuple[str, str, int]]:
    """The black styles and seeds (base, ink, seed) ``rule``'s frames are drawn from, in
    the order tried: the known cases' own first, then the rest of their draws in their
    inks (frames where one classifier erred are the hard ones for the next), then each
    ink of the rule, each draw of ``FAMILIES``."""
    bases = other_bases()
    order = [(c["base"], c["ink"], c["seed"]) for c in rule.known]
    for case in rule.known:
        first = case["seed"] - bases.index(case["base"])
        order += [(base, case["ink"], first + k) for k, base in enumerate(bases)]
    order += [(base, ink, first + k) for ink in rule.inks for first in FAMILIES
              for k, base in enumerate(bases)]
    return list(dict.fromkeys(order))


def _swept(rule: Rule) -> Iterator[tuple[dict[str, Any], Shot]]:
    """``rule``'s candidates, the known cases among them, in a fixed order (within
    :func:`scene`)."""
    from vision.lab.evaluate import design_frames, design_styles

    if rule.kind == "face":
        from scorer.cards import CARD_CODES

        known = [(c["base"], c["ink"]) for c in rule.known]
        styles = list(dict.fromkeys(known + [(base, ink) for ink in rule.inks
                                             for base in other_bases()]))
        for seed in FACE_SEEDS:
            for base, ink in styles:
                for card in CARD_CODES:
                    yield ({"base": base, "ink": ink, "card": card, "seed": seed},
                           _face(base, ink, card, seed))
    elif rule.kind == "grey":
        seeds = dict.fromkeys([c["seed"] for c in rule.known] + list(GREY_SEEDS))
        for seed in seeds:
            frames = design_frames(design_styles(GREY_DESIGN), GREY_FRAMES, seed)
            for index, (frame, readable, present) in enumerate(frames):
                yield ({"design": GREY_DESIGN, "seed": seed, "index": index},
                       Shot(_grey(frame), readable, present))
    else:
        for base, ink, seed in streams(rule):
            frames = design_frames([black_style(base, ink)], FRAMES_PER_STYLE, seed)
            for index, (frame, readable, present) in enumerate(frames):
                yield ({"base": base, "ink": ink, "seed": seed, "index": index},
                       Shot(frame, readable, present))


def candidates(rule: Rule) -> Generator[tuple[dict[str, Any], Shot], None, None]:
    """``rule``'s candidate cases with their frames: its known cases first (with their
    wrong card), then the others (without), each once."""
    known = [dict(c) for c in rule.known]
    seen = {_key(c) for c in known}
    with scene(rule):
        for case in known:
            yield case, draw(rule, case)
        for case, shot in _swept(rule):
            if _key(case) not in seen:
                yield case, shot


def read(reader: Any, picture: np.ndarray) -> set[str]:
    """The cards ``reader`` names in ``picture``."""
    return {d.code for d in reader.read(picture) if d.code}


def judge(reader: Any, rule: Rule, case: dict[str, Any], shot: Shot) -> dict[str, Any] | None:
    """Whether ``case`` (its frame ``shot``) is a case of ``rule`` for ``reader``: None if
    not; else what the case adds (its wrong card, chosen when the case has none)."""
    setup = rule.setup(reader) if rule.setup else nullcontext()
    with setup:
        if rule.kind == "face":
            with rule.off(reader):
                off = reader.read_face(shot.picture)
            if off is not None and off.code is not None:
                return None
            on = reader.read_face(shot.picture)
            return {} if on is not None and on.code == case["card"] else None
        with rule.off(reader):
            wrong = read(reader, shot.picture) - shot.present
        if not wrong or (rule.sole and len(wrong) != 1):
            return None
        if "wrong" in case:
            if case["wrong"] not in wrong:
                return None
            wrong = {case["wrong"]}
        got = read(reader, shot.picture)
        if not got <= shot.present or len(got & shot.readable) < rule.least:
            return None
    return {"wrong": min(wrong)}


def _said(case: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in case.items() if k != "tried")


def search(reader: Any, rule: Rule, frames: int = FRAMES,
           log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Up to ``rule.wanted`` cases of ``rule`` for ``reader`` among its first ``frames``
    candidates, each with its wrong card and the candidate's rank (``tried``)."""
    found: list[dict[str, Any]] = []
    t0 = time.monotonic()
    tried = 0
    pool = candidates(rule)
    try:
        for case, shot in pool:
            tried += 1
            adds = judge(reader, rule, case, shot)
            if adds is not None:
                found.append({**case, **adds, "tried": tried})
                log(f"{rule.name}: case {len(found)}/{rule.wanted} at candidate {tried}: "
                    f"{_said(found[-1])}")
                if len(found) == rule.wanted:
                    break
            if tried % PROGRESS == 0:
                log(f"{rule.name}: {tried}/{frames} candidates, {len(found)} case(s), "
                    f"{time.monotonic() - t0:.0f} s")
            if tried >= frames:
                break
    finally:
        pool.close()
    log(f"{rule.name}: {len(found)} case(s) in {tried} candidates, "
        f"{time.monotonic() - t0:.1f} s")
    return found


def load(path: Path = CASES) -> dict[str, Any]:
    return json.loads(path.read_text())


def stored(path: Path = CASES) -> dict[str, Any] | None:
    return load(path) if path.is_file() else None


def check(reader: Any, rule: Rule, cases: list[dict[str, Any]],
          log: Callable[[str], None] = print) -> int:
    """The stored ``cases`` of ``rule`` read again: how many no longer hold."""
    bad = 0
    with scene(rule):
        for case in cases:
            holds = judge(reader, rule, case, draw(rule, case)) is not None
            bad += not holds
            log(f"{rule.name}: {'holds' if holds else 'DOES NOT HOLD'}: {_said(case)}")
    return bad


def _entry(rule: Rule, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {"rule": rule.about, "turned_off": rule.turned_off, "cases": cases}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true",
                      help="search cases for the shipped classifier and write them")
    mode.add_argument("--check", action="store_true",
                      help="read the stored cases again, without searching")
    p.add_argument("--rule", action="append", choices=list(RULES),
                   help="only this rule (repeatable; default: all)")
    p.add_argument("--frames", type=int, default=FRAMES,
                   help=f"candidates tried per rule at most (default {FRAMES})")
    p.add_argument("--out", type=Path, default=CASES)
    args = p.parse_args(argv)
    if args.frames < 1:
        p.error("--frames: expected a whole number from 1")
    from vision.deck import model_sha256
    from vision.reader import CardReader

    reader = CardReader(threads=1)
    digest = model_sha256(reader.classifier.model_path)
    names = args.rule or list(RULES)
    before = stored(args.out)
    if args.check:
        if before is None:
            p.error(f"{args.out}: no such file (run --write)")
        if before["model_sha256"] != digest:
            print(f"{args.out}: found with another classifier ({before['model_sha256'][:12]}, "
                  f"shipped {digest[:12]}): run python -m vision.lab.rule_cases --write",
                  file=sys.stderr)
            return 1
        missing = [n for n in names if not before["rules"].get(n, {}).get("cases")]
        bad = sum(check(reader, RULES[n], before["rules"][n]["cases"]) for n in names
                  if n not in missing)
        for n in missing:
            print(f"{n}: no case stored (run --write --rule {n})", file=sys.stderr)
        return 1 if bad or missing else 0
    if args.rule and (before is None or before["model_sha256"] != digest):
        p.error(f"{args.out}: not found with the shipped classifier; --rule keeps the other "
                "rules' cases, which need it: run --write without --rule")
    print(f"classifier {reader.classifier.model_path} ({digest[:12]}), "
          f"up to {args.frames} candidates a rule")
    found: dict[str, list[dict[str, Any]]] = {}
    seconds: dict[str, float] = {}
    for name in names:
        t0 = time.monotonic()
        found[name] = search(reader, RULES[name], args.frames)
        seconds[name] = time.monotonic() - t0
    for n in names:
        if found[n] and len(found[n]) < RULES[n].wanted:
            print(f"{n}: {len(found[n])} of {RULES[n].wanted} cases found: the tests read "
                  "those", file=sys.stderr)
    print("search time: " + ", ".join(f"{n} {s:.1f} s" for n, s in seconds.items()))
    same = before is not None and before["model_sha256"] == digest
    rules = dict(before["rules"]) if same and before is not None else {}
    # A rule with no case is written so (its test then fails and says so), unless the
    # file holds cases of it found with this classifier (a shorter search found none).
    rules.update({n: _entry(RULES[n], found[n]) for n in names
                  if found[n] or not rules.get(n, {}).get("cases")})
    out: dict[str, Any] = {
        "about": "Frames where a reader rule keeps the classifier of model_sha256 from a "
                 "misread (python -m vision.lab.rule_cases --write).",
        "model_sha256": digest,
        "rules": {n: rules[n] for n in RULES if n in rules}}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {args.out}")
    empty = [n for n in RULES if not out["rules"].get(n, {}).get("cases")]
    for n in empty:
        print(f"{n}: no case found (its test fails until one is): with the rule off "
              f"({RULES[n].turned_off}), this classifier named no card that was not there in "
              f"the candidates tried. Search more (--write --rule {n} --frames N), or judge "
              "whether the rule is still needed, and its test with it.", file=sys.stderr)
    return 1 if empty else 0


if __name__ == "__main__":
    sys.exit(main())
