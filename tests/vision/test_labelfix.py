"""Corrections to a folder's labels (``vision.lab.labelfix``, ``vision eval --fixes``)."""

from __future__ import annotations

import json
import shutil

import pytest

from cli.cmd_vision import main
from scorer.cards import CARD_CODES
from vision.lab.dataset import scene_labels
from vision.lab.labelfix import FIXES, LabelFixError, apply_fixes, load_fixes

PHOTO = "IMG_20220921_195322.jpg"  # an ace of spades at its edge that the labels leave out


def _fixes_file(tmp_path, fixes):
    path = tmp_path / "fixes.json"
    path.write_text(json.dumps({"fixes": fixes}))
    return path


def test_apply_adds_and_relabels_without_touching_the_input():
    labels = {"a.jpg": ["QH", "QH"], "b.jpg": ["7S"]}
    fixes = {"a.jpg": {"add": [{"label": "AS", "box": [1, 2, 3, 4]}],
                       "relabel": [{"at": 1, "from": "QH", "to": "3C"}]},
             "not-here.jpg": {"add": [{"label": "TD", "box": [0, 0, 1, 1]}]}}
    fixed = apply_fixes(labels, fixes)
    assert fixed == {"a.jpg": ["QH", "3C", "AS"], "b.jpg": ["7S"]}
    assert labels == {"a.jpg": ["QH", "QH"], "b.jpg": ["7S"]}


def test_apply_to_label_objects_keeps_boxes_and_the_belote_flag():
    labels = {"a.jpg": [{"label": "QH", "box": [5, 5, 9, 9], "belote": True}]}
    fixes = {"a.jpg": {"add": [{"label": "AS", "box": [1, 2, 3, 4]}],
                       "relabel": [{"at": 0, "from": "QH", "to": "3C"}]}}
    fixed = apply_fixes(labels, fixes, objects=True, belote=set(CARD_CODES))["a.jpg"]
    assert fixed[0] == {"label": "3C", "box": [5, 5, 9, 9], "belote": False}
    assert fixed[1]["label"] == "AS" and fixed[1]["box"] == [1.0, 2.0, 3.0, 4.0]
    assert fixed[1]["belote"] is True


def test_a_fix_that_no_longer_fits_is_refused_naming_the_photo():
    fixes = {"a.jpg": {"relabel": [{"at": 0, "from": "QH", "to": "3C"}]}}
    with pytest.raises(LabelFixError, match="a.jpg: box 0 is not labelled 'QH'"):
        apply_fixes({"a.jpg": ["KS"]}, fixes)


@pytest.mark.parametrize("content, message", [
    ("{", "not valid JSON"),
    ('{"fixes": []}', "'fixes' object"),
    ('{"fixes": {"a.jpg": {"drop": []}}}', "'add' and/or 'relabel'"),
    ('{"fixes": {"a.jpg": {"add": [{"label": "AS", "box": [1, 2]}]}}}', "4-number 'box'"),
    ('{"fixes": {"a.jpg": {"relabel": [{"at": "0", "from": "QH", "to": "3C"}]}}}',
     "'at', 'from' and 'to'"),
])
def test_malformed_fixes_are_refused(tmp_path, content, message):
    path = tmp_path / "fixes.json"
    path.write_text(content)
    with pytest.raises(LabelFixError, match=message):
        load_fixes(path)


def test_the_shipped_fixes_fit_the_real_labels(real_cards):
    raw = scene_labels(real_cards)
    fixed = scene_labels(real_cards, FIXES)
    fixes = load_fixes()
    assert set(fixes) <= set(raw)
    for name, fix in fixes.items():
        added = fixed[name][len(raw[name]):]
        assert [a["label"] for a in added] == [item["label"] for item in fix.get("add", [])]
        assert all(a["belote"] == (a["label"] in CARD_CODES) for a in fixed[name])


def test_eval_with_fixes_counts_the_card_the_labels_left_out(capsys, tmp_path, real_cards):
    folder = tmp_path / "scenes"
    folder.mkdir()
    shutil.copy(real_cards / "scenes" / PHOTO, folder / PHOTO)
    labels = {PHOTO: ["4C"]}
    (folder / "labels.json").write_text(json.dumps(labels))
    assert main(["eval", str(folder)]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["cards"] == 0 and plain["invented"] == 1  # the reader sees the ace
    assert main(["eval", str(folder), "--fixes", str(FIXES)]) == 0
    fixed = json.loads(capsys.readouterr().out)
    assert fixed["cards"] == 1 and fixed["invented"] == 0 and fixed["recall"] == 1.0
    assert fixed["fixes"] == str(FIXES)
    assert json.loads((folder / "labels.json").read_text()) == labels


def test_eval_with_bad_fixes_exits_2_and_changes_nothing(capsys, tmp_path, real_cards):
    folder = tmp_path / "scenes"
    folder.mkdir()
    shutil.copy(real_cards / "scenes" / PHOTO, folder / PHOTO)
    (folder / "labels.json").write_text(json.dumps({PHOTO: ["4C"]}))
    stale = _fixes_file(tmp_path, {PHOTO: {"relabel": [{"at": 0, "from": "QH", "to": "3C"}]}})
    before = (folder / "labels.json").read_bytes()
    assert main(["eval", str(folder), "--fixes", str(stale)]) == 2
    assert "no longer fits" in capsys.readouterr().err
    assert main(["eval", str(folder), "--fixes", str(tmp_path / "missing.json")]) == 2
    assert "no such corrections file" in capsys.readouterr().err
    assert (folder / "labels.json").read_bytes() == before


def test_fixes_need_a_labels_file(capsys, tmp_path):
    (tmp_path / "7H").mkdir()
    assert main(["eval", str(tmp_path), "--fixes", str(FIXES)]) == 2
    assert "has none" in capsys.readouterr().err
