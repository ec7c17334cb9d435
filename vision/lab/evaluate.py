"""Score the card reader on a folder of labelled images (``belote-table vision eval DIR``).

Two folder layouts are understood, whoever made them:

* ``DIR/labels.json`` maps image names (relative to DIR) to the cards visible
  in each: strings (``"TH"``) or objects with a ``"label"`` key. Labels outside
  the 32-card deck (``5C``, ``BACK``, ``JOKER``...) are things the reader must
  NOT report. The full reader runs on every image; the answer gives
  ``images``, ``precision``, ``recall``, ``perfect_images`` (share of images
  whose reported set equals the true set of belote cards) and ``confusions``.
  ``fixes`` (a corrections file, see :mod:`vision.lab.labelfix`) corrects the
  labels first, without touching ``labels.json``. A label object with
  ``"readable": false`` is a card in the frame that no one could name there
  (its rank or suit sign hidden): it still counts in the figures above, and
  ``readable`` gives the same figures over the other cards (that card then
  need not be reported, and is not invented when it is named right). One
  with ``"index_seen": false`` too is a card whose indices are both out of
  sight: the figures above leave it out (naming it is inventing it), the
  ``readable`` ones take it as the other unreadable cards.
* otherwise ``DIR/<LABEL>/*.jpg|png``, one card per image: ``images`` and
  ``accuracy`` (a non-belote label is right when no belote card is reported).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from scorer.cards import CARD_CODES
from vision.imagefile import IMAGE_SUFFIXES
from vision.lab.labelfix import LabelFixError, apply_fixes, load_fixes
from vision.reader import CardReader, load_image

if TYPE_CHECKING:
    import numpy as np

_BELOTE = set(CARD_CODES)


class EvalError(ValueError):
    """The folder cannot be evaluated; the message says where and why."""


def _labels_of(entry: object, where: str) -> tuple[list[str], set[str]]:
    """One image's labels, and those of them marked ``"readable": false``."""
    if not isinstance(entry, list):
        raise EvalError(f"{where}: expected a list of labels, got {type(entry).__name__}")
    out, unreadable = [], set()
    for i, item in enumerate(entry):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("label"), str):
            if item.get("index_seen") is not False:
                out.append(item["label"])
            if item.get("readable") is False:
                unreadable.add(item["label"])
        else:
            raise EvalError(f"{where}[{i}]: expected a string or an object with a 'label'")
    return out, unreadable


def load_labels(directory: Path, fixes: str | Path | None = None
                ) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """The labels of a folder's frames (name -> labels), corrected by ``fixes`` if given,
    and per image the labels marked ``"readable": false`` (those whose indices are out
    of sight among them; images with none are left out)."""
    path = directory / "labels.json"
    try:
        raw = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise EvalError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(raw, dict):
        raise EvalError(f"{path}: expected an object mapping image names to labels")
    read = {name: _labels_of(entry, f"{path}: {name}") for name, entry in raw.items()}
    labels = {name: found for name, (found, _) in read.items()}
    unreadable = {name: marked for name, (_, marked) in read.items() if marked}
    if fixes is None:
        return labels, unreadable
    try:
        return apply_fixes(labels, load_fixes(fixes), source=str(path)), unreadable
    except LabelFixError as e:
        raise EvalError(str(e)) from e


def _figures(tp: int, fp: int, fn: int) -> dict:
    return {"cards": tp + fn,
            "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
            "recall": round(tp / (tp + fn), 4) if tp + fn else 1.0,
            "invented": fp, "missed": fn}


def eval_scenes(reader: CardReader, directory: Path,
                keep: Callable[[str], bool] | None = None,
                fixes: str | Path | None = None) -> dict:
    """Precision, recall and perfect images over a labelled folder of frames."""
    labels, hidden = load_labels(directory, fixes)
    names = [n for n in sorted(labels) if keep is None or keep(n)]
    tp = fp = fn = perfect = 0
    readable = [0, 0, 0]  # tp, fp, fn over the cards a person could name
    confusions: Counter[str] = Counter()
    for name in names:
        frame = load_image(directory / name)
        truth = {c for c in labels[name] if c in _BELOTE}
        read = {d.code for d in reader.read(frame) if d.code is not None}
        tp += len(truth & read)
        invented = sorted(read - truth)
        missed = sorted(truth - read)
        fp += len(invented)
        fn += len(missed)
        perfect += truth == read
        mine = hidden.get(name, set())
        readable[0] += len((truth - mine) & read)
        readable[1] += len(read - truth - mine)
        readable[2] += len(truth - mine - read)
        # One missed and one invented in the same image: a misread, most likely.
        if len(invented) == 1 and len(missed) == 1:
            confusions[f"{missed[0]}->{invented[0]}"] += 1
        else:
            confusions.update(f"{m}->-" for m in missed)
            confusions.update(f"-->{c}" for c in invented)
    n = len(names)
    out = {"images": n, **_figures(tp, fp, fn),
           "perfect_images": round(perfect / n, 4) if n else 0.0,
           "confusions": dict(confusions.most_common())}
    if hidden:
        out["readable"] = _figures(*readable)
    return out


def eval_card_folders(reader: CardReader, directory: Path,
                      keep: Callable[[str], bool] | None = None) -> dict:
    """Accuracy over ``DIR/<LABEL>/*.jpg|png``, one card per image."""
    right = total = 0
    confusions: Counter[str] = Counter()
    for sub in sorted(p for p in directory.iterdir() if p.is_dir()):
        for path in sorted(sub.iterdir()):
            if path.suffix.lower() not in IMAGE_SUFFIXES or (keep and not keep(path.name)):
                continue
            total += 1
            found = reader.read_face(load_image(path))
            code = found.code if found else None
            expected = sub.name if sub.name in _BELOTE else None
            if code == expected:
                right += 1
            else:
                confusions[f"{sub.name}->{code or '-'}"] += 1
    if total == 0:
        raise EvalError(f"{directory}: no labels.json and no <LABEL>/*.jpg|png images")
    return {"images": total, "accuracy": round(right / total, 4),
            "confusions": dict(confusions.most_common())}


def evaluate(reader: CardReader, directory: str | Path,
             keep: Callable[[str], bool] | None = None,
             fixes: str | Path | None = None) -> dict:
    """Evaluate a folder in whichever layout it has (``fixes``: labels.json folders only)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise EvalError(f"{directory}: not a folder")
    if (directory / "labels.json").is_file():
        return eval_scenes(reader, directory, keep, fixes)
    if fixes is not None:
        raise EvalError(f"{directory}: --fixes corrects a labels.json, and this folder has none")
    return eval_card_folders(reader, directory, keep)


def _label_of(annotation: dict) -> str | dict:
    """A rendered thing's entry in ``labels.json`` (see :func:`make_synthetic_set`)."""
    code = annotation["code"]
    if not annotation["belote"] or annotation["readable"]:
        return code
    if not annotation["index_boxes"]:
        return {"label": code, "readable": False, "index_seen": False}
    return {"label": code, "readable": False}


#: The JPEG quality synthetic evaluation frames are saved at.
SAVED_QUALITY = 92


def as_saved(frame: np.ndarray) -> np.ndarray:
    """``frame`` (BGR) as it reads back once saved as a JPEG at ``SAVED_QUALITY``: the
    benchmarks read rendered frames so, as the evaluation sets store them."""
    import cv2

    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
    if not ok:
        raise RuntimeError("cannot encode a frame")
    out: np.ndarray = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def synthetic_frames(n: int, seed: int, decks: str = "french", **scene: object):
    """The frames :func:`make_synthetic_set` writes, one at a time, with what is in them.

    Yields ``(name, frame, annotations, faults)``: the image's name, the BGR frame
    before it is saved, the renderer's annotations (see
    :func:`vision.lab.render.render_scene`) and the camera faults it was given (see
    :func:`vision.lab.render.degrade`). The same ``seed`` gives the same frames.
    """
    import numpy as np

    from vision.lab.render import english_styles, french_styles, render_scene

    styles = french_styles() if decks == "french" else english_styles()
    rng = np.random.default_rng(seed)
    for i in range(n):
        style = styles[int(rng.integers(len(styles)))]
        faults: dict = {}
        frame, annotations = render_scene(rng, n_cards=int(rng.integers(4, 10)), style=style,
                                          faults=faults, **scene)  # type: ignore[arg-type]
        yield f"{decks}-{seed}-{i:04d}.jpg", frame, annotations, faults


def design_styles(design: str) -> list[str]:
    """The renderer's two styles of one cached deck design (its art, two layouts)."""
    return [f"art-{design}", f"art-{design}-piquet"]


def design_scenes(styles: list[str], n: int, seed: int):
    """``n`` frames of the given styles in turn, saved and read back as JPEG.

    Yields ``(frame, annotations, faults)``: the decoded frame, the renderer's
    annotations and the camera faults it was given (see
    :func:`vision.lab.render.render_scene`). The same ``seed`` gives the same frames.
    """
    import numpy as np

    from vision.lab.render import render_scene

    rng = np.random.default_rng(seed)
    for i in range(n):
        style = styles[i % len(styles)]
        faults: dict = {}
        frame, things = render_scene(rng, n_cards=int(rng.integers(4, 10)), style=style,
                                     faults=faults)
        yield as_saved(frame), things, faults


def design_frames(styles: list[str], n: int, seed: int):
    """The frames of :func:`design_scenes`. Yields ``(frame, readable, present)``: the
    decoded frame and its :func:`cards_in_sight`."""
    for frame, things, _ in design_scenes(styles, n, seed):
        yield (frame, *cards_in_sight(things))


def cards_in_sight(things: list[dict]) -> tuple[set[str], set[str]]:
    """The belote cards of a rendered frame's annotations a person could name, and all
    those in sight (naming one of these is no invention)."""
    readable = {a["code"] for a in things if a["belote"] and a["readable"]}
    present = {a["code"] for a in things
               if a["belote"] and (a["index_boxes"] or a["visible_fraction"] > 0)}
    return readable, present


def make_synthetic_set(out: str | Path, n: int, seed: int, decks: str = "french",
                       **scene: object) -> Path:
    """Write ``n`` rendered table frames and their ``labels.json`` (a folder ``eval`` reads).

    A frame's labels are the things whose corner index can be seen (the
    renderer's ``index_boxes``): belote cards to report, and negatives (a 5,
    a joker) not to. A card with no index showing both its rank and its suit
    sign is written ``{"label": code, "readable": false}`` (the renderer's
    ``readable``); a card in sight with both indices hidden, with
    ``"index_seen": false`` too (see the module's notes). Seeds used here are
    never used by training.
    """
    import cv2

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    labels: dict[str, list[str | dict]] = {}
    for name, frame, things, _ in synthetic_frames(n, seed, decks, **scene):
        cv2.imwrite(str(out / name), frame, [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
        labels[name] = [_label_of(a) for a in things
                        if a["index_boxes"] or a["belote"] and a["visible_fraction"] > 0]
    (out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    return out


#: The bands :func:`miss_breakdown` sorts a readable card into: the card's height as a
#: share of the frame's (``belote-table calibrate`` says SMALL under 23 %), and how much
#: of its best index's rank and suit sign is seen (a person reads it from 80 %).
CARD_SHARE_BANDS = ((0.0, 0.23, "under 23 %"), (0.23, 0.30, "23-30 %"),
                    (0.30, 1.0, "30 % and over"))
SHOWN_BANDS = ((0.0, 0.95, "80-95 % of the index seen"),
               (0.95, 2.0, "95 % and more of the index seen"))


def miss_breakdown(cards: list[dict], invented: list[dict] | None = None) -> dict:
    """Where the readable cards the reader missed were: figures by camera blur, by
    the card's size in the frame and by how much of its index was seen.

    ``cards`` holds one dict per readable belote card of a frame: ``read`` (named
    right), ``blur`` ("none", "focus", "motion": :func:`vision.lab.render.degrade`),
    ``share`` (the card's height over the frame's) and ``shown`` (the share seen of
    its best index, see the renderer's ``index_shown``). ``invented`` holds one dict
    per card named that is not in the frame, with the frame's ``blur``. Each group
    gives ``cards``, ``missed``, ``invented`` and ``read_right`` (a percentage).
    """
    invented = invented or []

    def figures(rows: list[dict], wrong: list[dict]) -> dict:
        missed = sum(not r["read"] for r in rows)
        return {"cards": len(rows), "missed": missed, "invented": len(wrong),
                "read_right": round(100.0 * (len(rows) - missed) / len(rows), 2)
                if rows else None}

    def band(value: float, bands: tuple) -> str:
        return next(name for low, high, name in bands if low <= value < high)

    out: dict[str, dict] = {"all": figures(cards, invented)}
    out["by camera blur"] = {
        kind: figures([r for r in cards if r["blur"] == kind],
                      [r for r in invented if r["blur"] == kind])
        for kind in ("none", "focus", "motion")}
    out["by card size"] = {
        name: figures([r for r in cards if band(r["share"], CARD_SHARE_BANDS) == name], [])
        for _, _, name in CARD_SHARE_BANDS}
    out["by index seen"] = {
        name: figures([r for r in cards if band(r["shown"], SHOWN_BANDS) == name], [])
        for _, _, name in SHOWN_BANDS}
    out["sharp, index fully seen"] = figures(
        [r for r in cards if r["blur"] == "none" and r["shown"] >= SHOWN_BANDS[1][0]],
        [r for r in invented if r["blur"] == "none"])
    return out


def make_table_set(out: str | Path, n: int, seed: int, decks: str = "french",
                   every: int = 25, card_share: tuple[float, float] = (0.17, 0.36)) -> Path:
    """Write ``n`` frames of games in play and their ``labels.json`` (a folder ``eval`` reads).

    Where :func:`make_synthetic_set` piles cards, backs, jokers, coins and
    hands at random, this films the table as it is during a game
    (:class:`vision.lab.virtual_table.VirtualTable`, one hand per game): each
    player's card slid in by a hand and lying in front of them, hands passing
    over, the trick swept away. Each game gets its own table and camera (cloth,
    light, tilt as the scenes'; a card's height over the frame's drawn from
    ``card_share``, by default the scenes' range), and every ``every``-th frame
    (from a random start) is kept, degraded as a camera would (blur, noise,
    JPEG: :func:`vision.lab.render.degrade`). Labels as :func:`make_synthetic_set`'s.
    """
    import cv2
    import numpy as np

    from vision.lab.render import degrade
    from vision.lab.virtual_table import VirtualTable, random_table

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    labels: dict[str, list[str | dict]] = {}
    while len(labels) < n:
        table = random_table(rng, card_share)
        film = VirtualTable(seed=int(rng.integers(2**31)), hands=1, style=decks,
                            size=(1280, 720), table=table, glare=0.05)
        start = int(rng.integers(every))
        for i, (_, frame) in enumerate(film):
            if i % every != start or len(labels) >= n:
                continue
            annotations = film.scene.annotations(film.occluders)
            name = f"table-{decks}-{seed}-{len(labels):04d}.jpg"
            cv2.imwrite(str(out / name), degrade(frame, rng, 1.0),
                        [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
            labels[name] = [_label_of(a) for a in annotations
                            if a["index_boxes"] or a["belote"] and a["visible_fraction"] > 0]
    (out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    return out


if __name__ == "__main__":
    import sys

    # python -m vision.lab.evaluate OUT N SEED french|english [table [LOW HIGH]]: write a
    # synthetic eval folder (random scenes, or with "table" frames of games in play, the
    # cards LOW to HIGH of the frame's height).
    if sys.argv[5:6] == ["table"]:
        share = (float(sys.argv[6]), float(sys.argv[7])) if len(sys.argv) > 7 else (0.17, 0.36)
        print(make_table_set(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
                             card_share=share))
    else:
        print(make_synthetic_set(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
