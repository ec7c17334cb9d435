"""Corrections to a labelled photo folder's ``labels.json``, kept apart from the data.

The real photos' labels (``scenes/labels.json`` of :func:`vision.lab.dataset.real_cards`) come
from their authors and leave out some cards (an ace at a photo's edge, an
index upside down). The corrections found on review are kept in
``vision/lab/real_label_fixes.json``; the labels file itself is never changed.
A fix names its photo and either adds a box (``add``) or changes the label of
the box at a given position (``relabel``, only while it still says ``from``):
a fix that no longer matches the labels is refused, naming the photo, rather
than applied to the wrong box.

Only the standard library is used here: ``vision eval`` and training both load it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

FIXES = Path(__file__).resolve().parent / "real_label_fixes.json"


class LabelFixError(ValueError):
    """A corrections file that cannot be read or does not match the labels."""


def load_fixes(path: str | Path = FIXES) -> dict[str, dict]:
    """The ``fixes`` object of a corrections file, checked for shape."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError as e:
        raise LabelFixError(f"{path}: no such corrections file") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LabelFixError(f"{path}: not valid JSON ({e})") from e
    fixes = raw.get("fixes") if isinstance(raw, dict) else None
    if not isinstance(fixes, dict):
        raise LabelFixError(f"{path}: expected an object with a 'fixes' object")
    for name, fix in fixes.items():
        where = f"{path}: {name}"
        if not isinstance(fix, dict) or not set(fix) <= {"add", "relabel"}:
            raise LabelFixError(f"{where}: expected an object with 'add' and/or 'relabel'")
        for item in fix.get("add", []):
            box = item.get("box") if isinstance(item, dict) else None
            if not (isinstance(item, dict) and isinstance(item.get("label"), str)
                    and isinstance(box, list) and len(box) == 4
                    and all(isinstance(v, int | float) for v in box)):
                raise LabelFixError(f"{where}: 'add' items need a 'label' and a 4-number 'box'")
        for item in fix.get("relabel", []):
            if not (isinstance(item, dict) and isinstance(item.get("at"), int)
                    and isinstance(item.get("from"), str) and isinstance(item.get("to"), str)):
                raise LabelFixError(f"{where}: 'relabel' items need 'at', 'from' and 'to'")
    return fixes


def _label(entry: object) -> object:
    return entry.get("label") if isinstance(entry, dict) else entry


def apply_fixes(labels: dict[str, list], fixes: dict[str, dict], objects: bool = False,
                belote: set[str] | None = None, source: str = "labels") -> dict[str, list]:
    """A corrected copy of ``labels`` (image name -> list of labels).

    With ``objects`` the labels are objects (``label``, ``box``, ...) and an
    added one is an object too, with ``belote`` set when ``belote`` (the belote
    codes) is given; otherwise labels are plain strings. Photos named by a fix
    but missing from ``labels`` are skipped (a folder may hold only some photos).
    """
    out = copy.deepcopy(labels)
    for name, fix in fixes.items():
        if name not in out:
            continue
        entries = out[name]
        for item in fix.get("relabel", []):
            at = item["at"]
            if not 0 <= at < len(entries) or _label(entries[at]) != item["from"]:
                raise LabelFixError(f"{source}: {name}: box {at} is not labelled "
                                    f"{item['from']!r}; the correction no longer fits")
            if isinstance(entries[at], dict):
                entries[at] = {**entries[at], "label": item["to"]}
                if belote is not None:
                    entries[at]["belote"] = item["to"] in belote
            else:
                entries[at] = item["to"]
        for item in fix.get("add", []):
            if not objects:
                entries.append(item["label"])
                continue
            entry = {"label": item["label"], "box": [float(v) for v in item["box"]],
                     "box_type": "corner_index"}
            if belote is not None:
                entry["belote"] = item["label"] in belote
            entries.append(entry)
    return out
